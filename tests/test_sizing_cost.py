"""Network cost: the bill of materials summed, by fabric and category, per GPU and as a
share of the budget; ratios between fabrics computed from two such sums."""

import pytest

from knowledge.pricebook import price_book
from rules import spares
from rules.sizing import ServerSide, SwitchPart, cost_ratio, fabric_lines, network_cost, size_fat_tree


def lines(endpoints: int = 128, switch: str = "QM9700", radix: int = 64):
    topology = size_fat_tree(endpoints, radix, 400)
    server = ServerSide(nodes=endpoints // 8, ports_per_node=8, gbps=400, twin_port=True, nic_model="ConnectX-7")
    return fabric_lines("compute", topology, SwitchPart(switch), server, price_book(), spares=spares.policy())


def test_the_cost_is_the_sum_of_the_lines_to_the_nearest_thousand():
    bom = lines()
    cost = network_cost(bom, gpus=128)
    assert cost.network_usd_low == round(sum(line.usd_low for line in bom) / 1000) * 1000
    assert cost.network_usd_high == round(sum(line.usd_high for line in bom) / 1000) * 1000
    assert cost.network_usd_low % 1000 == 0 and cost.network_usd_low < cost.network_usd_high
    assert cost.basis.startswith("Sum of the bill of materials")


def test_fabrics_and_categories_add_up_to_the_whole():
    cost = network_cost(lines(), gpus=128)
    assert [part.name for part in cost.by_fabric] == ["compute"]
    names = [part.name for part in cost.by_category]
    assert names[:2] == ["switch", "nic"] and "transceiver" in names and "spare" in names
    assert sum(p.usd_high for p in cost.by_category) == pytest.approx(cost.network_usd_high, abs=1000 * len(names))


def test_included_nics_cost_nothing_and_draw_no_network_power():
    cost = network_cost(lines(), gpus=128)
    nic = next(part for part in cost.by_category if part.name == "nic")
    assert (nic.usd_low, nic.usd_high, nic.watts) == (0, 0, 0)


def test_power_and_rack_units_come_from_the_lines():
    bom = lines()
    cost = network_cost(bom, gpus=128)
    switches = next(line for line in bom if line.category == "switch")
    assert cost.rack_units == switches.quantity * switches.rack_units == 6
    assert cost.watts >= switches.quantity * switches.watts


def test_per_gpu_and_budget_share():
    cost = network_cost(lines(), gpus=128, budget_usd=5_000_000)
    assert cost.per_gpu_usd_low == round(cost.network_usd_low / 128)
    assert cost.budget_share_low == round(cost.network_usd_low / 5_000_000, 4)
    assert network_cost(lines(), gpus=128).budget_share_low is None
    with pytest.raises(ValueError, match="budget_usd"):
        network_cost(lines(), gpus=128, budget_usd=0)


def test_cost_ratio_is_the_ratio_of_midpoints():
    assert cost_ratio((200_000, 400_000), (100_000, 200_000)) == 2.0
    assert cost_ratio((1, 2), (0, 0)) == 0.0
