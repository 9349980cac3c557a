"""Workload profiles resolved and checked against the servers the catalogue knows.

The contract (`rules.models.WorkloadProfile`) resolves what follows from the numbers
alone. What needs the hardware catalogue is done here, in the rules layer: the default
GPUs per node of the server named (8 for DGX/HGX, 72 for a GB200/GB300 NVL72 rack, whose
NVLink domain is the unit it is bought and cabled in), and the check that a node holds
no more GPUs than the named system does. A failed check raises pydantic's
ValidationError, naming the field and the limit, so every caller reports it as it
reports any other bad field: the API as a 422, the CLI with exit code 2, the chat as a
question back.

    >>> from rules.models import ProfileDraft
    >>> resolve(ProfileDraft(workload="training", gpu_count=576, gpu_model="GB200")).node_count
    8
"""

from __future__ import annotations

import math

from pydantic import ValidationError
from pydantic_core import InitErrorDetails, PydanticCustomError

from knowledge import catalogue
from rules.models import ProfileDraft, WorkloadProfile
from rules.platform import ASSUMED_GPU

DEFAULT_GPUS_PER_NODE = 8  # an 8-GPU DGX/HGX baseboard, when the GPU is not named or not known


def resolve(profile: ProfileDraft) -> WorkloadProfile:
    """The profile with gpu_count, node_count and gpus_per_node all known, checked
    against the named system. Raises pydantic.ValidationError when a size does not fit it."""
    values = profile.model_dump(exclude_none=True)
    if profile.gpus_per_node is None and (profile.gpu_count is None or profile.node_count is None):
        default = catalogue.default_gpus_per_node(profile.gpu_model) or DEFAULT_GPUS_PER_NODE
        if profile.gpu_count is not None:
            default = min(default, profile.gpu_count)  # 4 GPUs are one partly filled server
        values["gpus_per_node"] = default
    resolved = WorkloadProfile.model_validate(values)
    problem = server_problem(resolved)
    if problem:
        raise _invalid("gpus_per_node", problem, resolved.gpus_per_node)
    refused = link_problem(resolved)
    if refused:
        raise _invalid("link_gbps", refused, resolved.link_gbps)
    return in_racks(resolved)


def in_racks(profile: WorkloadProfile) -> WorkloadProfile:
    """A rack-scale cluster counted in its NVL72 racks, however it was written: "8 GB200
    NVL72 racks" is read as 144 compute trays of 4, "576 GB200" as 8 racks of 72, and both
    are one cluster. The design, its physical build and its bill of materials count racks
    (the unit bought, powered and cabled, with its NVLink switch trays and power shelves);
    counted in trays, each tray was built as a rack of its own and the out-of-band network
    came to 290 switches instead of 17. Any other profile is returned as it is."""
    rack = next((s for s in catalogue.servers_for(profile.gpu_model) if s.rack_scale), None)
    tray = profile.gpus_per_node
    if rack is None or tray >= rack.nvlink_domain_gpus or tray != rack.gpus:
        return profile
    domain = rack.nvlink_domain_gpus
    racks = math.ceil(profile.gpu_count / domain)
    return profile.model_copy(update={"node_count": racks, "gpus_per_node": min(domain, profile.gpu_count)})


def link_problem(profile: ProfileDraft) -> str | None:
    """Why the link speed the profile asks for cannot be used on its servers (faster than
    their NICs carry), naming the platforms whose NICs do; None when it can (or none is
    asked). Never designed at a lower speed in silence: the caller says this instead."""
    asked = profile.link_gbps
    if not asked:
        return None
    server = catalogue.server_for(profile.gpu_model) or catalogue.server_for(ASSUMED_GPU)
    if server is None or not server.compute_ports:
        return None
    if asked <= server.compute_gbps:
        return None
    able = [s for s in catalogue.servers() if s.compute_ports and s.compute_gbps >= asked]
    nics = sorted({s.compute_nic for s in able if s.compute_nic})
    named = "" if catalogue.server_for(profile.gpu_model) else " (assumed H100-class)"
    return (
        f"link_gbps: {asked} Gb/s links need NICs that run {asked} Gb/s, but the {server.model}{named} servers' "
        f"{server.compute_nic} NICs run at most {server.compute_gbps} Gb/s (source: {server.source}). "
        f"Platforms whose NICs run {asked} Gb/s: "
        + (", ".join(f"{s.model} ({s.compute_nic})" for s in able) if able else "none in the catalogue")
        + (f"; {' and '.join(nics)} is what carries it." if nics else ".")
    )


def server_problem(profile: WorkloadProfile) -> str | None:
    """Why the profile's GPUs per node do not fit the named system, or None when they do."""
    servers = catalogue.servers_for(profile.gpu_model)
    gpn, nodes = profile.gpus_per_node, profile.node_count
    if not servers or gpn is None or nodes is None:
        return None
    names = ", ".join(s.model for s in servers)
    rack = next((s for s in servers if s.rack_scale), None)
    if rack is not None:
        domain, tray = rack.nvlink_domain_gpus, rack.gpus
        if gpn > domain:
            return (
                f"gpus_per_node: a {rack.model} rack holds {domain} GPUs in one NVLink domain; got {gpn}. "
                f"Give {domain} (a rack) or {tray} (a compute tray)."
            )
        if tray < gpn < domain and nodes > 1:
            return (
                f"gpus_per_node: a {rack.model} node is a compute tray of {tray} GPUs or the rack's NVLink "
                f"domain of {domain}; {gpn} GPUs on each of {nodes} nodes is neither. Give {domain} or {tray}."
            )
        return None
    limit = max(s.gpus for s in servers)
    if gpn > limit:
        return (
            f"gpus_per_node: {profile.gpu_model} servers hold at most {limit} GPUs ({names}); got {gpn}. "
            f"Give {limit} or fewer, or name a rack-scale system (GB200 or GB300 NVL72) for a larger NVLink domain."
        )
    return None


def _invalid(field: str, message: str, value: object) -> ValidationError:
    """A pydantic ValidationError for one field, shaped like the contract's own."""
    error = InitErrorDetails(
        type=PydanticCustomError("server_limit", "{message}", {"message": message}),
        loc=(field,),
        input=value,
    )
    return ValidationError.from_exception_data(WorkloadProfile.__name__, [error])
