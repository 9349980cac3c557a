"""Facts the rules are written over: the profile's fields plus what follows from them.

Every fact has a value (no nulls: rule-engine cannot compare a null with a number),
so a missing detail shows up as a neutral value plus a `*_known` / `has_*` flag.
"""

from __future__ import annotations

import math
from typing import Any

from rules.formatting import pct, usd, usd_range
from rules.models import WorkloadProfile
from rules.platform import Platform, platform_for

__all__ = ["derive", "pct", "platform_facts", "usd", "usd_range"]  # the formatters, for rule facts

FRONTIER_PARAMS_B = 100  # seed guide: "frontier model training (100B+ parameters)"
LARGEST_BUILD_GPUS = 16_384  # Fabric Advisor threshold: past a 64-SU SuperPOD's 16,384 GPUs
LARGEST_BUILD_PARAMS_B = 1_000  # Fabric Advisor threshold: trillion-parameter models
ASSUMED_NIC_GBPS = 400  # ConnectX-7, the common H100-class NIC, when the GPU is not named
FAST_SERVING_GBPS = 400  # seed guide "Inference Clusters": 400GbE for weight loading of large models
# Bytes per parameter: bf16 weights for serving; for training with Adam in mixed precision,
# bf16 weights and gradients plus fp32 master weights, momentum and variance = 16 bytes
# (Rajbhandari et al., "ZeRO: Memory Optimizations Toward Training Trillion Parameter
# Models", SC 2020, section 3.1: 16 x parameters for mixed-precision Adam).
SERVING_BYTES_PER_PARAM = 2
TRAINING_BYTES_PER_PARAM = 16
# InfiniBand generations a customer may ask for: (name, Gb/s per port), as the contract's Preference
PREFERRED_IB = {"infiniband_hdr": ("HDR", 200), "infiniband_ndr": ("NDR", 400), "infiniband_xdr": ("XDR", 800)}


def derive(profile: WorkloadProfile, platform: Platform | None = None) -> dict[str, Any]:
    """The facts of a complete profile on its platform (resolved once by the engine with
    `rules.platform.platform_for` and passed here; looked up when not given), before any
    rule has decided anything."""
    platform = platform or platform_for(profile.gpu_model)
    known = not platform.assumed
    nic_max = platform.max_nic_gbps or ASSUMED_NIC_GBPS
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
    preferred_name, preferred_gbps = PREFERRED_IB.get(str(profile.prefer or ""), ("", 0))
    slower = (
        f", at {preferred_gbps} Gb/s although the NICs carry {nic_max} Gb/s" if 0 < preferred_gbps < nic_max else ""
    )
    return {
        **_server_facts(profile, platform, training),
        "preferred_ib_name": preferred_name,
        "preferred_ib_gbps": preferred_gbps,
        "preferred_ib_slower": slower,
        "workload": str(profile.workload),
        "training": training,
        "gpu_count": profile.gpu_count,
        "node_count": profile.node_count,
        "gpus_per_node": profile.gpus_per_node,
        "gpu_model": profile.gpu_model or "",
        "model_params_b": params,
        "model_known": profile.model_params_b is not None,
        "frontier_model": params >= FRONTIER_PARAMS_B,
        "largest_build": (profile.gpu_count or 0) >= LARGEST_BUILD_GPUS or params >= LARGEST_BUILD_PARAMS_B,
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
        "server": platform.server if known else f"{profile.gpu_model or 'assumed H100-class'} server",
        "eight_gpu_baseboard": known
        and platform.form == "sxm"
        and platform.gpus_per_host == 8
        and profile.gpus_per_node == 8,
        "nic_max_gbps": nic_max,
        "asked_gbps": profile.link_gbps or 0,
        "weights_phrase": f"a {params:g}B-parameter model's weights" if params else "model weights",
    }


def _server_facts(profile: WorkloadProfile, platform: Platform, training: bool) -> dict[str, Any]:
    """What the server and its NVLink domain bring: whether there is NVLink at all, how
    many compute ports a node feeds, the NVLink domain a fabric joins (an NVL72 rack is one
    domain, so one rack needs no compute fabric), and whether the model fits one domain.
    Memory per GPU comes from the platform record (its one home: the GPU facts)."""
    gpn = profile.gpus_per_node or 1
    nodes = profile.node_count or 1
    known = not platform.assumed
    rack_scale = known and platform.rack_scale
    # a scale-up link joins the GPUs (NVLink, or AMD Infinity Fabric), not only PCIe; the
    # statements name which from the platform record's words
    has_nvlink = platform.scale_up.kind != "pcie" and platform.scale_up.gpus > 1
    compute_ports = platform.network("compute").ports
    if rack_scale:
        domain_gpus = platform.scale_up.gpus
        domains = math.ceil(profile.gpu_count / domain_gpus) if profile.gpu_count else nodes
        ports = gpn  # one NIC per GPU on every compute tray
        unit = f"{platform.server} rack (one NVLink domain of {domain_gpus} GPUs)"
    else:
        domain_gpus, domains = gpn, nodes
        if known and platform.form == "pcie" and compute_ports:
            # what a PCIe server can feed: its east-west NICs, one per two GPUs (2-8-5)
            ports = math.ceil(gpn * compute_ports / platform.gpus_per_host)
        else:
            ports = gpn
        unit = "server"
    memory = platform.gpu_memory_gb
    memory = int(memory) if memory.is_integer() else memory  # "640 GB", not "640.0 GB", in statements
    domain_memory = memory * min(domain_gpus, profile.gpu_count or domain_gpus)
    params = profile.model_params_b or 0.0
    weights_gb = params * SERVING_BYTES_PER_PARAM
    state_gb = params * TRAINING_BYTES_PER_PARAM
    multi_node = domains > 1
    weights_fit = weights_gb <= domain_memory
    return {
        "multi_node": multi_node,
        "rack_scale": rack_scale,
        "has_nvlink": has_nvlink,
        "gpu_known": known or not profile.gpu_model,
        "nvlink_unit": unit,
        "nvlink_domain_gpus": domain_gpus,
        "nvlink_domains": domains,
        "compute_ports_per_node": ports,
        # inference-traffic ports per node: every host's (each NVL72 compute tray's)
        "inference_ports_per_node": platform.serving_ports(gpn),
        "pcie_shared_ports": ports < gpn,
        "gpu_memory_gb": memory,
        "domain_memory_gb": domain_memory,
        "weights_gb": round(weights_gb),
        "training_state_gb": round(state_gb),
        "weights_fit_domain": weights_fit,
        "training_state_fits_domain": state_gb <= domain_memory,
        "needs_compute_fabric": training or (multi_node and profile.model_params_b is not None and not weights_fit),
    }


def platform_facts(platform: Platform, facts: dict[str, Any]) -> dict[str, Any]:
    """The words the rules' statements take from the platform record (rules/platform.py),
    so no statement hard-codes NVIDIA's: the scale-up link ('NVLink', 'AMD Infinity
    Fabric', 'PCIe'), the collective library and its tests ('NCCL' / 'nccl-tests' or
    'RCCL' / 'rccl-tests'), and what one node is ('server' or 'NVL72 rack'). `facts` are
    `derive`'s, for the speed the serving links run at (no faster than the NICs)."""
    return {
        "scale_up_words": platform.scale_up.words,
        "scale_up_kind": platform.scale_up.kind,
        "collective_library": platform.collective_library,
        "collective_tests": platform.collective_tests,
        "gpu_vendor": "AMD" if platform.vendor == "amd" else "NVIDIA",
        "node_word": "NVL72 rack" if platform.rack_scale else "server",
        "serving_fast_gbps": min(FAST_SERVING_GBPS, facts.get("nic_max_gbps", ASSUMED_NIC_GBPS)),
    }
