"""The bill of materials of a network: switches, NICs, optics or copper by reach, fibre
and spares, each line priced from the dated price book.

Every function here is closed-form over the topology's counts (a handful of cable tiers,
never one step per cable), so a 100,000-GPU fabric costs the same microseconds as 16 GPUs.

Reach (the price book's `bom_assumptions`, stated in every cost): servers sit
`servers_per_rack` to a rack and switches in network racks at the end of the row, so a
server's links to its leaf are optical unless every server fits one rack with the switch;
switch-to-switch links are copper when every switch of the fabric fits one network rack
(`network_rack_units`), optical otherwise. An optical link at 400G or 800G is a
transceiver at each end plus one MPO fibre; switch cages take twin-port OSFP modules (two
links each), servers take twin-port flat-top modules where their cages are twin-port
(DGX H100/H200/B200) and single-port ones otherwise (Vitex's 256-GPU order: 256
single-port on the NICs, 128 twin-port in the leaves, 256 fibres). At 100G and 200G an
active optical cable (AOC) replaces both ends and the fibre. Copper inside a rack is a
DAC (a twin-port DAC carries two 400G links); XDR has no DAC (NVIDIA LinkX XDR list:
"too short at 200G-PAM4"), so 800G links are always optical.

    lines = fabric_lines("compute", topology, switch, server, book)
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

from knowledge.pricebook import Price, PriceBook
from rules.models import BomLine, NetworkFabric, Topology
from rules.physical.media import Media

if TYPE_CHECKING:
    from rules.spares import SparesPolicy

#: Cable tiers whose both ends are switches.
SWITCH_TIERS = ("leaf-spine", "spine-core", "group-global")


@dataclass(frozen=True)
class SwitchPart:
    """The switch a fabric is built with: its model, the price book's key for it. Its
    400G and 800G cages take twin-port modules (Quantum-2, Quantum-X800, Spectrum-4)."""

    model: str


@dataclass(frozen=True)
class ServerSide:
    """What the servers bring to one fabric: ports, their cages and the NIC behind them."""

    nodes: int
    ports_per_node: int
    gbps: int
    twin_port: bool = False  # the server's cages take twin-port modules (DGX H100/H200/B200)
    nic_model: str | None = None
    nic_included: bool = True  # the server ships with these NICs


def speed_class(gbps: int) -> int:
    """The price-book speed a link is priced at: 1 (RJ45), 100, 200, 400 or 800."""
    if gbps <= 1:
        return 1
    for step in (100, 200, 400):
        if gbps <= step:
            return step
    return 800


def price_line(fabric: NetworkFabric, price: Price, quantity: int, note: str, included: bool = False) -> BomLine:
    low, high = (0.0, 0.0) if included else price.usd
    return BomLine(
        fabric=fabric,
        category=price.category,
        part_number=price.part_number,
        description=price.description,
        quantity=quantity,
        unit_usd_low=low,
        unit_usd_high=high,
        included=included,
        watts=price.watts,
        rack_units=price.rack_units,
        price_date=price.date,
        source=price.source if not included else f"Included with the servers; list price: {price.source}",
        note=note,
    )


def link_parts(links: int, gbps: int, in_rack: bool, node_end: str | None) -> list[tuple[str, int, str]]:
    """The parts of `links` links at `gbps` as (price key, quantity, note).

    `node_end` is None for switch-to-switch links, else "twin" or "single" for the cages
    of the server end."""
    speed = speed_class(gbps)
    what = f"{links:,} {'server' if node_end else 'switch-to-switch'} link(s) at {gbps}G"
    if links <= 0:
        return []
    if speed == 1:
        return [("copper/rj45", links, f"{what}: copper patch cables")]
    if in_rack and speed <= 400:
        if speed == 400:
            return [("dac/400", math.ceil(links / 2), f"{what} inside one rack: twin-port DACs, two links each")]
        return [(f"dac/{speed}", links, f"{what} inside one rack: copper (DAC)")]
    if speed <= 200:
        return [(f"aoc/{speed}", links, f"{what} between racks: active optical cables")]
    twins = math.ceil(links / 2)
    parts = [(f"optic/twin/{speed}", twins, f"{what}: twin-port modules in the switch cages, two links each")]
    if node_end is None:
        parts = [(f"optic/twin/{speed}", 2 * twins, f"{what}: twin-port modules at both switch ends, two links each")]
    elif node_end == "twin" and speed == 400:
        parts.append(("optic/twin-flat/400", twins, f"{what}: flat-top twin-port modules in the servers' cages"))
    else:
        parts.append((f"optic/single/{speed}", links, f"{what}: one single-port module per server port"))
    parts.append(("fibre/mpo", links, f"{what}: one MPO fibre per optical link"))
    return parts


def media_parts(tier: str, links: int, media: Media) -> list[tuple[str, int, str]]:
    """The parts of `links` links of one tier in one medium, as (price key, quantity, note):
    ceil(links / links per part) of each part (a twin-port module or DAC carries two)."""
    if links <= 0:
        return []
    ends = {"a": "server end" if tier == "node-leaf" else "lower switch end", "b": "switch end", "cable": "cable"}
    return [
        (
            part.key,
            math.ceil(links / part.links),
            f"{links:,} {media.kind} link(s), every run within its {media.reach_m:g} m reach: {ends[part.end]}"
            + (f", {part.links} links per part" if part.links > 1 else ""),
        )
        for part in media.parts
    ]


def fabric_lines(
    fabric: NetworkFabric,
    topology: Topology,
    switch: SwitchPart,
    server: ServerSide,
    book: PriceBook,
    media: Mapping[str, Media] | None = None,
    spares: SparesPolicy | None = None,
) -> list[BomLine]:
    """The priced parts of one fabric: its switches (leaf + spine + core), the NICs the
    servers bring (included at $0 when they ship with them), the cables, optics and fibre
    of every cable tier by reach, and the spares per tier by the `spares` policy
    (rules/spares.yaml; none without one).

    `media` gives each tier's medium from the floor model (rules/physical: the tier's
    longest run picks it); a tier without one falls back to the rack rule below (copper
    inside one rack, optical between racks)."""
    if topology.total_switches == 0:
        return []
    assumptions = book.assumptions
    switch_price = book.price(f"switch/{switch.model}")
    counts = ", ".join(
        f"{n:,} {name}"
        for name, n in (
            ("leaf", topology.leaf_switches),
            ("spine", topology.spine_switches),
            ("core", topology.core_switches),
        )
        if n
    )
    if topology.spine_switch and topology.spine_switch != switch.model:
        # another model above the leaves (Quantum-2 leaves under Quantum-X800 spines): a line per model
        upper = topology.spine_switches + topology.core_switches
        upper_price = book.price(f"switch/{topology.spine_switch}")
        above = ", ".join(
            f"{n:,} {name}" for name, n in (("spine", topology.spine_switches), ("core", topology.core_switches)) if n
        )
        lines = [
            price_line(fabric, switch_price, topology.leaf_switches, f"{topology.leaf_switches:,} leaf"),
            price_line(fabric, upper_price, upper, f"{above} ({upper:,} switches)"),
        ]
        switch_units = topology.leaf_switches * (switch_price.rack_units or 1) + upper * (upper_price.rack_units or 1)
    else:
        lines = [
            price_line(
                fabric, switch_price, topology.total_switches, f"{counts} ({topology.total_switches:,} switches)"
            )
        ]
        switch_units = topology.total_switches * (switch_price.rack_units or 1)
    servers_in_one_rack = server.nodes <= assumptions.servers_per_rack
    switches_in_one_rack = switch_units <= assumptions.network_rack_units
    parts: dict[str, tuple[int, list[str]]] = {}
    per_tier: list[tuple[str, str, int]] = []
    for tier in topology.cables:
        node_end = None if tier.tier in SWITCH_TIERS else ("twin" if server.twin_port else "single")
        in_rack = switches_in_one_rack if node_end is None else servers_in_one_rack
        tier_parts = (
            media_parts(tier.tier, tier.count, media[tier.tier])
            if media and tier.tier in media
            else link_parts(tier.count, tier.gbps, in_rack, node_end)
        )
        for key, quantity, note in tier_parts:
            per_tier.append((tier.tier, key, quantity))
            before, notes = parts.get(key, (0, []))
            parts[key] = (before + quantity, [*notes, f"{tier.tier}: {note}"])
    if server.nic_model and server.ports_per_node:
        nics = server.nodes * server.ports_per_node
        nic_key = f"nic/{server.nic_model}"
        if book.has(nic_key):
            why = "shipped with the servers, not bought twice" if server.nic_included else "bought for the servers"
            lines.append(
                price_line(
                    fabric,
                    book.price(nic_key),
                    nics,
                    f"{server.nodes:,} servers x {server.ports_per_node} {server.gbps}G port(s): {why}",
                    included=server.nic_included,
                )
            )
    cabling = [
        price_line(fabric, book.price(key), quantity, "; ".join(notes)) for key, (quantity, notes) in parts.items()
    ]
    if spares is None:
        return lines + cabling
    upper_price = book.price(f"switch/{topology.spine_switch}") if topology.spine_switch else switch_price
    return lines + cabling + spare_lines(fabric, topology, switch_price, per_tier, book, spares, upper_price)


#: A spare sits on the shelf: no power drawn, no rack space taken.
ON_THE_SHELF = {"watts": None, "rack_units": None}


def spare_lines(
    fabric: NetworkFabric,
    topology: Topology,
    switch_price: Price,
    per_tier: list[tuple[str, str, int]],
    book: PriceBook,
    spares: SparesPolicy,
    upper_price: Price | None = None,
) -> list[BomLine]:
    """The spares, tier by tier: spare switches of each switch tier (a spine or core spare
    is the spines' model where it differs from the leaves', `upper_price`), then spare
    optics, cables and fibre of each cable tier, each line saying its tier and the policy's
    figure."""
    lines = []
    for tier, count in (
        ("leaf", topology.leaf_switches),
        ("spine", topology.spine_switches),
        ("core", topology.core_switches),
    ):
        n = spares.switches_for(tier, count)
        if n:
            line = price_line(
                fabric,
                switch_price if tier == "leaf" or upper_price is None else upper_price,
                n,
                f"{tier}: {spares.switch_words(tier)} ({count:,} {tier} switches); {spares.source}",
            )
            lines.append(
                line.model_copy(
                    update={
                        "category": "spare",
                        "description": f"Spare {tier} switch: {line.description}",
                        **ON_THE_SHELF,
                    }
                )
            )
    for tier, key, quantity in per_tier:
        n = spares.optics_for(tier, quantity)
        if n:
            line = price_line(
                fabric,
                book.price(key),
                n,
                f"{tier}: {spares.optics_words(tier)} of {quantity:,}, rounded up; {spares.source}",
            )
            lines.append(
                line.model_copy(
                    update={"category": "spare", "description": f"Spare ({tier}): {line.description}", **ON_THE_SHELF}
                )
            )
    return lines
