"""Facts the rules are written over: the profile's fields plus what follows from them.

Every fact has a value (no nulls: rule-engine cannot compare a null with a number),
so a missing detail shows up as a neutral value plus a `*_known` / `has_*` flag.
"""

from __future__ import annotations

from typing import Any

from knowledge import catalogue
from rules.formatting import pct, usd, usd_range
from rules.models import WorkloadProfile

__all__ = ["derive", "pct", "usd", "usd_range"]  # the formatters, for rule facts

FRONTIER_PARAMS_B = 100  # seed guide: "frontier model training (100B+ parameters)"
LARGEST_BUILD_GPUS = 16_384  # Fabric Advisor threshold: past a 64-SU SuperPOD's 16,384 GPUs
LARGEST_BUILD_PARAMS_B = 1_000  # Fabric Advisor threshold: trillion-parameter models
ASSUMED_NIC_GBPS = 400  # ConnectX-7, the common H100-class NIC, when the GPU is not named


def derive(profile: WorkloadProfile) -> dict[str, Any]:
    """The facts of a complete profile, before any rule has decided anything."""
    server = catalogue.server_for(profile.gpu_model)
    nic_max = catalogue.max_nic_gbps(profile.gpu_model) or ASSUMED_NIC_GBPS
    training = profile.workload in ("training", "mixed")
    params = profile.model_params_b or 0.0
    reasons = [
        text
        for flag, text in (
            (profile.cost_sensitive, "cost matters more than the last 10-20 % of speed"),
            (profile.existing_ethernet, "the site already runs Ethernet"),
        )
        if flag
    ]
    return {
        "workload": str(profile.workload),
        "training": training,
        "gpu_count": profile.gpu_count,
        "node_count": profile.node_count,
        "gpus_per_node": profile.gpus_per_node,
        "multi_node": profile.node_count > 1,
        "gpu_model": profile.gpu_model or "",
        "model_params_b": params,
        "model_known": profile.model_params_b is not None,
        "frontier_model": params >= FRONTIER_PARAMS_B,
        "largest_build": profile.gpu_count >= LARGEST_BUILD_GPUS or params >= LARGEST_BUILD_PARAMS_B,
        "budget_usd": profile.budget_usd or 0.0,
        "has_budget": profile.budget_usd is not None,
        "budget_usd_fmt": usd(profile.budget_usd or 0.0),
        "network_budget_usd": profile.network_budget_usd or 0.0,
        "has_network_budget": profile.network_budget_usd is not None,
        "network_budget_usd_fmt": usd(profile.network_budget_usd or 0.0),
        "cost_sensitive": bool(profile.cost_sensitive),
        "existing_ethernet": bool(profile.existing_ethernet),
        "cost_reason": " and ".join(reasons) or "cost is a concern",
        "prefer": str(profile.prefer) if profile.prefer else "",
        "server": server.model if server else f"{profile.gpu_model or 'assumed H100-class'} server",
        "eight_gpu_baseboard": bool(server and server.form == "sxm" and server.gpus == 8)
        and profile.gpus_per_node == 8,
        "nic_max_gbps": nic_max,
        "weights_phrase": f"a {params:g}B-parameter model's weights" if params else "model weights",
    }
