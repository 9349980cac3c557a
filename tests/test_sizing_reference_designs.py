"""Published reference designs reproduced through `engine.recommend`, not only the sizing
functions: what a customer asking for that cluster is told.

Sources (each row's table):
- DGX SuperPOD B200 RA, "DGX SuperPOD Architecture" (SU = 32 nodes; 4 SU = 32 leaf / 16 spine ...):
  https://docs.nvidia.com/dgx-superpod/reference-architecture-scalable-infrastructure-b200/latest/dgx-superpod-architecture.html
- DGX SuperPOD B300-XDR RA, Table 3 (Q3400, 72 nodes per SU):
  https://docs.nvidia.com/dgx-superpod/reference-architecture/scalable-infrastructure-b300-xdr/latest/dgx-superpod-architecture.html
- DGX SuperPOD GB200 RA, "Network Fabrics" (SU = 8 DGX GB200 racks, 72 GPUs per NVLink domain):
  https://docs.nvidia.com/dgx-superpod/reference-architecture-scalable-infrastructure-gb200/latest/network-fabrics.html
"""

from __future__ import annotations

import re

import pytest

import knowledge
from rules.engine import recommend
from rules.models import Technology, TopologyKind, WorkloadProfile


def cables(topology, tier: str) -> int:
    return next((c.count for c in topology.cables if c.tier == tier), 0)


def design(**fields):
    return recommend(WorkloadProfile(workload="training", **fields))


# SUs, leaf, spine, core: the B200 RA's compute fabric table
B200_ROWS = [(4, 32, 16, 0), (8, 64, 32, 0), (16, 128, 128, 64), (32, 256, 256, 128), (64, 512, 512, 256)]


@pytest.mark.parametrize("sus, leaf, spine, core", B200_ROWS)
def test_b200_superpod_rows_through_recommend(sus, leaf, spine, core):
    rec = design(gpu_count=sus * 256, gpu_model="B200")
    t = rec.topology
    assert rec.fabric.technology is Technology.infiniband_ndr and rec.fabric.link_gbps == 400
    assert t.kind is TopologyKind.rail_optimized
    assert (t.scalable_units, t.leaf_switches, t.spine_switches, t.core_switches) == (sus, leaf, spine, core)
    assert t.tiers == (3 if core else 2)
    assert cables(t, "node-leaf") == cables(t, "leaf-spine") == sus * 256
    assert cables(t, "spine-core") == (sus * 256 if core else 0)


def test_2048_h100_gpus_are_two_tiers_of_96_switches():
    t = design(gpu_count=2048, gpu_model="H100").topology
    assert (t.tiers, t.scalable_units, t.leaf_switches, t.spine_switches) == (2, 8, 64, 32)
    unnamed = design(gpu_count=2048).topology  # no GPU named: a plain fat-tree, same count
    assert (unnamed.tiers, unnamed.total_switches) == (2, 96)


def test_16384_gpus_are_1280_switches_with_256_core():
    t = design(gpu_count=16_384, gpu_model="H100").topology
    assert (t.total_switches, t.core_switches, t.scalable_units) == (1280, 256, 64)


def test_h100_superpod_rows_keep_their_ufm_slot_through_recommend():
    t = design(node_count=127, gpu_model="H100").topology
    assert (t.scalable_units, t.leaf_switches, t.spine_switches) == (4, 32, 16)
    assert (cables(t, "node-leaf"), cables(t, "leaf-spine")) == (1020, 1024)


def test_b200_network_fabrics_table_keeps_the_ufm_slot_when_one_is_free():
    # B200 RA, Network Fabrics, Table 4: 127 nodes + UFM = 1,020 cables; 128 nodes fill 4 SU
    t = design(node_count=127, gpu_model="B200").topology
    assert (t.scalable_units, t.leaf_switches, t.spine_switches, cables(t, "node-leaf")) == (4, 32, 16, 1020)
    full = design(node_count=128, gpu_model="B200").topology
    assert (full.scalable_units, cables(full, "node-leaf")) == (4, 1024)


def test_sixteen_dgx_h100_are_four_leaves_and_two_spines():
    t = design(node_count=16, gpu_model="H100").topology
    assert (t.tiers, t.leaf_switches, t.spine_switches) == (2, 4, 2)
    assert cables(t, "node-leaf") == 128 and cables(t, "leaf-spine") == 128  # non-blocking


# SUs, nodes, leaf, spine: Table 3 of the DGX SuperPOD B300-XDR RA
B300_XDR_ROWS = [(1, 72, 8, 4), (8, 576, 64, 36)]


@pytest.mark.parametrize("sus, nodes, leaf, spine", B300_XDR_ROWS)
def test_b300_xdr_superpod_rows_through_recommend(sus, nodes, leaf, spine):
    rec = design(node_count=nodes, gpu_model="B300")
    t = rec.topology
    assert (rec.fabric.technology, rec.fabric.link_gbps) == (Technology.infiniband_xdr, 800)
    assert rec.fabric.switch_model == "NVIDIA Quantum-X800 Q3400" and rec.fabric.switch_radix == 144
    assert (t.scalable_units, t.tiers, t.leaf_switches, t.spine_switches, t.core_switches) == (sus, 2, leaf, spine, 0)
    assert cables(t, "node-leaf") == cables(t, "leaf-spine") == nodes * 8
    assert {c.gbps for c in t.cables} == {800}
    compute = next(p for p in rec.ports_per_server if p.role == "compute")
    assert (compute.count, compute.gbps) == (8, 800)


@pytest.mark.parametrize(
    "model, technology, gbps",
    [("A100", "rocev2", 200), ("H100", "rocev2", 400), ("B300", "rocev2", 800)],
)
def test_roce_runs_at_the_speed_of_the_nic(model, technology, gbps):
    rec = design(gpu_count=256, gpu_model=model, prefer="rocev2")
    assert (rec.fabric.technology, rec.fabric.link_gbps) == (technology, gbps)
    # B300's ConnectX-8 runs Spectrum-X's twin planes: "RoCEv2 over 800GbE as 2 planes of 400GbE"
    assert rec.fabric.name.startswith(f"RoCEv2 over {gbps}GbE")


def test_a_preferred_generation_the_nics_cannot_carry_says_so_and_what_was_chosen():
    rec = design(gpu_count=256, gpu_model="H100", prefer="infiniband_xdr")
    assert rec.fabric.technology is Technology.infiniband_ndr
    assert any("You asked for InfiniBand XDR" in w and "400 Gb/s instead" in w for w in rec.warnings)
    honoured = design(gpu_count=256, gpu_model="B300", prefer="infiniband_xdr")
    assert honoured.fabric.technology is Technology.infiniband_xdr
    assert any(r.rule_id == "prefer-ib-xdr-honoured" for r in honoured.explanation)


def _stated(text: str, sus: int, counts: tuple[int, ...]) -> bool:
    """ "4 SU (128 B200 nodes, 1,024 GPUs) = 32 leaf / 16 spine", "8 SU = 64 / 32"."""
    figures = r"\s*/\s*".join(rf"{n}(?:\s+(?:leaf|spine|core))?" for n in counts)
    return re.search(rf"\b{sus} SU(?: \([^)]*\))? = {figures}\b", text) is not None


def test_the_knowledge_bases_superpod_switch_counts_are_the_rows_the_sizing_reproduces():
    """The knowledge answer and the recommendation must not disagree on a reference row."""
    entry = knowledge.entry("practice-superpod-switch-counts")
    assert entry is not None
    b200, b300 = entry.text.split("B300-XDR")
    for sus, leaf, spine, core in B200_ROWS:
        assert _stated(b200, sus, (leaf, spine, core) if core else (leaf, spine)), sus
    for sus, _, leaf, spine in B300_XDR_ROWS:
        assert _stated(b300, sus, (leaf, spine)), sus
