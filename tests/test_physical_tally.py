"""The counts a design shows and buys are read from its wiring: the recommendation's
switches and cables, and the bill of materials' switch, optic, cable and fibre lines, are
the physical build's (rules/physical/graph.py `tally`), and the cabling plan lists the
same cables part by part. The sizing formulas stay as an independent check.

- every reference row of docs/reference-designs.md (the RA tables, the Spectrum-X rows,
  the rack-scale and AMD rows) and property-generated designs: the plan's row count, its
  cables per tier, its switches, its media and its parts equal the BOM's line by line;
- the tally read by repetition (one block of each shape wired port by port) equals
  counting every link of the whole wiring;
- a wiring that holds one switch fewer is bought with one switch fewer, and the design
  says the formulas disagree.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator

import networkx as nx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rules import pricing
from rules.engine import recommend
from rules.models import Recommendation, WorkloadProfile
from rules.physical import checks, graph
from rules.physical.build import PLAN_COVERS, PhysicalBuild, physical_build
from rules.physical.cabling import build_for, part_totals, plan_rows
from rules.physical.floor import resolve
from rules.physical.graph import MANAGER, Layout, place, tally, tier_media, wire
from rules.physical.service import STORAGE_SYSTEM, ServiceNetwork
from rules.platform import platform_for
from rules.sizing import size_fat_tree, size_rail_optimized
from tests import test_reference_designs_platforms as platforms_table
from tests import test_sizing_reference_table as ra_table

CABLED = ("transceiver", "fibre", "cable")


def bom_parts(rec: Recommendation) -> Counter[str]:
    return Counter(
        {
            line.part_number: line.quantity
            for line in rec.bill_of_materials
            if line.fabric == "compute" and line.category in CABLED
        }
    )


def bom_switches(rec: Recommendation) -> int:
    return sum(
        line.quantity for line in rec.bill_of_materials if line.fabric == "compute" and line.category == "switch"
    )


def plan_agrees_with_the_bom(rec: Recommendation) -> None:
    build = build_for(rec)
    assert build is not None
    every_row = list(plan_rows(build))
    rows = [r for r in every_row if r[13] == "compute"]
    # rows: the recommendation's cables, tier by tier
    assert len(rows) == rec.topology.total_cables
    assert Counter(str(r[1]) for r in rows) == {c.tier: c.count for c in rec.topology.cables if c.count}
    # switches: every switch named in the plan is one the BOM buys, and no other
    lower = {"node-leaf": "leaf", "leaf-spine": "spine", "spine-core": "core"}
    named = {lower[str(r[1])]: set() for r in rows}
    for r in rows:
        named[lower[str(r[1])]].add(r[5])
    t = rec.topology
    assert (t.leaf_switches, t.spine_switches, t.core_switches) == tuple(
        len(named.get(k, ())) for k in ("leaf", "spine", "core")
    )
    assert bom_switches(rec) == t.total_switches
    # parts: per part number, the rows' total is the BOM's quantity
    assert part_totals(rows, build) == bom_parts(rec)
    # media: each tier's medium and link count as the BOM's lines state them
    notes = " ".join(line.note for line in rec.bill_of_materials if line.fabric == "compute")
    for (tier, medium), n in Counter((str(r[1]), str(r[8])) for r in rows).items():
        assert f"{tier}: {n:,} {medium} link(s)" in notes
    # the sizing formulas (the layout's stated counts) agree with the wiring
    layout = build.layout
    assert (build.tally.leaves, build.tally.spines, build.tally.cores) == (
        layout.planes * layout.leaves,
        layout.planes * layout.spines,
        layout.planes * layout.cores,
    )
    assert not any("The wiring holds" in n for n in t.notes)
    service_networks_agree_with_the_bom(rec, every_row)


def service_networks_agree_with_the_bom(rec: Recommendation, rows: list[tuple[object, ...]]) -> None:
    """The storage (with the storage system's ports), in-band and out-of-band networks:
    every network the BOM buys has rows, and per network the rows' cables per tier, media, parts and
    switches are the BOM's; every port is on one cable."""
    build = build_for(rec)
    assert build is not None
    ends = Counter((r[13], r[3], r[4]) for r in rows) + Counter((r[13], r[5], r[6]) for r in rows)
    assert max(ends.values()) == 1
    lower = {"node-leaf": "leaf", "leaf-spine": "spine", "spine-core": "core"}
    for fabric in ("storage", "in_band", "out_of_band"):
        lines = [line for line in rec.bill_of_materials if line.fabric == fabric]
        own = [r for r in rows if r[13] == fabric]
        assert bool(lines) == bool(own), fabric
        if not lines:
            continue
        net = build.oob if fabric == "out_of_band" else next(n for n in build.services if n.fabric == fabric)
        assert net is not None
        assert Counter(str(r[1]) for r in own) == {c.tier: c.count for c in net.topology.cables if c.count}
        parts = Counter(
            {line.part_number: line.quantity for line in lines if line.category in CABLED and not line.reused}
        )
        assert part_totals(rows, build, fabric) == parts
        notes = " ".join(line.note for line in lines)
        for (tier, medium), n in Counter((str(r[1]), str(r[8])) for r in own).items():
            assert f"{tier}: {n:,} {medium} link(s)" in notes
        switches = {str(r[5]) for r in own} | {str(r[3]) for r in own if str(r[1]) != "node-leaf"}
        assert len(switches) == sum(line.quantity for line in lines if line.category == "switch")
        assert {lower[str(r[1])] for r in own} <= set(lower.values())
        if fabric == "storage":
            assert isinstance(net, ServiceNetwork)
            gpus = rec.profile.gpu_count or 1
            target = pricing.storage_system_ports(gpus, net.gbps, net.sides)
            assert sum(1 for r in own if r[3] == STORAGE_SYSTEM) == target == net.target_ports


def reference_rows() -> Iterator[tuple[str, WorkloadProfile]]:
    for design, asked, _, tool in ra_table.rows():
        if "no compute fabric" not in tool:
            yield design, ra_table.profile(asked)
    for cells in platforms_table.rows():
        if "no compute fabric" not in cells[3]:
            yield cells[0], platforms_table.profile(cells[1])


REFERENCE = list(reference_rows())


@pytest.mark.parametrize("profile", [p for _, p in REFERENCE], ids=[d for d, _ in REFERENCE])
def test_every_reference_row_is_bought_and_cabled_from_the_wiring(profile):
    plan_agrees_with_the_bom(recommend(profile))


def _row_marks(profile: WorkloadProfile) -> list[pytest.MarkDecorator]:
    return [pytest.mark.slow] if (profile.gpu_count or 0) >= 8192 else []


@pytest.mark.parametrize("profile", [pytest.param(p, id=d, marks=_row_marks(p)) for d, p in REFERENCE])
def test_every_reference_row_has_the_stated_bisection_by_max_flow(profile):
    rec = recommend(profile)
    build = build_for(rec)
    assert build is not None
    assert checks.problems(build.graph(), rec.topology.bisection_gbps) == []


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    gpus=st.integers(min_value=16, max_value=6000),
    gpu=st.sampled_from(["H100", "B200", "B300", "GB200", "A100", "MI300X"]),
    prefer=st.sampled_from([None, "infiniband", "rocev2"]),
    workload=st.sampled_from(["training", "inference"]),
)
def test_property_generated_designs_are_bought_and_cabled_from_the_wiring(gpus, gpu, prefer, workload):
    rec = recommend(WorkloadProfile(workload=workload, gpu_count=gpus, gpu_model=gpu, prefer=prefer))
    build = build_for(rec)
    if build is None:  # one server, one NVL72 rack, or Dragonfly+: nothing wired port by port
        return
    plan_agrees_with_the_bom(rec)
    assert checks.problems(build.graph(), rec.topology.bisection_gbps) == []  # max-flow as stated


# ---------------------------------------------------------- repetition against every link


def every_link_counted(layout: Layout) -> tuple[tuple[int, int, int], dict[str, int], int]:
    platform_floor = resolve(platform_for("H100"))
    placement = place(layout, platform_floor)
    ends: dict[str, set[str]] = {}
    cables: Counter[str] = Counter()
    hosts: set[str] = set()
    for plane in range(layout.planes):
        for link in wire(layout, placement, platform_floor, plane):
            cables[link.tier] += 1
            ends.setdefault(link.tier, set()).add(link.b)
            if link.tier == "node-leaf" and link.a != MANAGER:
                hosts.add(link.a)
    switches = tuple(len(ends.get(t, ())) for t in graph.TIERS)
    return (switches[0], switches[1], switches[2]), dict(cables), len(hosts)


def tallied(layout: Layout) -> tuple[tuple[int, int, int], dict[str, int], int, bool]:
    floor = resolve(platform_for("H100"))
    placement = place(layout, floor)
    t = tally(layout, placement, floor, tier_media(layout, placement, floor))
    return (t.leaves, t.spines, t.cores), {k: v for k, v in t.cables.items() if v}, t.hosts, t.repeated


def assert_tally_is_every_link(layout: Layout) -> None:
    switches, cables, hosts, _ = tallied(layout)
    assert (switches, cables, hosts) == every_link_counted(layout)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(nodes=st.integers(min_value=2, max_value=1200), manager=st.sampled_from([0, 1]))
def test_the_rail_optimized_tally_by_repetition_is_every_link_counted(nodes, manager):
    topology = size_rail_optimized(nodes, reserved_endpoints=manager)
    assert_tally_is_every_link(Layout.of(topology, platform_for("H100")))


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(endpoints=st.integers(min_value=2, max_value=9000), per_host=st.sampled_from([None, 4, 8]))
def test_the_fat_tree_tally_by_repetition_is_every_link_counted(endpoints, per_host):
    topology = size_fat_tree(endpoints, 64, 400)
    assert_tally_is_every_link(Layout.of(topology, platform_for("H100"), ports_per_node=per_host))


@pytest.mark.parametrize(
    "profile",
    [
        {"gpu_count": 4096, "gpu_model": "B300", "prefer": "rocev2"},  # twin planes
        {"gpu_count": 24576, "gpu_model": "H100", "prefer": "rocev2"},  # a shared core
        {"gpu_count": 4608, "gpu_model": "GB200"},  # NVL72 trays on a fat-tree
        {"gpu_count": 16384, "gpu_model": "H100", "zone_gpus": 4096, "oversubscription": "2:1"},  # AI zones
    ],
)
def test_the_tally_of_a_recommended_fabric_is_every_link_counted(profile):
    build = build_for(recommend(WorkloadProfile(workload="training", **profile)))
    assert build is not None
    assert_tally_is_every_link(build.layout)


def test_a_large_fabric_is_read_by_repetition_and_a_small_one_whole():
    small = Layout.of(size_rail_optimized(31), platform_for("H100"))  # one SU, one pod
    large = Layout.of(size_rail_optimized(2048, reserved_endpoints=0), platform_for("H100"))  # 64 SU, 16 pods
    assert tallied(small)[3] is False
    assert tallied(large)[3] is True
    assert tallied(large)[:2] == ((512, 512, 256), {"node-leaf": 16384, "leaf-spine": 16384, "spine-core": 16384})


# ------------------------------------------------------------- the BOM follows the wiring


def _clear() -> None:
    physical_build.cache_clear()
    pricing._compute_lines.cache_clear()
    pricing.priced.cache_clear()


def test_a_wiring_that_holds_one_spine_fewer_is_bought_with_one_spine_fewer(monkeypatch):
    profile = WorkloadProfile(workload="training", gpu_count=2048, gpu_model="B200")  # 8 SU: 64 / 32 / 0, one pod
    _clear()
    before = recommend(profile)
    wired_pod_links = graph._pod_links

    def without_the_last_spine(layout, placement, floor, media, plane, pod):  # type: ignore[no-untyped-def]
        last = graph.spine_name(layout, layout.spines - 1, plane)
        return (link for link in wired_pod_links(layout, placement, floor, media, plane, pod) if link.b != last)

    monkeypatch.setattr(graph, "_pod_links", without_the_last_spine)
    _clear()
    try:
        after = recommend(profile)
    finally:
        monkeypatch.undo()
        _clear()
    cables = {c.tier: c.count for c in after.topology.cables}
    assert after.topology.spine_switches == before.topology.spine_switches - 1 == 31
    assert cables == {"node-leaf": 2048, "leaf-spine": 2048 - 64}  # the last spine's 64 cables
    assert bom_switches(after) == bom_switches(before) - 1
    assert sum(bom_parts(after).values()) < sum(bom_parts(before).values())
    assert any("The wiring holds 64 leaf / 31 spine / 0 core" in n for n in after.topology.notes)


def test_the_build_is_shared_by_the_design_its_price_and_its_plan():
    _clear()
    rec = recommend(WorkloadProfile(workload="training", gpu_count=16384, gpu_model="H100"))
    built = physical_build.cache_info().currsize
    assert isinstance(build_for(rec), PhysicalBuild)
    assert physical_build.cache_info().currsize == built  # the plan's build is the priced one


# ------------------------------------------------- 100,000 GPUs: the graph of one block of each shape

BIG = WorkloadProfile(workload="training", gpu_count=100_000, gpu_model="H100", model_params_b=1800)


def big_blocks() -> tuple[PhysicalBuild, nx.MultiGraph]:
    build = build_for(recommend(BIG))
    assert build is not None
    return build, build.block_graph()


@pytest.mark.slow  # a 100k-GPU graph; make test runs it, make check leaves it out
def test_the_100k_gpu_fabric_is_checked_on_the_graph_of_its_blocks():
    build, blocks = big_blocks()
    assert build.layout.kind == "rail_optimized" and build.layout.tiers == 3 and build.tally.repeated
    assert checks.ports_used_twice(blocks) == []
    assert checks.switches_over_radix(blocks) == []
    assert checks.uncabled_host_ports(blocks) == []
    # the graph holds one SU, one pod of each shape and one core group: a few thousand cables, not 300,000
    assert blocks.number_of_edges() < 20_000 < build.tally.cables["leaf-spine"]
    # read by repetition, its cables are the tally's (one plane)
    weighted = Counter()
    for _, _, data in blocks.edges(data=True):
        weighted[data["tier"]] += data["times"]
    assert dict(weighted) == {t: n // build.layout.planes for t, n in build.tally.cables.items() if n}


def test_a_port_used_twice_or_a_core_over_its_radix_in_a_block_fails_the_check():
    _, blocks = big_blocks()
    u, v, data = next((u, v, d) for u, v, d in blocks.edges(data=True) if d["tier"] == "spine-core")
    blocks.add_edge(u, v, **data)  # the same ports again
    assert checks.ports_used_twice(blocks)
    core = data["b"]
    radix = blocks.nodes[core]["ports"]
    used = sum(1 for _ in blocks.edges(core))
    for port in range(radix - used + 1):
        blocks.add_edge("spine-extra", core, **{**data, "a": "spine-extra", "a_port": port, "b_port": radix + port})
    assert any(core in p for p in checks.switches_over_radix(blocks))


def test_the_design_says_which_networks_its_cabling_plan_lists():
    rec = recommend(WorkloadProfile(workload="training", gpu_count=1024, gpu_model="H100"))
    assert PLAN_COVERS in rec.topology.notes
    build = build_for(rec)
    assert build is not None
    rows = list(plan_rows(build))
    assert {str(row[13]) for row in rows} == {"compute", "storage", "in_band", "out_of_band"}
    # the storage system's ports (4 SU x 125 GB/s = 10 x 400G, five per side) on the storage leaves
    system = [row for row in rows if row[3] == STORAGE_SYSTEM]
    assert len(system) == 10 and {row[2] for row in system} == {1, 2}
    assert all(str(row[5]).startswith("storage-") and row[10] for row in system)
    # each server's storage ports: one on each side, the server named as in the compute plan
    node = [row for row in rows if row[13] == "storage" and row[3] == "su001-node01"]
    assert sorted((row[2], row[4]) for row in node) == [(1, 1), (2, 2)]
    service_networks_agree_with_the_bom(rec, rows)


def test_a_converged_front_end_lists_its_in_band_ports_on_the_storage_fabric():
    rec = recommend(WorkloadProfile(workload="training", gpu_count=1152, gpu_model="GB200"))
    build = build_for(rec)
    assert build is not None
    rows = list(plan_rows(build))
    assert {str(row[13]) for row in rows} == {"compute", "storage", "out_of_band"}
    service_networks_agree_with_the_bom(rec, rows)


# ------------------------------------------------- NDR links on Quantum-X800 ports (mixed generation)


def test_ndr_links_on_quantum_x800_ports_carry_a_caveat_to_confirm_their_part_with_nvidia():
    rec = recommend(BIG)
    caveat = next(n for n in rec.topology.notes if n.startswith("Confirm with NVIDIA"))
    assert "Quantum-X800 Q3400" in caveat and "leaf-spine and spine-core" in caveat and "NDR (400 Gb/s)" in caveat
    assert "only in Quantum-2 and Spectrum-4" in caveat and "MMS4A00-XM" in caveat
    switch_end = [
        line
        for line in rec.bill_of_materials
        if line.fabric == "compute" and line.category == "transceiver" and "leaf-spine:" in line.note
    ]
    assert switch_end and all("confirmed with NVIDIA" in line.note for line in switch_end)
    # a fabric of one switch generation says nothing of the kind
    plain = recommend(WorkloadProfile(workload="training", gpu_count=16384, gpu_model="H100"))
    assert not any(n.startswith("Confirm with NVIDIA") for n in plain.topology.notes)


def test_spare_spines_and_cores_are_the_spines_model_where_it_differs_from_the_leaves():
    rec = recommend(BIG)
    spares = {
        line.note.split(":")[0]: line.part_number
        for line in rec.bill_of_materials
        if line.fabric == "compute" and line.description.startswith("Spare ") and " switch: " in line.description
    }
    assert spares == {"leaf": "MQM9700-NS2F", "spine": "Q3400-RA", "core": "Q3400-RA"}
