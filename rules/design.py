"""One candidate fabric, designed and sized: link speed, switch, topology, cost and
all-reduce time.

The engine designs every candidate family the same way (the chosen fabric and each
alternative), so the alternatives' figures are as well founded as the choice's.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

import yaml

from knowledge import catalogue
from rules import pricing, sizing, traffic, zoning
from rules.models import (
    BomLine,
    Cost,
    Fabric,
    StepEstimate,
    Technology,
    Topology,
    TopologyKind,
    WorkloadProfile,
)
from rules.physical.build import build_key, physical_build, twin_cages
from rules.platform import Platform, platform_for
from rules.rulebook import Fired, decisions, evaluate

IB_GENERATION_GBPS = {"hdr": 200, "ndr": 400, "xdr": 800}
IB_GENERATION_NAMES = {"hdr": "HDR", "ndr": "NDR", "xdr": "XDR"}


@dataclass(frozen=True)
class Option:
    """What a fabric family brings (rules/options.yaml)."""

    name: str
    throughput_range: str
    latency_us: str
    operational_complexity: str
    summary: str
    source: str


@cache
def options() -> dict[str, Option]:
    raw = yaml.load(
        (Path(__file__).parent / "options.yaml").read_text(), Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    )["options"]
    return {family: Option(**values) for family, values in raw.items()}


@dataclass
class Candidate:
    family: str
    technology: Technology
    fabric: Fabric
    topology: Topology
    cost: Cost
    bill_of_materials: list[BomLine]
    option: Option
    allreduce: sizing.AllReduceEstimate | None
    message_bytes: int | None
    step: StepEstimate | None = None
    fired: list[Fired] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


def technology_for(
    family: str, link_decisions: dict[str, Any], asked_gbps: int | None = None
) -> tuple[Technology, int]:
    """The contract's technology name and the requested link speed for a family: the
    speed the profile asks for (`link_gbps`, "what if we use 200G?") over the link rules'
    choice; for InfiniBand the generation of that speed (HDR 200, NDR 400, XDR 800; 100
    Gb/s, below HDR, is run as HDR). A speed above the NICs' is refused before this
    (rules.servers.link_problem)."""
    if family == "infiniband":
        generation = link_decisions.get("ib_generation", "hdr")
        if asked_gbps:
            generation = next((g for g, gbps in IB_GENERATION_GBPS.items() if gbps >= asked_gbps), generation)
        return Technology(f"infiniband_{generation}"), IB_GENERATION_GBPS[generation]
    if family == "nvlink_only":
        return Technology.nvlink_only, 0
    return Technology(family), int(asked_gbps or link_decisions.get("ethernet_gbps", 400))


def fabric_name(technology: Technology, gbps: int, facts: dict[str, Any] | None = None) -> str:
    if technology.startswith("infiniband_"):
        generation = technology.removeprefix("infiniband_")
        return f"InfiniBand {IB_GENERATION_NAMES[generation]} ({gbps} Gb/s)"
    if technology == Technology.rocev2:
        return f"RoCEv2 over {gbps}GbE"
    if technology == Technology.ethernet:
        return f"Standard Ethernet {gbps}GbE"
    if facts and not facts.get("has_nvlink", True):
        return "No compute fabric (one server; its GPUs talk over PCIe)"
    if facts and facts.get("rack_scale"):
        return "NVLink only (one NVL72 rack)"
    return f"{facts.get('scale_up_words', 'NVLink') if facts else 'NVLink'} only (one server)"


def design(
    family: str,
    facts: dict[str, Any],
    profile: WorkloadProfile,
    job: traffic.Traffic | None = None,
    platform: Platform | None = None,
) -> Candidate:
    """Design and size one candidate fabric family for the profile; `job` is the training
    traffic every candidate is timed on (None for inference: no all-reduce); `platform` the
    record the engine resolved once (looked up from the GPU model when not given)."""
    platform = platform or platform_for(profile.gpu_model)
    layout = laid_out(family, facts, profile, platform)
    facts, technology, link_gbps = layout.facts, layout.technology, layout.link_gbps
    option, topology, fabric = layout.option, layout.topology, layout.fabric
    switch_model = layout.switch.model if layout.switch else None
    edge_ports = _edge_ports(facts) // max(1, facts["node_count"])
    sized = topology.model_dump_json()  # priced from the same build: its lines read the same wiring
    if switch_model and topology.total_switches:
        built = physical_build(
            build_key(topology),
            platform,
            edge_ports,
            twin_cages(platform, facts["needs_compute_fabric"]),
            switch_model,
            profile.floor,
        )
        if built is not None:  # the counts the design shows are the wiring's (the formulas check them)
            topology = built.counted(topology)
            topology.notes.extend(built.notes())
    bom, cost = pricing.priced(
        technology,
        switch_model,
        sized,
        platform,
        str(profile.workload),
        profile.node_count or 1,
        profile.gpus_per_node or 1,
        profile.gpu_count or 1,
        pricing.ServerLayout(
            multi_node=facts["multi_node"],
            compute_fabric=facts["needs_compute_fabric"],
            fabric_ports=fabric_ports(facts),
            edge_ports=edge_ports,
        ),
        profile.floor,
    )
    cost = pricing.with_budget(cost, profile.budget_usd)
    allreduce, step = _allreduce(technology, link_gbps, topology, job) if job else (None, None)
    return Candidate(
        family=family,
        technology=technology,
        fabric=fabric,
        topology=topology,
        cost=cost,
        bill_of_materials=list(bom),
        option=option,
        allreduce=allreduce,
        message_bytes=job.message_bytes if job else None,
        step=step,
        fired=layout.fired,
        notes=list(topology.notes),
    )


@dataclass
class Layout:
    """A family's fabric laid out and sized, before it is priced and built: the facts with
    the link decided, the technology, link speed, topology and switch, and the rules that
    fired. `design` prices and builds it; growth sizes larger clusters with it."""

    facts: dict[str, Any]
    technology: Technology
    link_gbps: int
    option: Option
    topology: Topology
    switch: catalogue.Switch | None
    fabric: Fabric
    fired: list[Fired]


def laid_out(family: str, facts: dict[str, Any], profile: WorkloadProfile, platform: Platform) -> Layout:
    """The link, topology and switch counts `design` builds for a family, without pricing."""
    facts = {**facts, "fabric": family}
    link_fired = evaluate("link", facts)
    technology, requested = technology_for(family, decisions(link_fired), profile.link_gbps)
    link_gbps = min(requested, facts["nic_max_gbps"]) if requested else 0
    facts.update(requested_gbps=requested, link_gbps=link_gbps)
    topology_fired = evaluate("topology", facts)
    kind = TopologyKind(decisions(topology_fired).get("topology", "fat_tree"))
    option = options()[family]

    if kind == TopologyKind.single_node:
        topology = sizing.single_node(profile.gpu_count or 1, platform.scale_up.words)
        fabric = Fabric(
            technology=technology, name=fabric_name(technology, 0, facts), link_gbps=0, latency_us=option.latency_us
        )
        switch = None
    else:
        topology, switch, _ = _size(kind, technology, link_gbps, facts, profile)
        if _twin_planes(technology, link_gbps, topology, platform):
            topology, switch = _twin_plane_fabric(profile.node_count or 1, facts["compute_ports_per_node"])
        if facts["rack_scale"] and topology.kind == TopologyKind.fat_tree:
            _rack_units(topology, facts)
        topology = _zones(topology, facts, profile, platform)
        nic = None if platform.assumed else platform.compute_nic
        fabric = Fabric(
            technology=technology,
            name=fabric_name(technology, link_gbps)
            + (f" as {topology.planes} planes of {link_gbps // topology.planes}GbE" if topology.planes > 1 else "")
            + _spines_named(topology)
            + (f", {topology.zone_oversubscription:g}:1 above {topology.zones} AI zones" if topology.zones else ""),
            link_gbps=link_gbps,
            switch_model=switch.name,
            switch_radix=topology.radix,
            nic_model=nic if facts["needs_compute_fabric"] else None,
            latency_us=option.latency_us,
        )
    return Layout(facts, technology, link_gbps, option, topology, switch, fabric, link_fired + topology_fired)


def _zones(topology: Topology, facts: dict[str, Any], profile: WorkloadProfile, platform: Platform) -> Topology:
    """The fabric in AI zones, oversubscribed above them, where the profile asks for it
    (rules/zoning.py); a zone size without a ratio changes nothing, and says so."""
    ratio = profile.oversubscription or 1.0
    if ratio <= 1:
        if profile.zone_gpus:
            topology.notes.append(
                f"Zones of {profile.zone_gpus:,} GPUs were given without an oversubscription above them, so the "
                "fabric stays non-blocking throughout (give oversubscription, e.g. 7:1, to build AI zones)."
            )
        return topology
    return zoning.zoned_topology(
        topology,
        platform,
        profile.gpu_count or 1,
        ratio,
        profile.zone_gpus,
        _edge_ports(facts) // max(1, facts["node_count"]),
        twin_cages(platform, facts["needs_compute_fabric"]),
    )


RACKS_PER_SU = 8  # NVIDIA DGX SuperPOD GB200 RA: a scalable unit is 8 DGX GB200 racks (576 GPUs)


PLANE_GBPS = 400  # NVIDIA DGX SuperPOD B300 (Spectrum-X) RA: each GPU 2 x 400GbE, one per plane
PLANE_NODES_PER_SU = 64  # same RA, Table 3: 64 nodes per SU, each group rail-aligned
PLANE_SOURCE = "NVIDIA DGX SuperPOD B300 reference architecture (Spectrum-X compute fabric, Table 3)"


def _twin_planes(technology: Technology, link_gbps: int, topology: Topology, platform: Platform) -> bool:
    """NVIDIA's Spectrum-X design for ConnectX-8 servers: 800GbE per GPU as two 400GbE
    planes (twin-planar), each its own rail-optimized two-tier fabric of SN5600s."""
    return (
        technology == Technology.rocev2
        and link_gbps == 2 * PLANE_GBPS
        and topology.kind == TopologyKind.rail_optimized
        and not platform.assumed
        and platform.compute_nic == "ConnectX-8"
    )


def _twin_plane_fabric(nodes: int, rails: int) -> tuple[Topology, catalogue.Switch]:
    """Two identical 400GbE planes of SUs of 64 nodes (B300 Spectrum-X RA, Table 3: 1 SU =
    16 leaf / 8 spine, 8 SU = 128 / 64, 16 SU = 256 / 128, two tiers throughout); counts
    and cables are for both planes. Each 800G NIC port splits into 2 x 400G, one per plane."""
    switch = catalogue.switch_for(str(Technology.rocev2), PLANE_GBPS)
    plane = sizing.size_rail_optimized(
        nodes=nodes,
        rails=rails,
        radix=switch.radix_at(PLANE_GBPS),
        link_gbps=PLANE_GBPS,
        nodes_per_su=PLANE_NODES_PER_SU,
        reserved_endpoints=0,
    )
    twice = plane.model_copy(
        update={
            "planes": 2,
            "endpoints": 2 * plane.endpoints,
            "leaf_switches": 2 * plane.leaf_switches,
            "spine_switches": 2 * plane.spine_switches,
            "core_switches": 2 * plane.core_switches,
            "cables": [c.model_copy(update={"count": 2 * c.count}) for c in plane.cables],
            "bisection_gbps": 2 * plane.bisection_gbps,
            "notes": [
                f"Twin planes ({PLANE_SOURCE}): each GPU's 800GbE ConnectX-8 port runs as 2 x 400GbE, one link "
                f"into each of two identical, disjoint fabrics; each plane is the rail-optimized fabric below "
                f"({plane.leaf_switches} leaf / {plane.spine_switches} spine"
                + (f" / {plane.core_switches} core" if plane.core_switches else "")
                + f", {plane.tiers} tiers, {switch.name} at {PLANE_GBPS}G with {switch.radix_at(PLANE_GBPS)} ports); "
                "the counts given are for both planes.",
                "What a failure costs: a switch, transceiver or cable failure takes one plane's link from the GPUs "
                "behind it; they continue on the other plane at half their bandwidth and the job keeps running "
                f"rather than aborting ({PLANE_SOURCE}).",
                *plane.notes,
            ],
        }
    )
    return twice, switch


def _rack_units(topology: Topology, facts: dict[str, Any]) -> None:
    """NVL72 racks counted in the GB200 SuperPOD's scalable units of 8 racks."""
    racks = facts["nvlink_domains"]
    topology.scalable_units = math.ceil(racks / RACKS_PER_SU)
    topology.notes.insert(
        0,
        f"{racks} NVL72 rack(s), each one NVLink domain of {facts['nvlink_domain_gpus']} GPUs; every GPU's NIC "
        f"joins the compute fabric ({facts['compute_ports_per_node']} ports per rack); scalable units of "
        f"{RACKS_PER_SU} racks (NVIDIA DGX SuperPOD GB200 RA): {topology.scalable_units} SU.",
    )


def fabric_ports(facts: dict[str, Any]) -> int:
    """Compute-fabric ports per server: none on a single server (or one NVL72 rack) or
    where the GPUs need no compute fabric (inference that fits a server)."""
    return facts["compute_ports_per_node"] if facts["multi_node"] and facts["needs_compute_fabric"] else 0


def _edge_ports(facts: dict[str, Any]) -> int:
    """Ports each fabric connects at the edge: the compute ports of every node where the
    GPUs need a compute fabric (training, or a model served across servers: one per GPU,
    one per two GPUs on a PCIe server), else the inference-traffic ports."""
    per_node: int = (
        facts["compute_ports_per_node"] if facts["needs_compute_fabric"] else facts["inference_ports_per_node"]
    )
    nodes: int = facts["node_count"]
    return nodes * per_node


def _size(
    kind: TopologyKind, technology: Technology, link_gbps: int, facts: dict[str, Any], profile: WorkloadProfile
) -> tuple[Topology, catalogue.Switch, list[str]]:
    """Size the topology with the family's switch; move to a higher-radix switch, then
    to Dragonfly+, when no three-tier fabric of the first switch holds the cluster."""
    switches = _switches_for(technology, link_gbps)
    endpoints = _edge_ports(facts)
    if kind == TopologyKind.dragonfly_plus:
        clos, clos_switch, _ = _size(TopologyKind.fat_tree, technology, link_gbps, facts, profile)
        if clos.kind != TopologyKind.dragonfly_plus:
            fitted = _dragonfly_plus_fitting(switches, endpoints, link_gbps)
            if fitted is None:
                clos.notes.append(
                    f"Dragonfly+ was considered, but no switch of the family holds {endpoints:,} ports in one "
                    "(the groups would outnumber a group's global links), so the Clos is kept."
                )
                return clos, clos_switch, clos.notes
            dragonfly, dragonfly_switch = fitted
            if _gear(dragonfly) >= _gear(clos):
                clos.notes.append(
                    f"Dragonfly+ was sized too ({dragonfly.total_switches:,} switches, {dragonfly.total_cables:,} "
                    f"cables, {dragonfly.bisection_gbps / (endpoints * link_gbps / 2):.0%} of full bisection) but "
                    f"needs no less gear than this Clos ({clos.total_switches:,} switches, {clos.total_cables:,} "
                    "cables at full bisection), so the Clos is kept."
                )
                return clos, clos_switch, clos.notes
            dragonfly.notes.append(
                f"Against the Clos ({clos.total_switches:,} switches, {clos.total_cables:,} cables, full bisection) "
                f"it saves {clos.total_switches - dragonfly.total_switches:,} switches and "
                f"{clos.total_cables - dragonfly.total_cables:,} cables, for "
                f"{dragonfly.bisection_gbps / (endpoints * link_gbps / 2):.0%} of full bisection."
            )
            return dragonfly, dragonfly_switch, dragonfly.notes
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
        if _ndr_leaves_under(switch, switches[0], technology, link_gbps, kind):
            mixed = _mixed_generation(switches[0], switch, technology, link_gbps, endpoints, profile)
            if mixed is not None:
                return mixed, switches[0], mixed.notes
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


def _dragonfly_plus_fitting(
    switches: tuple[catalogue.Switch, ...], endpoints: int, link_gbps: int
) -> tuple[Topology, catalogue.Switch] | None:
    """The Dragonfly+ of the first of the family's switches (by radix, the family's own
    first) that holds every port, or None when none does (a 40-port HDR switch holds at
    most 160,400 endpoints: 300,000 A100 ports need a higher-radix switch)."""
    for switch in switches:
        try:
            return sizing.size_dragonfly_plus(endpoints, switch.radix_at(link_gbps), link_gbps), switch
        except sizing.FabricTooLarge:
            continue
    return None


MIXED_SOURCE = (
    "NVIDIA ConnectX-7 Adapter Cards Firmware Release Notes v28.47.1026, known issue 4705241: "
    '"When Quantum-2 is part of an XDR topology, serving as a leaf switch connected to NDR-based hosts, '
    'a bandwidth degradation of approximately 3-7 Gb/s is expected"'
)


def _spines_named(topology: Topology) -> str:
    """The words for spines and core of another model than the leaves, else nothing."""
    if not topology.spine_switch:
        return ""
    spine = next((s for s in catalogue.switches() if s.model == topology.spine_switch), None)
    return f", {spine.name if spine else topology.spine_switch} spines and core above the leaves"


def _ndr_leaves_under(
    switch: catalogue.Switch, leaf: catalogue.Switch, technology: Technology, link_gbps: int, kind: TopologyKind
) -> bool:
    """Whether `switch` is a faster generation than the hosts' links (a Quantum-X800 XDR
    switch above ConnectX-7 NDR hosts), so the leaves stay the hosts' own generation."""
    return (
        switch is not leaf
        and str(technology).startswith("infiniband")
        and kind == TopologyKind.rail_optimized
        and switch.port_gbps > link_gbps
        and leaf.port_gbps == link_gbps
    )


def _mixed_generation(
    leaf: catalogue.Switch,
    spine: catalogue.Switch,
    technology: Technology,
    link_gbps: int,
    endpoints: int,
    profile: WorkloadProfile,
) -> Topology | None:
    """NDR hosts on Quantum-2 leaves, Quantum-X800 spines and core running NDR above them
    (MIXED_SOURCE): NVIDIA documents Quantum-2 as the leaf under NDR hosts in an XDR
    topology. The leaves keep the SuperPOD's 32-node SU; the 144-port spines hold pods of
    72 leaves. None when even that does not hold the cluster."""
    nodes = profile.node_count or 1
    try:
        topology = sizing.size_rail_optimized(
            nodes=nodes,
            rails=endpoints // nodes,
            radix=leaf.radix_at(link_gbps),
            link_gbps=link_gbps,
            nodes_per_su=leaf.radix_at(link_gbps) // 2,
            reserved_endpoints=1 if _manager_slot(profile.gpu_model) else 0,
            spine_radix=spine.radix_at(link_gbps),
        )
    except sizing.FabricTooLarge:
        return None
    topology.spine_switch = spine.model
    topology.notes.append(
        f"{leaf.name} (radix {leaf.radix_at(link_gbps)}) cannot hold {endpoints:,} ports in three tiers. The "
        f"hosts' ConnectX-7 links are NDR ({link_gbps} Gb/s), so the leaves stay {leaf.name} and only the "
        f"spines and core are {spine.name} ({spine.radix_at(link_gbps)} ports at {link_gbps} Gb/s): "
        f"{topology.leaf_switches:,} {leaf.model} leaves, {topology.spine_switches + topology.core_switches:,} "
        f"{spine.model} spine and core switches. NVIDIA documents this mix ({MIXED_SOURCE}); the spines' XDR "
        "ports run at NDR, so every link is 400 Gb/s."
    )
    return topology


def _gear(topology: Topology) -> int:
    """Switches plus cables: what a topology costs in gear, to compare two of them."""
    return topology.total_switches + topology.total_cables


def _one_kind(
    kind: TopologyKind, technology: Technology, radix: int, link_gbps: int, endpoints: int, profile: WorkloadProfile
) -> Topology:
    """The topology of `kind` with switches of `radix` ports."""
    if kind == TopologyKind.rail_optimized:
        nodes = profile.node_count or 1
        return _rail_fabric(
            technology,
            nodes,
            endpoints // nodes,
            radix,
            link_gbps,
            _manager_slot(profile.gpu_model),
        )
    if kind == TopologyKind.dragonfly_plus:
        return sizing.size_dragonfly_plus(endpoints, radix, link_gbps)
    return sizing.size_fat_tree(endpoints, radix, link_gbps)


def _smallest_single_switch(technology: Technology, link_gbps: int, endpoints: int) -> catalogue.Switch | None:
    """A smaller switch of the family that holds every port on its own, if there is one: a
    4-server inference fabric does not need a 128-port switch (nor its price)."""
    smaller = _family_switches(technology, link_gbps)[0]
    return next((s for s in smaller if endpoints <= s.radix_at(link_gbps)), None)


def _rail_fabric(
    technology: str, nodes: int, rails: int, radix: int, link_gbps: int, manager_slot: bool = True
) -> Topology:
    """The rail-optimized fabric as the SuperPOD builds it: SUs of radix/2 nodes (32 on
    QM9700, 72 on Q3400). On InfiniBand the fabric manager (UFM) takes a free node slot
    where the server's reference architecture does so (DGX H100: 31 nodes + UFM per SU)
    and a slot is free; B200 / B300 SUs are filled with nodes. Ethernet needs none."""
    return sizing.size_rail_optimized(
        nodes=nodes,
        rails=rails,
        radix=radix,
        link_gbps=link_gbps,
        nodes_per_su=radix // 2,
        reserved_endpoints=1 if manager_slot and str(technology).startswith("infiniband") else 0,
    )


def _manager_slot(gpu_model: str | None) -> bool:
    """Whether the server's SuperPOD reference keeps a node slot for UFM (H100 class; also
    the assumption when no GPU is named)."""
    return platform_for(gpu_model).fabric_manager_slot  # the cached record, True when assumed


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


def _allreduce(
    technology: Technology, link_gbps: int, topology: Topology, job: traffic.Traffic
) -> tuple[sizing.AllReduceEstimate, StepEstimate]:
    """The job's gradient all-reduce and step on this fabric (traffic model: rules/traffic.py)."""
    return traffic.on_fabric(
        job, technology, link_gbps, topology.bisection_gbps, topology.endpoints // max(1, topology.planes)
    )
