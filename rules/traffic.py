"""The traffic a training job puts on each candidate fabric, and what it costs the step.

The engine builds one `Traffic` per recommendation (the parallelism plan, the message
each GPU reduces, the step's compute) and asks `on_fabric` for every candidate fabric, so
the alternatives are compared on the same job. The hardware comes from the platform
record the engine resolved once (rules/platform.py: GPU memory and throughput, the
scale-up link and domain, the collective library); fabric links from the catalogue; the
arithmetic lives in rules.sizing (parallelism, allreduce, steptime).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

from knowledge import catalogue, performance
from rules.models import ParallelismPlan, StepEstimate, Technology, WorkloadProfile
from rules.platform import ASSUMED_GPU, Platform, platform_for
from rules.sizing import allreduce, parallelism, steptime

DEFAULT_PARAMS_B = 7.0
DEFAULT_EXPERTS = 8  # an unnamed mixture of experts: Mixtral 8x7B's 8 experts (arXiv 2401.04088)
IN_NETWORK_REDUCTION = {"infiniband_ndr", "infiniband_xdr"}  # SHARPv3 (Quantum-2), SHARPv4 (Quantum-X800)


@dataclass(frozen=True)
class Traffic:
    """The job, independent of the fabric."""

    plan: ParallelismPlan | None  # None when the message size was stated (--message-gb)
    message_bytes: int
    ranks: int  # data-parallel ranks in the all-reduce
    ranks_per_domain: int
    local_busbw: float
    local_latency_us: float
    local_name: str  # the scale-up link as the platform record names it: "NVLink 4", "AMD Infinity Fabric", "PCIe ..."
    collective_tests: str  # nccl-tests (NCCL) or rccl-tests (RCCL on AMD)
    compute_ms: float
    microbatches: int
    tokens_per_step: int
    moe_bytes_per_gpu: float
    alltoall_local: bool  # the expert all-to-all stays on the scale-up link (EP fits one domain)
    gpus: int
    assumptions: tuple[str, ...]


def scale_up_domain(profile: WorkloadProfile, platform: Platform | None = None) -> tuple[int, int]:
    """(GPUs tensor parallelism may span, GPUs that reduce together before the network).

    An NVL72 rack's NVLink domain spans its 72 GPUs whatever a "node" is; an 8-GPU server's
    is its 8 GPUs (NVLink or AMD Infinity Fabric); a PCIe server has no such link (1) but
    reduces its GPUs over PCIe before the network."""
    platform = platform or platform_for(profile.gpu_model)
    gpus, per_node = profile.gpu_count or 1, profile.gpus_per_node or 8
    if platform.assumed:
        domain = per_node
    elif platform.rack_scale:
        domain = platform.scale_up.gpus
    else:
        domain = min(platform.tp_domain_gpus, per_node)
    domain = max(1, min(domain, gpus))
    return domain, max(1, min(gpus, max(domain, per_node)))


def traffic_for(profile: WorkloadProfile, platform: Platform | None = None) -> Traffic:
    """The job's plan, message and compute for a training profile on its platform (the
    record the engine resolved once; looked up from the GPU model when not given)."""
    platform = platform or platform_for(profile.gpu_model)
    gpus = profile.gpu_count or 1
    link = platform.scale_up
    local_busbw, local_latency, local_name = link.busbw_gbytes, link.latency_us, link.name
    domain, local_gpus = scale_up_domain(profile, platform)
    params = profile.model_params_b or DEFAULT_PARAMS_B
    notes: list[str] = []
    shape = performance.model_shape(profile.model_params_b, profile.moe)
    moe = bool(profile.moe) if profile.moe is not None else bool(shape and shape.moe)
    if shape and shape.moe:
        experts, per_token = shape.experts, shape.experts_per_token
    else:  # an unnamed MoE: Mixtral's 8 experts, top-2
        experts, per_token = (DEFAULT_EXPERTS, steptime.MOE_TOP_K) if moe else (0, 0)
    active = profile.active_params_b or (
        shape.active_params_b if shape and moe else params * steptime.MOE_ACTIVE_SHARE if moe else params
    )
    if shape:
        notes.append(f"Model shape: {shape.model} ({shape.source}), matched by its size of {shape.params_b:g}B.")
    if profile.model_params_b is None:
        notes.append(f"Model size not given: estimated for a {DEFAULT_PARAMS_B:g}B-parameter model.")
    if platform.assumed:
        notes.append(f"GPU {profile.gpu_model or 'not given'}: memory and throughput of an {ASSUMED_GPU} assumed.")
    if profile.message_gb is not None:
        plan = None
        message = round(profile.message_gb * 1e9)
        ranks, per_domain = gpus, min(gpus, local_gpus)
        notes.append(
            f"Stated message of {profile.message_gb:g} GB per GPU over all {gpus:,} GPUs (as {platform.collective_tests} runs it); "
            "the parallelism plan is bypassed."
        )
    else:
        plan = parallelism.plan_parallelism(
            params,
            gpus,
            platform.gpu_memory_gb,
            domain,
            tp=profile.tp,
            pp=profile.pp,
            local_gpus=local_gpus,
            scale_up_words=platform.scale_up.words,
            layers=shape.layers if shape else None,
            model=shape.model if shape else "",
            experts=experts,
            experts_per_token=per_token,
            active_params_b=active,
        )
        message = round(plan.gradient_gb_per_gpu * 1e9)
        ranks, per_domain = plan.dp, plan.dp_ranks_per_domain
    dp = plan.dp if plan else gpus
    tokens = profile.tokens_per_step or steptime.default_tokens_per_step(dp)
    tflops = platform.bf16_dense_tflops
    compute = steptime.compute_ms(active, tokens, gpus, tflops)
    notes.append(
        f"Step compute: {steptime.FLOPS_PER_PARAM_TOKEN} x {active:g}B active parameters x {tokens:,} tokens "
        f"on {gpus:,} GPUs at {steptime.MFU:.0%} of {tflops:g} dense BF16 TFLOPS "
        f"= {compute / 1e3:,.2f} s ({platform.gpu_source})."
    )
    if not profile.tokens_per_step:
        notes.append(
            f"Tokens per step not given: {tokens:,} (4M, Llama 2/3 pretraining, and at least one "
            f"{steptime.SEQUENCE_TOKENS:,}-token sequence per replica)."
        )
    moe_bytes = 0.0
    alltoall_local = False
    if moe:
        layers = shape.layers if shape else None
        hidden = shape.hidden_size if shape else None
        moe_bytes = steptime.moe_alltoall_bytes(active, tokens, gpus, layers, hidden, per_token or steptime.MOE_TOP_K)
        # Megatron-Core orders ranks TP, EP, DP, PP: one expert-parallel group is TP x EP
        # consecutive GPUs, so its all-to-all stays on the scale-up link when they fit one domain
        ep = plan.ep if plan else 1
        group = (plan.tp if plan else 1) * ep
        alltoall_local = group <= local_gpus
        where = (
            f"inside the {platform.scale_up.words} domain (TP x EP = {group} GPUs fit its {local_gpus})"
            if alltoall_local
            else f"over the NICs and the fabric's bisection (TP x EP = {group} GPUs span more than one "
            f"{platform.scale_up.words} domain of {local_gpus})"
        )
        notes.append(
            f"Mixture of experts ({active:g}B active of {params:g}B, EP {ep}): top-{per_token or steptime.MOE_TOP_K} "
            f"all-to-all of {moe_bytes / 1e9:,.2f} GB per GPU per step {where}, not overlapped."
        )
    notes.append(
        "Exposed communication: the gradient all-reduce hides behind the backward pass of the last "
        "micro-batch (one sequence per replica); PP point-to-point and TP traffic inside the "
        f"{platform.scale_up.words} domain are not counted."
    )
    return Traffic(
        plan=plan,
        message_bytes=message,
        ranks=ranks,
        ranks_per_domain=per_domain,
        local_busbw=local_busbw,
        local_latency_us=local_latency,
        local_name=local_name,
        collective_tests=platform.collective_tests,
        compute_ms=compute,
        microbatches=steptime.microbatches(tokens, dp),
        tokens_per_step=tokens,
        moe_bytes_per_gpu=moe_bytes,
        alltoall_local=alltoall_local,
        gpus=gpus,
        assumptions=tuple(notes),
    )


@functools.lru_cache(maxsize=256)
def nic_link(technology: Technology, link_gbps: int) -> tuple[float, float, str]:
    """(achievable busbw per NIC, GB/s; model latency, µs; source) of a fabric at a speed.

    A speed the catalogue has no entry for is scaled from the nearest one by line rate
    (RoCE at 200G: the 400G entry's busbw halved), never taken from a slower link."""
    if technology == Technology.nvlink_only:
        link = catalogue.link("nvlink")
        return link.achievable_busbw_gbytes, link.latency_us_model, link.source
    link = catalogue.link(str(technology), link_gbps)
    busbw = link.achievable_busbw_gbytes
    source = link.source
    if link_gbps and link.nominal_gbps != link_gbps:
        nearest = max(
            (lk for lk in catalogue.links() if lk.technology == str(technology)),
            key=lambda lk: (lk.nominal_gbps >= link_gbps, -abs(lk.nominal_gbps - link_gbps)),
        )
        busbw = nearest.achievable_busbw_gbytes * link_gbps / nearest.nominal_gbps
        source = f"{nearest.source}; scaled to {link_gbps} Gb/s by line rate (Fabric Advisor estimate)"
    return busbw, link.latency_us_model, source


def on_fabric(
    traffic: Traffic, technology: Technology, link_gbps: int, bisection_gbps: float, endpoints: int
) -> tuple[allreduce.AllReduceEstimate, StepEstimate]:
    """The all-reduce and the step of the job on one fabric."""
    nic_busbw, latency, source = nic_link(technology, link_gbps)
    estimate = allreduce.allreduce_estimate(
        message_bytes=traffic.message_bytes,
        ranks=traffic.ranks,
        ranks_per_domain=traffic.ranks_per_domain,
        local_busbw_gbytes=traffic.local_busbw,
        nic_busbw_gbytes=nic_busbw,
        local_latency_us=traffic.local_latency_us,
        network_latency_us=latency,
        in_network_reduction=str(technology) in IN_NETWORK_REDUCTION,
        collective_tests=traffic.collective_tests,
        local_name=traffic.local_name,
    )
    alltoall = 0.0
    if traffic.moe_bytes_per_gpu and traffic.alltoall_local:
        # the experts of one group share the scale-up domain: the link inside it carries the all-to-all
        alltoall = traffic.moe_bytes_per_gpu / (traffic.local_busbw * 1e9) * 1e3
    elif traffic.moe_bytes_per_gpu and endpoints and link_gbps:
        # each GPU's share of the bisection (1 when non-blocking), at its NIC's achievable bandwidth
        per_gpu_gbytes = min(1.0, 2 * bisection_gbps / (endpoints * link_gbps)) * nic_busbw
        alltoall = traffic.moe_bytes_per_gpu / (per_gpu_gbytes * 1e9) * 1e3
    bound = f"the {traffic.local_name}" if estimate.bottleneck == "nvlink" else "the network"
    if alltoall > estimate.ms:  # the expert all-to-all is most of what the step waits for
        bound = f"the {traffic.local_name} (expert all-to-all)" if traffic.alltoall_local else "the network"
    step = steptime_step(traffic, estimate.ms, alltoall, bound)
    notes = [*estimate.assumptions, f"Bandwidths: {source}"]
    return estimate.model_copy(update={"assumptions": notes}), step


def steptime_step(traffic: Traffic, allreduce_ms: float, alltoall_ms: float, bound: str) -> StepEstimate:
    return steptime.step_estimate(traffic.compute_ms, allreduce_ms, traffic.microbatches, alltoall_ms, bound)
