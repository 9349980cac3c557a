"""NDR hosts stay on Quantum-2 leaves when the fabric needs Quantum-X800 above them
(issue 22, "Quantum-X800 under NDR hosts").

QM9700 (64 ports) holds at most 65,536 NDR ports in three tiers, so 100,000 H100 used to
move every tier, leaves included, to the Q3400 XDR switch, its XDR ports running the hosts'
400G NDR. NVIDIA documents the mixed layout instead: "When Quantum-2 is part of an XDR
topology, serving as a leaf switch connected to NDR-based hosts ..." (NVIDIA ConnectX-7
Adapter Cards Firmware Release Notes v28.47.1026, known issue 4705241; the same in the
ConnectX-8 release notes v40.47.1088 LTS). So the leaves are QM9700 (32-node SUs as in the
DGX SuperPOD), the spines and core Q3400 at NDR (144 ports), a BOM line per model.
"""

from __future__ import annotations

from collections import Counter

import pytest

from rules.engine import recommend
from rules.models import Recommendation, WorkloadProfile
from rules.physical import checks
from rules.physical.floor import resolve
from rules.physical.graph import Layout, build_graph
from rules.platform import platform_for
from rules.sizing import size_rail_optimized


@pytest.fixture(scope="module")
def h100_100k() -> Recommendation:
    return recommend(WorkloadProfile(workload="training", gpu_count=100000, gpu_model="H100"))


def test_100k_h100_put_their_ndr_hosts_on_quantum_2_leaves_under_quantum_x800_spines(h100_100k):
    t = h100_100k.topology
    assert h100_100k.fabric.link_gbps == 400
    assert h100_100k.fabric.switch_model == "NVIDIA Quantum-2 QM9700"
    assert (t.radix, t.spine_switch, t.spine_radix) == (64, "Q3400", 144)
    # 391 SU of 32 nodes, 8 leaves each; pods of 72 leaves under 32 Q3400 spines each
    assert (t.scalable_units, t.leaf_switches, t.spine_switches, t.core_switches) == (391, 3128, 1392, 696)
    assert any("4705241" in note and "Quantum-2 is part of an XDR topology" in note for note in t.notes)


def test_the_bill_of_materials_has_a_switch_line_per_model(h100_100k):
    lines = {
        line.part_number: line
        for line in h100_100k.bill_of_materials
        if line.fabric == "compute" and line.category == "switch"
    }
    assert lines["MQM9700-NS2F"].quantity == 3128
    assert lines["Q3400-RA"].quantity == 1392 + 696


def test_the_mixed_fabric_costs_less_than_quantum_x800_in_every_tier(h100_100k):
    compute = next(part for part in h100_100k.cost.by_fabric if part.name == "compute")
    lines = [line for line in h100_100k.bill_of_materials if line.fabric == "compute" and line.category == "switch"]
    mixed_switches = sum(line.quantity * line.unit_usd_low for line in lines)
    q3400 = next(line for line in lines if line.part_number == "Q3400-RA")
    all_xdr = (1392 + 1392 + 696) * q3400.unit_usd_low  # the former all-Q3400 design's counts
    assert mixed_switches < all_xdr
    assert compute.usd_low > mixed_switches


@pytest.mark.parametrize("nodes", [620, pytest.param(3000, marks=pytest.mark.slow)])
def test_a_mixed_fabric_wires_with_each_tier_at_its_own_radix(nodes):
    topology = size_rail_optimized(nodes, spine_radix=144)
    platform = platform_for("H100")
    graph = build_graph(Layout.of(topology, platform), resolve(platform))
    ports = Counter(
        (kind, n) for _, kind, n in ((v, d["kind"], d["ports"]) for v, d in graph.nodes(data=True)) if kind != "host"
    )
    assert ports[("leaf", 64)] == topology.leaf_switches
    assert ports[("spine", 144)] == topology.spine_switches
    assert ports[("core", 144)] == topology.core_switches
    assert checks.problems(graph, topology.bisection_gbps) == []


def test_a_cluster_quantum_2_holds_stays_all_quantum_2():
    rec = recommend(WorkloadProfile(workload="training", gpu_count=24576, gpu_model="H100"))
    assert rec.topology.spine_switch is None and rec.topology.spine_radix is None
    models = {
        line.part_number for line in rec.bill_of_materials if line.fabric == "compute" and line.category == "switch"
    }
    assert models == {"MQM9700-NS2F"}


def test_xdr_hosts_keep_quantum_x800_in_every_tier():
    rec = recommend(WorkloadProfile(workload="training", node_count=576, gpu_model="B300"))
    assert rec.topology.spine_switch is None
    assert (rec.topology.leaf_switches, rec.topology.spine_switches) == (64, 36)


def test_quantum_x800_spines_take_their_own_rack_height_on_the_floor():
    from rules.physical.build import physical_build
    from rules.physical.graph import place

    topology = size_rail_optimized(3000, spine_radix=144)
    platform = platform_for("H100")
    mixed = topology.model_copy(update={"spine_switch": "Q3400"})
    built = physical_build(mixed.model_dump_json(), platform, 8, True, "QM9700", None)
    same = physical_build(topology.model_dump_json(), platform, 8, True, "QM9700", None)
    assert built is not None and same is not None
    assert built.layout.upper_units == 4 and same.layout.upper_units == 0  # Q3400 is 4U, QM9700 1U
    racks = {r for r in place(built.layout, built.floor, built.switch_units).spine_racks}
    racks_1u = {r for r in place(same.layout, same.floor, same.switch_units).spine_racks}
    assert len(racks) > len(racks_1u)
