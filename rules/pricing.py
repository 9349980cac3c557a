"""The bill of materials of one designed fabric, and the cost summed from it.

The compute fabric's parts follow its topology (switches, optics or copper by reach,
fibre, spares); the storage, in-band and out-of-band networks are sized for the same
servers. Prices come from the dated price book (knowledge/sources/pricebook.yaml).
Everything here is a pure function of a design's counts, so results are remembered
per design: a profile asked again costs nothing to price.
"""

from __future__ import annotations

import math
from functools import cache
from typing import NamedTuple

from knowledge import catalogue
from knowledge.pricebook import price_book
from rules import sizing, spares
from rules.models import (
    BomLine,
    Cost,
    FloorSettings,
    Port,
    PortRole,
    Technology,
    Topology,
    WorkloadProfile,
)
from rules.physical import oob
from rules.physical.build import PhysicalBuild, build_key, physical_build, twin_cages
from rules.physical.floor import Floor, Rack, resolve
from rules.physical.service import ServiceNetwork
from rules.physical.service import service_network as wired_service
from rules.platform import NetworkRole, Platform
from rules.sizing.bom import price_line


class ServerLayout(NamedTuple):
    """How a design's servers meet its networks (derived facts, see rules/facts.py)."""

    multi_node: bool  # more than one server / NVLink domain: there are networks to build
    compute_fabric: bool  # the GPUs need a compute fabric (training, or a model served across servers)
    fabric_ports: int  # compute-fabric ports per server (0 without a compute fabric)
    edge_ports: int  # ports per server on the fabric that was sized (compute, else serving)


#: The NIC bought for a server the catalogue does not know, by link speed class.
NIC_FOR_SPEED = {100: "ConnectX-6 Dx", 200: "ConnectX-6", 400: "ConnectX-7", 800: "ConnectX-8"}
#: The NIC of a storage or in-band port on an unknown server (one dual-port card per server).
SERVICE_NIC_FOR_SPEED = {100: "ConnectX-6 Dx", 200: "ConnectX-6 Dx", 400: "BlueField-3", 800: "BlueField-3"}
#: Networks dual-homed to a pair of switches (NVIDIA HGX AI Factory RA: north-south
#: dual-homed; DGX BasePOD: bonded storage and in-band pairs); out-of-band is single.
DUAL_HOMED = frozenset({"storage", "in_band"})

#: The storage system's read throughput the storage fabric is sized for: the "Best" column
#: of Table 6 ("Guidelines for storage performance") of NVIDIA's "DGX SuperPOD: Next
#: Generation Scalable Infrastructure for AI Leadership, Reference Architecture Featuring
#: NVIDIA DGX H100 Systems" (RA-11333-001 V11, 2023-09): 125 GB/s aggregate read for one
#: SU of 32 DGX H100 (256 GPUs), 500 GB/s for 4 SU. The B200, B300 and GB200 reference
#: architectures we could read publish no other figure, so the same read per GPU is
#: applied to every platform (derived: 125 GB/s / 256 GPUs, about 0.49 GB/s per GPU).
STORAGE_READ_GBYTES_PER_SU = 125
STORAGE_SU_GPUS = 256
#: The storage system's ports run at the storage fabric's speed and attach to its leaves
#: like the servers' (same RA: "the storage devices are connected at a 1:1 port to uplink
#: ratio"); split evenly over the two sides of a dual-homed fabric.
STORAGE_SOURCE = (
    "NVIDIA DGX SuperPOD Reference Architecture Featuring NVIDIA DGX H100 Systems (RA-11333-001), "
    "Table 6, Guidelines for storage performance, Best: 125 GB/s read per scalable unit of 256 GPUs"
)


def storage_system_ports(gpus: int, gbps: int, sides: int = 2) -> int:
    """Ports the storage system needs on the storage fabric to serve the RA's "Best" read
    throughput to `gpus` GPUs at `gbps` per port, a multiple of `sides` (one share per side
    of a dual-homed fabric), at least one per side.

    >>> storage_system_ports(1024, 400)  # 4 SU x 125 GB/s = 4,000 Gb/s = 10 x 400G
    10
    >>> storage_system_ports(256, 400)  # 1,000 Gb/s: 3 ports, 4 over two sides
    4
    """
    if gpus < 1 or gbps < 1:
        return 0
    read_gbps = gpus * STORAGE_READ_GBYTES_PER_SU * 8 / STORAGE_SU_GPUS
    ports = max(sides, math.ceil(read_gbps / gbps))
    return math.ceil(ports / sides) * sides


def server_ports(profile: WorkloadProfile, platform: Platform, fabric_ports: int, link_gbps: int) -> list[Port]:
    """The server's ports: its catalogue layout, with the compute (or, for inference,
    the serving) ports at the speed the fabric was designed for. A single server (or one
    NVL72 rack) has no compute fabric, so no compute ports (`fabric_ports` 0). An NVL72
    "node" is the rack: its per-tray ports are counted for every tray. A PCIe server gets
    the compute ports it can feed (one per two GPUs); a model served across servers gets
    one per GPU. An assumed platform (a GPU the catalogue does not know) has no known
    storage or management ports."""
    known = not platform.assumed
    gpn = profile.gpus_per_node or 1
    trays = gpn // platform.gpus_per_host if known and platform.rack_scale and gpn > platform.gpus_per_host else 1

    def per_node(role: NetworkRole) -> tuple[int, int] | None:
        ports = platform.network(role)
        return (ports.ports * trays, ports.gbps) if known else None

    inference = None
    if profile.workload == "inference":
        serving = platform.network("inference")
        serving_gbps = serving.gbps if known and serving.gbps else 100
        inference = (platform.serving_ports(gpn), serving_gbps if fabric_ports else link_gbps or serving_gbps)
    return sizing.ports_per_server(
        workload=str(profile.workload),
        gpus_per_node=gpn,
        compute_gbps=link_gbps or (platform.network("compute").gbps if known else 400),
        compute_ports=fabric_ports,
        storage=per_node("storage"),
        inband=per_node("in_band"),
        oob=per_node("out_of_band"),
        inference=inference,
        served_across_servers=bool(fabric_ports) and profile.workload == "inference",
    )


def _compute_server_side(
    platform: Platform, nodes: int, ports: int, compute_fabric: bool, link_gbps: int
) -> sizing.ServerSide:
    """What the servers bring to the fabric that was sized: `ports` per server (the compute
    ports where the GPUs need a compute fabric, else the serving ports), the cages those
    ports sit in, and whether the NICs ship with the servers (every catalogued server) or
    are bought (an unknown GPU model)."""
    if platform.assumed or not platform.compute_nic:
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
        twin_port=twin_cages(platform, compute_fabric),
        nic_model=platform.compute_nic,
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


class ServiceSpec(NamedTuple):
    """A storage or in-band network a design needs: `ports` per server at `gbps` for
    `nodes` servers, plus the storage system's `target_ports`."""

    fabric: str
    nodes: int
    ports: int
    gbps: int
    server_known: bool
    target_ports: int = 0


@cache
def service_network(spec: ServiceSpec, floor: Floor) -> ServiceNetwork:
    """The network of a spec, wired on the floor (rules/physical/service.py): a
    non-blocking fat-tree per side, dual-homed (each server's ports, and the storage
    system's, split over two identical fabrics); past three tiers of the largest switch,
    split into identical pods. Its switch is the smallest Ethernet switch that holds a
    side on its own, else the one with the most ports at that speed."""
    sides = 2 if spec.fabric in DUAL_HOMED and spec.ports >= 2 else 1
    per_side = math.ceil(spec.nodes * spec.ports / sides) + math.ceil(spec.target_ports / sides)
    switch = _service_switch(spec.gbps, per_side)
    return wired_service(
        spec.fabric, spec.nodes, spec.ports, spec.gbps, spec.target_ports, switch.radix_at(spec.gbps), floor, sides
    )


def service_switch_model(spec: ServiceSpec) -> str:
    sides = 2 if spec.fabric in DUAL_HOMED and spec.ports >= 2 else 1
    per_side = math.ceil(spec.nodes * spec.ports / sides) + math.ceil(spec.target_ports / sides)
    return _service_switch(spec.gbps, per_side).model


@cache
def _service_lines(spec: ServiceSpec, floor: Floor) -> tuple[BomLine, ...]:
    """The priced parts of a storage or in-band network: its switches and cables read from
    its wiring (`service_network`), each tier's medium by the floor's runs, so the cabling
    plan lists the same cables part by part."""
    book = price_book()
    net = service_network(spec, floor)
    fabric, nodes, ports, gbps = spec.fabric, spec.nodes, spec.ports, spec.gbps
    server = sizing.ServerSide(nodes=nodes, ports_per_node=ports, gbps=gbps)
    lines = sizing.fabric_lines(
        fabric,  # type: ignore[arg-type]
        net.topology,
        sizing.SwitchPart(service_switch_model(spec)),
        server,
        book,
        media=net.media,
        spares=spares.policy(),
    )
    if not spec.server_known:
        nic = book.price(f"nic/{SERVICE_NIC_FOR_SPEED[sizing.speed_class(gbps)]}")
        lines.insert(
            1,
            price_line(
                fabric,  # type: ignore[arg-type]
                nic,
                nodes,
                f"{nodes:,} servers x one dual-port card for {ports} {gbps}G port(s)",
            ),
        )
    return tuple(lines)


def service_specs(profile: WorkloadProfile, platform: Platform, ports: list[Port]) -> list[ServiceSpec]:
    """The storage and in-band networks the servers' ports need (in BOM order): storage
    with the storage system's ports, in-band on its own unless the platform's RA converges
    it into the storage fabric."""
    converged = platform.frontend == "converged"
    known = not platform.assumed
    nodes = profile.node_count or 1
    gpus = profile.gpu_count or nodes * (profile.gpus_per_node or 1)
    specs = []
    for port in ports:
        if port.role == PortRole.storage:
            # converged (NVIDIA GB200 SuperPOD RA: one storage and in-band Ethernet fabric):
            # the in-band ports join the storage fabric's switches
            count = port.count + (
                sum(p.count for p in ports if p.role == PortRole.inband_management) if converged else 0
            )
            target = storage_system_ports(gpus, port.gbps, 2 if count >= 2 else 1)
            specs.append(ServiceSpec("storage", nodes, count, port.gbps, known, target))
        elif port.role == PortRole.inband_management and not converged:
            specs.append(ServiceSpec("in_band", nodes, port.count, port.gbps, known))
    return specs


def _aggregation_switch(oob_switches: int) -> tuple[str, int]:
    """The OOB aggregation switch: the smallest catalogue Ethernet switch with a 100G port
    for each OOB switch, else the one with the most (then several pairs)."""
    switch = _service_switch(oob.UPLINK_GBPS, oob_switches)
    return switch.model, switch.radix_at(oob.UPLINK_GBPS)


def out_of_band(
    build: PhysicalBuild | None,
    services: tuple[ServiceNetwork, ...],
    floor: Floor,
    systems: int,
    oob_per_system: int,
    platform: Platform,
    unplaced_switches: int = 0,
) -> oob.OobNetwork | None:
    """The out-of-band network of a design, wired (rules/physical/oob.py): the BMCs of its
    `systems` servers (or NVL72 racks) where the compute fabric's placement put them (else
    `servers_per_rack` to a rack), every switch of the compute, storage and in-band
    networks where they stand, NVL72 racks' NVLink switch trays and power shelves; the
    bill of materials and the cabling plan both read this one."""
    devices = oob.Devices({})
    rack_scale = platform.rack_scale and not platform.assumed
    trays = max(1, platform.node_gpus // platform.gpus_per_host) if rack_scale else 1
    if build is not None and build.layout.hosts == systems * build.layout.hosts_per_system:
        racks, names = oob.layout_hosts(build.layout, build.placement)
        per_host = oob_per_system // build.layout.hosts_per_system
    else:
        racks, names = oob.generic_hosts(systems, trays, floor)
        per_host = oob_per_system // trays
    if per_host or rack_scale:
        oob.host_devices(devices, racks, names, per_host, rack_scale)
    aggregation_rack = Rack(0, 0)
    if build is not None:
        oob.compute_devices(devices, build.layout, build.placement)
        if build.placement.spine_racks:  # the middle network row
            aggregation_rack = build.placement.spine_racks[0]
    if unplaced_switches:  # a compute fabric not wired port by port (Dragonfly+): its switches in one place
        devices.add(Rack(0, 0), "net-r00c0", [(f"compute-switch{i + 1:04d}", "mgmt") for i in range(unplaced_switches)])
    oob.service_devices(devices, services)
    if not devices.racks:
        return None
    return oob.oob_network(devices, floor, aggregation_rack, _aggregation_switch)


def _oob_lines(net: oob.OobNetwork, systems: int, oob_per_system: int) -> tuple[BomLine, ...]:
    """Out-of-band: the SN2201 of every rack, their aggregation pair(s), the Cat6 cords of
    every management port and the 100G uplinks, read from the OOB wiring."""
    server = sizing.ServerSide(nodes=systems, ports_per_node=oob_per_system, gbps=1)
    return tuple(
        sizing.fabric_lines(
            "out_of_band",
            net.topology,
            sizing.SwitchPart(oob.OOB_SWITCH),
            server,
            price_book(),
            media=net.media,
            spares=spares.policy(),
        )
    )


@cache
def _compute_lines(
    switch_model: str,
    topology_json: str,
    platform: Platform,
    nodes: int,
    edge_ports: int,
    compute_fabric: bool,
    floor: FloorSettings | None = None,
) -> tuple[BomLine, ...]:
    """The compute fabric's lines, remembered per design: a pure function of the counts.
    The switches and cables are read from the physical build's wiring and each tier's
    medium from its floor (rules/physical), the same build the cabling plan lists, so
    the plan's rows and these lines agree part by part; a fabric not wired port by port
    (Dragonfly+) is priced from its sized counts."""
    topology = Topology.model_validate_json(topology_json)
    link_gbps = topology.cables[0].gbps if topology.cables else 0
    server = _compute_server_side(platform, nodes, edge_ports, compute_fabric, link_gbps)
    built = physical_build(build_key(topology), platform, edge_ports, server.twin_port, switch_model, floor)
    media = built.media if built else None
    if built is not None:
        topology = built.counted(topology)
    lines = sizing.fabric_lines(
        "compute", topology, sizing.SwitchPart(switch_model), server, price_book(), media, spares.policy()
    )
    if built is not None and built.ndr_on_xdr:  # the XDR end of NDR links: its part is NVIDIA's to confirm
        confirm = f"the {built.ndr_on_xdr} end's part is to be confirmed with NVIDIA (see the design's notes)"
        lines = [
            line.model_copy(update={"note": f"{line.note}; {confirm}"})
            if line.category == "transceiver" and any(t in line.note for t in ("leaf-spine:", "spine-core:"))
            else line
            for line in lines
        ]
    return tuple(lines)


def bill_of_materials(
    technology: Technology,
    topology: Topology,
    switch_model: str | None,
    profile: WorkloadProfile,
    platform: Platform,
    layout: ServerLayout,
) -> list[BomLine]:
    """Every priced part of the network for this design: the compute fabric (empty for
    NVLink only), then the storage, in-band and out-of-band networks the servers need."""
    link_gbps = topology.cables[0].gbps if topology.cables else 0
    lines: list[BomLine] = []
    if technology != Technology.nvlink_only and switch_model and topology.total_switches:
        lines += _compute_lines(
            switch_model,
            topology.model_dump_json(),
            platform,
            profile.node_count or 1,
            layout.edge_ports,
            layout.compute_fabric,
            profile.floor,
        )
    systems = profile.node_count or 1  # NVL72 racks, however they were counted (rules.servers.in_racks)
    if not layout.multi_node:
        # one server joins the site's networks; one rack-scale system (an NVL72 rack of
        # 18 compute trays) still needs its trays' storage, in-band and out-of-band
        # networks (NVIDIA GB200 NVL72: a BlueField-3 and a BMC port per tray)
        profile = _as_trays(profile, platform)
        if (profile.node_count or 1) < 2:
            return lines
    ports = server_ports(profile, platform, layout.fabric_ports, link_gbps)
    floor = resolve(platform, profile.floor)
    specs = service_specs(profile, platform, ports)
    for spec in specs:
        lines += _service_lines(spec, floor)
    per_node = next((p.count for p in ports if p.role == PortRole.out_of_band), 0)
    built = None
    if technology != Technology.nvlink_only and switch_model and topology.total_switches:
        built = compute_build(
            switch_model, topology, platform, systems, layout.edge_ports, layout.compute_fabric, profile.floor
        )
    compute_switches = sum(line.quantity for line in lines if line.fabric == "compute" and line.category == "switch")
    services = tuple(service_network(spec, floor) for spec in specs)
    net = out_of_band(
        built,
        services,
        floor,
        systems,
        per_node * ((profile.node_count or 1) // systems),
        platform,
        unplaced_switches=0 if built is not None else compute_switches,
    )
    if net is None:
        return lines
    return [*lines, *_oob_lines(net, systems, per_node * ((profile.node_count or 1) // systems))]


def compute_build(
    switch_model: str,
    topology: Topology,
    platform: Platform,
    nodes: int,
    edge_ports: int,
    compute_fabric: bool,
    floor: FloorSettings | None,
) -> PhysicalBuild | None:
    """The physical build the compute fabric's lines read (`_compute_lines`), remembered."""
    link_gbps = topology.cables[0].gbps if topology.cables else 0
    server = _compute_server_side(platform, nodes, edge_ports, compute_fabric, link_gbps)
    return physical_build(build_key(topology), platform, edge_ports, server.twin_port, switch_model, floor)


def _as_trays(profile: WorkloadProfile, platform: Platform) -> WorkloadProfile:
    """A rack-scale system counted as its compute trays, the servers its networks cable
    (72 GB200 GPUs in one NVLink domain are 18 trays of 4); any other profile as it is."""
    host = platform.gpus_per_host
    if platform.assumed or not platform.rack_scale or host >= (profile.gpus_per_node or 1):
        return profile
    gpus = profile.gpu_count or 1
    return profile.model_copy(update={"node_count": max(1, gpus // host), "gpus_per_node": host})


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
        f"Storage system: its ports on the storage fabric carry {STORAGE_READ_GBYTES_PER_SU} GB/s of read per "
        f"{STORAGE_SU_GPUS} GPUs at the fabric's port speed, split over both sides ({STORAGE_SOURCE}); "
        "the storage fabric's switches hold the servers' ports, the storage system's ports and their uplinks.",
        "Converged front end: on platforms whose reference architecture uses one storage and in-band Ethernet "
        "fabric (NVIDIA DGX SuperPOD GB200 reference architecture, Network Fabrics), the in-band ports join the "
        "storage fabric's switches instead of a fabric of their own, cabled at the storage ports' speed.",
        oob.ASSUMPTIONS,
        spares_words(),
    ]


def spares_words() -> str:
    """The spares policy in one sentence, tier by tier, with its standing."""
    p = spares.policy()
    optics = ", ".join(f"{tier} {rule.optics_pct:g} %" for tier, rule in p.cables.items())
    switches = ", ".join(
        f"{tier} one per {rule.one_per} (from {rule.from_switches} switches)" for tier, rule in p.switches.items()
    )
    return (
        f"Spares per tier, rounded up: optics, cables and fibre {optics}; spare switches {switches}. "
        f"Source: {p.source}."
    )


@cache
def priced(
    technology: Technology,
    switch_model: str | None,
    topology_json: str,
    platform: Platform,
    workload: str,
    nodes: int,
    gpus_per_node: int,
    gpus: int,
    layout: ServerLayout,
    floor: FloorSettings | None = None,
) -> tuple[tuple[BomLine, ...], Cost]:
    """A design's bill of materials and its cost before any budget: a pure function of
    the design's counts, remembered so a profile asked again costs nothing to price."""
    profile = WorkloadProfile(
        workload=workload,
        gpu_count=gpus,
        node_count=nodes,
        gpus_per_node=gpus_per_node,
        gpu_model=platform.gpu_model,
        floor=floor,
    )
    topology = Topology.model_validate_json(topology_json)
    lines = bill_of_materials(technology, topology, switch_model, profile, platform, layout)
    if not lines:
        cost = Cost(
            network_usd_low=0,
            network_usd_high=0,
            basis="The link inside the server (NVLink, Infinity Fabric or PCIe) comes with it; no network to buy "
            "for one server.",
            per_gpu_usd_low=0,
            per_gpu_usd_high=0,
            price_book_date=price_book().date,
        )
    else:
        cost = sizing.network_cost(lines, gpus=gpus, price_book_date=price_book().date, assumptions=bom_assumptions())
    return tuple(lines), cost


def with_budget(cost: Cost, budget_usd: float | None) -> Cost:
    """The cost with its share of the budget, when a budget is given."""
    if not budget_usd:
        return cost
    return cost.model_copy(
        update={
            "budget_share_low": round(cost.network_usd_low / budget_usd, 4),
            "budget_share_high": round(cost.network_usd_high / budget_usd, 4),
        }
    )


# ------------------------------------------------------------------- servers (issue 21)


class ServersCost(NamedTuple):
    """What the cluster's servers cost at the price book's server prices."""

    server: str  # the catalogue's model the price is for
    units: int  # servers, or racks for a rack-scale system (sold whole)
    unit_word: str  # "server" or "NVL72 rack"
    unit_usd_low: float
    unit_usd_high: float
    estimate: bool  # no published price stands behind the figure
    date: str
    source: str

    @property
    def usd_low(self) -> float:
        return self.units * self.unit_usd_low

    @property
    def usd_high(self) -> float:
        return self.units * self.unit_usd_high


def servers_cost(profile: WorkloadProfile, platform: Platform) -> ServersCost | None:
    """The servers a profile buys, priced: one per node (the catalogue's server with this
    many GPUs, else the GPU's default server), or one NVL72 rack per 72 GPUs, the rack
    being sold whole. None when the GPU is not in the catalogue or its server is unpriced."""
    if platform.assumed:
        return None
    gpn = profile.gpus_per_node or 1
    same_gpu = [s for s in catalogue.servers() if s.gpu_model == platform.gpu_model]
    server = next((s for s in same_gpu if gpn in (s.gpus, s.node_gpus)), None)
    server = server or next(s for s in same_gpu if s.model == platform.server)
    price = price_book().server(server.model)
    if price is None:
        return None
    if server.rack_scale:
        units = max(1, math.ceil((profile.gpu_count or 1) / server.node_gpus))
        word = "NVL72 rack"
    else:
        units, word = max(1, profile.node_count or 1), "server"
    low, high = price.usd
    return ServersCost(server.model, units, word, low, high, price.estimate, price.date, price.source)


# ------------------------------------------------------- the site's existing Ethernet (issue 21)

#: Networks that can run on a site's existing Ethernet: storage and in-band management are
#: plain Ethernet (NVIDIA's GB200 SuperPOD even converges them on one fabric). The compute
#: fabric is sized for the GPUs and out-of-band is a 1GbE network per row: both are built.
REUSABLE_FABRICS = frozenset({"storage", "in_band"})
REUSED_NOTE = "reused: the site's existing Ethernet"
_SWITCH_SIDE = ("leaf-spine", "spine-core")


def reuse_site_ethernet(lines: list[BomLine]) -> list[BomLine]:
    """The bill of materials with the storage and in-band networks on the site's existing
    Ethernet: their switches and switch-to-switch links are listed as reused, at $0 and no
    new power or space; the servers' own links to those switches are still bought."""
    reused: list[BomLine] = []
    for line in lines:
        switch_side = line.category == "switch" or line.note.startswith(_SWITCH_SIDE)
        if line.fabric in REUSABLE_FABRICS and switch_side:
            line = line.model_copy(
                update={
                    "unit_usd_low": 0.0,
                    "unit_usd_high": 0.0,
                    "watts": None,
                    "rack_units": None,
                    "reused": True,
                    "note": f"{line.note}; {REUSED_NOTE}" if line.note else REUSED_NOTE,
                }
            )
        reused.append(line)
    return reused
