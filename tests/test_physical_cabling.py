"""The cabling plan: every cable of the compute fabric, the storage network (with the
storage system's ports) and the in-band network as a row, consistent with the bill of
materials line by line, network by network (row count = the topology's cables; per part,
the rows' totals = the BOM's quantity), served by the API as a streamed CSV and written by
the CLI."""

from __future__ import annotations

import csv
import io
import json
from collections import Counter

import httpx
import pytest

from advisor.render.cabling import cabling_build, cabling_csv
from rules.engine import recommend
from rules.models import FloorSettings, Recommendation, WorkloadProfile
from rules.physical.cabling import part_totals, plan_rows
from tests.test_cli import cli
from tests.test_physical_tally import service_networks_agree_with_the_bom

CABLED = ("transceiver", "fibre", "cable")


def bom_parts(rec: Recommendation) -> Counter[str]:
    return Counter(
        {
            line.part_number: line.quantity
            for line in rec.bill_of_materials
            if line.fabric == "compute" and line.category in CABLED
        }
    )


def media_totals(rows: list[tuple[object, ...]]) -> Counter[tuple[str, str]]:
    return Counter((str(r[1]), str(r[8])) for r in rows)


@pytest.mark.parametrize(
    "profile",
    [
        {"workload": "training", "gpu_count": 248, "gpu_model": "H100"},  # 1 SU + UFM, spines in the leaf rack
        {"workload": "training", "gpu_count": 4096, "gpu_model": "B200"},  # three tiers
        {"workload": "training", "gpu_count": 4608, "gpu_model": "B300"},  # XDR, single-mode throughout
        {"workload": "training", "gpu_count": 1152, "gpu_model": "GB200"},  # NVL72 racks on a fat-tree
        {"workload": "training", "gpu_count": 512, "gpu_model": "A100"},  # HDR 200G: AOCs
        {"workload": "inference", "node_count": 64, "gpu_model": "H100"},  # a serving fabric
        {"workload": "training", "gpu_count": 2048, "gpu_model": "H100", "floor": {"servers_per_rack": 1}},
    ],
)
def test_the_plan_agrees_with_the_bill_of_materials_line_by_line(profile):
    rec = recommend(WorkloadProfile.model_validate(profile))
    build = cabling_build(rec)
    assert build is not None
    every_row = list(plan_rows(build))
    rows = [r for r in every_row if r[13] == "compute"]
    assert len(rows) == rec.topology.total_cables
    assert Counter(str(r[1]) for r in rows) == {c.tier: c.count for c in rec.topology.cables if c.count}
    assert part_totals(rows, build) == bom_parts(rec)
    # every row names both ends' ports once
    ends = Counter((r[3], r[4]) for r in rows) + Counter((r[5], r[6]) for r in rows)
    assert max(ends.values()) == 1
    # media totals: one medium per tier, the BOM's notes name it with the tier's link count
    notes = " ".join(line.note for line in rec.bill_of_materials if line.fabric == "compute")
    for (tier, medium), n in media_totals(rows).items():
        assert f"{tier}: {n:,} {medium} link(s)" in notes
    # the storage (with the storage system's ports) and in-band networks, network by network
    service_networks_agree_with_the_bom(rec, every_row)


def test_a_single_server_has_no_plan():
    assert cabling_build(recommend(WorkloadProfile(workload="training", gpu_count=8, gpu_model="H100"))) is None


def test_the_plan_streams_in_chunks():
    rec = recommend(WorkloadProfile(workload="training", gpu_count=4096, gpu_model="B200"))
    build = cabling_build(rec)
    assert build is not None
    chunks = cabling_csv(build)
    first = next(chunks)
    assert first.startswith("cable,tier,plane,from_device")
    assert sum(1 for _ in chunks) >= 5  # 12,288 rows in chunks of 2,000


# ------------------------------------------------------------------------------- API


def test_the_api_serves_the_plan_of_a_stored_recommendation(api) -> None:
    profile = {"workload": "training", "gpu_count": 1024, "gpu_model": "B200", "floor": {"racks_per_row": 9}}
    created = httpx.post(api.url + "/v1/recommendations", json=profile, timeout=60)
    assert created.status_code == 201, created.text
    body = created.json()
    response = httpx.get(api.url + created.headers["location"] + "/cabling.csv", timeout=60)
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/csv")
    assert "attachment" in response.headers["content-disposition"]
    every_row = list(csv.DictReader(io.StringIO(response.text)))
    assert {r["network"] for r in every_row} == {"compute", "storage", "in_band", "out_of_band"}
    assert sum(1 for r in every_row if r["from_device"] == "storage-system") == 10  # 4 SU x 125 GB/s: 10 x 400G
    rows = [r for r in every_row if r["network"] == "compute"]
    assert len(rows) == sum(c["count"] for c in body["topology"]["cables"])
    assert {r["tier"] for r in rows} == {"node-leaf", "leaf-spine"}
    assert len({r["length_m"] for r in rows if r["tier"] == "node-leaf"}) >= 2  # lengths vary within a tier
    parts = Counter(r["cable_part"] for r in rows)
    bom: Counter[str] = Counter()
    for line in body["bill_of_materials"]:  # the spares line names the same part: not a link
        if line["fabric"] == "compute" and line["category"] != "spare":
            bom[line["part_number"]] += line["quantity"]
    for part, n in parts.items():
        assert bom[part] == n  # one fibre (or AOC) per link


def test_the_api_says_why_a_single_server_has_no_plan(api) -> None:
    created = httpx.post(api.url + "/v1/recommendations", json={"workload": "training", "gpu_count": 8}, timeout=60)
    response = httpx.get(api.url + created.headers["location"] + "/cabling.csv", timeout=30)
    assert response.status_code == 409
    assert "no compute fabric" in response.text


def test_the_api_rejects_a_floor_out_of_range(api) -> None:
    profile = {"workload": "training", "gpu_count": 1024, "floor": {"servers_per_rack": 0}}
    response = httpx.post(api.url + "/v1/recommendations", json=profile, timeout=30)
    assert response.status_code == 422
    assert "servers_per_rack" in response.text


# ------------------------------------------------------------------------------- CLI


def test_the_cli_writes_the_plan_and_takes_the_floor_flags(tmp_path):
    target = tmp_path / "cabling.csv"
    args = ("recommend", "--workload", "training", "--gpus", "512", "--gpu-model", "B200")
    result = cli(*args, "--servers-per-rack", "2", "--racks-per-row", "12", "--cabling-csv", str(target))
    assert result.returncode == 0, result.stderr
    every_row = list(csv.DictReader(target.open(encoding="utf-8", newline="")))
    rows = [r for r in every_row if r["network"] == "compute"]
    assert {r["network"] for r in every_row} >= {"compute", "storage"}
    body = json.loads(cli(*args, "--servers-per-rack", "2", "--racks-per-row", "12", "--json").stdout)
    assert body["profile"]["floor"] == {"servers_per_rack": 2, "rack_kw": None, "racks_per_row": 12}
    assert len(rows) == sum(c["count"] for c in body["topology"]["cables"])
    assert str(target) in result.stdout


def test_the_cli_exits_2_when_there_is_nothing_to_cable(tmp_path):
    result = cli("recommend", "--workload", "training", "--gpus", "8", "--cabling-csv", str(tmp_path / "c.csv"))
    assert result.returncode == 2
    assert "--cabling-csv" in result.stderr and "Traceback" not in result.stderr


def test_floor_settings_are_part_of_the_profile_contract():
    assert WorkloadProfile(workload="training", gpu_count=64, floor=FloorSettings(rack_kw=40)).floor.rack_kw == 40
