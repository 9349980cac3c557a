"""The out-of-band (OOB) management network wired port by port: every management port of
the design on a 1GbE switch in its own rack, each of those switches with two uplinks to
an aggregation pair, so the cabling plan lists these cables and the bill of materials buys
what they hold.

What the sources fix (NVIDIA):
- the OOB network "connects the management ports of all devices including DGX and
  management servers, storage, networking gear, rack PDUs" (DGX SuperPOD H100 RA,
  RA-11333-001, Out-of-Band Management Network); every DGX H100 / B200 / B300 has one BMC
  port on it (the RAs' Network Fabrics: "The OOB port is used for BMC access");
- the switch is the SN2201, "(OOB) 48 1G Base-T" (NVIDIA Mission Control North-South
  Network GB200 Deployment Guide, Ethernet Switch Hardware), with four 100GbE uplink ports
  (NVIDIA SN2201 datasheet);
- an NVL72 rack (GB200, GB300) carries "2 SN2201 OOB switches for integrated management
  access of rack components" and "8 power shelves" (NVIDIA NVL72 AI Factory Enterprise RA,
  System Hardware & Components; DGX GB200 User Guide: "2x TOR Switches for management");
  each of its 9 NVLink switch trays puts three 1G ports on them, "ComE1 ... ComE2 ... BMC:
  1G connects to within Rack Switch: SN2201" (NVIDIA Mission Control North-South Network
  Configuration Guide, NVLink Switch Planning and Design); ipminet reaches "the compute
  trays, NVLink switch trays, the power shelves" (DGX GB200 User Guide, Networking).

What they leave open, and this module assumes (said in every design, `ASSUMPTIONS`):
- one management port per switch of the compute, storage and in-band networks and per
  power shelf; the management servers, the UFM, the storage system and rack PDUs are the
  site's and not counted;
- one SN2201 per compute rack of 8-GPU servers (the DGX RAs we could read give no count:
  a switch in the rack keeps every BMC cord inside it), two per NVL72 rack (the RA's), and
  ceil(ports / 48) in each network rack position for the switches standing there;
- two of each SN2201's four 100GbE ports uplink, one to each switch of an aggregation pair
  (the smallest catalogue Ethernet switch with a 100G port per OOB switch) standing in the
  middle network row, where runs from every row are shortest; the pair's own uplinks to
  the site's management network are the site's.

Every management cord is inside its rack (the floor's in-rack cord, Cat6 RJ45); the
uplinks' lengths come from the floor model and their medium by reach, like every other
tier.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from functools import cached_property

from rules.models import CableTier, Topology, TopologyKind
from rules.physical.floor import Floor, Rack
from rules.physical.graph import Layout, Link, Placement, core_name, host_name, leaf_name, place, spine_name
from rules.physical.media import Media, media_for
from rules.physical.service import ServiceNetwork

OOB_SWITCH = "SN2201"
OOB_PORTS = 48  # 1GbE RJ45 (Mission Control N-S deployment guide: "48 1G Base-T")
UPLINKS = 2  # of the SN2201's four 100GbE ports: one to each switch of the aggregation pair
UPLINK_GBPS = 100
#: An NVL72 rack's management devices besides its compute trays (sources above).
NVL72_OOB_SWITCHES = 2
NVL72_NVLINK_TRAYS = 9
NVLINK_TRAY_PORTS = ("bmc", "come1", "come2")
NVL72_POWER_SHELVES = 8

SOURCE = (
    "NVIDIA DGX SuperPOD H100 RA (RA-11333-001), Out-of-Band Management Network; NVIDIA Mission Control "
    "North-South Network GB200 Deployment Guide (SN2201: 48 x 1G Base-T; NVLink switch tray ComE1, ComE2 and "
    "BMC on the in-rack SN2201); NVIDIA NVL72 AI Factory Enterprise RA (2 SN2201 OOB switches and 8 power "
    "shelves per rack)"
)
ASSUMPTIONS = (
    "Out-of-band network: every BMC and every switch's management port on a 1GbE RJ45 port of an NVIDIA "
    f"SN2201 (48 x 1GbE, 4 x 100GbE) in its own rack, over Cat6 cords inside the rack ({SOURCE}). An NVL72 "
    "rack has two SN2201 for its 18 compute trays' BMCs, its 9 NVLink switch trays' three ports each (BMC, "
    "ComE1, ComE2) and its 8 power shelves (one port each: our assumption, the sources name the shelves "
    "but not their ports). Our assumptions where the reference architectures give no number: one SN2201 per "
    "compute rack of 8-GPU servers, ceil(ports / 48) per network rack for the switches standing there, one "
    "management port per switch; each SN2201 uplinks with two of its 100GbE ports, one to each switch of an "
    "aggregation pair in the middle network row (the pair's uplinks to the site's management network, the "
    "management servers, the UFM, the storage system and rack PDUs are the site's and not counted)."
)


@dataclass(frozen=True)
class OobRack:
    """One rack position: the management ports standing there, as (device, port) pairs,
    and how many OOB switches serve them."""

    label: str
    rack: Rack
    ports: tuple[tuple[str, str], ...]
    switches: int

    def switch_names(self) -> list[str]:
        return [f"oob-{self.label}-{i + 1}" for i in range(self.switches)]


@dataclass(frozen=True)
class OobNetwork:
    """The out-of-band network of a design: its racks' OOB switches, their aggregation
    pair(s), each tier's medium. Duck-types a service network for the cabling plan
    (`fabric`, `media`, `topology`, `links`)."""

    racks: tuple[OobRack, ...]
    aggregation: tuple[str, ...]  # the aggregation switches' names
    aggregation_model: str
    aggregation_radix: int
    aggregation_rack: Rack
    floor: Floor
    media: dict[str, Media]
    runs: dict[str, float]
    fabric: str = "out_of_band"

    @cached_property
    def switches(self) -> int:
        return sum(r.switches for r in self.racks)

    @cached_property
    def endpoints(self) -> int:
        return sum(len(r.ports) for r in self.racks)

    @property
    def topology(self) -> Topology:
        """What the bill of materials buys: the OOB switches as leaves, the aggregation
        pair as spines (another model), the management cords and the uplinks."""
        return Topology(
            kind=TopologyKind.fat_tree,
            tiers=2,
            endpoints=self.endpoints,
            radix=OOB_PORTS,
            leaf_switches=self.switches,
            spine_switches=len(self.aggregation),
            core_switches=0,
            spine_switch=self.aggregation_model,
            cables=[
                CableTier(tier="node-leaf", count=self.endpoints, gbps=1),
                CableTier(tier="leaf-spine", count=UPLINKS * self.switches, gbps=UPLINK_GBPS),
            ],
            bisection_gbps=0,
        )

    def links(self, name: Callable[[int, int], tuple[str, int]] | None = None) -> Iterator[Link]:
        """Every cable: each rack's management cords (ports dealt in order over its OOB
        switches), then every OOB switch's two uplinks. Ports from 0 (the plan adds 1);
        a named management port (BMC, ComE1) keeps its device's port number."""
        del name  # the devices carry their own names
        cord = self.floor.run_m(Rack(0, 0), Rack(0, 0))
        copper = self.media["node-leaf"]
        uplink = self.media["leaf-spine"]
        index = 0
        for rack in self.racks:
            names = rack.switch_names()
            size = math.ceil(len(rack.ports) / rack.switches) if rack.ports else 0
            for k, (device, port) in enumerate(rack.ports):
                which, slot = divmod(k, size)
                yield Link("node-leaf", device, _port(port), names[which], slot, 1, 0, cord, copper)
        for rack in self.racks:
            length = self.floor.run_m(rack.rack, self.aggregation_rack)
            for oob_switch in rack.switch_names():
                pair, down = divmod(index, self.aggregation_radix)
                for side in range(UPLINKS):
                    agg = self.aggregation[pair * UPLINKS + side]
                    yield Link("leaf-spine", oob_switch, OOB_PORTS + side, agg, down, UPLINK_GBPS, side, length, uplink)
                index += 1


def _port(port: str) -> int:
    """A management port's number (0-based; the plan adds 1): a switch's management port
    (mgmt0) -1, so the plan shows it as port 0, apart from its data ports; a BMC 0, a
    second BMC 1; an NVLink switch tray's BMC 0, ComE1 1, ComE2 2."""
    if port == "mgmt":
        return -1
    if port.startswith("bmc") and port[3:].isdigit():
        return int(port[3:]) - 1
    return {"come1": 1, "come2": 2}.get(port, 0)


@dataclass(frozen=True)
class Devices:
    """The managed devices of a design, by rack position: (label, rack, ports)."""

    racks: dict[Rack, tuple[str, list[tuple[str, str]], int]]

    def add(self, rack: Rack, label: str, ports: Sequence[tuple[str, str]], at_least: int = 1) -> None:
        old = self.racks.get(rack)
        if old is None:
            self.racks[rack] = (label, list(ports), at_least)
        else:
            old[1].extend(ports)
            self.racks[rack] = (old[0], old[1], max(old[2], at_least))


def compute_devices(devices: Devices, layout: Layout, placement: Placement) -> None:
    """The compute fabric's switches (one management port each, every plane's beside the
    first's), where the floor put them."""
    for plane in range(layout.planes):
        for i, rack in enumerate(placement.leaf_racks):
            devices.add(rack, _net_label(rack), [(leaf_name(layout, i, plane), "mgmt")])
        for i, rack in enumerate(placement.spine_racks):
            devices.add(rack, _net_label(rack), [(spine_name(layout, i, plane), "mgmt")])
        for i, rack in enumerate(placement.core_racks):
            devices.add(rack, _net_label(rack), [(core_name(layout, i, plane), "mgmt")])


def _net_label(rack: Rack) -> str:
    return f"net-r{rack.row:02d}c{rack.col:d}"


def _rack_label(rack: Rack) -> str:
    return f"r{rack.row:02d}c{rack.col:02d}"


def host_devices(
    devices: Devices,
    host_racks: Sequence[Rack],
    names: Sequence[str],
    bmc_ports: int,
    rack_scale: bool,
) -> None:
    """Every server's (or compute tray's) BMC port(s) in its rack; an NVL72 rack adds its
    NVLink switch trays' three ports each and its power shelves, on two SN2201."""
    suffixes = ["bmc" if p == 0 else f"bmc{p + 1}" for p in range(bmc_ports)]
    # one list per rack, in the order the hosts come (a rack-scale system's own devices after
    # its first tray's BMC), added once per rack: a million-GPU cluster has 125,000 hosts
    by_rack: dict[Rack, list[tuple[str, str]]] = {}
    for rack, host in zip(host_racks, names, strict=True):
        ports = by_rack.get(rack)
        first = ports is None
        if ports is None:
            ports = by_rack[rack] = []
        ports.extend((host, suffix) for suffix in suffixes)
        if rack_scale and first:
            system = _rack_label(rack)
            ports.extend(
                (f"{system}-nvswitch{t + 1}", port) for t in range(NVL72_NVLINK_TRAYS) for port in NVLINK_TRAY_PORTS
            )
            ports.extend((f"{system}-power{s + 1}", "mgmt") for s in range(NVL72_POWER_SHELVES))
    for rack, ports in by_rack.items():
        devices.add(rack, _rack_label(rack), ports, NVL72_OOB_SWITCHES if rack_scale else 1)


def service_devices(devices: Devices, services: Sequence[ServiceNetwork]) -> None:
    """The storage and in-band networks' switches, where their own placement puts them,
    named as the cabling plan names them."""
    for net in services:
        for block in net.blocks:
            layout = block.layout
            placement = place(layout, net.floor)
            prefix = net.prefix(block)
            for racks, namer in (
                (placement.leaf_racks, leaf_name),
                (placement.spine_racks, spine_name),
                (placement.core_racks, core_name),
            ):
                for i, rack in enumerate(racks):
                    devices.add(rack, _net_label(rack), [(prefix + namer(layout, i), "mgmt")])


def oob_network(
    devices: Devices,
    floor: Floor,
    aggregation_rack: Rack,
    aggregation_switch: Callable[[int], tuple[str, int]],
) -> OobNetwork:
    """The OOB network for `devices`: ceil(ports / 48) SN2201 per rack position (at least
    the rack's minimum), an aggregation pair per `radix` of them in `aggregation_rack`,
    whose own management ports join that rack's OOB switch (counted until it settles)."""
    base = {rack: (label, tuple(ports), least) for rack, (label, ports, least) in devices.racks.items()}
    aggregation: tuple[str, ...] = ()
    model, radix = aggregation_switch(1)
    for _ in range(8):  # the pair's ports can add an SN2201, which can need another pair: settles at once
        racks = dict(base)
        label, ports, least = racks.get(aggregation_rack, (_net_label(aggregation_rack), (), 1))
        racks[aggregation_rack] = (label, (*ports, *((a, "mgmt") for a in aggregation)), least)
        switches = sum(max(least, math.ceil(len(p) / OOB_PORTS)) for _, p, least in racks.values() if p)
        model, radix = aggregation_switch(switches)
        pairs = math.ceil(switches / max(1, radix))
        wanted = tuple(f"oob-agg{i + 1:02d}" for i in range(UPLINKS * pairs))
        if wanted == aggregation:
            break
        aggregation = wanted
    built = tuple(
        OobRack(label, rack, ports, max(least, math.ceil(len(ports) / OOB_PORTS)))
        for rack, (label, ports, least) in sorted(racks.items(), key=lambda kv: (kv[0].row, kv[0].col))
        if ports
    )
    longest = max((floor.run_m(r.rack, aggregation_rack) for r in built), default=floor.run_m(Rack(0, 0), Rack(0, 0)))
    media = {
        "node-leaf": media_for(floor.run_m(Rack(0, 0), Rack(0, 0)), 1, switch_ends=False),
        "leaf-spine": media_for(longest, UPLINK_GBPS, switch_ends=True),
    }
    runs = {"node-leaf": floor.run_m(Rack(0, 0), Rack(0, 0)), "leaf-spine": longest}
    return OobNetwork(built, aggregation, model, radix, aggregation_rack, floor, media, runs)


def generic_hosts(nodes: int, trays: int, floor: Floor) -> tuple[list[Rack], list[str]]:
    """Where servers stand when no compute fabric placed them: `servers_per_rack` to a
    rack, 16 compute racks to a row after its network rack (as the floor's fat-tree rows)."""
    racks: list[Rack] = []
    names: list[str] = []
    per_rack = max(1, floor.servers_per_rack)
    for node in range(nodes):
        r = node // per_rack
        rack = Rack(r // 16, 1 + r % 16)
        for t in range(trays):
            racks.append(rack)
            names.append(f"rack{node + 1:03d}-tray{t + 1:02d}" if trays > 1 else f"node{node + 1:05d}")
    return racks, names


def layout_hosts(layout: Layout, placement: Placement) -> tuple[list[Rack], list[str]]:
    """The compute fabric's hosts, where its placement put them, named as its plan names them."""
    return list(placement.host_racks), [host_name(layout, h) for h in range(layout.hosts)]
