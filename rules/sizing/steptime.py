"""Whether the network slows the job: one training step's compute, its communication,
and the part of the communication the GPUs wait for.

Compute: a transformer step costs about 6 x active parameters x tokens FLOPs (forward 2,
backward 4; Kaplan et al., "Scaling Laws for Neural Language Models", arXiv 2001.08361,
section 2.1), run at a model FLOPs utilisation (MFU) of 40 % of the GPUs' dense BF16 peak
(Llama 3 reports 38-43 % on 8K-16K H100, arXiv 2407.21783, Table 4).

Overlap: the data-parallel gradient all-reduce runs in buckets during the backward pass
of the last micro-batch of the step (PyTorch DDP / Megatron-LM `--overlap-grad-reduce`);
earlier micro-batches only accumulate gradients. So at most the backward time of one
micro-batch (2/3 of its compute) hides the all-reduce; the rest is exposed. A
micro-batch is one 8,192-token sequence per replica (Llama 3's context length).

Mixture of experts: each MoE layer sends every token's hidden state to its top-2
experts and back (dispatch and combine), forward and twice backward; experts sit on other
servers, so the all-to-all crosses the fabric's bisection and is not overlapped (Fabric
Advisor assumptions). The hidden size d follows from the active parameters with the
usual aspect ratio d = 128 x layers (GPT-3 175B: 12,288 / 96; Llama 3 405B: 16,384 /
126), so active params = 12 x layers x d^2 = 12 d^3 / 128.
"""

from __future__ import annotations

from rules.models import StepEstimate

FLOPS_PER_PARAM_TOKEN = 6  # Kaplan et al. 2020: forward 2 + backward 4
MFU = 0.40  # Llama 3 (arXiv 2407.21783): 38-43 % BF16 MFU on 8K-16K H100
BACKWARD_SHARE = 2 / 3  # backward is 4 of the 6 FLOPs per parameter and token
SEQUENCE_TOKENS = 8192  # Llama 3 pretraining context: one sequence per micro-batch
DEFAULT_TOKENS_PER_STEP = 4 * 1024 * 1024  # Llama 2 (arXiv 2307.09288) and Llama 3's first stage: 4M tokens
MOE_TOP_K = 2  # Mixtral 8x7B (arXiv 2401.04088): top-2 routing
MOE_ACTIVE_SHARE = 0.25  # Mixtral 8x7B: 12.9B of 46.7B parameters active per token (0.28)
ASPECT_RATIO = 128  # d_model / layers: GPT-3 175B 12,288/96; Llama 3 405B 16,384/126
ACTIVATION_BYTES = 2  # bf16


def default_tokens_per_step(dp: int) -> int:
    """4M tokens per step, but at least one sequence for every data-parallel replica."""
    return max(DEFAULT_TOKENS_PER_STEP, dp * SEQUENCE_TOKENS)


def compute_ms(active_params_b: float, tokens_per_step: int, gpus: int, dense_tflops: float) -> float:
    """GPU time of one step: 6 x N x tokens FLOPs over the cluster at the assumed MFU."""
    flops = FLOPS_PER_PARAM_TOKEN * active_params_b * 1e9 * tokens_per_step
    return flops / (gpus * dense_tflops * 1e12 * MFU) * 1e3


def hidden_size(active_params_b: float) -> float:
    """Model width d from the active parameters: N = 12 d^3 / 128."""
    width: float = (ASPECT_RATIO * active_params_b * 1e9 / 12) ** (1 / 3)
    return width


def moe_alltoall_bytes(
    active_params_b: float,
    tokens_per_step: int,
    gpus: int,
    layers: int | None = None,
    hidden: int | None = None,
    top_k: int = MOE_TOP_K,
) -> float:
    """Bytes one GPU sends in the all-to-alls of one step: each of its tokens' hidden
    states goes to its top-k experts and back (k x 2), forward and twice backward (x 3), in
    every layer it holds; summed over the GPUs that is tokens x layers x that, shared by all.
    The published shape (layers, hidden size, k) when the model is named, else estimated
    from the active parameters."""
    d = hidden or hidden_size(active_params_b)
    depth = layers or d / ASPECT_RATIO
    total = tokens_per_step * depth * d * ACTIVATION_BYTES * top_k * 2 * 3
    return total / gpus


def step_estimate(
    compute: float,
    allreduce: float,
    microbatches: int,
    alltoall: float = 0.0,
    bound_by_network: str = "the network",
) -> StepEstimate:
    """The step on one fabric, from its compute and communication times (ms).

    `bound_by_network` names what limits the communication (the fabric, or NVLink / PCIe
    inside the server) for when communication, not compute, bounds the step."""
    window = BACKWARD_SHARE * compute / max(1, microbatches)
    hidden = min(allreduce, window)
    exposed = allreduce - hidden + alltoall
    step = compute + exposed
    share = exposed / step if step else 0.0
    return StepEstimate(
        compute_ms=round(compute, 3),
        allreduce_ms=round(allreduce, 3),
        alltoall_ms=round(alltoall, 3),
        hidden_ms=round(hidden, 3),
        exposed_ms=round(exposed, 3),
        step_ms=round(step, 3),
        exposed_share=round(min(1.0, share), 4),
        bound_by="GPU compute" if share < 0.05 else bound_by_network,
    )


def microbatches(tokens_per_step: int, dp: int) -> int:
    """Micro-batches each replica runs per step: its tokens in 8,192-token sequences."""
    return max(1, tokens_per_step // (max(1, dp) * SEQUENCE_TOKENS))
