"""The bill of materials: switch counts that match the topology, parts by reach, the
other networks, every price dated and sourced, and the calibration on the seed guide's
16-node DGX H100 cluster ("switches + cables + NICs": InfiniBand $200K-$400K, 400GbE
$80K-$150K, so InfiniBand 2-3x)."""

from __future__ import annotations

import copy

import pytest

from knowledge import catalogue, sources
from knowledge.pricebook import PriceBookError, build_price_book, price_book
from rules import pricing
from rules.engine import recommend
from rules.models import ProfileDraft, Recommendation, Technology, Topology, WorkloadProfile
from rules.platform import platform_for
from rules.servers import resolve
from rules.sizing import (
    ServerSide,
    SwitchPart,
    cost_ratio,
    fabric_lines,
    link_parts,
    size_fat_tree,
    size_rail_optimized,
)

GUIDE_IB = catalogue.cost_reference().infiniband_usd  # (200_000, 400_000)
GUIDE_ETHERNET = catalogue.cost_reference().ethernet_400g_usd  # (80_000, 150_000)
IB_TOLERANCE, ETHERNET_TOLERANCE = 0.10, 0.25

H100 = platform_for("H100")


def dgx_h100(nodes: int = 16, **fields) -> Recommendation:
    return recommend(WorkloadProfile(workload="training", node_count=nodes, gpu_model="H100", **fields))


def compute_range(lines) -> tuple[float, float]:
    compute = [line for line in lines if line.fabric == "compute"]
    return sum(line.usd_low for line in compute), sum(line.usd_high for line in compute)


def within(computed: tuple[float, float], guide: tuple[int, int], tolerance: float) -> bool:
    """The computed range lies inside the guide's, widened by the tolerance at each end,
    and its midpoint inside the guide's range itself."""
    low, high = computed
    midpoint = (low + high) / 2
    return low >= guide[0] * (1 - tolerance) and high <= guide[1] * (1 + tolerance) and guide[0] <= midpoint <= guide[1]


def switch_quantity(lines, fabric: str = "compute") -> int:
    return sum(line.quantity for line in lines if line.fabric == fabric and line.category == "switch")


# ----------------------------------------------------------------------- calibration


#: 8-GPU training servers: eight compute ports each, on a compute fabric.
TRAINING_LAYOUT = pricing.ServerLayout(multi_node=True, compute_fabric=True, fabric_ports=8, edge_ports=8)


def test_calibration_on_the_16_node_design_built_directly():
    """4 QM9700 leaves (two rails each) + 2 spines, 128 node-leaf and 128 leaf-spine links
    at 400G (the design recommend gives, built here directly), against one SN5600 for 400GbE."""
    profile = WorkloadProfile(workload="training", node_count=16, gpu_model="H100")
    ib_topology = size_fat_tree(128, 64, 400)
    assert (ib_topology.leaf_switches, ib_topology.spine_switches) == (4, 2)
    assert [c.count for c in ib_topology.cables] == [128, 128]
    ib = compute_range(
        pricing.bill_of_materials(Technology.infiniband_ndr, ib_topology, "QM9700", profile, H100, TRAINING_LAYOUT)
    )
    ethernet_topology = size_fat_tree(128, 128, 400)
    assert ethernet_topology.total_switches == 1
    ethernet = compute_range(
        pricing.bill_of_materials(Technology.rocev2, ethernet_topology, "SN5600", profile, H100, TRAINING_LAYOUT)
    )
    assert within(ib, GUIDE_IB, IB_TOLERANCE), ib
    assert within(ethernet, GUIDE_ETHERNET, ETHERNET_TOLERANCE), ethernet
    assert 2 <= cost_ratio(ib, ethernet) <= 3


def test_calibration_on_the_design_the_engine_recommends_for_16_dgx_h100():
    rec = dgx_h100()
    assert rec.fabric.technology == "infiniband_ndr"
    ib = compute_range(rec.bill_of_materials)
    roce = dgx_h100(prefer="rocev2")
    assert roce.fabric.technology == "rocev2" and roce.fabric.link_gbps == 400
    ethernet = compute_range(roce.bill_of_materials)
    assert within(ethernet, GUIDE_ETHERNET, ETHERNET_TOLERANCE), ethernet
    assert within(ib, GUIDE_IB, IB_TOLERANCE), ib
    assert 2 <= cost_ratio(ib, ethernet) <= 3


def test_the_ethernet_calibration_holds_on_the_engines_own_design():
    roce = dgx_h100(prefer="rocev2")
    plain = dgx_h100(prefer="ethernet")
    for rec in (roce, plain):
        assert within(compute_range(rec.bill_of_materials), GUIDE_ETHERNET, ETHERNET_TOLERANCE)


def test_every_printed_ratio_agrees_with_the_computed_figures():
    rec = dgx_h100(budget_usd=10_000_000)
    ib = rec.cost.fabric("compute")
    roce = dgx_h100(prefer="rocev2").cost.fabric("compute")
    ratio = cost_ratio((ib.usd_low, ib.usd_high), (roce.usd_low, roce.usd_high))
    statement = next(r.statement for r in rec.explanation if r.rule_id == "ib-cost-premium")
    assert f"{ratio:.1f}x RoCEv2's" in statement
    for alternative in rec.alternatives:
        expected = cost_ratio(
            (alternative.network_usd_low, alternative.network_usd_high),
            (rec.cost.network_usd_low, rec.cost.network_usd_high),
        )
        assert alternative.relative_cost == expected
        assert f"{expected:.2f}x" in alternative.trade_off


# ------------------------------------------------------------------ switch counts


@pytest.mark.parametrize(
    "nodes, rails, radix, per_su, reserved, switches",
    [
        (31, 8, 64, 32, 1, 8 + 4),  # DGX SuperPOD H100, 1 SU
        (63, 8, 64, 32, 1, 16 + 8),
        (95, 8, 64, 32, 1, 24 + 16),
        (127, 8, 64, 32, 1, 32 + 16),
        (256, 8, 64, 32, 0, 64 + 32),  # B200, 8 SU
        (512, 8, 64, 32, 0, 128 + 128 + 64),  # B200, 16 SU
        (72, 8, 144, 72, 0, 8 + 4),  # B300-XDR, 1 SU
        (576, 8, 144, 72, 0, 64 + 36),  # B300-XDR, 8 SU
    ],
)
def test_bom_switch_lines_equal_the_reference_topologies(nodes, rails, radix, per_su, reserved, switches):
    topology = size_rail_optimized(nodes, rails, radix, 800 if radix == 144 else 400, per_su, reserved)
    assert topology.total_switches == switches
    model = "Q3400" if radix == 144 else "QM9700"
    server = ServerSide(nodes=nodes, ports_per_node=rails, gbps=800 if radix == 144 else 400, nic_model="ConnectX-7")
    assert switch_quantity(fabric_lines("compute", topology, SwitchPart(model), server, price_book())) == switches


@pytest.mark.parametrize(
    "fields",
    [
        {"workload": "training", "gpu_count": 128, "gpu_model": "H100"},
        {"workload": "training", "gpu_count": 1024, "gpu_model": "B200"},
        {"workload": "training", "gpu_count": 4608, "gpu_model": "B300"},
        {"workload": "training", "gpu_count": 576, "gpu_model": "GB200"},
        {"workload": "training", "gpu_count": 256, "gpu_model": "A100"},
        {"workload": "inference", "node_count": 16, "gpu_model": "L40S"},
        {"workload": "training", "gpu_count": 100_000, "gpu_model": "H100"},
        {"workload": "training", "node_count": 1024, "gpu_model": "H100", "cost_sensitive": True},
    ],
)
def test_every_recommendation_carries_a_bom_matching_its_topology(fields):
    rec = recommend(WorkloadProfile(**fields))
    assert switch_quantity(rec.bill_of_materials) == rec.topology.total_switches
    # storage and in-band: two fabrics, or one converged fabric where the platform's RA converges them (GB200)
    in_band = set() if platform_for(rec.profile.gpu_model).frontend == "converged" else {"in_band"}
    assert {line.fabric for line in rec.bill_of_materials} >= {"compute", "out_of_band", *in_band}
    for line in rec.bill_of_materials:
        assert line.part_number and line.source and line.price_date
        assert line.quantity > 0
        assert line.included or line.unit_usd_high >= line.unit_usd_low > 0
    total_low = sum(line.usd_low for line in rec.bill_of_materials)
    assert rec.cost.network_usd_low == pytest.approx(total_low, abs=1000)


def test_one_server_has_no_bom_and_costs_nothing():
    rec = recommend(WorkloadProfile(workload="training", gpu_count=8, gpu_model="H100"))
    assert rec.bill_of_materials == [] and rec.cost.network_usd_high == 0


# --------------------------------------------------------------------------- parts


def test_optical_links_have_a_module_at_each_end_and_one_fibre():
    parts = {key: n for key, n, _ in link_parts(128, 400, in_rack=False, node_end="twin")}
    assert parts == {"optic/twin/400": 64, "optic/twin-flat/400": 64, "fibre/mpo": 128}
    single = {key: n for key, n, _ in link_parts(256, 400, in_rack=False, node_end="single")}
    assert single == {"optic/twin/400": 128, "optic/single/400": 256, "fibre/mpo": 256}  # the Vitex 256-GPU order
    switch_to_switch = {key: n for key, n, _ in link_parts(128, 400, in_rack=False, node_end=None)}
    assert switch_to_switch == {"optic/twin/400": 128, "fibre/mpo": 128}


def test_copper_inside_a_rack_aoc_at_200g_and_no_copper_at_800g():
    assert link_parts(128, 400, in_rack=True, node_end=None) == [
        ("dac/400", 64, link_parts(128, 400, True, None)[0][2])
    ]
    assert [k for k, _, _ in link_parts(40, 200, in_rack=False, node_end="single")] == ["aoc/200"]
    assert "dac/800" not in {k for k, _, _ in link_parts(8, 800, in_rack=True, node_end=None)}
    assert [k for k, _, _ in link_parts(9, 1, in_rack=False, node_end="single")] == ["copper/rj45"]


def test_the_servers_own_nics_are_listed_as_included_and_unknown_servers_buy_theirs():
    rec = dgx_h100()
    nics = [line for line in rec.bill_of_materials if line.category == "nic"]
    assert nics and all(line.included and line.usd_high == 0 for line in nics)
    assert sum(line.quantity for line in nics if line.fabric == "compute") == 16 * 8
    unknown = recommend(WorkloadProfile(workload="training", node_count=16, gpus_per_node=8, gpu_model="Z900"))
    bought = [line for line in unknown.bill_of_materials if line.category == "nic"]
    assert bought and not any(line.included for line in bought) and all(line.usd_low > 0 for line in bought)


def test_storage_and_in_band_are_dual_homed_and_out_of_band_takes_every_management_port():
    rec = dgx_h100(nodes=64)
    lines = rec.bill_of_materials
    for fabric in ("storage", "in_band"):
        assert switch_quantity(lines, fabric) >= 2 and switch_quantity(lines, fabric) % 2 == 0
    others = sum(switch_quantity(lines, f) for f in ("compute", "storage", "in_band"))
    rj45 = next(line for line in lines if line.fabric == "out_of_band" and line.category == "cable")
    aggregation = next(line for line in lines if line.fabric == "out_of_band" and "spine" in line.note)
    # a BMC port per server, a management port per switch, the OOB aggregation pair's included
    assert rj45.quantity == 64 + others + aggregation.quantity
    assert {p.name for p in rec.cost.by_fabric} == {"compute", "storage", "in_band", "out_of_band"}


def test_power_and_rack_units_per_fabric_beside_the_cost():
    rec = dgx_h100(nodes=64)
    for part in rec.cost.by_fabric:
        assert part.watts > 0 and part.rack_units > 0 and part.usd_high > part.usd_low
    assert rec.cost.watts == pytest.approx(sum(p.watts for p in rec.cost.by_fabric), abs=4)


# ---------------------------------------------------------------------- price book


def test_every_catalogued_switch_and_server_nic_has_a_dated_sourced_price():
    book = price_book()
    for switch in catalogue.switches():
        price = book.price(f"switch/{switch.model}")
        assert price.date and price.source and price.usd[1] >= price.usd[0] > 0
    for server in catalogue.servers():
        if server.compute_nic:
            assert book.has(f"nic/{server.compute_nic}"), server.model
    for price in book.prices.values():
        assert price.estimate == price.source.startswith("Fabric Advisor estimate")


def test_the_guides_switch_price_is_the_published_one():
    qm9700 = price_book().price("switch/QM9700")
    assert qm9700.usd == (36_000, 50_000) and "Freakonomics" in qm9700.source and not qm9700.estimate


def _records_with(change):
    records = copy.deepcopy(sources.load())
    for record in records:
        if record.id == "price-switch-qm9700":
            change(record.data)
    return records


@pytest.mark.parametrize(
    "change, message",
    [
        (lambda d: d.update(usd=[50_000, 36_000]), "low <= high"),
        (lambda d: d.update(date="August 2024"), "date"),
        (lambda d: d.update(category="gadget"), "category"),
        (lambda d: d.update(key="switch/QM8700"), "already priced"),
    ],
)
def test_a_bad_price_stops_the_load_naming_the_entry(change, message):
    with pytest.raises(PriceBookError, match="price-switch-qm9700") as error:
        build_price_book(_records_with(change))
    assert message in str(error.value)


def test_an_unknown_part_says_which_parts_are_priced():
    with pytest.raises(LookupError, match="switch/QM9700"):
        price_book().price("switch/NOPE")


def test_topology_without_switches_has_no_lines():
    empty = Topology(
        kind="single_node", tiers=0, endpoints=0, leaf_switches=0, spine_switches=0, core_switches=0, bisection_gbps=0
    )
    assert fabric_lines("compute", empty, SwitchPart("QM9700"), ServerSide(1, 8, 400), price_book()) == []


def test_one_nvl72_rack_has_no_compute_fabric_but_its_trays_converged_storage_and_management_networks():
    rec = recommend(resolve(ProfileDraft(workload="inference", gpu_count=72, gpu_model="GB200")))
    fabrics = {str(line.fabric) for line in rec.bill_of_materials}
    assert rec.topology.kind == "single_node" and "compute" not in fabrics
    # 18 trays, each with storage, in-band and BMC ports; storage and in-band on one converged
    # Ethernet fabric (NVIDIA DGX SuperPOD GB200 RA)
    assert {"storage", "out_of_band"} <= fabrics and "in_band" not in fabrics
    assert rec.cost.network_usd_low > 0


def test_one_eight_gpu_server_joins_the_sites_networks_and_buys_none():
    rec = recommend(WorkloadProfile(workload="training", gpu_count=8, gpu_model="H100"))
    assert rec.bill_of_materials == [] and rec.cost.network_usd_high == 0
