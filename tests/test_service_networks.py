"""The storage, in-band and inference networks, through the real recommend path: the
storage fabric leaves room for the storage system's own ports (sized from the read the
NVIDIA DGX SuperPOD H100 reference architecture's Table 6 asks per scalable unit), GB200 and
GB300 NVL72 run storage and in-band on one converged Ethernet fabric (their RA), and every
NVL72 compute tray is cabled for inference traffic, in the ports and in the BOM alike."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from knowledge import catalogue
from rules import pricing
from rules.engine import recommend
from rules.models import BomLine, Recommendation, WorkloadProfile
from rules.platform import platform_for


def switches(rec: Recommendation, fabric: str) -> int:
    return sum(line.quantity for line in rec.bill_of_materials if line.fabric == fabric and line.category == "switch")


def links(lines: list[BomLine], fabric: str) -> int:
    """Edge (node-leaf) links cabled on a fabric: DACs and AOCs count their links (a twin-port
    DAC is two), optical links one fibre each; spares and switch-to-switch links are not."""
    total = 0
    for line in lines:
        if line.fabric != fabric or line.category not in ("cable", "fibre") or not line.note.startswith("node-leaf"):
            continue
        total += line.quantity * (2 if "twin-port OSFP to twin-port" in line.description else 1)
    return total


def test_storage_system_ports_follow_the_ra_read_per_scalable_unit():
    # 125 GB/s per 256 GPUs (Table 6, Best) = 1,000 Gb/s per SU; 4 SU = 4,000 Gb/s = 10 x 400G
    assert pricing.storage_system_ports(1024, 400) == 10
    assert pricing.storage_system_ports(256, 400) == 4  # 2.5 ports, rounded up and split over two sides
    assert pricing.storage_system_ports(16_384, 400) == 160
    assert pricing.STORAGE_READ_GBYTES_PER_SU == 125 and pricing.STORAGE_SU_GPUS == 256


def test_128_dgx_h100_leave_ports_for_the_storage_system_on_the_storage_fabric():
    rec = recommend(WorkloadProfile(workload="training", gpu_count=1024, gpu_model="H100"))
    storage = [line for line in rec.bill_of_materials if line.fabric == "storage"]
    assert {line.part_number for line in storage if line.category == "switch"} == {"MSN5600-MS2FC"}
    radix = catalogue.switch("SN5600").radix_at(400)
    # 128 DGX x 2 x 400G exactly fill 2 x SN5600 (128 x 400G each): the storage system's
    # 10 ports need more, so each side grows to a leaf-spine fabric
    server_ports = 128 * 2
    target = pricing.storage_system_ports(1024, 400)
    assert server_ports == 2 * radix and target == 10
    assert switches(rec, "storage") > 2
    assert switches(rec, "storage") * radix >= server_ports + target
    # every server port and every storage-system port has a switch-side link in the BOM
    assert links(rec.bill_of_materials, "storage") >= server_ports + target


def test_a_small_cluster_keeps_one_switch_per_side_with_free_ports_for_storage():
    rec = recommend(WorkloadProfile(workload="training", gpu_count=256, gpu_model="H100"))
    assert switches(rec, "storage") == 2
    assert links(rec.bill_of_materials, "storage") == 32 * 2 + pricing.storage_system_ports(256, 400)


@pytest.mark.parametrize("gpu", ["GB200", "GB300"])
def test_nvl72_runs_storage_and_in_band_on_one_converged_fabric(gpu):
    assert platform_for(gpu).frontend == "converged"
    assert any("Storage and In-band Ethernet Fabric" in s or "converged" in s for s in platform_for(gpu).sources)
    rec = recommend(WorkloadProfile(workload="training", gpu_count=576, gpu_model=gpu))
    fabrics = {str(line.fabric) for line in rec.bill_of_materials}
    assert "in_band" not in fabrics and "storage" in fabrics
    trays = 576 // 4
    ports = {str(p.role): p.count for p in rec.ports_per_server}
    racks = 576 // 72
    # every tray's storage and in-band ports, and the storage system's, on the one fabric
    expected = racks * (ports["storage"] + ports["inband_management"]) + pricing.storage_system_ports(576, 400)
    assert ports["storage"] == 2 * 18 and trays == racks * 18
    assert links(rec.bill_of_materials, "storage") == expected


def test_dgx_h100_keeps_separate_storage_and_in_band_fabrics():
    assert platform_for("H100").frontend == "separate"
    rec = recommend(WorkloadProfile(workload="training", gpu_count=256, gpu_model="H100"))
    assert {"storage", "in_band"} <= {str(line.fabric) for line in rec.bill_of_materials}


@pytest.mark.parametrize("gpu", ["GB200", "GB300"])
def test_every_nvl72_compute_tray_is_cabled_for_inference(gpu):
    rec = recommend(WorkloadProfile(workload="inference", gpu_count=144, gpu_model=gpu))
    promised = next(p.count for p in rec.ports_per_server if str(p.role) == "inference_traffic")
    assert promised == 18 * 2  # two per compute tray, 18 trays per rack
    racks = 2
    assert rec.topology.endpoints == racks * promised
    node_leaf = next(c.count for c in rec.topology.cables if c.tier == "node-leaf")
    assert node_leaf == racks * promised
    assert links(rec.bill_of_materials, "compute") == racks * promised


def test_the_assumptions_name_the_storage_read_and_the_converged_fabric_by_title():
    rec = recommend(WorkloadProfile(workload="training", gpu_count=1024, gpu_model="H100"))
    text = " ".join(rec.cost.assumptions)
    assert "125 GB/s" in text and "Table 6" in text and "DGX SuperPOD" in text
    assert "Storage and In-band" in text or "storage and in-band Ethernet fabric" in text
    assert ".yaml" not in text and math.isfinite(rec.cost.network_usd_low)


TABLE = Path(__file__).parent.parent / "docs" / "reference-designs.md"


def storage_rows() -> list[list[str]]:
    """The rows of docs/reference-designs.md, "Storage networks"."""
    text = TABLE.read_text().split("## Storage networks", 1)[1].split("\n## ", 1)[0].split("\n### ", 1)[0]
    found = []
    for line in text.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 6 and "=" in cells[1]:
            found.append(cells)
    return found


def test_the_doc_has_the_storage_rows():
    assert len(storage_rows()) >= 5


@pytest.mark.parametrize("row", storage_rows(), ids=[r[0] for r in storage_rows()])
def test_each_storage_row_is_what_the_tool_gives(row):
    design, asked, _, target, storage, in_band = row
    fields: dict[str, object] = {"workload": "training"}
    for part in asked.strip("`").split(","):
        name, value = (p.strip() for p in part.split("="))
        fields[name] = int(value) if value.isdigit() else value
    rec = recommend(WorkloadProfile.model_validate(fields))
    port = next(p for p in rec.ports_per_server if str(p.role) == "storage")
    gpus = int(str(fields["gpu_count"]))
    assert target == f"{pricing.storage_system_ports(gpus, port.gbps)} x {port.gbps}G", design
    assert storage == str(switches(rec, "storage")), design
    assert in_band.split(" ")[0] == str(switches(rec, "in_band")), design
