"""The out-of-band management network, wired port by port (rules/physical/oob.py): every
BMC and every switch's management port on an SN2201 in its own rack, every SN2201 with
two uplinks to the aggregation pair, listed in the cabling plan and bought in the bill of
materials line by line (NVIDIA DGX SuperPOD H100 RA, Out-of-Band Management Network;
NVIDIA NVL72 AI Factory Enterprise RA: two SN2201 per NVL72 rack)."""

from __future__ import annotations

from collections import Counter

from rules.engine import recommend
from rules.models import Recommendation, WorkloadProfile
from rules.physical import oob
from rules.physical.cabling import build_for, part_totals, plan_rows

H100_4SU = WorkloadProfile(workload="training", gpu_count=1024, gpu_model="H100")
GB200_1SU = WorkloadProfile(workload="training", gpu_count=576, gpu_model="GB200", prefer="infiniband")


def oob_rows(rec: Recommendation) -> list[tuple[object, ...]]:
    build = build_for(rec)
    assert build is not None
    return [row for row in plan_rows(build) if row[13] == "out_of_band"]


def test_every_bmc_of_a_4_su_h100_design_is_cabled_to_an_oob_switch_port():
    rec = recommend(H100_4SU)
    rows = oob_rows(rec)
    compute = {
        str(row[3])
        for row in plan_rows(build_for(rec))
        if row[13] == "compute" and row[1] == "node-leaf"  # type: ignore[arg-type]
    }
    servers = {name for name in compute if "-node" in name}
    assert len(servers) == 128
    bmc = {str(row[3]): row for row in rows if row[1] == "node-leaf" and str(row[3]) in servers}
    assert set(bmc) == servers  # every server's BMC, once
    for row in bmc.values():
        assert str(row[5]).startswith("oob-") and row[4] == 1 and row[8] == "copper"
        assert row[11] and float(str(row[12])) <= 3  # a Cat6 cord inside the rack
    # one SN2201 per compute rack of four DGX: the four BMCs of a rack share one switch
    per_switch = Counter(str(bmc[s][5]) for s in servers)
    assert set(per_switch.values()) == {4} and len(per_switch) == 32


def test_every_switch_management_port_is_on_the_oob_network():
    rec = recommend(H100_4SU)
    build = build_for(rec)
    assert build is not None
    rows = list(plan_rows(build))
    switches = {str(r[5]) for r in rows if r[13] in ("compute", "storage", "in_band")}
    switches |= {str(r[3]) for r in rows if r[13] in ("compute", "storage", "in_band") and r[1] != "node-leaf"}
    managed = {str(r[3]) for r in rows if r[13] == "out_of_band" and r[1] == "node-leaf" and r[4] == 0}
    assert switches <= managed


def test_the_oob_switches_uplinks_exist_and_reach_two_aggregation_switches():
    rec = recommend(H100_4SU)
    rows = oob_rows(rec)
    oob_switches = {str(r[5]) for r in rows if r[1] == "node-leaf"}
    uplinks = [r for r in rows if r[1] == "leaf-spine"]
    by_switch: dict[str, set[str]] = {}
    for r in uplinks:
        by_switch.setdefault(str(r[3]), set()).add(str(r[5]))
    assert set(by_switch) == oob_switches
    assert all(len(aggs) == oob.UPLINKS for aggs in by_switch.values())
    assert len({a for aggs in by_switch.values() for a in aggs}) == 2
    assert {r[7] for r in uplinks} == {oob.UPLINK_GBPS}
    # the uplinks' length comes from the floor: racks at different distances from the pair
    assert len({r[12] for r in uplinks}) > 1


def test_the_oob_plan_equals_its_bill_of_materials_and_the_plan_row_count_the_boms():
    rec = recommend(H100_4SU)
    build = build_for(rec)
    assert build is not None and build.oob is not None
    rows = list(plan_rows(build))
    own = [r for r in rows if r[13] == "out_of_band"]
    lines = [line for line in rec.bill_of_materials if line.fabric == "out_of_band"]
    bought = Counter(
        {line.part_number: line.quantity for line in lines if line.category in ("cable", "transceiver", "fibre")}
    )
    assert part_totals(own, build, "out_of_band") == bought
    switches = sum(line.quantity for line in lines if line.category == "switch")
    assert switches == build.oob.switches + len(build.oob.aggregation)
    # every network's cables, together, are the plan's rows
    cables = sum(
        line.quantity
        for line in rec.bill_of_materials
        if line.category == "cable" and line.part_number == "CAT6-RJ45-3M"
    )
    assert cables == sum(1 for r in own if r[1] == "node-leaf")
    assert len(rows) == rec.topology.total_cables + sum(
        sum(c.count for c in net.topology.cables) for net in (*build.services, build.oob)
    )


def test_an_nvl72_rack_has_two_oob_switches_for_its_trays_nvlink_switch_trays_and_power_shelves():
    rec = recommend(GB200_1SU)
    rows = oob_rows(rec)
    cords = [r for r in rows if r[1] == "node-leaf"]
    rack = [r for r in cords if str(r[5]).startswith("oob-r00c01-")]
    assert {str(r[5]) for r in rack} == {"oob-r00c01-1", "oob-r00c01-2"}
    # 18 compute trays' BMCs + 9 NVLink switch trays x (BMC, ComE1, ComE2) + 8 power shelves
    assert len(rack) == 18 + 9 * 3 + 8
    nvswitch = Counter(str(r[3]) for r in rack if "nvswitch" in str(r[3]))
    assert len(nvswitch) == 9 and set(nvswitch.values()) == {3}
    assert sum(1 for r in rack if "power" in str(r[3])) == 8


def test_one_nvl72_rack_without_a_compute_fabric_still_buys_its_oob_switches():
    rec = recommend(WorkloadProfile(workload="inference", gpu_count=72, gpu_model="GB200"))
    switches = [line for line in rec.bill_of_materials if line.fabric == "out_of_band" and line.category == "switch"]
    assert next(line.quantity for line in switches if line.part_number == "MSN2201-CB2FC") >= 2


def test_every_design_states_the_oob_assumptions_with_their_sources():
    rec = recommend(H100_4SU)
    assert oob.ASSUMPTIONS in rec.cost.assumptions
    assert "NVL72 AI Factory Enterprise RA" in oob.ASSUMPTIONS and "our assumption" in oob.ASSUMPTIONS
