"""How long one gradient all-reduce takes: the ring model of nccl-tests, hierarchical.

nccl-tests (doc/PERFORMANCE.md) defines bus bandwidth so it is independent of the
rank count: busbw = algbw x 2(n-1)/n for all-reduce. Turned around, a ring
all-reduce of S bytes over n ranks at bus bandwidth B takes 2(n-1)/n x S / B, plus
one latency per step: a ring all-reduce is a reduce-scatter and an all-gather of
n-1 steps each, 2(n-1) steps.

Hierarchy, as NCCL runs it: the ranks that share a scale-up domain (the GPUs of a
server, or the 72 GPUs of an NVL72 rack's NVLink domain) reduce over NVLink at
`local_busbw`; across domains every rank drives its own NIC, so a domain moves
ranks_per_domain x `nic_busbw` onto the network. NCCL pipelines the two stages, so the
whole ring runs at the slower one:
B_eff = local_busbw inside one domain, min(local_busbw, ranks_per_domain x nic_busbw)
across domains. Latency: 2(L-1) local steps (L ranks per domain) + 2(N-1) network steps
(N domains).

Which ranks share a domain follows from how replicas are placed. Llama 3 orders its
parallelism [TP, CP, PP, DP] ("The Llama 3 Herd of Models", arXiv 2407.21783, section
3.3.2), DP outermost: one model replica (TP x PP GPUs) occupies consecutive GPUs, so a
domain holds domain_gpus // (TP x PP) whole replicas (rules.sizing.parallelism). A replica
larger than the domain (Llama 3 405B at TP 8 x PP 8 = 64 GPUs on a 72-GPU NVL72 rack, or
on 8-GPU servers) has one rank of each data-parallel group per domain (L = 1): its
all-reduce runs at one NIC's bandwidth (~47 GB/s per 400G NIC, nccl-tests issues #290 and
#267), rack or no rack. A replica smaller than the domain (70B at TP 8 x PP 2 = 16 GPUs)
puts 4 ranks of its group in one NVL72 rack but only 1 in an 8-GPU server, so a rack never
reduces slower than 8-GPU servers.

In-network reduction (SHARP on InfiniBand Quantum-2 and Quantum-X800): the switches sum
the data, so each byte crosses a rank's NIC once each way instead of 2(n-1)/n times; the
network stage then takes S / B. Reported as an option, never assumed.

Check: 70B parameters (140 GB of bf16 gradients) on 128 H100 with one rank per GPU
(16 nodes, NVLink 480, NIC 47 GB/s): B_eff = min(480, 8 x 47) = 376 GB/s, in the
350-390 GB/s nccl-tests report on such clusters; 2 x 127/128 x 140e9 / 376e9 = 0.74 s.
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
    nodes: int = Field(description="Scale-up domains (servers or NVLink racks) the ranks span.", examples=[16])
    in_network_ms: float | None = Field(
        default=None, description="The same all-reduce with in-network reduction (SHARP), ms.", examples=[380.0]
    )
    assumptions: list[str] = Field(default_factory=list, description="What the estimate assumes.")


def default_message_bytes(params_b: float) -> int:
    """Gradient bytes of a whole model of `params_b` billion parameters: 2 bytes each (bf16)."""
    if params_b <= 0:
        raise ValueError(f"params_b: must be > 0, got {params_b}")
    return round(params_b * 1e9 * BYTES_PER_GRADIENT)


def allreduce_estimate(
    message_bytes: int,
    ranks: int,
    ranks_per_domain: int,
    local_busbw_gbytes: float,
    nic_busbw_gbytes: float,
    local_latency_us: float,
    network_latency_us: float,
    in_network_reduction: bool = False,
    collective_tests: str = "nccl-tests",
    local_name: str = "NVLink",
) -> AllReduceEstimate:
    """Time of one ring all-reduce of `message_bytes` per rank over `ranks` ranks, of
    which `ranks_per_domain` share a scale-up domain (NVLink or the server's PCIe).

    Bandwidths are achievable bus bandwidths in GB/s (1e9 bytes/s), as nccl-tests
    reports them, not the links' nominal rates. `in_network_reduction` also estimates the
    all-reduce with SHARP (`in_network_ms`). `collective_tests` and `local_name` are the
    platform's words (rccl-tests and AMD Infinity Fabric on AMD; PCIe on PCIe servers) for
    the assumptions. See the module docstring for the model.
    """
    if message_bytes < 0:
        raise ValueError(f"message_bytes: must be >= 0, got {message_bytes}")
    if ranks < 1 or ranks_per_domain < 1:
        raise ValueError(f"ranks and ranks_per_domain: must be at least 1, got {ranks} and {ranks_per_domain}")
    if local_busbw_gbytes <= 0 or nic_busbw_gbytes <= 0:
        raise ValueError("local_busbw_gbytes and nic_busbw_gbytes: must be > 0")
    domains = math.ceil(ranks / ranks_per_domain)
    per_domain = min(ranks, ranks_per_domain)
    network_busbw = per_domain * nic_busbw_gbytes
    if domains == 1 or local_busbw_gbytes < network_busbw:
        bottleneck: Literal["nvlink", "network"] = "nvlink"
        busbw = local_busbw_gbytes
    else:
        bottleneck = "network"
        busbw = network_busbw
    bandwidth_s = 2 * (ranks - 1) / ranks * message_bytes / (busbw * 1e9)
    latency_us = 2 * (per_domain - 1) * local_latency_us + 2 * (domains - 1) * network_latency_us
    if ranks == 1:
        latency_us = 0.0
    in_network_ms = None
    if in_network_reduction and domains > 1:
        # local reduce-scatter + all-gather at local busbw, network stage: S/L once per NIC
        local_s = 2 * (per_domain - 1) / per_domain * message_bytes / (local_busbw_gbytes * 1e9)
        network_s = message_bytes / network_busbw / 1e9
        in_network_ms = (max(local_s, network_s) * 1e3) + (2 * (per_domain - 1) * local_latency_us) / 1e3
    assumptions = [
        f"Bandwidths are achievable bus bandwidths (as {collective_tests} measures them), not nominal link rates.",
        "Ring all-reduce: 2(n-1)/n x message / bus bandwidth, plus 2(n-1) latency steps.",
        f"Gradients are bf16 ({BYTES_PER_GRADIENT} bytes per parameter) when the message is derived from the model.",
        "No SHARP or other in-network reduction in the main figure.",
        "The all-reduce time counts the whole operation; the step model says how much of it overlaps compute.",
    ]
    if domains == 1:
        assumptions.append(
            f"One scale-up domain: all {ranks} rank(s) reduce over {local_name} at {local_busbw_gbytes:g} GB/s, "
            "no network."
        )
    else:
        assumptions.append(
            f"Hierarchical and pipelined across {domains:,} domains: {local_name} at {local_busbw_gbytes:g} GB/s "
            "inside a domain, "
            f"{per_domain} rank(s) per domain x {nic_busbw_gbytes:g} GB/s per NIC = {network_busbw:g} GB/s across; "
            f"the ring runs at the slower, {local_name if bottleneck == 'nvlink' else 'the network'} ({busbw:g} GB/s)."
        )
    if ranks == 1:
        assumptions.append("One data-parallel rank: nothing to reduce.")
    return AllReduceEstimate(
        ms=(bandwidth_s * 1e3 + latency_us / 1e3),
        effective_busbw_gbytes=busbw,
        bottleneck=bottleneck,
        latency_ms=latency_us / 1e3,
        nodes=domains,
        in_network_ms=in_network_ms,
        assumptions=assumptions,
    )
