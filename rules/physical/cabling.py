"""The cabling plan of a recommendation: every compute-fabric cable as a row, from device
and port to device and port, with its tier, plane, medium, the part at each end, the
cable's part and its length.

The plan is built from the same physical build the bill of materials priced (same
layout, floor and tier media: `rules.physical.build.physical_build`), so its rows and
the BOM agree line by line: for every part, ceil(rows naming it / links per part) per
tier is the BOM's quantity (`part_totals`). Rows are generated, never held in a list,
so a 16,384-GPU plan (49,152 rows) streams.

    build = build_for(rec)
    for row in plan_rows(build): ...
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable, Iterator

from knowledge.pricebook import price_book
from rules.models import PortRole, Recommendation
from rules.physical.build import PhysicalBuild, build_key, physical_build, switch_model_named, twin_cages
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
    return physical_build(
        build_key(topology),
        platform,
        topology.endpoints // max(1, nodes),
        twin_cages(platform, compute_fabric),
        switch_model_named(rec.fabric.switch_model),
        rec.profile.floor,
    )


def _part_numbers(media: Media) -> dict[str, str]:
    book = price_book()
    return {part.end: book.price(part.key).part_number for part in media.parts}


def plan_rows(build: PhysicalBuild) -> Iterator[tuple[object, ...]]:
    """Every cable, one row each (COLUMNS), in plan order: node-leaf, then leaf-spine,
    then spine-core, plane by plane. Ports are numbered from 1 as on a faceplate."""
    numbers = {tier: _part_numbers(media) for tier, media in build.media.items()}
    for i, link in enumerate(build.links(), start=1):
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
        )


def part_totals(rows: Iterable[tuple[object, ...]], build: PhysicalBuild) -> Counter[str]:
    """Part number -> quantity, counted from plan rows the way the BOM counts: per tier
    and end, ceil(links naming the part / links per part)."""
    per_part: dict[tuple[str, str], int] = {
        (tier, p.end): p.links for tier, media in build.media.items() for p in media.parts
    }
    links: Counter[tuple[str, str, str]] = Counter()
    for row in rows:
        tier = str(row[1])
        for end, cell in (("a", row[9]), ("b", row[10]), ("cable", row[11])):
            if cell:
                links[(tier, end, str(cell))] += 1
    totals: Counter[str] = Counter()
    for (tier, end, part), n in links.items():
        totals[part] += math.ceil(n / per_part[(tier, end)])
    return totals
