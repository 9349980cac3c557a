"""Rail-optimized sizing beyond the reference table: partial SUs, other rail counts, limits."""

import pytest

from rules.sizing import FabricTooLarge, rail_optimized_capacity, size_rail_optimized


def test_a_partly_filled_su_in_a_larger_fabric_is_built_whole():
    t = size_rail_optimized(40)  # 41 slots: two SUs, the second partly filled
    assert (t.scalable_units, t.leaf_switches) == (2, 16)
    assert t.cables[1].count == 16 * 32  # every leaf of both SUs cables all its uplinks
    assert any("partly filled" in note for note in t.notes)


def test_a_cluster_smaller_than_one_su_is_not_built_as_an_empty_su():
    # 16 DGX H100: two rails per leaf fill its 32 down ports; 4 leaves, 2 spines, non-blocking
    t = size_rail_optimized(16)
    assert (t.scalable_units, t.tiers, t.leaf_switches, t.spine_switches) == (1, 2, 4, 2)
    assert t.cables[0].count == 16 * 8  # no free leaf port, so no UFM cable (and no extra leaf for one)
    assert t.cables[1].count == 4 * 32
    assert any("Smaller than one scalable unit" in note for note in t.notes)
    assert any("embedded subnet manager" in note for note in t.notes)


def test_small_clusters_put_several_whole_rails_on_a_leaf():
    t = size_rail_optimized(10)  # three rails of 10 nodes fit a leaf's 32 down ports
    assert (t.leaf_switches, t.spine_switches) == (3, 2)
    assert t.cables[0].count == 80 + 4  # two ports free per leaf: UFM takes four
    assert t.cables[1].count >= t.cables[0].count  # non-blocking


def test_eight_nodes_fit_one_switch_without_a_ufm_port():
    t = size_rail_optimized(8)  # 64 ports on a 64-port switch
    assert (t.tiers, t.leaf_switches, t.spine_switches) == (1, 1, 0)
    assert t.cables[0].count == 64


def test_a_cluster_that_fits_one_switch_has_no_spines():
    t = size_rail_optimized(16, radix=128, reserved_endpoints=0)
    assert (t.tiers, t.leaf_switches, t.spine_switches) == (1, 1, 0)
    assert [c.tier for c in t.cables] == ["node-leaf"] and t.cables[0].count == 128


def test_four_gpu_servers_get_four_rails():
    t = size_rail_optimized(60, rails=4)
    assert (t.rails, t.scalable_units, t.leaf_switches, t.spine_switches) == (4, 2, 8, 4)
    assert t.endpoints == 240


def test_the_reserved_slot_never_adds_an_su():
    assert size_rail_optimized(31).scalable_units == 1
    assert size_rail_optimized(32).scalable_units == 1
    assert size_rail_optimized(33).scalable_units == 2
    assert size_rail_optimized(32, reserved_endpoints=0).scalable_units == 1


def test_a_cluster_just_past_an_su_boundary_names_the_smaller_design():
    t = size_rail_optimized(257, reserved_endpoints=0)  # one node past 8 SU: a third tier
    note = next(n for n in t.notes if n.startswith("Past an SU boundary"))
    assert "256 nodes fill 8 SU with 96 switches" in note and "(2 -> 3)" in note


def test_no_reserved_slot_means_no_fabric_manager_cables():
    t = size_rail_optimized(32, reserved_endpoints=0)
    assert t.cables[0].count == 256


def test_fabric_manager_cables_are_limited_to_the_reserved_slot_ports():
    t = size_rail_optimized(10, rails=2, fabric_manager_cables=4)
    assert t.cables[0].count == 10 * 2 + 2


def test_more_nodes_per_su_than_half_the_radix_is_refused():
    with pytest.raises(ValueError, match="nodes_per_su"):
        size_rail_optimized(10, nodes_per_su=40)


def test_past_three_tiers_raises_fabric_too_large_with_the_node_limit():
    limit = rail_optimized_capacity(rails=8, radix=64)
    assert limit == 256 * 32  # 2,048 leaves = 256 SUs of 8 rails, every slot a node
    assert size_rail_optimized(limit).tiers == 3
    with pytest.raises(FabricTooLarge) as raised:
        size_rail_optimized(limit + 1)
    message = str(raised.value)
    assert "8,193 nodes" in message and "64-port" in message and "8,192" in message
    assert "higher-radix" in message
    assert raised.value.maximum == limit * 8
