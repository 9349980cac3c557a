"""Network cost: port-equivalents x a $/unit calibrated on a priced reference fabric."""

import pytest

from rules.sizing import fabric_units, network_cost, single_node, size_fat_tree, size_rail_optimized, usd_per_unit


def reference():
    """The seed guide's 16-node DGX H100 InfiniBand HDR fabric: $200K-$400K."""
    topology = size_fat_tree(128, radix=40, link_gbps=200)
    return topology, usd_per_unit(200_000, 400_000, fabric_units(topology, nic_ports=128))


def test_fabric_units_are_switch_ports_plus_nic_ports_plus_cables():
    t = size_fat_tree(128, radix=40, link_gbps=200)
    assert fabric_units(t, 128) == t.total_switches * 40 + 128 + t.total_cables
    assert fabric_units(single_node(8), 0) == 0


def test_the_reference_fabric_costs_its_reference_price():
    topology, (low, high) = reference()
    cost = network_cost(topology, 128, low, high, basis="seed guide, 16-node DGX H100, IB HDR")
    assert (cost.network_usd_low, cost.network_usd_high) == (200_000, 400_000)
    assert cost.basis.startswith("seed guide") and "port-equivalents" in cost.basis


def test_cost_scales_with_units_and_rounds_to_thousands():
    _, (low, high) = reference()
    small = size_rail_optimized(31)
    large = size_rail_optimized(127)
    c_small = network_cost(small, 248, low, high, basis="b")
    c_large = network_cost(large, 1016, low, high, basis="b")
    assert c_large.network_usd_low > 3 * c_small.network_usd_low
    ratio = fabric_units(large, 1016) / fabric_units(small, 248)
    assert c_large.network_usd_high / c_small.network_usd_high == pytest.approx(ratio, rel=0.01)
    for c in (c_small, c_large):
        assert c.network_usd_low % 1000 == 0 and c.network_usd_high % 1000 == 0
        assert c.budget_share_low is None


def test_budget_share_is_cost_over_budget():
    topology, (low, high) = reference()
    cost = network_cost(topology, 128, low, high, basis="b", budget_usd=5_000_000)
    assert (cost.budget_share_low, cost.budget_share_high) == (0.04, 0.08)
    bigger = network_cost(topology, 128, low, high, basis="b", budget_usd=10_000_000)
    assert bigger.budget_share_high == pytest.approx(cost.budget_share_high / 2)
