"""How long one gradient all-reduce takes: the ring model of nccl-tests, hierarchical.

nccl-tests (doc/PERFORMANCE.md) defines bus bandwidth so it is independent of the
rank count: busbw = algbw x 2(n-1)/n for all-reduce. Turned around, a ring
all-reduce of S bytes over n ranks at bus bandwidth B takes 2(n-1)/n x S / B, plus
one latency per step: a ring all-reduce is a reduce-scatter and an all-gather of
n-1 steps each, 2(n-1) steps.

Hierarchy, as NCCL runs it on GPU servers: inside a node the GPUs reduce over
NVLink at `nvlink_busbw`; across nodes every GPU drives its own NIC, so a node moves
gpus_per_node x `nic_busbw` onto the network. NCCL pipelines the two stages, so
the whole ring runs at the slower one:
B_eff = nvlink_busbw on one node, min(nvlink_busbw, gpus_per_node x nic_busbw) on
more. Latency: 2(g-1) NVLink steps (g GPUs per node) + 2(N-1) network steps (N nodes).

Check: 70B parameters (140 GB of bf16 gradients) on 128 H100 (16 nodes, NVLink 480,
NIC 47 GB/s): B_eff = min(480, 8 x 47) = 376 GB/s, in the 350-390 GB/s nccl-tests
report on such clusters; 2 x 127/128 x 140e9 / 376e9 = 0.74 s.
"""

from __future__ import annotations

import math
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

BYTES_PER_GRADIENT = 2  # bf16


class AllReduceEstimate(BaseModel):
    """One all-reduce: its time, the bus bandwidth it ran at, and what limited it."""

    model_config = ConfigDict(extra="forbid")

    ms: float = Field(description="Estimated time of one all-reduce, milliseconds.", examples=[740.0])
    effective_busbw_gbytes: float = Field(description="Bus bandwidth the ring runs at, GB/s.", examples=[376.0])
    bottleneck: Literal["nvlink", "network"] = Field(description="The slower stage.", examples=["network"])
    latency_ms: float = Field(description="The part of `ms` spent on per-step latency.", examples=[0.2])
    nodes: int = Field(description="Servers the ranks span.", examples=[16])
    assumptions: list[str] = Field(default_factory=list, description="What the estimate assumes.")


def default_message_bytes(params_b: float) -> int:
    """Gradient bytes of a model of `params_b` billion parameters: 2 bytes each (bf16)."""
    if params_b <= 0:
        raise ValueError(f"params_b: must be > 0, got {params_b}")
    return round(params_b * 1e9 * BYTES_PER_GRADIENT)


def allreduce_estimate(
    message_bytes: int,
    gpus: int,
    gpus_per_node: int,
    nvlink_busbw_gbytes: float,
    nic_busbw_gbytes: float,
    nvlink_latency_us: float,
    network_latency_us: float,
) -> AllReduceEstimate:
    """Time of one ring all-reduce of `message_bytes` per GPU over `gpus` GPUs.

    Bandwidths are achievable bus bandwidths in GB/s (1e9 bytes/s), as nccl-tests
    reports them, not the links' nominal rates. See the module docstring for the model.
    """
    if message_bytes < 0:
        raise ValueError(f"message_bytes: must be >= 0, got {message_bytes}")
    if gpus < 1 or gpus_per_node < 1:
        raise ValueError(f"gpus and gpus_per_node: must be at least 1, got {gpus} and {gpus_per_node}")
    if nvlink_busbw_gbytes <= 0 or nic_busbw_gbytes <= 0:
        raise ValueError("nvlink_busbw_gbytes and nic_busbw_gbytes: must be > 0")
    nodes = math.ceil(gpus / gpus_per_node)
    per_node = min(gpus, gpus_per_node)
    network_busbw = per_node * nic_busbw_gbytes
    if nodes == 1 or nvlink_busbw_gbytes < network_busbw:
        bottleneck: Literal["nvlink", "network"] = "nvlink"
        busbw = nvlink_busbw_gbytes
    else:
        bottleneck = "network"
        busbw = network_busbw
    ranks = gpus
    bandwidth_s = 2 * (ranks - 1) / ranks * message_bytes / (busbw * 1e9)
    latency_us = 2 * (per_node - 1) * nvlink_latency_us + 2 * (nodes - 1) * network_latency_us
    if ranks == 1:
        latency_us = 0.0
    assumptions = [
        "Bandwidths are achievable bus bandwidths (as nccl-tests measures them), not nominal link rates.",
        "Ring all-reduce: 2(n-1)/n x message / bus bandwidth, plus 2(n-1) latency steps.",
        f"Gradients are bf16 ({BYTES_PER_GRADIENT} bytes per parameter) when the message is derived from the model size.",
        "No SHARP or other in-network reduction.",
        "No overlap with compute: the whole all-reduce is counted.",
    ]
    if nodes == 1:
        assumptions.append(f"One node: all {gpus} GPU(s) reduce over NVLink at {nvlink_busbw_gbytes:g} GB/s.")
    else:
        assumptions.append(
            f"Hierarchical and pipelined across {nodes} nodes: NVLink {nvlink_busbw_gbytes:g} GB/s inside a node, "
            f"{per_node} NIC(s) x {nic_busbw_gbytes:g} GB/s = {network_busbw:g} GB/s per node across nodes; "
            f"the ring runs at the slower, {bottleneck} ({busbw:g} GB/s)."
        )
    if ranks == 1:
        assumptions.append("One GPU: nothing to reduce.")
    return AllReduceEstimate(
        ms=(bandwidth_s * 1e3 + latency_us / 1e3),
        effective_busbw_gbytes=busbw,
        bottleneck=bottleneck,
        latency_ms=latency_us / 1e3,
        nodes=nodes,
        assumptions=assumptions,
    )
