"""A design as a network you could cable: devices with ports, links with media and length.

The sizing formulas (rules/sizing/fabric.py) say how many leaves, spines and cores a
fabric needs. This module takes those counts as the design's claim and wires the fabric
port by port, the way an installer would: rail r of every node of scalable unit s to
leaf (s, r); each leaf's uplinks spread in turn over the spines of its group (two tiers)
or its pod (three tiers, pods of radix/2 leaves); spine j of every pod to core plane j,
planes sharing core switches in groups where one plane alone would leave core ports free.
It never calls the count formulas: what the graph holds is read back from it (switches,
cables per tier, bisection by max-flow) and checked (rules/physical/checks.py), so a
count that cannot be wired shows up as a port used twice or a switch over its radix.

    layout = Layout.of(topology, platform)
    links = wire(layout, place(layout, floor))   # a generator: the cabling plan streams it
    graph = build_graph(layout, floor)           # networkx MultiGraph of the same links

Wiring rules (NVIDIA DGX SuperPOD reference architectures, "Compute fabric"): each SU is
rail-aligned, rail r of its nodes on its leaf r, so same-rail traffic is one hop; a
fabric manager (UFM) in a free node slot takes up to four leaf ports (H100 RA: 31 x 8 +
4 = 252 cables per SU); every leaf has as many ports up as down.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from functools import lru_cache
from typing import TYPE_CHECKING, Literal

from rules.models import Topology, TopologyKind
from rules.physical.floor import Floor, Rack
from rules.physical.media import FR_REACH_M, XDR_DR_REACH_M, Media, media_for
from rules.platform import Platform

if TYPE_CHECKING:  # networkx (~0.3 s to import) only when a graph is built: a design never needs one
    import networkx as nx

Tier = Literal["node-leaf", "leaf-spine", "spine-core"]
TIERS: tuple[Tier, ...] = ("node-leaf", "leaf-spine", "spine-core")


class NotWirable(ValueError):
    """The design's counts cannot be wired (or its kind is not wired here)."""


@dataclass(frozen=True, slots=True)
class Link:
    """One cable: from a device's port to another device's port, in one tier and plane."""

    tier: Tier
    a: str
    a_port: int
    b: str
    b_port: int
    gbps: int
    plane: int
    length_m: float
    media: Media


@dataclass(frozen=True)
class Layout:
    """The counts a design states, as the wiring reads them (one plane)."""

    kind: Literal["rail_optimized", "fat_tree"]
    hosts: int
    ports_per_host: int
    host_name: str
    hosts_per_system: int  # compute trays per rack-scale system (18 on NVL72), else 1
    sus: int
    slots_per_su: int
    rails: int
    leaves: int
    spines: int
    cores: int
    radix: int
    gbps: int
    manager_cables: int
    leaf_uplinks: int
    planes: int = 1
    twin_port_hosts: bool = False
    upper_radix: int = 0  # spines' and cores' ports where another switch than the leaves, else 0
    upper_units: float = 0  # rack units of a spine or core where another switch than the leaves, else 0
    zone_leaves: int = 0  # leaves per AI zone (0: not zoned; pods of radix/2 leaves in three tiers)
    spine_uplinks: int = 0  # a zone spine's cables up (0: as many as it has down)

    @property
    def spine_radix(self) -> int:
        """Ports of a spine or core switch (the leaves' radix unless the topology names another)."""
        return self.upper_radix or self.radix

    @property
    def tiers(self) -> int:
        return 3 if self.cores else 2 if self.spines else 1

    @property
    def endpoints(self) -> int:
        return self.hosts * self.ports_per_host

    @property
    def leaves_per_su(self) -> int:
        return self.leaves // self.sus

    @property
    def rails_per_leaf(self) -> int:
        return math.ceil(self.rails / self.leaves_per_su)

    @property
    def leaf_down(self) -> int:
        return self.radix - self.leaf_uplinks

    @staticmethod
    def of(
        topology: Topology,
        platform: Platform,
        planes: int = 1,
        ports_per_node: int | None = None,
        twin_port: bool | None = None,
    ) -> Layout:
        """The layout of a sized topology for a platform's hosts (one plane's counts).

        `ports_per_node`: the ports each node (server, or NVL72 rack) puts on this fabric
        when they are not its compute ports (an inference fabric's serving ports);
        `twin_port`: whether those ports sit in twin-port cages (default: the platform's
        compute cages)."""
        if topology.kind not in (TopologyKind.rail_optimized, TopologyKind.fat_tree) or not topology.radix:
            raise NotWirable(f"{topology.kind} fabrics are not wired port by port here")
        if topology.planes > 1:  # the counts are for every plane: wire one, repeat it per plane
            planes = topology.planes
            topology = topology.model_copy(
                update={
                    "endpoints": topology.endpoints // planes,
                    "leaf_switches": topology.leaf_switches // planes,
                    "spine_switches": topology.spine_switches // planes,
                    "core_switches": topology.core_switches // planes,
                    "cables": [c.model_copy(update={"count": c.count // planes}) for c in topology.cables],
                }
            )
        radix = topology.radix
        if radix is None:
            raise NotWirable("a fabric without a switch radix is not wired here")
        cables = {c.tier: c.count for c in topology.cables}
        gbps = topology.cables[0].gbps if topology.cables else 0
        node_leaf = cables.get("node-leaf", 0)
        leaf_uplinks = cables.get("leaf-spine", 0) // max(1, topology.leaf_switches)
        zoned = {
            "zone_leaves": topology.zone_leaves or 0,
            "spine_uplinks": cables.get("spine-core", 0) // max(1, topology.spine_switches)
            if topology.zone_leaves
            else 0,
        }
        trays = platform.node_gpus // platform.gpus_per_host if platform.rack_scale else 1
        twin = "two 400 Gb/s ports each" in platform.compute_connector if twin_port is None else twin_port
        if topology.kind == TopologyKind.rail_optimized:
            hosts = topology.endpoints // topology.rails
            sus = topology.scalable_units or 1
            smaller = sus == 1 and topology.leaf_switches < topology.rails
            # a fabric smaller than one SU takes only the slots its nodes fill (any
            # fabric-manager ports come after them); a full SU has radix - uplinks slots
            slots = hosts if smaller or topology.leaf_switches == 1 else radix - leaf_uplinks
            if not topology.spine_switches and not smaller and topology.leaf_switches > 1:
                slots = radix // 2
            return Layout(
                kind="rail_optimized",
                hosts=hosts,
                ports_per_host=topology.rails,
                host_name=platform.server,
                hosts_per_system=1,
                sus=sus,
                slots_per_su=slots,
                rails=topology.rails,
                leaves=topology.leaf_switches,
                spines=topology.spine_switches,
                cores=topology.core_switches,
                radix=radix,
                gbps=gbps,
                manager_cables=node_leaf - topology.endpoints,
                leaf_uplinks=leaf_uplinks,
                planes=planes,
                twin_port_hosts=twin,
                upper_radix=topology.spine_radix or 0,
                **zoned,
            )
        per_node = ports_per_node or (platform.network("compute").ports or 1) * trays
        if per_node % trays:
            trays = 1
        per_host = max(1, per_node // trays)
        hosts = max(1, topology.endpoints // per_host)
        if topology.endpoints % per_host:
            per_host, hosts, trays = 1, topology.endpoints, 1
        return Layout(
            kind="fat_tree",
            hosts=hosts,
            ports_per_host=per_host,
            host_name=f"{platform.server} tray" if platform.rack_scale else platform.server,
            hosts_per_system=trays,
            sus=1,
            slots_per_su=hosts,
            rails=1,
            leaves=topology.leaf_switches,
            spines=topology.spine_switches,
            cores=topology.core_switches,
            radix=radix,
            gbps=gbps,
            manager_cables=0,
            leaf_uplinks=leaf_uplinks,
            planes=planes,
            twin_port_hosts=twin,
            upper_radix=topology.spine_radix or 0,
            **zoned,
        )


# ------------------------------------------------------------------------------ names


def host_name(layout: Layout, host: int) -> str:
    if layout.kind == "rail_optimized":
        su, slot = divmod(host, layout.slots_per_su)
        return f"su{su + 1:03d}-node{slot + 1:02d}"
    if layout.hosts_per_system > 1:
        system, tray = divmod(host, layout.hosts_per_system)
        return f"rack{system + 1:03d}-tray{tray + 1:02d}"
    return f"node{host + 1:05d}"


def leaf_name(layout: Layout, leaf: int, plane: int = 0) -> str:
    p = f"p{plane + 1}-" if layout.planes > 1 else ""
    if layout.kind == "rail_optimized":
        su, i = divmod(leaf, layout.leaves_per_su)
        return f"{p}su{su + 1:03d}-leaf{i + 1:02d}"
    return f"{p}leaf{leaf + 1:04d}"


def spine_name(layout: Layout, spine: int, plane: int = 0) -> str:
    p = f"p{plane + 1}-" if layout.planes > 1 else ""
    return f"{p}spine{spine + 1:04d}"


def core_name(layout: Layout, core: int, plane: int = 0) -> str:
    p = f"p{plane + 1}-" if layout.planes > 1 else ""
    return f"{p}core{core + 1:04d}"


MANAGER = "ufm"


# -------------------------------------------------------------------------- placement


@dataclass(frozen=True)
class Placement:
    """Where every device stands: a rack for each host, leaf, spine and core."""

    host_racks: list[Rack]
    leaf_racks: list[Rack]
    spine_racks: list[Rack]
    core_racks: list[Rack]
    manager_rack: Rack | None
    rows: int
    racks_per_row: int
    notes: list[str] = field(default_factory=list)


def _hosts_by_rack(hosts: int, group_hosts: int, per_rack: int, host_rack: Callable[[int], Rack]) -> list[Rack]:
    """Every host's rack, computed once per rack rather than once per host (`host_rack`
    gives the same rack to the hosts of one group that share offset // per_rack): a
    cluster of a million GPUs has 125,000 hosts, placed for every network it is on."""
    racks: list[Rack] = []
    for group_start in range(0, hosts, group_hosts):
        group_end = min(group_start + group_hosts, hosts)
        for first in range(group_start, group_end, per_rack):
            racks.extend([host_rack(first)] * min(per_rack, group_end - first))
    return racks


# remembered: a design's storage, in-band and out-of-band networks place the same hosts
# again, and a placement is only read (frozen)
@lru_cache(maxsize=32)
def place(layout: Layout, floor: Floor, switch_units: float = 1) -> Placement:
    """Racks on the floor (TIA-942 terms): groups of hosts (an SU, or one rack of hosts)
    fill rows after each row's leaf network rack(s) (the equipment distribution areas);
    spines in network rows in the middle of the hall (horizontal distribution area);
    cores in the main distribution area past the last row. Where every switch fits one
    network rack they all stand in the first row's network rack."""
    per_rack = floor.servers_per_rack * layout.hosts_per_system
    group_hosts = layout.slots_per_su if layout.kind == "rail_optimized" else per_rack
    group_racks = math.ceil(group_hosts / per_rack)
    racks_per_row = floor.racks_per_row or _default_racks_per_row(group_racks)
    compute_cols = racks_per_row - 1  # column 0 is the row's leaf network rack
    groups = math.ceil(layout.hosts / group_hosts)
    row, col = 0, 1
    group_start: list[Rack] = []
    for _ in range(groups):
        if col > 1 and col - 1 + group_racks > compute_cols:
            row, col = row + 1, 1
        group_start.append(Rack(row, col))
        col += group_racks
        while col > compute_cols + 1:  # a group longer than a row continues on the next
            row, col = row + 1, col - compute_cols
    rows = row + 1
    per_net_rack = max(1, int(floor.network_rack_units // max(switch_units, 1)))
    upper_units = layout.upper_units or switch_units  # spines and core: their own height where another model
    per_upper_rack = max(1, int(floor.network_rack_units // max(upper_units, 1)))
    one_rack = (
        layout.leaves * max(switch_units, 1) + (layout.spines + layout.cores) * max(upper_units, 1)
        <= floor.network_rack_units
    )
    spine_rows = (
        0 if one_rack or not layout.spines else math.ceil(math.ceil(layout.spines / per_upper_rack) / racks_per_row)
    )
    middle = rows // 2

    def shifted(r: int) -> int:
        return r + spine_rows if r >= middle else r

    def host_rack(host: int) -> Rack:
        group, offset = divmod(host, group_hosts)
        start = group_start[group]
        linear = (start.col - 1) + offset // per_rack
        return Rack(shifted(start.row + linear // compute_cols), 1 + linear % compute_cols)

    host_racks = _hosts_by_rack(layout.hosts, group_hosts, per_rack, host_rack)
    manager_rack = None
    if layout.manager_cables:
        manager_rack = host_rack(min(layout.hosts, layout.sus * layout.slots_per_su - 1))
    if one_rack:
        first = Rack(host_racks[0].row, 0)
        return Placement(
            host_racks,
            [first] * layout.leaves,
            [first] * layout.spines,
            [first] * layout.cores,
            manager_rack,
            rows,
            racks_per_row,
        )
    # leaves: in the network rack(s) at the head of the row where their hosts start
    in_row: dict[int, int] = {}
    leaf_racks = []
    for leaf in range(layout.leaves):
        if layout.kind == "rail_optimized":
            first_host = (leaf // layout.leaves_per_su) * layout.slots_per_su
        else:
            first_host = (leaf * layout.leaf_down) // layout.ports_per_host
        r = host_racks[min(first_host, layout.hosts - 1)].row
        n = in_row.get(r, 0)
        in_row[r] = n + 1
        leaf_racks.append(Rack(r, -(n // per_net_rack)))

    def network_rows(count: int, first_row: int) -> list[Rack]:
        racks = []
        for i in range(count):
            rack = i // per_upper_rack
            racks.append(Rack(first_row + rack // racks_per_row, rack % racks_per_row))
        return racks

    spine_racks = network_rows(layout.spines, middle)
    last_row = rows + spine_rows - 1
    core_racks = network_rows(layout.cores, last_row + 2)  # one aisle past the last row
    total_rows = (
        rows
        + spine_rows
        + (math.ceil(math.ceil(layout.cores / per_upper_rack) / racks_per_row) + 1 if layout.cores else 0)
    )
    return Placement(host_racks, leaf_racks, spine_racks, core_racks, manager_rack, total_rows, racks_per_row)


def _default_racks_per_row(group_racks: int) -> int:
    """Two groups (scalable units) and their leaf rack to a row where that is at most 25
    racks (about 15 m), else one group and its leaf rack; racks of a fat-tree (a group of
    one rack) 16 to a row after the leaf rack."""
    if group_racks == 1:
        return 17
    return 2 * group_racks + 1 if 2 * group_racks + 1 <= 25 else group_racks + 1


# ----------------------------------------------------------------------------- wiring


def _leaf_of(layout: Layout, host: int, port: int) -> tuple[int, int]:
    """(leaf, leaf port) of a host port."""
    if layout.kind == "rail_optimized":
        su, slot = divmod(host, layout.slots_per_su)
        rpl = layout.rails_per_leaf
        leaf = su * layout.leaves_per_su + port // rpl
        return leaf, (port % rpl) * layout.slots_per_su + slot
    endpoint = host * layout.ports_per_host + port
    return divmod(endpoint, layout.leaf_down)


def wire(layout: Layout, placement: Placement, floor: Floor, plane: int = 0) -> Iterator[Link]:
    """Every cable of one plane, port by port: hosts to leaves, leaves to spines, spines
    to cores. Tier media are chosen once per tier (see `tier_media`)."""
    media = tier_media(layout, placement, floor)
    yield from _host_links(layout, placement, floor, media, plane, range(layout.hosts))
    yield from _manager_links(layout, placement, floor, media, plane)
    if not layout.spines:
        return
    yield from _upper_tiers(layout, placement, floor, media, plane)


def _host_links(
    layout: Layout, placement: Placement, floor: Floor, media: dict[Tier, Media], plane: int, hosts: range
) -> Iterator[Link]:
    """The node-leaf cables of `hosts`, port by port."""
    hr, lr = placement.host_racks, placement.leaf_racks
    g = layout.gbps
    for host in hosts:
        name = host_name(layout, host)
        for port in range(layout.ports_per_host):
            leaf, leaf_port = _leaf_of(layout, host, port)
            yield Link(
                "node-leaf",
                name,
                port + plane * layout.ports_per_host,
                leaf_name(layout, leaf, plane),
                leaf_port,
                g,
                plane,
                floor.run_m(hr[host], lr[leaf]),
                media["node-leaf"],
            )


def _manager_links(
    layout: Layout, placement: Placement, floor: Floor, media: dict[Tier, Media], plane: int
) -> Iterator[Link]:
    """The fabric manager's cables to the last SU's leaves (plane 1 only)."""
    if not layout.manager_cables or placement.manager_rack is None or plane != 0:
        return
    lr, g = placement.leaf_racks, layout.gbps
    su = layout.sus - 1
    used = layout.hosts - su * layout.slots_per_su  # node slots taken in the last SU
    for port in range(layout.manager_cables):
        if layout.leaves_per_su >= layout.rails:
            leaf = su * layout.leaves_per_su + port
            leaf_port = used
        else:  # a leaf carrying several rails: the manager takes the next free down ports
            leaf = su * layout.leaves_per_su + port % layout.leaves_per_su
            leaf_port = layout.rails_per_leaf * used + port // layout.leaves_per_su
        yield Link(
            "node-leaf",
            MANAGER,
            port,
            leaf_name(layout, leaf, plane),
            leaf_port,
            g,
            plane,
            floor.run_m(placement.manager_rack, lr[leaf]),
            media["node-leaf"],
        )


def _pods(layout: Layout) -> list[tuple[range, range]]:
    """(leaves, spines) of each group the leaves' uplinks spread over: one group in two
    tiers; pods of radix/2 leaves in three, a full pod with as many spines as a leaf has
    uplinks, the last pod the spines left. A zoned fabric's pods are its AI zones, every
    zone with the same spines (the last built whole)."""
    if layout.tiers == 2:
        return [(range(layout.leaves), range(layout.spines))]
    if layout.zone_leaves:
        zones = math.ceil(layout.leaves / layout.zone_leaves)
        per_zone, rest = divmod(layout.spines, zones)
        if rest or not per_zone:
            raise NotWirable(f"{layout.spines} spines do not split evenly over {zones} zones")
        return [
            (
                range(z * layout.zone_leaves, min((z + 1) * layout.zone_leaves, layout.leaves)),
                range(z * per_zone, (z + 1) * per_zone),
            )
            for z in range(zones)
        ]
    h = layout.spine_radix // 2
    pods = []
    spine = 0
    for first in range(0, layout.leaves, h):
        leaves = range(first, min(first + h, layout.leaves))
        count = layout.leaf_uplinks if len(leaves) == h else layout.spines - spine
        if len(leaves) < h and first + h >= layout.leaves:
            count = layout.spines - spine
        if count <= 0:
            raise NotWirable(f"{layout.spines} spines leave none for the pod of leaves from {first + 1}")
        pods.append((leaves, range(spine, spine + count)))
        spine += count
    if spine != layout.spines:
        raise NotWirable(f"the pods take {spine} spines where the design states {layout.spines}")
    return pods


def _upper_tiers(
    layout: Layout, placement: Placement, floor: Floor, media: dict[Tier, Media], plane: int
) -> Iterator[Link]:
    for pod in _pods(layout):
        yield from _pod_links(layout, placement, floor, media, plane, pod)
    if not layout.cores:
        return
    for group in _core_groups(layout, spine_downlinks(layout)):
        yield from _core_links(layout, placement, floor, media, plane, group)


def spine_downlinks(layout: Layout) -> list[int]:
    """Cables down from each spine: a pod's leaves' uplinks dealt to its spines in turn,
    so spine j of a pod of n uplinks over s spines takes n // s, one more for j < n % s."""
    down = [0] * layout.spines
    for leaves, spines in _pods(layout):
        n, s = len(leaves) * layout.leaf_uplinks, len(spines)
        for j in range(s):
            down[spines.start + j] = n // s + (1 if j < n % s else 0)
    return down


def _pod_links(
    layout: Layout,
    placement: Placement,
    floor: Floor,
    media: dict[Tier, Media],
    plane: int,
    pod: tuple[range, range],
) -> Iterator[Link]:
    """The leaf-spine cables of one pod (its spines are its own), port by port."""
    lr, sr = placement.leaf_racks, placement.spine_racks
    g = layout.gbps
    leaves, spines = pod
    s = len(spines)
    spine_down = dict.fromkeys(spines, 0)
    for i, leaf in enumerate(leaves):
        lname = leaf_name(layout, leaf, plane)
        for u in range(layout.leaf_uplinks):
            spine = spines.start + (i * layout.leaf_uplinks + u) % s
            port = spine_down[spine]
            spine_down[spine] += 1
            yield Link(
                "leaf-spine",
                lname,
                layout.leaf_down + u,
                spine_name(layout, spine, plane),
                port,
                g,
                plane,
                floor.run_m(lr[leaf], sr[spine]),
                media["leaf-spine"],
            )


def _core_links(
    layout: Layout,
    placement: Placement,
    floor: Floor,
    media: dict[Tier, Media],
    plane: int,
    group: tuple[range, list[tuple[int, int]]],
) -> Iterator[Link]:
    """The spine-core cables of one group of cores, port by port."""
    sr, cr = placement.spine_racks, placement.core_racks
    g = layout.gbps
    up_first = layout.spine_radix - layout.spine_uplinks if layout.spine_uplinks else layout.spine_radix // 2
    cores, cables = group
    count = len(cores)
    core_ports = [0] * count
    for position, (spine, up) in enumerate(cables):
        i = position % count  # a spine's uplinks are consecutive: they meet consecutive cores
        core = cores.start + i
        port = core_ports[i]
        core_ports[i] += 1
        yield Link(
            "spine-core",
            spine_name(layout, spine, plane),
            up_first + up,
            core_name(layout, core, plane),
            port,
            g,
            plane,
            floor.run_m(sr[spine], cr[core]),
            media["spine-core"],
        )


def _core_planes(layout: Layout, spine_down: list[int]) -> list[list[tuple[int, int]]]:
    """The (spine, uplink) cables of each core plane: spine j of every full pod (every AI
    zone) sends its uplinks to plane j; a partial pod's uplinks go to the planes in turn."""
    pods = _pods(layout)
    count = len(pods[0][1]) if layout.zone_leaves else layout.leaf_uplinks
    planes: list[list[tuple[int, int]]] = [[] for _ in range(count)]
    for leaves, spines in pods:
        full = len(leaves) == layout.spine_radix // 2 or bool(layout.zone_leaves)
        n = 0
        for j, spine in enumerate(spines):
            for up in range(layout.spine_uplinks or spine_down[spine]):
                planes[j % len(planes) if full else n % len(planes)].append((spine, up))
                n += 1
    return planes


def _core_groups(layout: Layout, spine_down: list[int]) -> list[tuple[range, list[tuple[int, int]]]]:
    """The core switches split into groups of consecutive planes that share them: the most
    groups (a divisor of the planes) whose cables fit the stated cores split evenly over
    them. Within a group the cables go plane by plane, pod by pod, to its cores in turn, so
    every core takes cables from every pod and a spine's uplinks spread over the group's
    cores (unevenly where they do not divide: some pairs get one cable more)."""
    planes = _core_planes(layout, spine_down)
    count = len(planes)
    for groups in sorted({d for d in range(1, count + 1) if count % d == 0}, reverse=True):
        if groups > layout.cores:
            continue
        size = count // groups
        base, extra = divmod(layout.cores, groups)
        split, first = [], 0
        for g in range(groups):
            cores = range(first, first + base + (1 if g < extra else 0))
            first = cores.stop
            cables = [c for plane in planes[g * size : (g + 1) * size] for c in plane]
            split.append((cores, cables))
        if all(len(cables) <= len(cores) * layout.spine_radix for cores, cables in split):
            return split
    raise NotWirable(
        f"{layout.cores} core switches of {layout.spine_radix} ports cannot take "
        f"{sum(len(p) for p in planes):,} spine uplinks"
    )


def tier_runs(layout: Layout, placement: Placement, floor: Floor) -> dict[Tier, float]:
    """The longest run of each tier, read from the racks rather than from every link: each
    leaf's hosts' racks to its rack, every leaf rack to every spine rack, every spine rack
    to every core rack (`Floor.longest_run`, linear in the racks)."""
    hosts_of: dict[Rack, set[Rack]] = {}
    if layout.kind == "rail_optimized":
        for su in range(layout.sus):
            first = su * layout.slots_per_su
            racks = set(placement.host_racks[first : first + layout.slots_per_su])
            if placement.manager_rack is not None and su == layout.sus - 1:
                racks.add(placement.manager_rack)
            for leaf in range(su * layout.leaves_per_su, (su + 1) * layout.leaves_per_su):
                hosts_of.setdefault(placement.leaf_racks[leaf], set()).update(racks)
    else:
        for leaf in range(layout.leaves):
            first = (leaf * layout.leaf_down) // layout.ports_per_host
            last = ((leaf + 1) * layout.leaf_down - 1) // layout.ports_per_host
            racks = set(placement.host_racks[first : last + 1])
            hosts_of.setdefault(placement.leaf_racks[leaf], set()).update(racks)
    node_leaf = max((floor.longest_run([leaf], hosts) for leaf, hosts in hosts_of.items()), default=0.0)
    return {
        "node-leaf": node_leaf,
        "leaf-spine": floor.longest_run(placement.leaf_racks, placement.spine_racks),
        "spine-core": floor.longest_run(placement.spine_racks, placement.core_racks),
    }


def tier_media(
    layout: Layout, placement: Placement, floor: Floor, runs: dict[Tier, float] | None = None
) -> dict[Tier, Media]:
    """One medium per tier, the one that reaches the tier's longest run.

    A twin-port switch cage takes one module for both its links, and one part per tier
    keeps every spare usable on every port of the tier, so the tier's longest run picks
    its medium (lengths still differ link by link). A run past the longest reach of any
    part (a hall too large for one building's fibre plant) takes the longest-reach part,
    and the design says so (`over_reach`)."""
    runs = runs if runs is not None else tier_runs(layout, placement, floor)
    limit = XDR_DR_REACH_M if layout.gbps > 400 else FR_REACH_M
    return {
        tier: media_for(
            min(runs[tier], limit), layout.gbps, switch_ends=tier != "node-leaf", twin_port=layout.twin_port_hosts
        )
        for tier in TIERS
    }


def over_reach(layout: Layout, runs: dict[Tier, float]) -> list[str]:
    """Sentences for tiers whose longest run is past every part's reach."""
    limit = XDR_DR_REACH_M if layout.gbps > 400 else FR_REACH_M
    return [
        f"The longest {tier} run on this floor is {run:,.0f} m, past the {limit:,.0f} m of any {layout.gbps}G optic: "
        "split the hall (or the fabric) so every run is within reach."
        for tier, run in runs.items()
        if run > limit
    ]


# ------------------------------------------------------------------------------ graph


def build_graph(layout: Layout, floor: Floor, switch_units: float = 1) -> nx.MultiGraph[str]:
    """The fabric as a networkx MultiGraph: a node per device (kind, ports, plane, rack),
    an edge per cable (tier, ports at each end, Gb/s, length, media), for every plane."""
    import networkx as nx

    placement = place(layout, floor, switch_units)
    graph: nx.MultiGraph[str] = nx.MultiGraph(layout=layout, rows=placement.rows, racks_per_row=placement.racks_per_row)
    for plane in range(layout.planes):
        for i in range(layout.leaves):
            graph.add_node(leaf_name(layout, i, plane), kind="leaf", ports=layout.radix, plane=plane)
        for i in range(layout.spines):
            graph.add_node(spine_name(layout, i, plane), kind="spine", ports=layout.spine_radix, plane=plane)
        for i in range(layout.cores):
            graph.add_node(core_name(layout, i, plane), kind="core", ports=layout.spine_radix, plane=plane)
    for h in range(layout.hosts):
        graph.add_node(
            host_name(layout, h), kind="host", ports=layout.ports_per_host * layout.planes, rack=placement.host_racks[h]
        )
    if layout.manager_cables:
        graph.add_node(MANAGER, kind="manager", ports=layout.manager_cables)
    for plane in range(layout.planes):
        for link in wire(layout, placement, floor, plane):
            graph.add_edge(
                link.a,
                link.b,
                tier=link.tier,
                a=link.a,
                a_port=link.a_port,
                b=link.b,
                b_port=link.b_port,
                gbps=link.gbps,
                plane=plane,
                length_m=link.length_m,
                media=link.media.kind,
            )
    return graph


def links(layout: Layout, floor: Floor, switch_units: float = 1) -> Iterator[Link]:
    """Every cable of every plane, in plan order, without building a graph (what the
    cabling plan streams)."""
    placement = place(layout, floor, switch_units)
    for plane in range(layout.planes):
        yield from wire(layout, placement, floor, plane)


# ------------------------------------------------------------------------------ tally


@dataclass(frozen=True)
class Tally:
    """What a wired fabric holds, read from its links (every plane): the switches of each
    kind that carry a cable, the cables of each tier, the hosts cabled. The bill of
    materials and the recommendation's counts are these; the count formulas of
    rules/sizing only check them."""

    leaves: int
    spines: int
    cores: int
    cables: dict[str, int]  # by tier
    hosts: int
    repeated: bool  # read from one block of each shape, repeated (see `tally`)


@dataclass
class _Counts:
    leaves: int = 0
    spines: int = 0
    cores: int = 0
    hosts: int = 0
    cables: dict[Tier, int] = field(default_factory=lambda: dict.fromkeys(TIERS, 0))

    def add(self, sample: Iterator[Link], times: int = 1) -> None:
        """Count one block's links, `times` over: each device once per block (a switch is
        counted at its lower end's tier: a leaf on its node-leaf cables, a spine on its
        leaf-spine cables, a core on its spine-core cables)."""
        ends: dict[Tier, set[str]] = {t: set() for t in TIERS}
        hosts: set[str] = set()
        cables = dict.fromkeys(TIERS, 0)
        for link in sample:
            cables[link.tier] += 1
            if link.a == MANAGER:  # the manager's leaves are its SU's, counted with its hosts
                continue
            ends[link.tier].add(link.b)
            if link.tier == "node-leaf":
                hosts.add(link.a)
        self.leaves += times * len(ends["node-leaf"])
        self.spines += times * len(ends["leaf-spine"])
        self.cores += times * len(ends["spine-core"])
        self.hosts += times * len(hosts)
        for tier, n in cables.items():
            self.cables[tier] += times * n


def _blocks(items: list[tuple[int, ...]]) -> list[tuple[int, int]]:
    """(index of the first item of each shape, how many items have that shape)."""
    first: dict[tuple[int, ...], int] = {}
    count: dict[tuple[int, ...], int] = {}
    for i, shape in enumerate(items):
        first.setdefault(shape, i)
        count[shape] = count.get(shape, 0) + 1
    return [(first[shape], n) for shape, n in count.items()]


def host_block(layout: Layout) -> int:
    """Hosts in the block the node-leaf wiring repeats: one scalable unit (rail-optimized),
    or the fewest hosts that fill whole leaves (a fat-tree)."""
    if layout.kind == "rail_optimized":
        return max(1, layout.slots_per_su)
    down = max(1, layout.leaf_down)
    return max(1, math.lcm(down, layout.ports_per_host) // layout.ports_per_host)


def blocks(
    layout: Layout, placement: Placement, floor: Floor, media: dict[Tier, Media]
) -> Iterator[tuple[Iterator[Link], int]]:
    """Plane 1 of the wiring as blocks, one of each shape: (the block's links, port by
    port; how many blocks of the fabric have that shape). The hosts' cables one scalable
    unit (or the fewest hosts that fill whole leaves) at a time, the last partial one on
    its own; the leaf-spine cables one pod (one AI zone) of each shape; the spine-core
    cables one core group of each shape; the fabric manager's cables once. Blocks of a
    shape are wired alike but for names, so the rest of the fabric is read by repetition."""
    block = host_block(layout)
    full, rest = divmod(layout.hosts, block)
    if full:
        yield _host_links(layout, placement, floor, media, 0, range(block)), full
    if rest:
        yield _host_links(layout, placement, floor, media, 0, range(full * block, layout.hosts)), 1
    yield _manager_links(layout, placement, floor, media, 0), 1
    if not layout.spines:
        return
    pods = _pods(layout)
    for first, n in _blocks([(len(leaves), len(spines)) for leaves, spines in pods]):
        yield _pod_links(layout, placement, floor, media, 0, pods[first]), n
    if layout.cores:
        groups = _core_groups(layout, spine_downlinks(layout))
        for first, n in _blocks([(len(cores), len(cables)) for cores, cables in groups]):
            yield _core_links(layout, placement, floor, media, 0, groups[first]), n


def tally(layout: Layout, placement: Placement, floor: Floor, media: dict[Tier, Media]) -> Tally:
    """The counts of the wired fabric, read from its `blocks` without listing every link:
    each block's links counted once and multiplied by the blocks of its shape, then every
    other plane as plane 1 (the fabric manager's cables in plane 1 only). A fabric of one
    block of each shape is wired whole. tests/test_physical_tally.py checks the result
    against counting every link."""
    counts = _Counts()
    repeated = False
    for links_of_block, times in blocks(layout, placement, floor, media):
        counts.add(links_of_block, times)
        repeated = repeated or times > 1
    manager = layout.manager_cables if placement.manager_rack is not None else 0
    p = layout.planes
    cables: dict[str, int] = {t: p * n for t, n in counts.cables.items()}
    cables["node-leaf"] -= (p - 1) * manager  # the manager's cables are in plane 1 only
    return Tally(
        leaves=p * counts.leaves,
        spines=p * counts.spines,
        cores=p * counts.cores,
        cables=cables,
        hosts=counts.hosts,
        repeated=repeated or p > 1,
    )


def block_graph(layout: Layout, placement: Placement, floor: Floor, media: dict[Tier, Media]) -> nx.MultiGraph[str]:
    """Plane 1's `blocks` as a networkx MultiGraph, each cable with `times` (the blocks of
    its shape): the graph the checks run on past the size where the whole fabric's graph
    is too slow. Every device of a block is whole in it (a host's ports, a leaf's down
    ports, a pod's spines' down ports, a core group's cores), so a port used twice or a
    switch over its radix inside any block shows."""
    import networkx as nx  # here: a design is counted without a graph (recommend never loads it)

    graph: nx.MultiGraph[str] = nx.MultiGraph(layout=layout)
    kinds = {"node-leaf": ("host", "leaf"), "leaf-spine": ("leaf", "spine"), "spine-core": ("spine", "core")}
    radix = {"host": layout.ports_per_host, "leaf": layout.radix, "spine": layout.spine_radix}
    radix["core"] = layout.spine_radix
    for links_of_block, times in blocks(layout, placement, floor, media):
        for link in links_of_block:
            lower, upper = kinds[link.tier]
            for device, kind in ((link.a, lower), (link.b, upper)):
                if device not in graph:
                    kind = "manager" if device == MANAGER else kind
                    ports = layout.manager_cables if kind == "manager" else radix[kind]
                    graph.add_node(device, kind=kind, ports=ports, plane=0)
            graph.add_edge(
                link.a,
                link.b,
                tier=link.tier,
                a=link.a,
                a_port=link.a_port,
                b=link.b,
                b_port=link.b_port,
                gbps=link.gbps,
                plane=0,
                length_m=link.length_m,
                media=link.media.kind,
                times=times,
            )
    return graph
