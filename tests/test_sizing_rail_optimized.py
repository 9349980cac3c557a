"""Rail-optimized sizing beyond the reference table: partial SUs, other rail counts, limits."""

import pytest

from rules.sizing import FabricTooLarge, rail_optimized_capacity, size_rail_optimized


def test_sixteen_nodes_fill_part_of_one_su_with_all_its_leaves():
    t = size_rail_optimized(16)
    assert (t.scalable_units, t.leaf_switches, t.spine_switches) == (1, 8, 4)
    assert t.cables[0].count == 16 * 8 + 4
    assert t.cables[1].count == 256  # the full SU's leaf-spine cables are still built
    assert any("partly filled" in note for note in t.notes)


def test_four_gpu_servers_get_four_rails():
    t = size_rail_optimized(60, rails=4)
    assert (t.rails, t.scalable_units, t.leaf_switches, t.spine_switches) == (4, 2, 8, 4)
    assert t.endpoints == 240


def test_su_count_includes_the_reserved_slot():
    assert size_rail_optimized(31).scalable_units == 1
    assert size_rail_optimized(32).scalable_units == 2
    assert size_rail_optimized(32, reserved_endpoints=0).scalable_units == 1


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
    assert limit == 256 * 32 - 1  # 2,048 leaves = 256 SUs of 8 rails
    assert size_rail_optimized(limit).tiers == 3
    with pytest.raises(FabricTooLarge) as raised:
        size_rail_optimized(limit + 1)
    message = str(raised.value)
    assert "8,192 nodes" in message and "64-port" in message and "8,191" in message
    assert "higher-radix" in message
    assert raised.value.maximum == limit * 8
