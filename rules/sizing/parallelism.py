"""The default parallelism plan of a training job, and its memory arithmetic.

What crosses the network each step depends on how the model is split, not on its whole
size: every GPU all-reduces only the gradient of the part it holds. The plan follows
Megatron-LM practice (Narayanan et al., "Efficient Large-Scale Language Model Training
on GPU Clusters Using Megatron-LM", SC21, arXiv 2104.04473) and Llama 3's 16K-H100 run
("The Llama 3 Herd of Models", arXiv 2407.21783, TP 8 / PP 16 / DP 128):

- tensor parallelism (TP) inside the NVLink domain, never past 8 GPUs (its all-reduces
  run every layer and only NVLink carries them well);
- pipeline parallelism (PP) as memory needs, in powers of two, never more than half the
  model's layers (Megatron-LM's 1T model: 128 layers on PP 64); the layers are the
  published ones (knowledge/sources/models.yaml) or, for an unnamed size, estimated from
  the aspect ratio d_model = 128 x layers (within 15 % of Llama 3 and GPT-3; a wide,
  shallow model such as MT-NLG 530B, 105 layers, is estimated deeper, 139);
- when no such plan fits with the full Adam state on every replica, the optimizer state
  is sharded over the data-parallel ranks (ZeRO stage 1) before more stages are added;
- a mixture of experts spreads its experts over EP data-parallel ranks (EP divides the
  expert count), first keeping the TP x EP group inside the scale-up domain;
- data parallelism (DP) over the rest: DP = GPUs / (TP x PP); when that leaves more than
  1 % of the GPUs idle, the stage count that leaves fewest idle is taken instead.

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


MIN_LAYERS_PER_STAGE = 2  # Megatron-LM SC21, Table 1: the 1T model's 128 layers over PP 64
IDLE_SHARE = 0.01  # Fabric Advisor assumption: leave at most 1 % of the GPUs idle before trying other PPs
# Depth from size when no published shape matches: d_model = 128 x layers and 12 x layers x
# d_model^2 parameters (Kaplan et al., "Scaling Laws for Neural Language Models", arXiv
# 2001.08361, section 2.1 and Figure 5); it gives GPT-3 175B 96 layers and Llama 3 405B 127
# (126 published).
ASPECT_RATIO = 128


def _is_power_of_two(value: int) -> bool:
    return value >= 1 and value & (value - 1) == 0


def _gb(value: float) -> str:
    return f"{value:,.1f}" if value < 100 else f"{value:,.0f}"


def estimated_layers(params_b: float) -> int:
    """Layers of a dense transformer of `params_b` billion parameters, from the aspect ratio."""
    return max(1, round(math.cbrt(params_b * 1e9 / (12 * ASPECT_RATIO**2))))


def expert_split(params_b: float, active_b: float, experts: int, per_token: int) -> tuple[float, float]:
    """(dense, expert) billions of a mixture of experts: active = dense + expert x k / E."""
    if experts <= 1 or active_b >= params_b:
        return params_b, 0.0
    share = per_token / experts if 0 < per_token < experts else 0.0
    expert = min(params_b, (params_b - active_b) / (1 - share))  # an active share below k / E: all experts
    return params_b - expert, expert


def _expert_parallel(experts: int, limit: int) -> int:
    """The largest divisor of the expert count that is at most `limit` (1 when dense)."""
    if experts <= 1:
        return 1
    return max(d for d in range(1, min(experts, max(1, limit)) + 1) if experts % d == 0)


def plan_parallelism(
    params_b: float,
    gpus: int,
    gpu_memory_gb: float,
    nvlink_domain_gpus: int,
    tp: int | None = None,
    pp: int | None = None,
    local_gpus: int | None = None,
    layers: int | None = None,
    model: str = "",
    experts: int = 0,
    experts_per_token: int = 0,
    active_params_b: float | None = None,
    scale_up_words: str = "NVLink",
) -> ParallelismPlan:
    """The plan for a model of `params_b` billion parameters on `gpus` GPUs.

    `local_gpus` are the GPUs that reduce among themselves before the network (the
    server's, or the rack's NVLink domain; default the NVLink domain): a PCIe server has an
    NVLink domain of one GPU but still reduces its eight GPUs over PCIe first.
    `layers` is the model's depth (published; estimated from the size when None): pipeline
    stages never exceed half of it. A mixture of experts (`experts` > 1) spreads its
    experts over EP data-parallel ranks. When no plan fits memory with the full Adam state
    on every replica, the optimizer state is sharded over the data-parallel ranks (ZeRO
    stage 1, Megatron-LM's distributed optimizer) before adding stages. `tp` and `pp`
    override the defaults (a stated plan is kept even when it does not fit memory; `fits`
    says so). `scale_up_words` names the link TP runs over ("NVLink", "AMD Infinity
    Fabric"; "PCIe" where TP stays at 1). Raises ValueError when tp x pp exceeds the GPUs.
    """
    if params_b <= 0 or gpus < 1 or gpu_memory_gb <= 0 or nvlink_domain_gpus < 1:
        raise ValueError("params_b, gpus, gpu_memory_gb and nvlink_domain_gpus: must be positive")
    active = active_params_b or params_b
    depth_estimated = layers is None
    depth = layers or estimated_layers(active)
    dense_b, expert_b = expert_split(params_b, active, experts, experts_per_token)
    state_gb = params_b * STATE_BYTES_PER_PARAM  # 1e9 params x bytes = GB
    budget = gpu_memory_gb * MEMORY_SHARE_FOR_STATE
    ep_most = _expert_parallel(experts, gpus)
    tp_limit = max(1, min(MAX_TENSOR_PARALLEL, nvlink_domain_gpus, gpus))
    if tp is None:
        chosen_tp = 1
        per_replica = (dense_b + expert_b / ep_most) * STATE_BYTES_PER_PARAM
        while per_replica / chosen_tp > budget and chosen_tp * 2 <= tp_limit:
            chosen_tp *= 2
    else:
        chosen_tp = tp

    local = local_gpus or nvlink_domain_gpus
    ep_in_domain = max(1, local // max(1, chosen_tp))  # EP ranks whose TP x EP GPUs share the domain

    def shape(stages: int, sharded: bool, narrow: bool = False) -> tuple[int, int, float, float]:
        """(dp, ep, state GB per GPU, gradient GB per GPU) with `stages` pipeline stages;
        `narrow` keeps the expert-parallel group inside the scale-up domain."""
        replicas = max(1, gpus // (chosen_tp * stages))
        ep = _expert_parallel(experts, min(replicas, ep_in_domain) if narrow else replicas)
        held = dense_b + expert_b / ep  # billions of parameters one replica's GPUs split
        bytes_per_param = 4 + 12 / replicas if sharded else STATE_BYTES_PER_PARAM
        return (
            replicas,
            ep,
            held * bytes_per_param / (chosen_tp * stages),
            held * GRADIENT_BYTES_PER_PARAM / (chosen_tp * stages),
        )

    def idle_of(stages: int) -> int:
        return gpus - (gpus // (chosen_tp * stages)) * chosen_tp * stages

    sharded = narrow = False
    notes: list[str] = []
    stage_cap = max(1, min(depth // MIN_LAYERS_PER_STAGE, gpus // max(1, chosen_tp)))
    if pp is None:
        options = range(1, stage_cap + 1)
        chosen_pp = 0
        # preference: powers of two, full Adam state, then sharded state, then any stage count;
        # for a mixture of experts, first with the expert group inside the scale-up domain
        for powers, shard in ((True, False), (True, True), (False, False), (False, True)):
            for tight in (True, False) if expert_b else (False,):
                fitting = [
                    p for p in options if (_is_power_of_two(p) or not powers) and shape(p, shard, tight)[2] <= budget
                ]
                if fitting:
                    chosen_pp, sharded, narrow = fitting[0], shard, tight
                    break
            if chosen_pp:
                break
        if not chosen_pp:  # nothing fits: the most stages allowed, and `fits` says so
            chosen_pp = stage_cap
        elif idle_of(chosen_pp) > IDLE_SHARE * gpus:
            fitting = [p for p in options if shape(p, sharded, narrow)[2] <= budget]
            better = min(fitting, key=lambda p: (idle_of(p), p))
            if idle_of(better) < idle_of(chosen_pp):
                notes.append(
                    f"PP {better} instead of {chosen_pp}: it leaves {idle_of(better):,} GPU(s) idle instead of "
                    f"{idle_of(chosen_pp):,}."
                )
                chosen_pp = better
    else:
        chosen_pp = pp
    model_gpus = chosen_tp * chosen_pp
    if model_gpus > gpus:
        raise ValueError(f"tp x pp = {model_gpus} GPUs per model replica, more than the cluster's {gpus:,}")
    dp, ep, per_gpu, gradient_gb = shape(chosen_pp, sharded, narrow)
    # Replicas sit contiguously (Llama 3's order [TP, CP, PP, DP], DP outermost): a domain
    # holds domain // (TP x PP) whole replicas, and a replica that spans domains has one
    # rank of each data-parallel group per domain, which reduces over its own NIC.
    ranks_per_domain = max(1, min(dp, local // model_gpus))
    fits = per_gpu <= budget
    named = f"{model}: " if model else ""
    cap_why = " (2 layers per stage)" if stage_cap == depth // MIN_LAYERS_PER_STAGE else " (the GPUs)"
    tp_words = (
        f"inside the {scale_up_words} domain, up to 8"
        if scale_up_words != "PCIe"
        else "PCIe only: per-layer all-reduces over it would stall every layer"
    )
    depth_words = (
        f"{depth} layers (estimated from the size: d_model = {ASPECT_RATIO} x layers, 12 x layers x d_model^2 "
        "parameters; no published shape matched)"
        if depth_estimated
        else f"{depth} layers (published)"
    )
    arithmetic = [
        f"{named}{params_b:g}B parameters, {depth_words}"
        + (
            f"; {experts} experts per MoE layer, {experts_per_token} per token: {dense_b:,.1f}B outside the "
            f"experts, {expert_b:,.1f}B in them, {active:g}B active per token."
            if expert_b
            else "."
        ),
        f"Model state: {params_b:g}B parameters x {STATE_BYTES_PER_PARAM} bytes ({PRECISION}) = {_gb(state_gb)} GB.",
        f"Budget per GPU: {MEMORY_SHARE_FOR_STATE:.0%} of {gpu_memory_gb:g} GB = {_gb(budget)} GB "
        "(the rest for activations and buffers).",
        f"TP {chosen_tp} ({'stated' if tp else tp_words}) x "
        f"PP {chosen_pp} ({'stated' if pp else f'as memory needs, at most {stage_cap}{cap_why}'})"
        + (f" x EP {ep} (experts spread over {ep} data-parallel ranks)" if ep > 1 else "")
        + f": {_gb(per_gpu)} GB per GPU"
        + ("." if fits else f", over the {_gb(budget)} GB budget: the plan does not fit these GPUs."),
    ]
    if sharded:
        arithmetic.append(
            f"The full Adam state on every replica fits no plan within {stage_cap} stages, so the optimizer "
            f"state (12 of the 16 bytes) is sharded over the {dp:,} data-parallel ranks (ZeRO stage 1; "
            "Megatron-LM's distributed optimizer; DeepSeek-V3 trained this way): more data parallelism "
            "instead of more pipeline stages. The gradients then cross the network as a reduce-scatter "
            "and the weights as an all-gather: the same bytes as the all-reduce."
        )
    if pp is not None and chosen_pp > depth:
        arithmetic.append(f"PP {chosen_pp} (stated) is more stages than the model's {depth} layers.")
    arithmetic.append(
        f"DP {dp:,} = {gpus:,} GPUs / (TP {chosen_tp} x PP {chosen_pp}); each GPU all-reduces its gradient of "
        f"{_gb(gradient_gb)} GB (bf16) over the {dp:,} replicas."
    )
    arithmetic.extend(notes)
    if chosen_tp > nvlink_domain_gpus:
        arithmetic.append(
            f"TP {chosen_tp} spans more than one {scale_up_words} domain of {nvlink_domain_gpus}: its per-layer "
            "all-reduces "
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
        model=model,
        layers=depth,
        layers_estimated=depth_estimated,
        ep=ep,
        sharded_optimizer=sharded,
        arithmetic=arithmetic,
    )
