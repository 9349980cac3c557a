"""The storage and in-band networks wired port by port, with the storage system's ports.

The bill of materials sizes each service network as a non-blocking fat-tree per side of
a dual-homed pair (rules/pricing.py `_service_lines`); this module wires that fabric the
way the compute fabric is wired (rules/physical/graph.py, fat-tree rules), so its cables
are rows of the cabling plan and its media follow the floor, like the compute fabric's:

- side s of a dual-homed network takes every server's ports p with p % sides == s (DGX
  H100: storage port 1 to side A, port 2 to side B), then the storage system's ports
  t with t % sides == s ("the storage devices are connected at a 1:1 port to uplink
  ratio", NVIDIA DGX SuperPOD H100 RA, storage fabric);
- a side too large for three tiers of its switch is split into pods of equal size,
  each sized and wired on its own;
- servers stand where the floor model puts them; the storage system's racks follow the
  last compute rack in the same rows (a Fabric Advisor assumption, stated in the design);
- one medium per tier, the one that reaches the tier's longest run over every side and
  pod (rules/physical/graph.py `tier_media`).

    net = service_network("storage", nodes=128, ports=2, gbps=400, target_ports=4,
                          radix=64, floor=resolve(platform_for("H100")))
    net.topology          # what the bill of materials buys
    net.links(name)       # every cable, `name(node, port)` naming a server's port
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import cache

from rules.models import Topology
from rules.physical.floor import Floor
from rules.physical.graph import TIERS, Layout, Link, Tier, place, tier_runs, wire
from rules.physical.media import FR_REACH_M, XDR_DR_REACH_M, Media, media_for
from rules.sizing.fabric import fat_tree_capacity, size_fat_tree

#: The storage system's device name in the cabling plan.
STORAGE_SYSTEM = "storage-system"
#: Where the storage system stands (Fabric Advisor assumption, said in the design).
STORAGE_RACKS = (
    "the storage system's racks follow the last compute rack in the same rows, and each side of a "
    "dual-homed network has leaf switches of its own at the head of the rows"
)

Namer = Callable[[int, int], tuple[str, int]]


@dataclass(frozen=True)
class Block:
    """One side (and pod) of a service network: its endpoints and its sized fat-tree."""

    side: int
    pod: int
    first: int  # index of the block's first endpoint among its side's endpoints
    layout: Layout
    topology: Topology


@dataclass(frozen=True)
class ServiceNetwork:
    """A storage or in-band network for `nodes` servers of `ports` ports each, plus the
    storage system's `target_ports`, dual-homed over `sides` fabrics."""

    fabric: str
    nodes: int
    ports: int
    gbps: int
    target_ports: int
    sides: int
    blocks: tuple[Block, ...]
    floor: Floor
    media: dict[str, Media]
    runs: dict[str, float]

    @property
    def topology(self) -> Topology:
        """Every block's counts summed: what the bill of materials buys."""
        first = self.blocks[0].topology
        tiers: dict[str, int] = {}
        for block in self.blocks:
            for c in block.topology.cables:
                tiers[c.tier] = tiers.get(c.tier, 0) + c.count
        return first.model_copy(
            update={
                "leaf_switches": sum(b.topology.leaf_switches for b in self.blocks),
                "spine_switches": sum(b.topology.spine_switches for b in self.blocks),
                "core_switches": sum(b.topology.core_switches for b in self.blocks),
                "endpoints": sum(b.topology.endpoints for b in self.blocks),
                "cables": [c.model_copy(update={"count": tiers[c.tier]}) for c in first.cables],
                "notes": [],
            }
        )

    def server_ports_on(self, side: int) -> int:
        """Ports of one server on side `side`."""
        return len(range(side, self.ports, self.sides))

    def _endpoint(self, side: int, e: int, name: Namer) -> tuple[str, int]:
        per_server = self.server_ports_on(side)
        servers = self.nodes * per_server
        if e < servers:
            node, i = divmod(e, per_server)
            return name(node, i * self.sides + side)
        return STORAGE_SYSTEM, (e - servers) * self.sides + side

    def prefix(self, block: Block) -> str:
        side = "ab"[block.side] if self.sides == 2 else ""
        pods = sum(1 for b in self.blocks if b.side == block.side)
        pod = f"-pod{block.pod + 1}" if pods > 1 else ""
        return f"{self.fabric.replace('_', '-')}{'-' + side if side else ''}{pod}-"

    def links(self, name: Namer) -> Iterator[Link]:
        """Every cable of every side and pod, port by port, switch names prefixed by the
        network, side (a / b) and pod; `name(node, port)` names a server and its port."""
        for block in self.blocks:
            layout = block.layout
            prefix = self.prefix(block)
            switches: dict[str, str] = {}

            def switch(device: str, prefix: str = prefix, switches: dict[str, str] = switches) -> str:
                renamed = switches.get(device)
                if renamed is None:
                    renamed = switches[device] = prefix + device
                return renamed

            placement = place(layout, self.floor)
            for link in wire(layout, placement, self.floor):
                medium = self.media[link.tier]
                if link.tier == "node-leaf":
                    endpoint = block.first + int(link.a[4:]) - 1  # "node00001": the block's endpoint 0
                    a, a_port = self._endpoint(block.side, endpoint, name)
                else:
                    a, a_port = switch(link.a), link.a_port
                yield dataclasses.replace(link, a=a, a_port=a_port, b=switch(link.b), plane=block.side, media=medium)


def _side_endpoints(nodes: int, ports: int, target_ports: int, sides: int, side: int) -> int:
    return nodes * len(range(side, ports, sides)) + len(range(side, target_ports, sides))


@cache
def service_network(
    fabric: str, nodes: int, ports: int, gbps: int, target_ports: int, radix: int, floor: Floor, sides: int = 1
) -> ServiceNetwork:
    """The service network wired on `floor`: each side's endpoints sized as a fat-tree of
    `radix`-port switches (split into equal pods past three tiers), placed and wired."""
    blocks: list[Block] = []
    for side in range(sides):
        endpoints = _side_endpoints(nodes, ports, target_ports, sides, side)
        pods = math.ceil(endpoints / fat_tree_capacity(radix, 3)) if radix >= 4 else 1
        size = math.ceil(endpoints / pods)
        for pod in range(pods):
            first = pod * size
            count = min(size, endpoints - first)
            if count <= 0:
                continue
            topology = size_fat_tree(count, radix, gbps)
            blocks.append(Block(side, pod, first, _layout(topology, gbps), topology))
    # an endpoint per host: racks hold a server's ports on this side (DGX: one, NVL72: its trays')
    per_rack = max(1, floor.servers_per_rack * max(1, math.ceil(ports / sides)))
    endpoint_floor = dataclasses.replace(floor, servers_per_rack=per_rack)
    runs: dict[Tier, float] = dict.fromkeys(TIERS, 0.0)
    for layout in {block.layout for block in blocks}:  # the sides (and pods) are mostly alike: each shape once
        for tier, run in tier_runs(layout, place(layout, endpoint_floor), endpoint_floor).items():
            runs[tier] = max(runs[tier], run)
    limit = XDR_DR_REACH_M if gbps > 400 else FR_REACH_M
    media = {str(t): media_for(min(runs[t], limit), gbps, switch_ends=t != "node-leaf") for t in TIERS}
    runs_m = {str(t): r for t, r in runs.items()}
    return ServiceNetwork(fabric, nodes, ports, gbps, target_ports, sides, tuple(blocks), endpoint_floor, media, runs_m)


def _layout(topology: Topology, gbps: int) -> Layout:
    """The fat-tree layout of one block: one endpoint per host, as `wire` takes it."""
    cables = {c.tier: c.count for c in topology.cables}
    return Layout(
        kind="fat_tree",
        hosts=topology.endpoints,
        ports_per_host=1,
        host_name="endpoint",
        hosts_per_system=1,
        sus=1,
        slots_per_su=topology.endpoints,
        rails=1,
        leaves=topology.leaf_switches,
        spines=topology.spine_switches,
        cores=topology.core_switches,
        radix=topology.radix or 0,
        gbps=gbps,
        manager_cables=0,
        leaf_uplinks=cables.get("leaf-spine", 0) // max(1, topology.leaf_switches),
    )
