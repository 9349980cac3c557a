"""Each piece of the seed guide's guidance, and each rule of our own, pinned by a test."""

from __future__ import annotations

import pytest

from rules.engine import recommend
from rules.models import Recommendation, WorkloadProfile


def advise(**fields) -> Recommendation:
    return recommend(WorkloadProfile(**fields))


def fired(rec: Recommendation) -> list[str]:
    return [r.rule_id for r in rec.explanation]


def test_single_server_of_eight_gpus_needs_only_nvlink():
    rec = advise(workload="training", gpu_count=8, gpu_model="H100")
    assert rec.fabric.technology == "nvlink_only"
    assert rec.topology.kind == "single_node"
    assert rec.topology.leaf_switches == rec.topology.spine_switches == 0
    assert not [p for p in rec.ports_per_server if p.role == "compute"]
    assert "single-node-nvlink" in fired(rec)
    assert rec.cost.network_usd_high == 0


def test_inference_cluster_gets_standard_ethernet_without_allreduce():
    rec = advise(workload="inference", gpu_count=40, gpus_per_node=4, gpu_model="L40S")
    assert rec.fabric.technology == "ethernet"
    assert rec.fabric.link_gbps in (100, 400)
    assert rec.performance.allreduce_ms is None
    assert "inference-standard-ethernet" in fired(rec)
    assert not [p for p in rec.ports_per_server if p.role == "compute"]
    assert [p for p in rec.ports_per_server if p.role == "inference_traffic"]


def test_inference_of_large_models_on_eight_gpu_servers_uses_400gbe():
    # 70B fits one 8 x H100 server; 405B (810 GB in bf16) does not, and gets the RDMA
    # compute fabric instead (tests/test_sizing_servers.py)
    rec = advise(workload="inference", gpu_count=64, gpu_model="H100", model_params_b=70)
    assert rec.fabric.technology == "ethernet" and rec.fabric.link_gbps == 400


@pytest.mark.parametrize("gpus", [16, 128, 1024])
def test_training_on_16_or_more_gpus_gets_infiniband(gpus):
    rec = advise(workload="training", gpu_count=gpus, gpu_model="H100")
    assert rec.fabric.technology in ("infiniband_hdr", "infiniband_ndr")
    assert "training-16plus-infiniband" in fired(rec)


def test_frontier_model_gets_ndr():
    rec = advise(workload="training", gpu_count=512, gpu_model="H100", model_params_b=175)
    assert rec.fabric.technology == "infiniband_ndr"
    assert rec.fabric.link_gbps == 400
    assert "ib-ndr-matches-nic" in fired(rec)


def test_links_never_exceed_what_the_nics_carry():
    rec = advise(workload="training", gpu_count=256, gpu_model="A100", model_params_b=175)
    assert rec.fabric.technology == "infiniband_hdr"
    assert rec.fabric.link_gbps == 200
    assert any("200" in w for w in rec.warnings)
    for alternative in rec.alternatives:
        assert alternative.link_gbps <= 200


def test_the_nic_not_the_cluster_size_picks_xdr():
    # 400G ConnectX-7 stays NDR however large the build; 800G ConnectX-8 is XDR however small
    # (the rule ids changed: size no longer picks XDR, so ib-xdr-largest-builds is gone)
    rec = advise(workload="training", gpu_count=32768, gpu_model="H100", model_params_b=1800)
    assert (rec.fabric.technology, rec.fabric.link_gbps) == ("infiniband_ndr", 400)
    small = advise(workload="training", gpu_count=64, gpu_model="B300")
    assert (small.fabric.technology, small.fabric.link_gbps) == ("infiniband_xdr", 800)
    assert "ib-xdr-matches-nic" in fired(small)


def test_mid_scale_training_lists_rocev2_with_its_penalty():
    rec = advise(workload="training", gpu_count=32, gpu_model="H100")
    assert rec.fabric.technology.startswith("infiniband")
    roce = next(a for a in rec.alternatives if a.technology == "rocev2")
    # computed from the step times on this job (was the guide's constant 0.85)
    assert roce.step and rec.performance.step
    assert roce.relative_training_throughput == pytest.approx(
        rec.performance.step.step_ms / roce.step.step_ms, rel=1e-3
    )
    assert roce.relative_training_throughput <= 1.0
    assert "10-20 %" in roce.trade_off
    assert "mid-scale-rocev2-alternative" in fired(rec)


@pytest.mark.parametrize("flag", ["cost_sensitive", "existing_ethernet"])
def test_mid_scale_training_chooses_rocev2_when_cost_sensitive_or_on_ethernet(flag):
    rec = advise(workload="training", gpu_count=48, gpu_model="H100", **{flag: True})
    assert rec.fabric.technology == "rocev2"
    assert rec.fabric.link_gbps == 400
    assert "mid-scale-rocev2-cost-sensitive" in fired(rec)


def test_plain_ethernet_for_training_warns_of_the_20_to_40_percent_cost():
    rec = advise(workload="training", gpu_count=128, gpu_model="H100", prefer="ethernet")
    assert rec.fabric.technology == "ethernet"
    assert any("20-40 %" in w for w in rec.warnings)
    # computed from the step times (was the guide's constant 0.7): below InfiniBand's
    ib = next(a for a in rec.alternatives if a.technology.startswith("infiniband"))
    assert ib.step and rec.performance.step
    assert rec.performance.relative_training_throughput == pytest.approx(
        ib.step.step_ms / rec.performance.step.step_ms, rel=1e-3
    )
    assert rec.performance.relative_training_throughput <= 1.0


def test_rocev2_brings_the_lossless_checklist():
    rec = advise(workload="training", gpu_count=32, gpu_model="H100", cost_sensitive=True)
    settings = {s.setting for s in rec.roce_configuration}
    assert {"PFC", "ECN", "DCQCN"} <= settings
    for s in rec.roce_configuration:
        assert s.source


def test_infiniband_has_no_roce_checklist():
    rec = advise(workload="training", gpu_count=128, gpu_model="H100")
    assert rec.roce_configuration == []


def test_training_gets_a_dedicated_compute_port_per_gpu():
    rec = advise(workload="training", gpu_count=64, gpus_per_node=8, gpu_model="H100")
    compute = next(p for p in rec.ports_per_server if p.role == "compute")
    assert compute.count == 8
    assert compute.gbps == rec.fabric.link_gbps
    assert "dedicated-compute-port-per-gpu" in fired(rec)


def test_dgx_class_training_is_rail_optimized():
    rec = advise(workload="training", gpu_count=256, gpu_model="H100")
    assert rec.topology.kind == "rail_optimized"
    assert rec.topology.rails == 8


def test_fat_tree_is_the_default_topology():
    rec = advise(workload="training", gpu_count=64, gpus_per_node=4, gpu_model="L40S")
    assert rec.topology.kind == "fat_tree"
    assert "fat-tree-default" in fired(rec)


def test_dragonfly_plus_is_considered_at_1000_nodes():
    rec = advise(workload="training", node_count=1024, gpu_model="H100")
    assert "dragonfly-plus-considered" in fired(rec)
    assert rec.topology.kind == "rail_optimized"


def test_dragonfly_plus_is_chosen_at_1000_nodes_when_cost_matters():
    # InfiniBand asked for: cost-sensitive alone now takes RoCEv2 here (within 5 % of the
    # throughput, tests/test_rules_constraints.py), and Dragonfly+ needs InfiniBand's routing
    rec = advise(
        workload="training",
        node_count=1024,
        gpu_model="H100",
        cost_sensitive=True,
        model_params_b=400,
        prefer="infiniband",
    )
    assert rec.topology.kind == "dragonfly_plus"


def test_the_ib_premium_statement_prints_the_ratio_of_the_two_bills_of_materials():
    """The guide's 2-3x is quoted as the guide's; the figure for this design is computed
    from the InfiniBand and RoCEv2 compute fabrics' BOMs (the calibration on the guide's
    own 16-node cluster is in tests/test_sizing_bom.py)."""
    rec = advise(workload="training", node_count=16, gpu_model="H100")
    assert rec.fabric.technology == "infiniband_ndr"
    statement = next(r.statement for r in rec.explanation if r.rule_id == "ib-cost-premium")
    roce = next(a for a in rec.alternatives if a.technology == "rocev2")
    assert roce.relative_cost is not None and roce.relative_cost < 1
    assert "2-3x" in statement and " RoCEv2's (" in statement


@pytest.mark.parametrize("gpus", [16, 64, 128, 256, 1024, 2048, 16_384, 65_536])
def test_infiniband_is_dearer_than_ethernet_at_every_size_and_says_by_how_much(gpus):
    """InfiniBand's switches have fewer ports than Spectrum-4's at 400G, so its fabric is
    never the cheaper one; by how much is computed from the two BOMs, not quoted (optics
    cost the same on both, so the ratio falls as optics grow to dominate large fabrics)."""
    rec = advise(workload="training", gpu_count=gpus, gpu_model="H100", model_params_b=70)
    assert rec.fabric.technology.startswith("infiniband")
    for alternative in rec.alternatives:
        assert rec.cost.network_usd_low > alternative.network_usd_low, alternative.technology
        # the storage and management networks cost the same under both, so on one switch
        # each (64 GPUs) the whole networks come within 10 % and say so
        expected = "cheaper" if alternative.relative_cost < 0.9 else "similar in cost"
        assert expected in alternative.trade_off.lower()
        midpoint = (alternative.network_usd_low + alternative.network_usd_high) / (
            rec.cost.network_usd_low + rec.cost.network_usd_high
        )
        assert alternative.relative_cost == pytest.approx(midpoint, abs=0.01)


def test_a_network_budget_infiniband_does_not_fit_gets_roce_that_does():
    fits = advise(workload="training", gpu_count=128, gpu_model="H100", model_params_b=70, network_budget_usd=1_000_000)
    assert fits.fabric.technology == "infiniband_ndr"
    assert "network-within-network-budget" in fired(fits)
    # under InfiniBand's low estimate and over RoCE's: RoCE, its upper end said to risk the budget
    # (with the out-of-band network's SN2201 per rack and aggregation pair the two ranges overlap)
    tight = advise(workload="training", gpu_count=128, gpu_model="H100", model_params_b=70, network_budget_usd=420_000)
    assert tight.fabric.technology == "rocev2"
    assert "ib-over-network-budget" in fired(tight)
    assert tight.cost.network_usd_low <= 420_000
    assert tight.cost.network_usd_high > 420_000 and "network-may-exceed-network-budget" in fired(tight)


def test_a_network_budget_under_every_fabric_is_warned_about_not_ignored():
    rec = advise(workload="training", gpu_count=1024, gpu_model="H100", model_params_b=70, network_budget_usd=50_000)
    assert "network-over-network-budget" in fired(rec)
    assert any("network budget" in warning for warning in rec.warnings)


def test_infiniband_premium_is_judged_against_the_budget():
    small_share = advise(workload="training", node_count=16, gpu_model="H100", budget_usd=50_000_000)
    assert small_share.fabric.technology.startswith("infiniband")
    assert "ib-premium-justified-by-budget" in fired(small_share)
    big_share = advise(workload="training", node_count=16, gpu_model="H100", budget_usd=1_000_000)
    assert big_share.fabric.technology == "rocev2"
    assert "ib-premium-too-large-for-budget" in fired(big_share)
    assert big_share.cost.budget_share_low is not None


@pytest.mark.parametrize("gpus", [9, 12, 15])
def test_small_multi_node_training_where_the_guide_is_silent_is_explained(gpus):
    rec = advise(workload="training", gpu_count=gpus, gpus_per_node=4, gpu_model="L40S")
    reason = next(r for r in rec.explanation if r.rule_id == "small-multi-node-rocev2")
    assert "Fabric Advisor" in reason.source
    assert rec.fabric.technology == "rocev2"


def test_a_stated_preference_is_honoured():
    rec = advise(workload="training", gpu_count=256, gpu_model="H100", prefer="rocev2")
    assert rec.fabric.technology == "rocev2"
    assert "prefer-rocev2" in fired(rec)
    # the InfiniBand rule that lost is an option considered, not a statement of the trail
    assert "training-16plus-infiniband" not in fired(rec)
    overridden = next(c for c in rec.considered if c.rule_id == "training-16plus-infiniband")
    assert overridden.option == "InfiniBand" and overridden.chosen_by == "prefer-rocev2"


def test_every_recommendation_lists_alternatives_with_trade_offs():
    rec = advise(workload="training", gpu_count=128, gpu_model="H100", model_params_b=70)
    assert {a.technology for a in rec.alternatives} == {"rocev2", "ethernet"}
    for a in rec.alternatives:
        assert a.trade_off and a.network_usd_high >= a.network_usd_low > 0
        assert a.operational_complexity in ("low", "medium", "high")
        assert a.allreduce_ms is not None


def test_every_fired_rule_is_explained_with_a_source():
    rec = advise(workload="training", gpu_count=128, gpu_model="H100", model_params_b=70, budget_usd=5_000_000)
    assert len(rec.explanation) >= 4
    for reason in rec.explanation:
        assert reason.rule_id and reason.statement and reason.source
        assert "{" not in reason.statement


def test_the_allreduce_estimate_is_hierarchical_and_states_its_assumptions():
    one_node = advise(workload="training", gpu_count=8, gpu_model="H100", model_params_b=70)
    many = advise(workload="training", gpu_count=128, gpu_model="H100", model_params_b=70)
    assert one_node.performance.allreduce_ms < many.performance.allreduce_ms
    # each GPU reduces the gradient of its share of the model (TP x PP), not the whole
    # 140 GB model as before the traffic model (issue 11)
    plan = many.performance.plan
    assert plan is not None
    assert many.performance.message_bytes == round(140e9 / (plan.tp * plan.pp))
    assert any("ring" in a.lower() for a in many.performance.assumptions)


def test_a_fabric_that_fits_one_small_switch_gets_that_switch_and_its_price():
    rec = advise(workload="inference", gpu_count=32, gpu_model="H100")
    assert rec.fabric.technology == "ethernet"
    assert rec.topology.tiers == 1 and rec.fabric.switch_radix < 128  # not a 128-port SN5600 for 8 ports
    ib = next(a for a in rec.alternatives if a.technology.startswith("infiniband"))
    assert ib.relative_cost is not None and ib.relative_cost > 1  # InfiniBand stays the dearer fabric


def test_roce_costs_about_ten_percent_more_than_ethernet_at_every_size():
    for gpus in (128, 256, 1024, 4096):
        rec = advise(workload="training", gpu_count=gpus, gpu_model="H100", prefer="rocev2")
        ethernet = next(a for a in rec.alternatives if a.technology == "ethernet")
        ratio = rec.cost.network_usd_low / ethernet.network_usd_low
        assert 1.0 <= ratio <= 1.5, (gpus, ratio)
