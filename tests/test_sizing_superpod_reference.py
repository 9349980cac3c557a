"""The rail-optimized sizing reproduces NVIDIA's DGX SuperPOD compute-fabric tables.

DGX H100 SuperPOD (QM9700, radix 64, 8 rails, one node slot per fabric for UFM,
which takes 4 leaf ports), and the DGX B200 SuperPOD's larger configurations
(same layout, 32 nodes per SU). Rows from ../shared/DESIGN.md.
"""

import pytest

from rules.models import TopologyKind
from rules.sizing import size_rail_optimized


def cables(topology, tier):
    return next((c.count for c in topology.cables if c.tier == tier), 0)


# SUs, nodes, leaf, spine, node+UFM cables, leaf-spine cables
H100_TABLE = [
    (1, 31, 8, 4, 252, 256),
    (2, 63, 16, 8, 508, 512),
    (3, 95, 24, 16, 764, 768),
    (4, 127, 32, 16, 1020, 1024),
]


@pytest.mark.parametrize("sus, nodes, leaf, spine, node_cables, leaf_spine", H100_TABLE)
def test_h100_superpod_rows_are_reproduced_exactly(sus, nodes, leaf, spine, node_cables, leaf_spine):
    t = size_rail_optimized(nodes)  # defaults: 8 rails, radix 64, 400G, 1 slot + 4 cables for UFM
    assert t.kind is TopologyKind.rail_optimized
    assert (t.scalable_units, t.tiers, t.rails) == (sus, 2, 8)
    assert (t.leaf_switches, t.spine_switches, t.core_switches) == (leaf, spine, 0)
    assert cables(t, "node-leaf") == node_cables
    assert cables(t, "leaf-spine") == leaf_spine
    assert t.endpoints == nodes * 8


def test_three_su_spines_round_up_to_a_divisor_of_the_leaf_uplinks():
    t = size_rail_optimized(95)
    assert t.spine_switches == 16  # 12 would carry 768 cables, but 32 uplinks must spread evenly
    assert any("smallest divisor of 32" in note and "16" in note for note in t.notes)


def test_spines_are_not_doubled_to_reach_a_divisor():
    # 5 SU: 40 leaves x 32 uplinks need 20 spines; the next divisor of 32 is 32, 60 % more
    t = size_rail_optimized(160, reserved_endpoints=0)
    assert (t.leaf_switches, t.spine_switches) == (40, 20)
    assert t.cables[1].count == 40 * 32 <= 20 * 64


# SUs, leaf, spine, core (B200 SuperPOD reference, no reserved slot in the table)
LARGE_TABLE = [
    (8, 64, 32, 0),
    (16, 128, 128, 64),
    (32, 256, 256, 128),
    (64, 512, 512, 256),
]


@pytest.mark.parametrize("sus, leaf, spine, core", LARGE_TABLE)
def test_large_superpod_rows_are_reproduced_exactly(sus, leaf, spine, core):
    t = size_rail_optimized(sus * 32, reserved_endpoints=0)
    assert t.scalable_units == sus
    assert (t.leaf_switches, t.spine_switches, t.core_switches) == (leaf, spine, core)
    assert t.tiers == (3 if core else 2)
    # B200 table cable counts: node-leaf = leaf-spine = spine-core = GPUs
    assert cables(t, "node-leaf") == cables(t, "leaf-spine") == sus * 256
    assert cables(t, "spine-core") == (sus * 256 if core else 0)


@pytest.mark.parametrize("sus, leaf, spine, core", LARGE_TABLE)
def test_large_rows_hold_with_a_node_slot_reserved_for_ufm(sus, leaf, spine, core):
    t = size_rail_optimized(sus * 32 - 1)
    assert (t.scalable_units, t.leaf_switches, t.spine_switches, t.core_switches) == (sus, leaf, spine, core)


@pytest.mark.parametrize("sus, leaf, spine, core", LARGE_TABLE)
def test_a_fabric_manager_slot_never_adds_an_su_when_every_slot_holds_a_node(sus, leaf, spine, core):
    t = size_rail_optimized(sus * 32)  # H100 convention asked, but no slot is free
    assert (t.scalable_units, t.leaf_switches, t.spine_switches, t.core_switches) == (sus, leaf, spine, core)
    assert t.cables[0].count == sus * 256  # no UFM cables on the compute leaves
    assert any("attaches outside the compute leaves" in note for note in t.notes)


def test_64_su_of_2048_nodes_is_512_leaf_512_spine_256_core():
    t = size_rail_optimized(2048, reserved_endpoints=0)
    assert (t.scalable_units, t.leaf_switches, t.spine_switches, t.core_switches) == (64, 512, 512, 256)


# DGX B300 SuperPOD with XDR (Q3400, 144 ports, 72 nodes per SU), Table 3 of
# https://docs.nvidia.com/dgx-superpod/reference-architecture/scalable-infrastructure-b300-xdr/latest/dgx-superpod-architecture.html
# SUs, leaf, spine. 36 spines at 8 SU: 32 would carry 4,608 cables, 36 divides the 72 uplinks.
B300_XDR_TABLE = [(1, 8, 4), (2, 16, 8), (4, 32, 18), (8, 64, 36), (18, 144, 72)]


@pytest.mark.parametrize("sus, leaf, spine", B300_XDR_TABLE)
def test_b300_xdr_superpod_rows_follow_from_the_same_rules(sus, leaf, spine):
    t = size_rail_optimized(sus * 72, radix=144, link_gbps=800, reserved_endpoints=0)
    assert (t.scalable_units, t.leaf_switches, t.spine_switches, t.core_switches) == (sus, leaf, spine, 0)
    assert cables(t, "leaf-spine") == sus * 576
    assert cables(t, "node-leaf") == sus * 576
