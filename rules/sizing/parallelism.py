"""The default parallelism plan of a training job, and its memory arithmetic.

What crosses the network each step depends on how the model is split, not on its whole
size: every GPU all-reduces only the gradient of the part it holds. The plan follows
Megatron-LM practice (Narayanan et al., "Efficient Large-Scale Language Model Training
on GPU Clusters Using Megatron-LM", SC21, arXiv 2104.04473) and Llama 3's 16K-H100 run
("The Llama 3 Herd of Models", arXiv 2407.21783, TP 8 / PP 16 / DP 128):

- tensor parallelism (TP) inside the NVLink domain, never past 8 GPUs (its all-reduces
  run every layer and only NVLink carries them well);
- pipeline parallelism (PP) as memory needs, in powers of two;
- data parallelism (DP) over the rest: DP = GPUs / (TP x PP).

Memory: mixed-precision Adam keeps 16 bytes per parameter (bf16 weights 2 + bf16
gradients 2 + fp32 master weights, momentum and variance 12; Rajbhandari et al., "ZeRO",
SC20, arXiv 1910.02054, section 3.1). The plan lets that take 70 % of the GPU's memory and
leaves the rest to activations and communication buffers (Fabric Advisor assumption).

Check: Llama 3 405B on 16,384 H100 (80 GB): 405e9 x 16 B = 6,480 GB; TP 8 gives 810 GB
per GPU, PP 16 gives 50.6 GB <= 56 GB, so TP 8, PP 16, DP 128, and each GPU reduces
2 x 405e9 / 128 = 6.3 GB of bf16 gradient per step.
"""

from __future__ import annotations

import math

from rules.models import ParallelismPlan

STATE_BYTES_PER_PARAM = 16  # ZeRO paper, mixed-precision Adam: 2 + 2 + 12
GRADIENT_BYTES_PER_PARAM = 2  # bf16 gradients
MEMORY_SHARE_FOR_STATE = 0.7  # Fabric Advisor assumption: 30 % left for activations and buffers
MAX_TENSOR_PARALLEL = 8  # Megatron-LM: TP within an 8-GPU NVLink domain; Llama 3: TP 8 on 16K H100
PRECISION = "bf16 weights and gradients, fp32 Adam state (16 bytes per parameter)"


def _next_power_of_two(value: float) -> int:
    return 1 if value <= 1 else 2 ** math.ceil(math.log2(value))


def _gb(value: float) -> str:
    return f"{value:,.1f}" if value < 100 else f"{value:,.0f}"


def plan_parallelism(
    params_b: float,
    gpus: int,
    gpu_memory_gb: float,
    nvlink_domain_gpus: int,
    tp: int | None = None,
    pp: int | None = None,
    local_gpus: int | None = None,
) -> ParallelismPlan:
    """The plan for a model of `params_b` billion parameters on `gpus` GPUs.

    `local_gpus` are the GPUs that reduce among themselves before the network (the
    server's, or the rack's NVLink domain; default the NVLink domain): a PCIe server has an
    NVLink domain of one GPU but still reduces its eight GPUs over PCIe first.
    `tp` and `pp` override the defaults (a stated plan is kept even when it does not fit
    memory; `fits` says so). Raises ValueError when tp x pp exceeds the GPUs.
    """
    if params_b <= 0 or gpus < 1 or gpu_memory_gb <= 0 or nvlink_domain_gpus < 1:
        raise ValueError("params_b, gpus, gpu_memory_gb and nvlink_domain_gpus: must be positive")
    state_gb = params_b * STATE_BYTES_PER_PARAM  # 1e9 params x bytes = GB
    budget = gpu_memory_gb * MEMORY_SHARE_FOR_STATE
    tp_limit = max(1, min(MAX_TENSOR_PARALLEL, nvlink_domain_gpus, gpus))
    if tp is None:
        chosen_tp = 1
        while state_gb / chosen_tp > budget and chosen_tp * 2 <= tp_limit:
            chosen_tp *= 2
    else:
        chosen_tp = tp
    if pp is None:
        chosen_pp = _next_power_of_two(state_gb / chosen_tp / budget)
        chosen_pp = max(1, min(chosen_pp, gpus // chosen_tp))
    else:
        chosen_pp = pp
    model_gpus = chosen_tp * chosen_pp
    if model_gpus > gpus:
        raise ValueError(f"tp x pp = {model_gpus} GPUs per model replica, more than the cluster's {gpus:,}")
    dp = gpus // model_gpus
    per_gpu = state_gb / model_gpus
    gradient_gb = params_b * GRADIENT_BYTES_PER_PARAM / model_gpus
    # Replicas sit contiguously (Llama 3's order [TP, CP, PP, DP], DP outermost): a domain
    # holds domain // (TP x PP) whole replicas, and a replica that spans domains has one
    # rank of each data-parallel group per domain, which reduces over its own NIC.
    local = local_gpus or nvlink_domain_gpus
    ranks_per_domain = max(1, min(dp, local // model_gpus))
    fits = per_gpu <= budget
    arithmetic = [
        f"Model state: {params_b:g}B parameters x {STATE_BYTES_PER_PARAM} bytes ({PRECISION}) = {_gb(state_gb)} GB.",
        f"Budget per GPU: {MEMORY_SHARE_FOR_STATE:.0%} of {gpu_memory_gb:g} GB = {_gb(budget)} GB "
        "(the rest for activations and buffers).",
        f"TP {chosen_tp} ({'stated' if tp else 'inside the NVLink domain, up to 8'}) x "
        f"PP {chosen_pp} ({'stated' if pp else 'as memory needs, powers of two'}): "
        f"{_gb(state_gb)} / {model_gpus} = {_gb(per_gpu)} GB per GPU"
        + ("." if fits else f", over the {_gb(budget)} GB budget: the plan does not fit these GPUs."),
        f"DP {dp:,} = {gpus:,} GPUs / (TP {chosen_tp} x PP {chosen_pp}); each GPU all-reduces its gradient of "
        f"{GRADIENT_BYTES_PER_PARAM} x {params_b:g}B / {model_gpus} = {_gb(gradient_gb)} GB over the {dp:,} replicas.",
    ]
    if chosen_tp > nvlink_domain_gpus:
        arithmetic.append(
            f"TP {chosen_tp} spans more than one NVLink domain of {nvlink_domain_gpus}: its per-layer all-reduces "
            "cross the network, which this estimate does not count."
        )
    if dp > 1 and ranks_per_domain == 1:
        where = "spans more than one" if model_gpus > local else "takes most of a"
        arithmetic.append(
            f"One replica (TP {chosen_tp} x PP {chosen_pp} = {model_gpus} GPUs) {where} scale-up domain of {local} "
            "GPUs, placed contiguously (Llama 3's order: TP, PP, then DP): each data-parallel group has one rank "
            "per domain, so the gradient all-reduce crosses the network at each GPU's own NIC bandwidth."
        )
    elif dp > 1:
        arithmetic.append(
            f"{ranks_per_domain} replicas of {model_gpus} GPUs fit one scale-up domain of {local} GPUs: "
            f"{ranks_per_domain} ranks of each data-parallel group reduce over the local link first, "
            "and the domain's NICs carry the rest together."
        )
    idle = gpus - dp * model_gpus
    if idle:
        arithmetic.append(f"{idle:,} GPU(s) left over by TP x PP x DP stay idle in this plan.")
    return ParallelismPlan(
        tp=chosen_tp,
        pp=chosen_pp,
        dp=dp,
        tp_source="stated" if tp else "memory",
        pp_source="stated" if pp else "memory",
        params_b=params_b,
        gpu_memory_gb=gpu_memory_gb,
        state_bytes_per_param=STATE_BYTES_PER_PARAM,
        state_gb_per_gpu=round(per_gpu, 2),
        memory_budget_gb=round(budget, 2),
        fits=fits,
        gradient_gb_per_gpu=round(gradient_gb, 3),
        dp_ranks_per_domain=ranks_per_domain,
        nvlink_domain_gpus=nvlink_domain_gpus,
        idle_gpus=idle,
        arithmetic=arithmetic,
    )


def gradient_bytes(params_b: float, tp: int, pp: int) -> int:
    """Bytes of bf16 gradient one GPU reduces per step under a plan."""
    return round(params_b * 1e9 * GRADIENT_BYTES_PER_PARAM / (tp * pp))
