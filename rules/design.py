"""One candidate fabric, designed and sized: link speed, switch, topology, cost and
all-reduce time.

The engine designs every candidate family the same way (the chosen fabric and each
alternative), so the alternatives' figures are as well founded as the choice's.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

import yaml

from knowledge import catalogue
from knowledge.pricebook import price_book
from rules import sizing
from rules.models import (
    BomLine,
    CableTier,
    Cost,
    Fabric,
    Port,
    PortRole,
    Technology,
    Topology,
    TopologyKind,
    WorkloadProfile,
)
from rules.rulebook import Fired, decisions, evaluate

IB_GENERATION_GBPS = {"hdr": 200, "ndr": 400, "xdr": 800}
IB_GENERATION_NAMES = {"hdr": "HDR", "ndr": "NDR", "xdr": "XDR"}
INFERENCE_PORTS_PER_SERVER = 2  # seed guide: 2x 100GbE or 400GbE for inference traffic


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
    bill_of_materials: list[BomLine]
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
        switch_model = None
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
        switch_model = switch.model
    bom, cost = _priced(
        technology,
        switch_model,
        topology.model_dump_json(),
        profile.gpu_model,
        str(profile.workload),
        profile.node_count or 1,
        profile.gpus_per_node or 1,
        profile.gpu_count or 1,
        facts["multi_node"],
    )
    cost = _with_budget(cost, profile.budget_usd)
    message = sizing.default_message_bytes(profile.model_params_b or DEFAULT_PARAMS_B)
    allreduce = _allreduce(technology, link_gbps, message, profile) if facts["training"] else None
    return Candidate(
        family=family,
        technology=technology,
        fabric=fabric,
        topology=topology,
        cost=cost,
        bill_of_materials=list(bom),
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


# ------------------------------------------------------------------- bill of materials

#: The NIC bought for a server the catalogue does not know, by link speed class.
NIC_FOR_SPEED = {100: "ConnectX-6 Dx", 200: "ConnectX-6", 400: "ConnectX-7", 800: "ConnectX-8"}
#: The NIC of a storage or in-band port on an unknown server (one dual-port card per server).
SERVICE_NIC_FOR_SPEED = {100: "ConnectX-6 Dx", 200: "ConnectX-6 Dx", 400: "BlueField-3", 800: "BlueField-3"}
#: Server cages that take twin-port modules say so in the catalogue's connector text.
_TWIN_CAGES = re.compile(r"two \d+ Gb/s ports each", re.I)
#: Networks dual-homed to a pair of switches (NVIDIA HGX AI Factory RA: north-south
#: dual-homed; DGX BasePOD: bonded storage and in-band pairs); out-of-band is single.
DUAL_HOMED = frozenset({"storage", "in_band"})
SERVICE_FABRICS = {PortRole.storage: "storage", PortRole.inband_management: "in_band"}


def server_ports(profile: WorkloadProfile, multi_node: bool, link_gbps: int) -> list[Port]:
    """The server's ports: its catalogue layout, with the compute (or, for inference,
    the serving) ports at the speed the fabric was designed for. A single server has
    no compute fabric, so no compute ports."""
    server = catalogue.server_for(profile.gpu_model)
    inference = None
    if profile.workload == "inference":
        ports = server.inference_ports if server and server.inference_ports else INFERENCE_PORTS_PER_SERVER
        inference = (ports, link_gbps or (server.inference_gbps if server and server.inference_gbps else 100))
    return sizing.ports_per_server(
        workload=str(profile.workload),
        gpus_per_node=profile.gpus_per_node,
        compute_gbps=link_gbps or (server.compute_gbps if server else 400),
        compute_ports=None if multi_node else 0,
        storage=(server.storage_ports, server.storage_gbps) if server else None,
        inband=(server.inband_ports, server.inband_gbps) if server else None,
        oob=(server.oob_ports, server.oob_gbps) if server else None,
        inference=inference,
    )


def _compute_server_side(
    gpu_model: str | None, nodes: int, gpus_per_node: int, training: bool, link_gbps: int
) -> sizing.ServerSide:
    """What the servers bring to the compute fabric: one port per GPU for training (two
    serving ports for inference), the cages those ports sit in, and whether the NICs ship
    with the servers (every catalogued server) or are bought (an unknown GPU model)."""
    server = catalogue.server_for(gpu_model)
    ports = gpus_per_node if training else INFERENCE_PORTS_PER_SERVER
    if server is None or not server.compute_nic:
        return sizing.ServerSide(
            nodes=nodes,
            ports_per_node=ports,
            gbps=link_gbps,
            nic_model=NIC_FOR_SPEED[sizing.speed_class(link_gbps)] if link_gbps > 1 else None,
            nic_included=False,
        )
    return sizing.ServerSide(
        nodes=nodes,
        ports_per_node=ports,
        gbps=link_gbps,
        twin_port=training and bool(_TWIN_CAGES.search(server.compute_connector)),
        nic_model=server.compute_nic,
        nic_included=True,
    )


def _service_switch(gbps: int, ports: int) -> catalogue.Switch:
    """The Ethernet switch of a storage, in-band or out-of-band network: the smallest that
    holds every port on its own, else the one with the most ports at that speed."""
    usable = [s for s in catalogue.switches() if s.fabric == "ethernet" and s.radix_at(gbps) > 0]
    fits = [s for s in usable if ports <= s.radix_at(gbps)]
    if fits:
        return min(fits, key=lambda s: s.radix_at(gbps))
    return max(usable, key=lambda s: s.radix_at(gbps))


def _times(topology: Topology, copies: int) -> Topology:
    """`copies` identical fabrics counted as one: the two sides of a dual-homed pair, or
    the pods of a network too large for three tiers of its switch."""
    if copies == 1:
        return topology
    return topology.model_copy(
        update={
            "leaf_switches": copies * topology.leaf_switches,
            "spine_switches": copies * topology.spine_switches,
            "core_switches": copies * topology.core_switches,
            "endpoints": copies * topology.endpoints,
            "cables": [c.model_copy(update={"count": copies * c.count}) for c in topology.cables],
        }
    )


@cache
def _service_lines(fabric: str, nodes: int, ports: int, gbps: int, server_known: bool) -> tuple[BomLine, ...]:
    """A storage or in-band network for `nodes` servers of `ports` ports: a non-blocking
    fat-tree per side, dual-homed (each server's ports split over two identical fabrics);
    past three tiers of the largest switch, split into identical pods."""
    book = price_book()
    sides = 2 if fabric in DUAL_HOMED and ports >= 2 else 1
    per_side = math.ceil(nodes * ports / sides)
    switch = _service_switch(gbps, per_side)
    radix = switch.radix_at(gbps)
    pods = math.ceil(per_side / sizing.fat_tree_capacity(radix, 3)) if radix >= 4 else 1
    topology = _times(sizing.size_fat_tree(math.ceil(per_side / pods), radix, gbps), sides * pods)
    server = sizing.ServerSide(nodes=nodes, ports_per_node=ports, gbps=gbps)
    lines = sizing.fabric_lines(fabric, topology, sizing.SwitchPart(switch.model), server, book)  # type: ignore[arg-type]
    if not server_known:
        nic = book.price(f"nic/{SERVICE_NIC_FOR_SPEED[sizing.speed_class(gbps)]}")
        lines.insert(
            1, _nic_line(fabric, nic, nodes, f"{nodes:,} servers x one dual-port card for {ports} {gbps}G port(s)")
        )
    return tuple(lines)


def _nic_line(fabric: str, price: Any, quantity: int, note: str) -> BomLine:
    return BomLine(
        fabric=fabric,  # type: ignore[arg-type]
        category=price.category,
        part_number=price.part_number,
        description=price.description,
        quantity=quantity,
        unit_usd_low=price.usd[0],
        unit_usd_high=price.usd[1],
        watts=price.watts,
        price_date=price.date,
        source=price.source,
        note=note,
    )


@cache
def _oob_lines(nodes: int, ports: int, switches: int) -> tuple[BomLine, ...]:
    """Out-of-band: every server's BMC port and every switch's management port on 1GbE
    switches, one per 48 ports; their 100G uplinks into the in-band network are not listed."""
    endpoints = nodes * ports + switches
    if endpoints <= 0:
        return ()
    switch = _service_switch(1, 1)
    radix = switch.radix_at(1)
    leaves = math.ceil(endpoints / radix)
    topology = Topology(
        kind=TopologyKind.fat_tree,
        tiers=1,
        endpoints=endpoints,
        radix=radix,
        leaf_switches=leaves,
        spine_switches=0,
        core_switches=0,
        cables=[CableTier(tier="node-leaf", count=endpoints, gbps=1)],
        bisection_gbps=0,
    )
    server = sizing.ServerSide(nodes=nodes, ports_per_node=ports, gbps=1)
    return tuple(sizing.fabric_lines("out_of_band", topology, sizing.SwitchPart(switch.model), server, price_book()))


@cache
def _compute_lines(
    switch_model: str, topology_json: str, gpu_model: str | None, nodes: int, gpus_per_node: int, training: bool
) -> tuple[BomLine, ...]:
    """The compute fabric's lines, remembered per design: a pure function of the counts."""
    topology = Topology.model_validate_json(topology_json)
    link_gbps = topology.cables[0].gbps if topology.cables else 0
    server = _compute_server_side(gpu_model, nodes, gpus_per_node, training, link_gbps)
    return tuple(sizing.fabric_lines("compute", topology, sizing.SwitchPart(switch_model), server, price_book()))


def bill_of_materials(
    technology: Technology, topology: Topology, switch_model: str | None, profile: WorkloadProfile, multi_node: bool
) -> list[BomLine]:
    """Every priced part of the network for this design: the compute fabric (empty for
    NVLink only), then the storage, in-band and out-of-band networks the servers need."""
    link_gbps = topology.cables[0].gbps if topology.cables else 0
    lines: list[BomLine] = []
    if technology != Technology.nvlink_only and switch_model and topology.total_switches:
        training = profile.workload in ("training", "mixed")
        lines += _compute_lines(
            switch_model,
            topology.model_dump_json(),
            profile.gpu_model,
            profile.node_count,
            profile.gpus_per_node,
            training,
        )
    if not multi_node:
        return lines
    server_known = catalogue.server_for(profile.gpu_model) is not None
    oob_ports = 0
    for port in server_ports(profile, multi_node, link_gbps):
        if port.role in SERVICE_FABRICS:
            lines += _service_lines(SERVICE_FABRICS[port.role], profile.node_count, port.count, port.gbps, server_known)
        elif port.role == PortRole.out_of_band:
            oob_ports = port.count
    switches = sum(line.quantity for line in lines if line.category == "switch")
    return [*lines, *_oob_lines(profile.node_count or 1, oob_ports, switches)]


def bom_assumptions() -> list[str]:
    """What every bill of materials assumes, from the price book, in words."""
    book = price_book()
    a = book.assumptions
    return [
        a.text,
        "NICs that ship with the servers (the compute, storage and management ports of every catalogued "
        "server) are listed as included at $0, not bought twice; the seed guide's 'switches + cables + NICs' "
        "figure for 16 DGX H100 is therefore compared with the compute fabric's switches, optics, cables, "
        "fibre and spares.",
        f"Prices: the price book of {book.date}, low at street and high at list prices, each with its source.",
    ]


@cache
def _priced(
    technology: Technology,
    switch_model: str | None,
    topology_json: str,
    gpu_model: str | None,
    workload: str,
    nodes: int,
    gpus_per_node: int,
    gpus: int,
    multi_node: bool,
) -> tuple[tuple[BomLine, ...], Cost]:
    """A design's bill of materials and its cost before any budget: a pure function of
    the design's counts, remembered so a profile asked again costs nothing to price."""
    profile = WorkloadProfile(
        workload=workload,  # type: ignore[arg-type]
        gpu_count=gpus,
        node_count=nodes,
        gpus_per_node=gpus_per_node,
        gpu_model=gpu_model,
    )
    topology = Topology.model_validate_json(topology_json)
    lines = bill_of_materials(technology, topology, switch_model, profile, multi_node)
    if not lines:
        cost = Cost(
            network_usd_low=0,
            network_usd_high=0,
            basis="NVLink is included in SXM servers; no network to buy for one server.",
            per_gpu_usd_low=0,
            per_gpu_usd_high=0,
            price_book_date=price_book().date,
        )
    else:
        cost = sizing.network_cost(lines, gpus=gpus, price_book_date=price_book().date, assumptions=bom_assumptions())
    return tuple(lines), cost


def _with_budget(cost: Cost, budget_usd: float | None) -> Cost:
    """The cost with its share of the budget, when a budget is given."""
    if not budget_usd:
        return cost
    return cost.model_copy(
        update={
            "budget_share_low": round(cost.network_usd_low / budget_usd, 4),
            "budget_share_high": round(cost.network_usd_high / budget_usd, 4),
        }
    )


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
