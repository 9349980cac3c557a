"""The all-reduce estimate: ring model of nccl-tests, NVLink inside a domain, NICs across;
and the traffic model built on it: the parallelism plan, the step, the published results."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from knowledge import performance
from rules.engine import recommend
from rules.models import WorkloadProfile
from rules.sizing import allreduce_estimate, default_message_bytes
from rules.sizing.parallelism import estimated_layers, plan_parallelism
from rules.traffic import on_fabric, traffic_for

H100 = dict(ranks_per_domain=8, local_busbw_gbytes=480, nic_busbw_gbytes=47, local_latency_us=3, network_latency_us=5)


def test_seventy_billion_on_128_h100_takes_about_three_quarters_of_a_second():
    e = allreduce_estimate(default_message_bytes(70), ranks=128, **H100)
    assert e.bottleneck == "network"
    assert e.effective_busbw_gbytes == 376
    assert 350 * 0.75 <= e.effective_busbw_gbytes <= 390 * 1.25  # nccl-tests: ~350-390 GB/s
    assert e.ms == pytest.approx(2 * 127 / 128 * 140e9 / 376e9 * 1e3, rel=1e-3)
    assert 700 < e.ms < 780
    assert e.nodes == 16


def test_single_node_uses_nvlink_only():
    e = allreduce_estimate(10**9, ranks=8, **H100)
    assert (e.bottleneck, e.effective_busbw_gbytes, e.nodes) == ("nvlink", 480, 1)
    assert e.latency_ms == pytest.approx(2 * 7 * 3 / 1000)
    # the NIC bandwidth plays no part inside one node
    assert allreduce_estimate(10**9, ranks=8, **(H100 | dict(nic_busbw_gbytes=1))).ms == e.ms


def test_nvlink_is_the_bottleneck_when_nics_outrun_it():
    e = allreduce_estimate(10**9, ranks=64, **(H100 | dict(nic_busbw_gbytes=100)))
    assert (e.bottleneck, e.effective_busbw_gbytes) == ("nvlink", 480)


def test_latency_term_counts_nvlink_and_network_steps():
    e = allreduce_estimate(0, ranks=32, **H100)  # 4 nodes of 8
    assert e.ms == e.latency_ms == pytest.approx((2 * 7 * 3 + 2 * 3 * 5) / 1000)


def test_small_messages_are_latency_bound():
    e = allreduce_estimate(1024, ranks=1024, **H100)
    assert e.latency_ms > e.ms / 2


def test_one_gpu_has_nothing_to_reduce():
    e = allreduce_estimate(10**9, ranks=1, **H100)
    assert e.ms == 0


def test_message_is_two_bytes_per_parameter():
    assert default_message_bytes(70) == 140_000_000_000
    assert default_message_bytes(0.5) == 1_000_000_000


def test_assumptions_are_sentences_naming_the_model():
    text = " ".join(allreduce_estimate(10**9, ranks=128, **H100).assumptions)
    for phrase in ("achievable", "Ring", "SHARP", "overlap", "bf16"):
        assert phrase in text


@given(st.integers(2, 2000), st.integers(1, 10**11), st.sampled_from([1, 4, 8]))
def test_more_nodes_are_never_faster_for_the_same_per_gpu_message(nodes, message, gpn):
    args = H100 | dict(ranks_per_domain=gpn)
    fewer = allreduce_estimate(message, ranks=nodes * gpn, **args)
    more = allreduce_estimate(message, ranks=(nodes + 1) * gpn, **args)
    assert more.ms >= fewer.ms


def test_in_network_reduction_halves_the_network_stage():
    e = allreduce_estimate(8 * 10**9, ranks=128, **(H100 | dict(ranks_per_domain=1)))
    with_sharp = allreduce_estimate(
        8 * 10**9, ranks=128, in_network_reduction=True, **(H100 | dict(ranks_per_domain=1))
    )
    assert e.in_network_ms is None
    assert with_sharp.in_network_ms == pytest.approx(8e9 / 47e9 * 1e3, rel=0.01)
    assert with_sharp.in_network_ms < with_sharp.ms / 1.9


# ------------------------------------------------------------------ the parallelism plan


def profile(**fields) -> WorkloadProfile:
    return WorkloadProfile(workload="training", **fields)


def test_llama3_405b_on_16k_h100_is_tp8_pp16_and_reduces_about_6_gb_in_hundreds_of_ms():
    rec = recommend(profile(gpu_count=16_384, gpu_model="H100", model_params_b=405))
    plan = rec.performance.plan
    assert plan and (plan.tp, plan.pp, plan.dp) == (8, 16, 128)
    assert 5.5e9 < rec.performance.message_bytes < 6.5e9  # "about 6 GB per GPU"
    assert 100 < rec.performance.allreduce_ms < 1000  # hundreds of ms, not 4.3 s
    assert plan.fits and plan.state_gb_per_gpu <= plan.memory_budget_gb
    assert any("16 bytes" in line for line in plan.arithmetic)


def test_a_model_that_fits_one_gpu_keeps_the_full_gradient():
    plan = plan_parallelism(1.0, gpus=64, gpu_memory_gb=80, nvlink_domain_gpus=8)
    assert (plan.tp, plan.pp, plan.dp) == (1, 1, 64)
    assert plan.gradient_gb_per_gpu == pytest.approx(2.0)  # 2 bytes x 1B parameters
    rec = recommend(profile(gpu_count=64, gpu_model="H100", model_params_b=1))
    assert rec.performance.message_bytes == default_message_bytes(1)


def test_a_stated_plan_is_kept_and_one_past_the_cluster_is_refused():
    plan = plan_parallelism(70, gpus=256, gpu_memory_gb=80, nvlink_domain_gpus=8, tp=4, pp=8)
    assert (plan.tp, plan.pp, plan.dp, plan.tp_source) == (4, 8, 8, "stated")
    with pytest.raises(ValueError, match="tp"):
        profile(gpu_count=16, tp=8, pp=4)


def test_tensor_parallelism_stays_inside_the_nvlink_domain():
    pcie = plan_parallelism(70, gpus=512, gpu_memory_gb=48, nvlink_domain_gpus=1, local_gpus=8)
    assert pcie.tp == 1 and pcie.pp > 1
    # a replica of TP x PP GPUs spans many 8-GPU servers: one rank of each DP group per server
    assert pcie.dp_ranks_per_domain == 1


def test_the_ranks_that_share_a_domain_are_the_whole_replicas_it_holds():
    small = plan_parallelism(70, gpus=1152, gpu_memory_gb=186, nvlink_domain_gpus=72)
    assert (small.tp, small.pp) == (8, 2) and small.dp_ranks_per_domain == 72 // 16
    large = plan_parallelism(405, gpus=576, gpu_memory_gb=186, nvlink_domain_gpus=72)
    assert (large.tp, large.pp, large.dp) == (8, 8, 9) and large.dp_ranks_per_domain == 1
    assert any("takes most of a scale-up domain" in line for line in large.arithmetic)
    spanning = plan_parallelism(405, gpus=1024, gpu_memory_gb=180, nvlink_domain_gpus=8)
    assert spanning.dp_ranks_per_domain == 1
    assert any("spans more than one scale-up domain" in line for line in spanning.arithmetic)


@pytest.mark.parametrize("params_b", [70, 405])
def test_gb200_racks_reduce_no_slower_than_the_same_gpus_in_8_gpu_servers(params_b):
    rack = recommend(profile(gpu_count=1152, gpu_model="GB200", model_params_b=params_b))
    servers = recommend(profile(gpu_count=1152, gpus_per_node=8, gpu_model="B200", model_params_b=params_b))
    assert rack.performance.plan and rack.performance.plan.nvlink_domain_gpus == 72
    assert rack.performance.allreduce_ms <= servers.performance.allreduce_ms


# ------------------------------------------------------ rack-scale (NVL72) all-reduce

PER_400G_NIC_GBYTES = 48  # nccl-tests issues #290 / #267: 46-49 GB/s busbw per NDR 400G NIC


def per_nic_bound_ms(params_b: float, tp: int, pp: int, dp: int, nic_gbytes: float) -> float:
    """Ring all-reduce of each GPU's gradient over its own NIC: 2(n-1)/n x S / B."""
    gradient = 2 * params_b * 1e9 / (tp * pp)
    return 2 * (dp - 1) / dp * gradient / (nic_gbytes * 1e9) * 1e3


def test_gb200_576_gpus_405b_reduces_at_the_per_nic_bound_not_over_nvlink():
    rec = recommend(profile(gpu_count=576, gpu_model="GB200", model_params_b=405))
    plan = rec.performance.plan
    assert plan and plan.dp_ranks_per_domain == 1
    bound = per_nic_bound_ms(405, plan.tp, plan.pp, plan.dp, PER_400G_NIC_GBYTES)
    assert rec.performance.allreduce_ms == pytest.approx(bound, rel=0.20)
    b200 = recommend(profile(gpu_count=1024, gpu_model="B200", model_params_b=405))
    assert rec.performance.allreduce_ms >= 0.9 * b200.performance.allreduce_ms


def test_two_gb200_racks_reduce_a_large_replica_over_the_network():
    rec = recommend(profile(gpu_count=144, gpu_model="GB200", model_params_b=405))
    plan = rec.performance.plan
    assert plan and plan.dp == 2
    bound = per_nic_bound_ms(405, plan.tp, plan.pp, plan.dp, PER_400G_NIC_GBYTES)
    assert rec.performance.allreduce_ms == pytest.approx(bound, rel=0.20)


@pytest.mark.parametrize("gpu_model", ["GB200", "GB300"])
def test_roce_and_ethernet_differ_from_infiniband_on_nvl72_as_on_8_gpu_servers(gpu_model):
    rack = recommend(profile(gpu_count=576, gpu_model=gpu_model, model_params_b=405))
    alternatives = {str(a.technology): a for a in rack.alternatives}
    ib_ms = rack.performance.allreduce_ms
    assert alternatives["rocev2"].allreduce_ms > ib_ms and alternatives["ethernet"].allreduce_ms > ib_ms
    assert alternatives["ethernet"].relative_training_throughput < 1.0
    servers = recommend(profile(gpu_count=1024, gpu_model="B200", model_params_b=405))
    server_alts = {str(a.technology): a for a in servers.alternatives}
    # the same ratio of RoCE to InfiniBand all-reduce time as on 8-GPU servers (same NIC speed)
    if gpu_model == "GB200":
        rack_ratio = alternatives["rocev2"].allreduce_ms / ib_ms
        server_ratio = server_alts["rocev2"].allreduce_ms / servers.performance.allreduce_ms
        assert rack_ratio == pytest.approx(server_ratio, rel=0.05)


def test_gb300_with_800g_nics_reduces_faster_than_gb200():
    gb200 = recommend(profile(gpu_count=576, gpu_model="GB200", model_params_b=405))
    gb300 = recommend(profile(gpu_count=576, gpu_model="GB300", model_params_b=405))
    assert gb300.fabric.link_gbps == 800 and gb200.fabric.link_gbps == 400
    assert gb300.performance.allreduce_ms < 0.7 * gb200.performance.allreduce_ms


def test_roce_at_200g_is_10_to_20_percent_below_hdr_not_half():
    job = traffic_for(profile(gpu_count=256, gpu_model="A100", model_params_b=175))
    hdr, _ = on_fabric(job, "infiniband_hdr", 200, 256 * 200 / 2, 256)
    roce, _ = on_fabric(job, "rocev2", 200, 256 * 200 / 2, 256)
    assert 1.10 <= roce.ms / hdr.ms <= 1.25  # 10-20 % lower bandwidth, i.e. 11-25 % longer


def test_fabrics_that_reduce_alike_are_not_called_strongly_recommended():
    rec = recommend(profile(gpu_count=128, gpu_model="L40S", model_params_b=7))
    roce_or_ib = [a for a in rec.alternatives if a.technology != "ethernet"]
    assert all(a.relative_training_throughput > 0.98 for a in roce_or_ib)
    assert "allreduce-same-on-every-fabric" in [r.rule_id for r in rec.explanation]
    assert not any("strongly" in r.statement for r in rec.explanation)


def test_a_network_bound_job_says_so_and_ranks_the_fabrics():
    rec = recommend(profile(gpu_count=1024, gpu_model="H100", model_params_b=70, tokens_per_step=262_144))
    relative = {a.technology: a.relative_training_throughput for a in rec.alternatives}
    assert relative["ethernet"] < relative["rocev2"] < 1.0
    assert "step-network-bound" in [r.rule_id for r in rec.explanation]
    ethernet = next(a.step for a in rec.alternatives if a.technology == "ethernet")
    assert ethernet and ethernet.exposed_ms > 0
    assert ethernet.step_ms == pytest.approx(ethernet.compute_ms + ethernet.exposed_ms, rel=1e-3)


def test_moe_adds_an_all_to_all_that_a_dense_model_does_not_have():
    dense = recommend(profile(gpu_count=512, gpu_model="H100", model_params_b=400))
    moe = recommend(profile(gpu_count=512, gpu_model="H100", model_params_b=400, moe=True, active_params_b=17))
    assert dense.performance.step and moe.performance.step
    assert dense.performance.step.alltoall_ms == 0 and moe.performance.step.alltoall_ms > 0


# ------------------------------------------------------ published nccl-tests results


@pytest.mark.parametrize("result", performance.nccl_results(), ids=lambda r: r.id)
def test_nccl_tests_results_are_reproduced_within_20_percent(result):
    rec = recommend(
        profile(
            gpu_count=result.nodes * result.gpus_per_node,
            gpus_per_node=result.gpus_per_node,
            gpu_model=result.gpu_model,
            message_gb=result.message_bytes / 1e9,
            prefer=None if result.fabric == "nvlink" else result.fabric,
        )
    )
    n = result.nodes * result.gpus_per_node
    busbw = 2 * (n - 1) / n * result.message_bytes / (rec.performance.allreduce_ms / 1e3) / 1e9
    published = (result.busbw_gbytes_low + result.busbw_gbytes_high) / 2
    assert busbw == pytest.approx(published, rel=0.20), (busbw, published, result.source)


def test_a_model_too_large_for_the_cluster_is_flagged():
    rec = recommend(profile(gpu_count=8, gpu_model="H100", model_params_b=70))
    assert rec.performance.plan and not rec.performance.plan.fits
    assert any("does not fit" in w for w in rec.warnings)
    fits = recommend(profile(gpu_count=16_384, gpu_model="H100", model_params_b=405))
    assert not any("does not fit" in w for w in fits.warnings)


# ------------------------------------------------------ plans from the model's shape


def test_a_named_moe_model_gets_expert_parallelism_from_its_published_shape():
    rec = recommend(profile(gpu_count=2048, gpu_model="H100", model_params_b=671))  # DeepSeek-V3's size
    plan = rec.performance.plan
    assert plan and plan.model == "DeepSeek-V3" and plan.layers == 61 and not plan.layers_estimated
    assert plan.ep > 1 and 256 % plan.ep == 0 and plan.ep <= plan.dp
    assert plan.pp <= plan.layers and plan.fits
    step = rec.performance.step
    assert step and step.alltoall_ms > 0
    assert any("DeepSeek-V3 Technical Report" in a for a in rec.performance.assumptions)


def test_the_expert_all_to_all_runs_on_the_link_it_crosses():
    rack = traffic_for(profile(gpu_count=576, gpu_model="GB200", model_params_b=671))
    servers = traffic_for(profile(gpu_count=2048, gpu_model="H100", model_params_b=671))
    assert rack.plan and rack.plan.tp * rack.plan.ep <= 72 and rack.alltoall_local  # inside the NVL72 rack
    assert servers.plan and servers.plan.tp * servers.plan.ep > 8 and not servers.alltoall_local
    # on the rack every fabric sees the same all-to-all (NVLink carries it); across servers the NIC matters
    ib_rack = on_fabric(rack, "infiniband_ndr", 400, 576 * 400 / 2, 576)[1]
    eth_rack = on_fabric(rack, "ethernet", 400, 576 * 400 / 2, 576)[1]
    assert ib_rack.alltoall_ms == pytest.approx(eth_rack.alltoall_ms)
    ib = on_fabric(servers, "infiniband_ndr", 400, 2048 * 400 / 2, 2048)[1]
    eth = on_fabric(servers, "ethernet", 400, 2048 * 400 / 2, 2048)[1]
    assert eth.alltoall_ms > ib.alltoall_ms


def test_a_step_waiting_on_the_all_to_all_is_not_called_compute_bound():
    for gpu_model, gpus in (("GB200", 576), ("H100", 2048)):
        step = recommend(profile(gpu_count=gpus, gpu_model=gpu_model, model_params_b=671)).performance.step
        assert step and step.exposed_share >= 0.05
        assert step.bound_by != "GPU compute"


def test_a_dense_1_8t_model_on_100k_gpus_never_has_more_stages_than_layers():
    job = traffic_for(profile(gpu_count=100_000, gpu_model="H100", model_params_b=1800))
    plan = job.plan
    assert plan and plan.layers_estimated and plan.layers and plan.pp <= plan.layers // 2
    assert plan.fits and plan.tp * plan.pp * plan.dp + plan.idle_gpus == 100_000
    assert plan.idle_gpus <= 0.01 * 100_000
    assert any("estimated from the size" in line for line in plan.arithmetic)
    if plan.sharded_optimizer:
        assert any("ZeRO stage 1" in line for line in plan.arithmetic)


def test_the_depth_estimate_is_within_15_percent_of_published_depths():
    for params_b, published in ((8, 32), (70, 80), (175, 96), (405, 126)):
        assert estimated_layers(params_b) == pytest.approx(published, rel=0.15)
