"""The physical build of one sized fabric: its layout on the resolved floor, the inputs
the bill of materials and the cabling plan share so they cannot disagree.

    built = physical_build(topology_json, platform_for("H100"), edge_ports=8, twin_port=True,
                           switch_model="QM9700", floor=None)
    built.media        # each tier's medium (what the BOM prices)
    built.links()      # every cable, streamed (what the cabling plan lists)
    built.graph()      # the networkx graph (what the checks run on)
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache, cached_property
from typing import TYPE_CHECKING

from knowledge import catalogue
from knowledge.pricebook import price_book
from rules.models import FloorSettings, Topology
from rules.physical.floor import Floor, resolve
from rules.physical.graph import (
    TIERS,
    Layout,
    Link,
    NotWirable,
    Placement,
    Tally,
    block_graph,
    build_graph,
    links,
    over_reach,
    place,
    tally,
    tier_media,
    tier_runs,
)
from rules.physical.media import REACH_SOURCE, Media
from rules.physical.oob import OobNetwork
from rules.physical.service import STORAGE_RACKS, ServiceNetwork
from rules.platform import Platform

#: Which networks the cabling plan lists, said in every design that has one.
PLAN_COVERS = (
    "Cabling plan: every cable of the compute fabric, the storage network (with the storage system's ports), "
    "the in-band network and the out-of-band management network (every BMC and switch management port on "
    "its rack's SN2201, and the SN2201 uplinks), port by port, each network's media by reach (the network "
    f"column says which); {STORAGE_RACKS}."
)

if TYPE_CHECKING:
    import networkx as nx

#: The Quantum-2 twin-port 2x400G modules the switch ends of 400G links are priced as
#: (NVIDIA, "MMS4X00-NS 800Gbps Twin-port OSFP 2x400Gb/s Single Mode DR8 100m" and
#: "MMA4Z00-NS 800Gb/s Twin-port OSFP, 2x400Gb/s Multimode 2xSR4, 50m" product
#: specifications: "only used in Quantum-2 and Spectrum-4 OSFP air-cooled switches").
NDR_TWIN_PARTS = "MMA4Z00-NS multimode, MMS4X00-NS single-mode DR, MMS4X50-NM 2xFR4"

_TWIN_CAGES = re.compile(r"two \d+ Gb/s ports each", re.I)


@dataclass(frozen=True)
class PhysicalBuild:
    layout: Layout
    floor: Floor
    switch_units: float
    media: dict[str, Media]
    runs: dict[str, float]
    placement: Placement
    warnings: tuple[str, ...] = ()
    services: tuple[ServiceNetwork, ...] = ()  # the storage and in-band networks (set by the cabling plan)
    oob: OobNetwork | None = None  # the out-of-band network (set by the cabling plan)
    ndr_on_xdr: str | None = None  # the spine / core switch whose XDR ports carry NDR links (mixed generation)

    def links(self) -> Iterator[Link]:
        return links(self.layout, self.floor, self.switch_units)

    def graph(self) -> nx.MultiGraph[str]:
        return build_graph(self.layout, self.floor, self.switch_units)

    def block_graph(self) -> nx.MultiGraph[str]:
        """Plane 1 wired block by block, one block of each shape (`graph.block_graph`): what
        the checks run on where the whole graph is too large."""
        return block_graph(self.layout, self.placement, self.floor, {t: self.media[t] for t in TIERS})

    @cached_property
    def tally(self) -> Tally:
        """The switches and cables of the wiring, read block by block (`graph.tally`)."""
        media = {t: self.media[t] for t in TIERS}
        return tally(self.layout, self.placement, self.floor, media)

    def counted(self, topology: Topology) -> Topology:
        """The topology with its switch and cable counts read from the wiring, and a note
        where the sizing formulas (kept as an independent check) said otherwise."""
        try:
            t = self.tally
        except NotWirable as exc:  # the stated counts do not wire: priced as sized, and said
            return topology.model_copy(update={"notes": [*topology.notes, f"Not wired port by port: {exc}."]})
        cables = [c.model_copy(update={"count": t.cables.get(c.tier, c.count)}) for c in topology.cables]
        update: dict[str, object] = {
            "leaf_switches": t.leaves,
            "spine_switches": t.spines,
            "core_switches": t.cores,
            "cables": cables,
        }
        stated = (topology.leaf_switches, topology.spine_switches, topology.core_switches)
        stated_cables = [c.count for c in topology.cables]
        if stated != (t.leaves, t.spines, t.cores) or stated_cables != [c.count for c in cables]:
            update["notes"] = [
                *topology.notes,
                f"The wiring holds {t.leaves:,} leaf / {t.spines:,} spine / {t.cores:,} core switches and "
                f"{', '.join(f'{c.count:,} {c.tier}' for c in cables)} cables where the sizing formulas give "
                f"{stated[0]:,} / {stated[1]:,} / {stated[2]:,} and "
                f"{', '.join(f'{c.count:,} {c.tier}' for c in topology.cables)}: the bill of materials follows "
                "the wiring.",
            ]
        return topology.model_copy(update=update)

    def assumptions(self) -> list[str]:
        return self.floor.assumptions()

    def notes(self) -> list[str]:
        """What the design says about its floor and media, in sentences."""
        tiers = [t for t in ("node-leaf", "leaf-spine", "spine-core") if self.runs.get(t)]
        media = "; ".join(
            f"{t} {self.media[t].kind} (longest run {self.runs[t]:g} m, reach {self.media[t].reach_m:g} m)"
            for t in tiers
        )
        return [
            f"Floor: {' '.join(self.assumptions())}",
            f"Media by reach ({REACH_SOURCE}): {media}; one part per tier, picked by the tier's longest run, so "
            "both links of a twin-port cage and every spare match.",
            PLAN_COVERS,
            *self.warnings,
            *([ndr_on_xdr_caveat(self.ndr_on_xdr, self.tally)] if self.ndr_on_xdr else []),
        ]


def ndr_on_xdr_caveat(spine: str, tally: Tally) -> str:
    """What to confirm with NVIDIA where NDR (400G) links end on Quantum-X800 ports: the
    part at that end is not documented (searched: NVIDIA LinkX product specifications of
    the twin-port 800G and 1.6T transceivers and DAC splitters, Quantum-X800 material)."""
    ends = tally.cables.get("leaf-spine", 0) + 2 * tally.cables.get("spine-core", 0)
    return (
        f"Confirm with NVIDIA before ordering: the {ends:,} ends of the leaf-spine and spine-core links on the "
        f"{spine} switches run NDR (400 Gb/s) on XDR ports. They are priced as the Quantum-2 twin-port 2x400G "
        f"modules ({NDR_TWIN_PARTS}), but NVIDIA's LinkX specifications say those are used only in Quantum-2 and "
        "Spectrum-4 OSFP air-cooled switches, and the Quantum-X800's own module (MMS4A00-XM, 1.6T twin-port "
        "2xDR4) is documented for two 800G XDR links. No NVIDIA document we found names the module or splitter "
        "cable that carries two 400G NDR links from one Quantum-X800 port: ask NVIDIA which part to order for "
        "these ends, and its price (the bill of materials may change by that part's price difference)."
    )


def twin_cages(platform: Platform, compute_fabric: bool) -> bool:
    """Whether the servers' compute cages take twin-port modules (DGX H100/H200/B200), as
    the bill of materials reads the platform's connector text."""
    return bool(
        compute_fabric
        and not platform.assumed
        and platform.compute_nic
        and _TWIN_CAGES.search(platform.compute_connector)
    )


def switch_units(switch_model: str | None) -> float:
    """Rack units of a switch (the price book's figure), 1 when unknown."""
    book = price_book()
    key = f"switch/{switch_model}"
    return float(book.price(key).rack_units or 1) if switch_model and book.has(key) else 1.0


def switch_model_named(name: str | None) -> str | None:
    """The catalogue model of a switch from the name a recommendation shows."""
    return next((s.model for s in catalogue.switches() if name in (s.name, s.model)), None) if name else None


def build_key(topology: Topology) -> str:
    """The topology as `physical_build` is keyed on: its counts without its notes, so the
    design, its price and its cabling plan share one build."""
    return topology.model_copy(update={"notes": []}).model_dump_json()


@cache
def physical_build(
    topology_json: str,
    platform: Platform,
    edge_ports: int,
    twin_port: bool,
    switch_model: str | None,
    floor: FloorSettings | None,
) -> PhysicalBuild | None:
    """The fabric's layout, floor and tier media; None for a fabric not wired port by port
    (Dragonfly+, a single server). Remembered per design, like its price."""
    topology = Topology.model_validate_json(topology_json)
    try:
        layout = Layout.of(topology, platform, ports_per_node=edge_ports or None, twin_port=twin_port)
    except NotWirable:
        return None
    ndr_on_xdr = None
    if topology.spine_switch and topology.spine_switch != switch_model:  # spines and core of another height
        layout = dataclasses.replace(layout, upper_units=switch_units(topology.spine_switch))
        upper = next((s for s in catalogue.switches() if s.model == topology.spine_switch), None)
        if upper is not None and upper.port_gbps > layout.gbps:
            ndr_on_xdr = upper.name
    resolved = resolve(platform, floor)
    units = switch_units(switch_model)
    placement = place(layout, resolved, units)
    tier_run = tier_runs(layout, placement, resolved)
    media: dict[str, Media] = {str(t): m for t, m in tier_media(layout, placement, resolved, tier_run).items()}
    runs: dict[str, float] = {str(t): r for t, r in tier_run.items()}
    return PhysicalBuild(
        layout, resolved, units, media, runs, placement, tuple(over_reach(layout, tier_run)), ndr_on_xdr=ndr_on_xdr
    )
