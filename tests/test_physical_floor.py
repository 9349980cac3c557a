"""The floor model and media by reach: where racks stand decides each run's length, the
length decides the medium, and the bill of materials prices that medium."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from rules.engine import recommend
from rules.models import FloorSettings, WorkloadProfile
from rules.physical.floor import resolve, stock_length
from rules.physical.graph import Layout, build_graph
from rules.physical.media import media_for
from rules.platform import platform_for
from rules.sizing import size_rail_optimized


@pytest.mark.parametrize(
    "metres, gbps, kind",
    [
        (2, 400, "dac"),
        (3, 400, "dac"),
        (7, 400, "multimode"),
        (50, 400, "multimode"),
        (60, 400, "single-mode DR"),
        (100, 400, "single-mode DR"),
        (150, 400, "single-mode FR"),
        (2000, 400, "single-mode FR"),
        (2, 800, "single-mode DR"),  # XDR: no copper or multimode part
        (2, 200, "dac"),
        (20, 200, "aoc"),
    ],
)
def test_the_medium_is_the_cheapest_that_reaches(metres, gbps, kind):
    assert media_for(metres, gbps, switch_ends=True).kind == kind


def test_a_server_end_takes_the_part_its_cages_take():
    twin = media_for(10, 400, switch_ends=False, twin_port=True)
    single = media_for(10, 400, switch_ends=False, twin_port=False)
    assert [p.key for p in twin.parts if p.end == "a"] == ["optic/twin-flat/400"]
    assert [p.key for p in single.parts if p.end == "a"] == ["optic/single/400"]
    assert [p.key for p in media_for(80, 400, switch_ends=False).parts if p.end == "a"] == ["optic/single-dr/400"]


def test_runs_round_up_to_stock_lengths():
    assert [stock_length(x) for x in (0.5, 3.1, 48, 51, 333)] == [1, 5, 50, 60, 340]  # past 100 m: whole tens


def test_servers_per_rack_follow_the_reference_architecture_and_the_rack_power():
    assert resolve(platform_for("H100")).servers_per_rack == 4  # DGX SuperPOD H100 RA
    assert resolve(platform_for("B200"), FloorSettings(rack_kw=30)).servers_per_rack == 2  # 14.3 kW each
    assert resolve(platform_for("GB200"), FloorSettings(servers_per_rack=4)).servers_per_rack == 1  # NVL72 = rack
    assert resolve(platform_for("H100"), FloorSettings(servers_per_rack=2)).servers_per_rack == 2


def graph_of(nodes: int, gpu: str = "B200", floor: FloorSettings | None = None):
    topology = size_rail_optimized(nodes, reserved_endpoints=0)
    platform = platform_for(gpu)
    return build_graph(Layout.of(topology, platform), resolve(platform, floor))


def test_lengths_vary_within_a_tier():
    graph = graph_of(256)  # 8 SU, two tiers
    lengths: dict[str, set[float]] = {}
    for *_, data in graph.edges(data=True):
        lengths.setdefault(data["tier"], set()).add(data["length_m"])
    assert len(lengths["node-leaf"]) >= 2
    assert len(lengths["leaf-spine"]) >= 2


def test_fewer_servers_per_rack_make_longer_runs():
    default = graph_of(256)
    sparse = graph_of(256, floor=FloorSettings(servers_per_rack=1))
    total = lambda g: sum(d["length_m"] for *_, d in g.edges(data=True))  # noqa: E731
    assert total(sparse) > total(default)
    assert sparse.graph["rows"] > default.graph["rows"]


def test_a_fabric_whose_switches_fit_one_rack_joins_them_with_copper():
    graph = graph_of(31, gpu="H100")  # 8 leaves + 4 spines of 1U: one network rack
    media = Counter(d["media"] for *_, d in graph.edges(data=True) if d["tier"] == "leaf-spine")
    assert media == {"dac": 256}


@pytest.mark.slow
def test_a_16384_gpu_design_cables_its_spine_and_core_links_in_single_mode():
    rec = recommend(WorkloadProfile(workload="training", gpu_count=16384, gpu_model="H100"))
    notes = {
        line.part_number: line.note
        for line in rec.bill_of_materials
        if line.fabric == "compute" and line.category != "spare"
    }
    assert rec.topology.tiers == 3
    single_mode = [n for n in notes.values() if "single-mode" in n]
    assert any("leaf-spine" in n for n in single_mode) and any("spine-core" in n for n in single_mode)
    assert not any("multimode" in n and ("leaf-spine" in n or "spine-core" in n) for n in notes.values())
    assert "MMS4X00-NS" in notes  # NVIDIA's twin-port single-mode DR8


def test_the_floor_set_on_the_profile_changes_the_bill_of_materials():
    near = recommend(WorkloadProfile(workload="training", gpu_count=8192, gpu_model="B200"))
    far = recommend(
        WorkloadProfile(workload="training", gpu_count=8192, gpu_model="B200", floor=FloorSettings(servers_per_rack=1))
    )
    parts = lambda r: {line.part_number for line in r.bill_of_materials if line.fabric == "compute"}  # noqa: E731
    assert "MMS4X00-NS" not in parts(near)  # 32 SU, 16 rows: every run within multimode's 50 m
    assert "MMS4X00-NS" in parts(far)  # one DGX per rack: 32 rows, spine runs past 50 m


def test_the_floor_assumptions_are_in_the_design_and_documented_with_sources():
    rec = recommend(WorkloadProfile(workload="training", gpu_count=1024, gpu_model="H100"))
    floor = next(n for n in rec.topology.notes if n.startswith("Floor: "))
    assert "4 server(s) per compute rack" in floor and "TIA-942" in floor and "service loop" in floor
    assert any(n.startswith("Media by reach (NVIDIA LinkX product specifications") for n in rec.topology.notes)
    doc = (Path(__file__).resolve().parents[1] / "docs" / "reference-designs.md").read_text()
    table = doc.split("### The floor model and media by reach (assumptions, with sources)", 1)[1]
    for assumption, source in (
        ("Servers per rack", "DGX SuperPOD H100 RA"),
        ("Where switches stand", "TIA-942"),
        ("Media by reach", "NVIDIA LinkX product specifications"),
    ):
        row = next(line for line in table.splitlines() if line.startswith(f"| {assumption} |"))
        assert source in row
