"""Spectrum-X twin planes for ConnectX-8 servers: NVIDIA's DGX SuperPOD B300 (Spectrum-X)
RA, Table 3 (F13/F14): each GPU 2 x 400GbE, one link into each of two disjoint planes;
two tiers; 1 / 2 / 4 / 8 / 16 SU = 16 / 32 / 64 / 128 / 256 leaf and 8 / 16 / 32 / 64 /
128 spine. The RA counts 512 node-leaf and 512 leaf-spine cables per SU, cables of two
400G links each; the design counts the 400G links (1,024 per SU per tier)."""

from __future__ import annotations

from collections import Counter

import pytest

from advisor.render.cabling import cabling_build
from rules.engine import recommend
from rules.models import WorkloadProfile
from rules.physical import checks
from rules.physical.cabling import part_totals, plan_rows
from rules.physical.floor import resolve
from rules.physical.graph import Layout, build_graph
from rules.platform import platform_for
from tests.test_physical_tally import service_networks_agree_with_the_bom

# SUs, GPUs, leaf, spine (B300 Spectrum-X RA Table 3)
TABLE_3 = [(1, 512, 16, 8), (2, 1024, 32, 16), (4, 2048, 64, 32), (8, 4096, 128, 64), (16, 8192, 256, 128)]


def spectrum_x(gpus: int):
    return recommend(WorkloadProfile(workload="training", gpu_count=gpus, gpu_model="B300", prefer="rocev2"))


@pytest.mark.parametrize("sus, gpus, leaf, spine", TABLE_3)
def test_b300_on_spectrum_x_is_two_400g_planes_as_table_3(sus, gpus, leaf, spine):
    rec = spectrum_x(gpus)
    t = rec.topology
    assert (t.planes, t.tiers, t.scalable_units) == (2, 2, sus)
    assert (t.leaf_switches, t.spine_switches, t.core_switches) == (leaf, spine, 0)
    assert {c.tier: (c.count, c.gbps) for c in t.cables} == {
        "node-leaf": (2 * gpus, 400),
        "leaf-spine": (2 * gpus, 400),
    }
    assert rec.fabric.switch_model and "SN5600" in rec.fabric.switch_model
    assert "2 planes of 400GbE" in rec.fabric.name


def test_the_design_states_what_a_failure_costs():
    notes = " ".join(spectrum_x(4096).topology.notes)
    assert "half their bandwidth" in notes and "keeps running" in notes


def test_the_two_planes_wire_disjoint_and_every_gpu_reaches_both():
    topology = spectrum_x(512).topology
    platform = platform_for("B300")
    graph = build_graph(Layout.of(topology, platform), resolve(platform))
    assert checks.problems(graph, topology.bisection_gbps) == []
    planes_of_host: Counter[tuple[str, int]] = Counter(
        (data["a"], data["plane"]) for *_, data in graph.edges(data=True) if data["tier"] == "node-leaf"
    )
    assert set(planes_of_host.values()) == {8}  # 8 links of every node into each plane
    assert len(planes_of_host) == 2 * 64


def test_a_cable_joining_the_planes_fails_the_check():
    topology = spectrum_x(512).topology
    platform = platform_for("B300")
    graph = build_graph(Layout.of(topology, platform), resolve(platform))
    graph.add_edge(
        "p1-spine0001", "p2-spine0001", tier="leaf-spine", a="p1-spine0001", a_port=200, b="p2-spine0001",
        b_port=200, gbps=400, plane=0, length_m=5.0, media="multimode",
    )  # fmt: skip
    assert checks.planes_joined(graph)


def test_the_twin_plane_plan_agrees_with_its_bill_of_materials():
    rec = spectrum_x(1024)
    build = cabling_build(rec)
    assert build is not None
    every_row = list(plan_rows(build))
    rows = [r for r in every_row if r[13] == "compute"]
    assert len(rows) == rec.topology.total_cables
    bom = Counter(
        {
            line.part_number: line.quantity
            for line in rec.bill_of_materials
            if line.fabric == "compute" and line.category in ("transceiver", "fibre", "cable")
        }
    )
    assert part_totals(rows, build) == bom
    service_networks_agree_with_the_bom(rec, every_row)
