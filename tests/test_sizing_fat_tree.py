"""Fat-tree sizing: one, two and three tiers, their k^2/2 and k^3/4 limits, oversubscription."""

import pytest

from rules.sizing import FabricTooLarge, fat_tree_capacity, leaf_port_split, size_fat_tree


def test_endpoints_that_fit_one_switch_use_one_switch():
    t = size_fat_tree(64, radix=64, link_gbps=400)
    assert (t.tiers, t.leaf_switches, t.spine_switches, t.core_switches) == (1, 1, 0, 0)
    assert t.bisection_gbps == 64 * 400 / 2


@pytest.mark.parametrize("k", [40, 64, 144])
def test_two_tiers_hold_k_squared_over_two(k):
    at_limit = size_fat_tree(k * k // 2, radix=k, link_gbps=400)
    assert at_limit.tiers == 2
    assert (at_limit.leaf_switches, at_limit.spine_switches) == (k, k // 2)
    assert size_fat_tree(k * k // 2 + 1, radix=k, link_gbps=400).tiers == 3
    assert fat_tree_capacity(k, 2) == k * k // 2


@pytest.mark.parametrize("k", [40, 64])
def test_three_tiers_hold_k_cubed_over_four(k):
    t = size_fat_tree(k**3 // 4, radix=k, link_gbps=400)
    assert t.tiers == 3
    # the classic k-ary fat-tree: k^2/2 leaves, k^2/2 spines, (k/2)^2 core
    assert (t.leaf_switches, t.spine_switches, t.core_switches) == (k * k // 2, k * k // 2, (k // 2) ** 2)
    assert fat_tree_capacity(k, 3) == k**3 // 4
    with pytest.raises(FabricTooLarge):
        size_fat_tree(k**3 // 4 + 1, radix=k, link_gbps=400)


def test_fabric_too_large_names_endpoints_radix_maximum_and_the_way_out():
    with pytest.raises(FabricTooLarge) as raised:
        size_fat_tree(100_000, radix=64, link_gbps=400)
    message = str(raised.value)
    assert "100,000 endpoints" in message
    assert "64-port" in message
    assert "65,536" in message
    assert "higher-radix" in message and "oversubscribe" in message
    assert (raised.value.endpoints, raised.value.radix, raised.value.maximum) == (100_000, 64, 65_536)
    assert isinstance(raised.value, ValueError)


def test_oversubscription_moves_leaf_ports_down():
    assert leaf_port_split(64, 1.0) == (32, 32)
    assert leaf_port_split(64, 3.0) == (48, 16)
    assert leaf_port_split(64, 2.0) == (42, 22)


def test_oversubscribed_leaves_need_fewer_switches_and_give_less_bisection():
    full = size_fat_tree(1024, radix=64, link_gbps=400)
    over = size_fat_tree(1024, radix=64, link_gbps=400, oversubscription=3.0)
    assert (over.leaf_switches, over.spine_switches) == (22, 8)  # 1024/48 leaves, 22 x 16 uplinks / 64
    assert over.total_switches < full.total_switches
    assert over.oversubscription == 3.0
    assert over.bisection_gbps == pytest.approx(full.bisection_gbps / 3)


def test_oversubscription_raises_the_three_tier_limit():
    assert fat_tree_capacity(64, 3, 3.0) == 64 * 32 * 48
    assert size_fat_tree(65_537, radix=64, link_gbps=400, oversubscription=3.0).tiers == 3


def test_non_blocking_bisection_is_half_the_endpoint_bandwidth():
    t = size_fat_tree(1016, radix=64, link_gbps=400)
    assert t.bisection_gbps == 203_200


def test_spines_divide_the_leaf_uplinks_evenly():
    t = size_fat_tree(24 * 32, radix=64, link_gbps=400)  # 24 leaves: 12 spines needed
    assert t.spine_switches == 16


def test_notes_explain_the_counts():
    t = size_fat_tree(10_000, radix=64, link_gbps=400)
    text = " ".join(t.notes)
    assert "313 leaves" in text and "Three tiers" in text and "core" in text.lower()


@pytest.mark.parametrize("bad", [dict(endpoints=0), dict(radix=2), dict(oversubscription=0.5)])
def test_invalid_inputs_are_refused(bad):
    args = dict(endpoints=100, radix=64, link_gbps=400) | bad
    with pytest.raises(ValueError):
        size_fat_tree(**args)
