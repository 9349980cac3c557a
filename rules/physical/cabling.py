"""The cabling plan of a recommendation: every cable of the compute fabric, the storage
network (with the storage system's ports), the in-band network and the out-of-band
management network (rules/physical/oob.py) as a row, from device
and port to device and port, with its tier, plane (a dual-homed network's side), medium,
the part at each end, the cable's part, its length and its network.

The plan is built from the same physical build the bill of materials priced (same
layout, floor and tier media: `rules.physical.build.physical_build`), so its rows and
the BOM agree line by line: for every part, ceil(rows naming it / links per part) per
tier is the BOM's quantity (`part_totals`). Rows are generated, never held in a list,
so a 16,384-GPU plan (49,152 compute rows) streams. The storage and in-band networks
are the bill of materials' own (rules/pricing.py `service_network`, wired by
rules/physical/service.py), listed after the compute fabric.

    build = build_for(rec)
    for row in plan_rows(build): ...
"""

from __future__ import annotations

import dataclasses
import math
from collections import Counter
from collections.abc import Callable, Iterable, Iterator

from knowledge.pricebook import price_book
from rules import pricing
from rules.models import PortRole, Recommendation
from rules.physical.build import PhysicalBuild, build_key, physical_build, switch_model_named, twin_cages
from rules.physical.floor import resolve
from rules.physical.graph import Layout, Link, host_name
from rules.physical.media import Media
from rules.platform import platform_for

COLUMNS = (
    "cable",
    "tier",
    "plane",
    "from_device",
    "from_port",
    "to_device",
    "to_port",
    "gbps",
    "media",
    "from_part",
    "to_part",
    "cable_part",
    "length_m",
    "network",
)


def build_for(rec: Recommendation) -> PhysicalBuild | None:
    """The physical build behind a stored recommendation's bill of materials, or None when
    it has no compute fabric wired port by port (one server, NVLink only, Dragonfly+)."""
    topology = rec.topology
    if not topology.total_switches or not rec.fabric.switch_model:
        return None
    nodes = rec.profile.node_count or 1
    compute_fabric = any(p.role == PortRole.compute and p.count for p in rec.ports_per_server)
    platform = platform_for(rec.profile.gpu_model)
    build = physical_build(
        build_key(topology),
        platform,
        topology.endpoints // max(1, nodes),
        twin_cages(platform, compute_fabric),
        switch_model_named(rec.fabric.switch_model),
        rec.profile.floor,
    )
    if build is None:
        return None
    floor = resolve(platform, rec.profile.floor)
    specs = pricing.service_specs(rec.profile, platform, list(rec.ports_per_server))
    services = tuple(pricing.service_network(s, floor) for s in specs)
    per_node = next((p.count for p in rec.ports_per_server if p.role == PortRole.out_of_band), 0)
    oob = pricing.out_of_band(build, services, floor, nodes, per_node, platform)
    return dataclasses.replace(build, services=services, oob=oob)


def server_namer(layout: Layout, nodes: int, ports: int) -> Callable[[int, int], tuple[str, int]]:
    """(server name, port) of a server's service port, named as the compute plan names the
    server: a DGX by its SU and slot, an NVL72 rack's port by the compute tray it is on."""
    if layout.hosts == nodes:
        return lambda node, port: (host_name(layout, node), port)
    trays = layout.hosts // max(1, nodes)
    if trays > 1 and layout.hosts == nodes * trays and ports % trays == 0:
        per_tray = ports // trays
        return lambda node, port: (host_name(layout, node * trays + port // per_tray), port % per_tray)
    return lambda node, port: (f"server{node + 1:05d}", port)


def _part_numbers(media: Media) -> dict[str, str]:
    book = price_book()
    return {part.end: book.price(part.key).part_number for part in media.parts}


def plan_rows(build: PhysicalBuild) -> Iterator[tuple[object, ...]]:
    """Every cable, one row each (COLUMNS), in plan order: the compute fabric's node-leaf,
    then leaf-spine, then spine-core, plane by plane; then each service network side by
    side. Ports are numbered from 1 as on a faceplate."""
    yield from _rows(build.links(), build.media, "compute", 1)
    first = 1 + sum(build.tally.cables.values())
    for net in build.services:
        name = server_namer(build.layout, net.nodes, net.ports)
        rows = _rows(net.links(name), net.media, net.fabric, first)
        for row in rows:
            yield row
            first += 1
    if build.oob is not None:
        yield from _rows(build.oob.links(), build.oob.media, build.oob.fabric, first)


def _rows(links: Iterable[Link], media: dict[str, Media], network: str, first: int) -> Iterator[tuple[object, ...]]:
    numbers = {tier: _part_numbers(m) for tier, m in media.items()}
    for i, link in enumerate(links, start=first):
        parts = numbers[link.tier]
        yield (
            i,
            link.tier,
            link.plane + 1,
            link.a,
            link.a_port + 1,
            link.b,
            link.b_port + 1,
            link.gbps,
            link.media.kind,
            parts.get("a", ""),
            parts.get("b", ""),
            parts.get("cable", ""),
            f"{link.length_m:g}",
            network,
        )


def part_totals(rows: Iterable[tuple[object, ...]], build: PhysicalBuild, network: str = "compute") -> Counter[str]:
    """Part number -> quantity of one network's rows, counted the way the BOM counts: per
    tier and end, ceil(links naming the part / links per part)."""
    net = next((n for n in build.services if n.fabric == network), None)
    media = build.media if network == "compute" else net.media if net else {}
    if network == "out_of_band" and build.oob is not None:
        media = build.oob.media
    per_part: dict[tuple[str, str], int] = {(tier, p.end): p.links for tier, m in media.items() for p in m.parts}
    links: Counter[tuple[str, str, str]] = Counter()
    for row in rows:
        if row[13] != network:
            continue
        tier = str(row[1])
        for end, cell in (("a", row[9]), ("b", row[10]), ("cable", row[11])):
            if cell:
                links[(tier, end, str(cell))] += 1
    totals: Counter[str] = Counter()
    for (tier, end, part), n in links.items():
        totals[part] += math.ceil(n / per_part[(tier, end)])
    return totals
