"""One candidate fabric, designed and sized: link speed, switch, topology, cost and
all-reduce time.

The engine designs every candidate family the same way (the chosen fabric and each
alternative), so the alternatives' figures are as well founded as the choice's.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

import yaml

from knowledge import catalogue
from rules import sizing
from rules.facts import usd_range
from rules.models import Cost, Fabric, Technology, Topology, TopologyKind, WorkloadProfile
from rules.rulebook import Fired, decisions, evaluate

IB_GENERATION_GBPS = {"hdr": 200, "ndr": 400, "xdr": 800}
IB_GENERATION_NAMES = {"hdr": "HDR", "ndr": "NDR", "xdr": "XDR"}
INFERENCE_PORTS_PER_SERVER = 2  # seed guide: 2x 100GbE or 400GbE for inference traffic
REFERENCE_NODES = 16  # seed guide: the 16-node DGX H100 cluster its cost figures are for
REFERENCE_GPUS_PER_NODE = 8


@dataclass(frozen=True)
class Option:
    """What a fabric family brings (rules/options.yaml)."""

    name: str
    relative_training_throughput: float
    throughput_range: str
    latency_us: str
    operational_complexity: str
    summary: str
    source: str


@cache
def options() -> dict[str, Option]:
    raw = yaml.safe_load((Path(__file__).parent / "options.yaml").read_text())["options"]
    return {family: Option(**values) for family, values in raw.items()}


@dataclass
class Candidate:
    family: str
    technology: Technology
    fabric: Fabric
    topology: Topology
    cost: Cost
    option: Option
    allreduce: sizing.AllReduceEstimate | None
    message_bytes: int | None
    fired: list[Fired] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


def technology_for(family: str, link_decisions: dict[str, Any]) -> tuple[Technology, int]:
    """The contract's technology name and the requested link speed for a family."""
    if family == "infiniband":
        generation = link_decisions.get("ib_generation", "hdr")
        return Technology(f"infiniband_{generation}"), IB_GENERATION_GBPS[generation]
    if family == "nvlink_only":
        return Technology.nvlink_only, 0
    return Technology(family), int(link_decisions.get("ethernet_gbps", 400))


def fabric_name(technology: Technology, gbps: int) -> str:
    if technology.startswith("infiniband_"):
        generation = technology.removeprefix("infiniband_")
        return f"InfiniBand {IB_GENERATION_NAMES[generation]} ({gbps} Gb/s)"
    if technology == Technology.rocev2:
        return f"RoCEv2 over {gbps}GbE"
    if technology == Technology.ethernet:
        return f"Standard Ethernet {gbps}GbE"
    return "NVLink only (one server)"


def design(family: str, facts: dict[str, Any], profile: WorkloadProfile) -> Candidate:
    """Design and size one candidate fabric family for the profile."""
    facts = {**facts, "fabric": family}
    link_fired = evaluate("link", facts)
    technology, requested = technology_for(family, decisions(link_fired))
    link_gbps = min(requested, facts["nic_max_gbps"]) if requested else 0
    facts.update(requested_gbps=requested, link_gbps=link_gbps)
    topology_fired = evaluate("topology", facts)
    kind = TopologyKind(decisions(topology_fired).get("topology", "fat_tree"))
    option = options()[family]

    if kind == TopologyKind.single_node:
        topology = sizing.single_node(profile.gpu_count)
        fabric = Fabric(
            technology=technology, name=fabric_name(technology, 0), link_gbps=0, latency_us=option.latency_us
        )
        nic_ports = 0
    else:
        topology, switch, _notes = _size(kind, technology, link_gbps, facts, profile)
        nic = catalogue.server_for(profile.gpu_model)
        fabric = Fabric(
            technology=technology,
            name=fabric_name(technology, link_gbps),
            link_gbps=link_gbps,
            switch_model=switch.name,
            switch_radix=topology.radix,
            nic_model=nic.compute_nic if nic and facts["training"] else None,
            latency_us=option.latency_us,
        )
        nic_ports = _edge_ports(facts)
    cost = _cost(technology, topology, nic_ports, profile)
    message = sizing.default_message_bytes(profile.model_params_b or DEFAULT_PARAMS_B)
    allreduce = _allreduce(technology, link_gbps, message, profile) if facts["training"] else None
    return Candidate(
        family=family,
        technology=technology,
        fabric=fabric,
        topology=topology,
        cost=cost,
        option=option,
        allreduce=allreduce,
        message_bytes=message if allreduce else None,
        fired=link_fired + topology_fired,
        notes=list(topology.notes),
    )


def _edge_ports(facts: dict[str, Any]) -> int:
    """Ports each fabric connects at the edge: one per GPU for training (a dedicated
    compute port each), the inference-traffic ports for inference."""
    per_node = facts["gpus_per_node"] if facts["training"] else INFERENCE_PORTS_PER_SERVER
    return facts["node_count"] * per_node


def _size(
    kind: TopologyKind, technology: Technology, link_gbps: int, facts: dict[str, Any], profile: WorkloadProfile
) -> tuple[Topology, catalogue.Switch, list[str]]:
    """Size the topology with the family's switch; move to a higher-radix switch, then
    to Dragonfly+, when no three-tier fabric of the first switch holds the cluster."""
    switches = _switches_for(technology, link_gbps)
    endpoints = _edge_ports(facts)
    small = _smallest_single_switch(technology, link_gbps, endpoints)
    if small is not None and kind != TopologyKind.dragonfly_plus:
        topology = _one_kind(kind, technology, small.radix_at(link_gbps), link_gbps, endpoints, profile)
        if topology.tiers == 1:
            topology.notes.append(
                f"{endpoints:,} ports fit one {small.name} ({small.radix_at(link_gbps)} ports at {link_gbps} Gb/s), "
                f"so the fabric uses it rather than the larger {switches[0].name}."
            )
            return topology, small, topology.notes
    last_error: sizing.FabricTooLarge | None = None
    for switch in switches:
        radix = switch.radix_at(link_gbps)
        try:
            topology = _one_kind(kind, technology, radix, link_gbps, endpoints, profile)
        except sizing.FabricTooLarge as exc:
            last_error = exc
            continue
        if switch is not switches[0]:
            topology.notes.append(
                f"{switches[0].name} (radix {switches[0].radix_at(link_gbps)}) cannot hold "
                f"{endpoints:,} ports in three tiers, so the fabric uses {switch.name} "
                f"(radix {radix} at {link_gbps} Gb/s)."
            )
        return topology, switch, topology.notes
    if kind != TopologyKind.dragonfly_plus:
        topology = sizing.size_dragonfly_plus(endpoints, switches[-1].radix_at(link_gbps), link_gbps)
        topology.notes.append(f"No three-tier fat-tree holds {endpoints:,} ports ({last_error}); Dragonfly+ does.")
        return topology, switches[-1], topology.notes
    assert last_error is not None  # the loop ran: every family has a switch
    raise last_error  # pragma: no cover - Dragonfly+ sizing raised itself


def _one_kind(
    kind: TopologyKind, technology: Technology, radix: int, link_gbps: int, endpoints: int, profile: WorkloadProfile
) -> Topology:
    """The topology of `kind` with switches of `radix` ports."""
    if kind == TopologyKind.rail_optimized:
        return _rail_fabric(technology, profile.node_count, profile.gpus_per_node, radix, link_gbps)
    if kind == TopologyKind.dragonfly_plus:
        return sizing.size_dragonfly_plus(endpoints, radix, link_gbps)
    return sizing.size_fat_tree(endpoints, radix, link_gbps)


def _smallest_single_switch(technology: Technology, link_gbps: int, endpoints: int) -> catalogue.Switch | None:
    """A smaller switch of the family that holds every port on its own, if there is one: a
    4-server inference fabric does not need a 128-port switch (nor its price)."""
    smaller = _family_switches(technology, link_gbps)[0]
    return next((s for s in smaller if endpoints <= s.radix_at(link_gbps)), None)


def _rail_fabric(technology: str, nodes: int, rails: int, radix: int, link_gbps: int) -> Topology:
    """The rail-optimized fabric as the SuperPOD builds it: SUs of radix/2 nodes, and on
    InfiniBand one node slot kept for the fabric manager (UFM); Ethernet needs none."""
    return sizing.size_rail_optimized(
        nodes=nodes,
        rails=rails,
        radix=radix,
        link_gbps=link_gbps,
        nodes_per_su=radix // 2,
        reserved_endpoints=1 if str(technology).startswith("infiniband") else 0,
    )


@cache
def _family_switches(
    technology: Technology, link_gbps: int
) -> tuple[tuple[catalogue.Switch, ...], tuple[catalogue.Switch, ...]]:
    """The family's switches at that speed, each side of its default one, by radix:
    (smaller ones, smallest first; the default, then the bigger ones)."""
    first = catalogue.switch_for(str(technology), link_gbps)
    default = first.radix_at(link_gbps)
    others = sorted(
        (s for s in catalogue.switches() if s.fabric == first.fabric and s.model != first.model),
        key=lambda s: s.radix_at(link_gbps),
    )
    smaller = tuple(s for s in others if 0 < s.radix_at(link_gbps) < default)
    bigger = tuple(s for s in others if s.radix_at(link_gbps) > default)
    return smaller, (first, *bigger)


def _switches_for(technology: Technology, link_gbps: int) -> tuple[catalogue.Switch, ...]:
    """The family's switch first, then same-fabric switches of higher radix at that speed."""
    return _family_switches(technology, link_gbps)[1]


@cache
def _reference_units() -> int:
    """Port-equivalents of the one fabric the seed guide prices: its 16-node DGX H100
    cluster on InfiniBand, as this project builds it (rail-optimized, fabric-manager slot).

    The guide quotes that InfiniBand fabric at $200K-$400K and an "equivalent 400GbE
    Ethernet fabric" at $80K-$150K: two prices for one shape. So every technology's
    price per unit divides its figure by this one count. Dividing each by a 16-node
    design of its own (an 11-switch InfiniBand fabric, a single Ethernet switch) would
    make an Ethernet port dearer than an InfiniBand one, and InfiniBand cheaper than
    Ethernet at large sizes, against the guide's 2-3x for equivalent gear."""
    technology, gbps = catalogue.cost_reference().quoted_fabric("infiniband")
    radix = catalogue.switch_for(technology, gbps).radix_at(gbps)
    reference = _rail_fabric(technology, REFERENCE_NODES, REFERENCE_GPUS_PER_NODE, radix, gbps)
    return sizing.fabric_units(reference, REFERENCE_NODES * REFERENCE_GPUS_PER_NODE)


@cache
def price_per_unit(technology: Technology, link_gbps: int) -> tuple[float, float, str]:
    """Dollars per fabric unit (switch port, NIC port or cable) of a technology at a
    speed: the guide's 16-node figure for it, times its multiplier, over the reference
    fabric's units. A design's cost is then its own units at this price."""
    price = catalogue.cost_reference().for_technology(str(technology), link_gbps)
    units = _reference_units()
    low, high = sizing.usd_per_unit(price.usd_low * price.multiplier, price.usd_high * price.multiplier, units)
    basis = (
        f"{price.label}: the seed guide's 16-node DGX H100 figure of {usd_range(price.usd_low, price.usd_high)}"
        f" x{price.multiplier:g} ({price.multiplier_reason.rstrip('.')}), over that 16-node fabric's {units:,} units"
        f" (switch ports, NIC ports and cables; the guide prices the one fabric in InfiniBand and in Ethernet gear),"
        f" scaled by this fabric's size"
    )
    return low, high, basis


def topology_link_gbps(topology: Topology) -> int:
    return topology.cables[0].gbps if topology.cables else 0


def _cost(technology: Technology, topology: Topology, nic_ports: int, profile: WorkloadProfile) -> Cost:
    if technology == Technology.nvlink_only:
        return Cost(
            network_usd_low=0,
            network_usd_high=0,
            basis="NVLink is included in SXM servers; no compute fabric to buy.",
            budget_share_low=0.0 if profile.budget_usd else None,
            budget_share_high=0.0 if profile.budget_usd else None,
        )
    low, high, basis = price_per_unit(technology, topology_link_gbps(topology))
    return sizing.network_cost(topology, nic_ports, low, high, basis, profile.budget_usd)


def _allreduce(
    technology: Technology, link_gbps: int, message: int, profile: WorkloadProfile
) -> sizing.AllReduceEstimate:
    nvlink = catalogue.nvlink(profile.gpu_model)
    if technology == Technology.nvlink_only:
        network = nvlink
    else:
        network = catalogue.link(str(technology), link_gbps)
    estimate = sizing.allreduce_estimate(
        message_bytes=message,
        gpus=profile.gpu_count,
        gpus_per_node=profile.gpus_per_node,
        nvlink_busbw_gbytes=nvlink.achievable_busbw_gbytes,
        nic_busbw_gbytes=network.achievable_busbw_gbytes,
        nvlink_latency_us=nvlink.latency_us_model,
        network_latency_us=network.latency_us_model,
    )
    sources = f"Bandwidths: {nvlink.source}" + ("" if network is nvlink else f"; {network.source}")
    extra = [sources]
    if profile.model_params_b is None:
        extra.insert(0, f"Model size not given: estimated for a {DEFAULT_PARAMS_B:g}B-parameter model.")
    return estimate.model_copy(update={"assumptions": [*estimate.assumptions, *extra]})


DEFAULT_PARAMS_B = 7.0
