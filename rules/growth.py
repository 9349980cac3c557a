"""How a design grows: what its next scalable unit (SU) adds, where it needs another tier,
and how far it grows by adding alone; and the step between a design and a larger one.

Nothing here is a formula of its own. Every larger size is sized by `rules.design`
itself (`laid_out` for the counts, `design` for the priced bill of materials), with the
same rules, switches and sizing functions as the design it grows from. The limits are
found by searching over server counts for the first size whose sized fabric differs:
another tier, another switch or topology, or (for the re-cabling limit) a spine or core
layer whose count changes, which moves existing links.

What re-cabling means here (a network architect's reading; docs/growth.md):
- a two-tier leaf/spine keeps its cabling while the spine count holds: new leaves plug
  into free spine ports. More spines means every leaf's uplinks are spread again.
- a three-tier fabric keeps its cabling while the core count holds and the last, partly
  filled pod keeps its spines: new pods bring their own spines and plug into free core
  ports. More core switches means every spine's uplinks are spread again.
- Dragonfly+ keeps its global links while the group count holds.
- another tier, switch, topology or plane count re-cables (or replaces) the fabric.

Sources: the scalable unit and "build the full SU" (NVIDIA DGX SuperPOD reference
architectures, H100 / B200 / B300: "the fabric should be designed to support the full
SU, including leaf switches and leaf-spine cables"); the two- and three-tier limits
k^2/2 and k^3/4 of a radix-k fat-tree (Al-Fares et al., SIGCOMM 2008), read here from
the sizing functions with the radix of the catalogue's switch.
"""

from __future__ import annotations

import math
from collections import OrderedDict
from collections.abc import Callable
from typing import Any, NamedTuple

from rules.design import Candidate, Layout, design, laid_out
from rules.facts import derive, platform_facts
from rules.models import (
    MAX_GPUS,
    BomLine,
    Fabric,
    Growth,
    GrowthStep,
    Preference,
    Recommendation,
    Topology,
    TopologyKind,
    WorkloadProfile,
)
from rules.platform import Platform
from rules.sizing import leaf_port_split

RACKS_PER_SU = 8  # NVIDIA DGX SuperPOD GB200 RA: a scalable unit is 8 DGX GB200 racks (576 GPUs)

SOURCE = (
    "NVIDIA DGX SuperPOD reference architectures (H100, B200, B300): scalable units, and the full SU built "
    "with its leaf switches and leaf-spine cables; Al-Fares et al., SIGCOMM 2008: a fat-tree of radix-k "
    "switches holds k^2/2 endpoints in two tiers, k^3/4 in three"
)

Sizer = Callable[[int], Layout]


def at_nodes(profile: WorkloadProfile, nodes: int) -> WorkloadProfile:
    """The same profile with `nodes` servers (or NVL72 racks) of the same GPUs each."""
    per_node = profile.gpus_per_node or 1
    return profile.model_copy(update={"node_count": nodes, "gpu_count": nodes * per_node})


def facts_for(profile: WorkloadProfile, platform: Platform) -> dict[str, Any]:
    """The facts the engine derives for a profile (the same two calls, in the same order)."""
    facts = derive(profile, platform)
    facts.update(platform_facts(platform, facts))
    return facts


def sizer(family: str, profile: WorkloadProfile, platform: Platform) -> Sizer:
    """Lay out the family's fabric for the profile grown (or shrunk) to a server count."""

    def size(nodes: int) -> Layout:
        grown = at_nodes(profile, nodes)
        return laid_out(family, facts_for(grown, platform), grown, platform)

    return size


# ------------------------------------------------------------------------- re-cabling


def _per_plane(topology: Topology) -> tuple[int, int, int, int]:
    """Leaves, spines, core and leaf-spine cables of one plane."""
    planes = max(1, topology.planes)
    leaf_spine = next((c.count for c in topology.cables if c.tier == "leaf-spine"), 0)
    return (
        topology.leaf_switches // planes,
        topology.spine_switches // planes,
        topology.core_switches // planes,
        leaf_spine // planes,
    )


def _groups(topology: Topology) -> int:
    """Dragonfly+ groups: leaves of k/2 endpoints, k/2 leaves a group (rules/sizing/fabric.py)."""
    h = max(1, (topology.radix or 2) // 2)
    return math.ceil(topology.leaf_switches / h)


class Sized(NamedTuple):
    """A fabric and its topology: what a layout, or a stored recommendation, says was sized."""

    fabric: Fabric
    topology: Topology


def _sized(layout: Layout) -> Sized:
    return Sized(layout.fabric, layout.topology)


def recabling(before: Sized, after: Sized) -> list[str]:
    """What must be re-cabled or replaced to go from `before` to the larger `after`; empty
    when `after` only adds servers, switches and cables to `before`."""
    b, a = before.topology, after.topology
    if b.tiers == 0 or b.total_switches == 0:
        return []  # no switch fabric yet: everything is new
    if after.fabric.technology != before.fabric.technology:
        return [
            f"The fabric changes from {before.fabric.name} to {after.fabric.name}: every switch, cable and "
            "transceiver is replaced."
        ]
    was, now = before.fabric.switch_model, after.fabric.switch_model
    if was and now and was != now:
        return [
            f"The switches change from {was} to {now} (no fabric of {was} holds {a.endpoints:,} ports in three "
            "tiers): every switch is replaced and every link re-cabled."
        ]
    if a.kind != b.kind or a.planes != b.planes:
        return [
            f"The topology changes ({b.kind.value}, {b.planes} plane(s) -> {a.kind.value}, {a.planes} plane(s)): "
            "every switch-to-switch link is re-cabled."
        ]
    if a.tiers != b.tiers:
        if b.tiers == 1:
            return [
                f"The single switch is outgrown: the fabric becomes {a.tiers} tiers ({a.leaf_switches:,} leaf / "
                f"{a.spine_switches:,} spine); the servers' cables move to the leaves and the switch becomes one "
                "of them."
            ]
        return [
            f"A third tier: the {b.spine_switches:,} spines' ports split half down, half up, every leaf-spine "
            f"link is re-cabled into pods of {(a.radix or 2) // 2} leaves, and {a.core_switches:,} core "
            "switches are added with their spine-core cables."
        ]
    bl, bs, bc, bls = _per_plane(b)
    al, as_, ac, _ = _per_plane(a)
    planes = f" in each of the {b.planes} planes" if b.planes > 1 else ""
    if a.kind == TopologyKind.dragonfly_plus:
        if _groups(b) > 1 and _groups(a) != _groups(b):
            return [
                f"Dragonfly+ grows from {_groups(b):,} to {_groups(a):,} groups: each group's global links are "
                "spread again over the other groups."
            ]
        return []
    if b.tiers == 2 and as_ != bs and bl:
        uplinks = bls // bl
        moved = math.ceil(uplinks * (as_ - bs) / as_)  # a share (new spines / all spines) of each leaf's
        return [
            f"The spine layer grows from {bs:,} to {as_:,} switches{planes}: each existing leaf's {uplinks} "
            f"uplinks are spread again, about {moved} of them moving to the new spines."
        ]
    if b.tiers == 3:
        notes = []
        if ac != bc:
            notes.append(
                f"The core grows from {bc:,} to {ac:,} switches{planes}: every spine's uplinks are spread again "
                "over the core planes."
            )
        h = (b.radix or 2) // 2
        full, rest = divmod(bl, h)
        if rest and bl:
            uplinks = bls // bl
            last_before = bs - full * uplinks
            last_after = uplinks if al >= (full + 1) * h else as_ - full * uplinks
            if last_after != last_before:
                notes.append(
                    f"The last pod's {rest} leaves{planes} move from {last_before} to {last_after} spines as the "
                    "pod fills: their uplinks are spread again."
                )
        return notes
    return []


# ---------------------------------------------------------------------------- a step


def _key(line: BomLine) -> tuple[str, str, str]:
    return (line.fabric, line.category, line.part_number)


def added_lines(before: list[BomLine], after: list[BomLine]) -> tuple[list[BomLine], list[str]]:
    """The lines `after` adds to `before` (quantity = what is added), and the parts the
    larger design uses fewer of (kept in place or as spares: nothing installed is removed)."""
    had: dict[tuple[str, str, str], int] = {}
    for line in before:
        had[_key(line)] = had.get(_key(line), 0) + line.quantity
    added: list[BomLine] = []
    fewer: list[str] = []
    for line in after:
        more = line.quantity - had.pop(_key(line), 0)
        if more > 0:
            added.append(line.model_copy(update={"quantity": more, "note": f"{more:,} added ({line.note})"}))
        elif more < 0:
            fewer.append(f"{-more:,} x {line.part_number} ({line.fabric})")
    fewer += [f"{n:,} x {key[2]} ({key[0]})" for key, n in had.items() if n]
    return added, fewer


def _cables(topology: Topology) -> int:
    return sum(c.count for c in topology.cables)


def step(
    before: Sized,
    after: Sized,
    bom_before: list[BomLine],
    bom_after: list[BomLine],
    gpus: tuple[int, int],
    gpus_per_node: int,
) -> GrowthStep:
    """What going from `before` (gpus[0] GPUs) to the larger `after` (gpus[1]) adds and re-cables."""
    b, a = before.topology, after.topology
    added, fewer = added_lines(bom_before, bom_after)
    priced = [line for line in added if not (line.included or line.reused)]
    gpus_before, gpus_after = gpus
    return GrowthStep(
        gpus=gpus_after,
        gpus_added=gpus_after - gpus_before,
        servers_added=(gpus_after - gpus_before) // max(1, gpus_per_node),
        leaf_switches_added=a.leaf_switches - b.leaf_switches,
        spine_switches_added=a.spine_switches - b.spine_switches,
        core_switches_added=a.core_switches - b.core_switches,
        switches_added=a.total_switches - b.total_switches,
        cables_added=_cables(a) - _cables(b),
        cost_added_usd_low=round(sum(line.usd_low for line in priced)),
        cost_added_usd_high=round(sum(line.usd_high for line in priced)),
        added=added,
        recabling=recabling(before, after),
        fewer=fewer,
    )


# --------------------------------------------------------------------------- growth


def _unit_nodes(layout: Layout, facts: dict[str, Any]) -> tuple[int, str]:
    """Servers (NVL72 racks) in one growth unit, and the unit in words."""
    topology = layout.topology
    per_node = max(1, facts["gpus_per_node"])
    ports = max(1, topology.endpoints // max(1, facts["node_count"]) // max(1, topology.planes))
    if facts["rack_scale"]:
        return RACKS_PER_SU, f"one scalable unit: {RACKS_PER_SU} NVL72 racks ({RACKS_PER_SU * per_node:,} GPUs)"
    if topology.kind == TopologyKind.rail_optimized and topology.radix:
        nodes = topology.radix // 2
        return nodes, (
            f"one scalable unit: {nodes} servers ({nodes * per_node:,} GPUs), one leaf per rail"
            + (" in each plane" if topology.planes > 1 else "")
        )
    if topology.tiers == 0 or not topology.radix:
        return 1, f"one server ({per_node} GPUs)"
    down, _ = leaf_port_split(topology.radix, topology.oversubscription)
    nodes = max(1, down // ports)
    return nodes, f"one leaf switch's worth: {nodes} server(s) ({nodes * per_node:,} GPUs) on {down} down ports"


def _last_true(low: int, high: int, holds: Callable[[int], bool]) -> int:
    """The largest n in [low, high] with holds(n), given holds(low) and that it stays true
    up to some point and false after (the sized fabric only grows)."""
    while low < high:
        mid = (low + high + 1) // 2
        if holds(mid):
            low = mid
        else:
            high = mid - 1
    return low


def _same_fabric(before: Layout, after: Layout) -> bool:
    b, a = before, after
    return (
        a.technology == b.technology
        and (a.switch.model if a.switch else None) == (b.switch.model if b.switch else None)
        and a.topology.kind == b.topology.kind
        and a.topology.planes == b.topology.planes
    )


GROWTH_REMEMBERED = 256  # designs whose growth is kept, most recently asked first


_remembered: OrderedDict[tuple[str, str, str, Platform], Growth] = OrderedDict()


def growth_of(candidate: Candidate, profile: WorkloadProfile, platform: Platform) -> Growth:
    """How the candidate's design grows (see the module's docstring). Remembered per
    design, like its price and its physical build: the search over sizes designs the
    fabric dozens of times (most of a 100,000-GPU recommendation's time), and the same
    family, profile and platform always grow the same way. The design's cost is part of
    the key, so a changed price book (a test's, a new release's) is not answered from an
    old one."""
    key = (candidate.family, profile.model_dump_json(), candidate.cost.model_dump_json(), platform)
    if key in _remembered:
        _remembered.move_to_end(key)
    else:
        _remembered[key] = _growth_of(candidate, profile, platform)
        if len(_remembered) > GROWTH_REMEMBERED:
            _remembered.popitem(last=False)
    return _remembered[key]  # shared: nothing changes a Growth once made


def _growth_of(candidate: Candidate, profile: WorkloadProfile, platform: Platform) -> Growth:
    per_node = max(1, profile.gpus_per_node or 1)
    nodes = max(1, profile.node_count or 1)
    if candidate.topology.tiers == 0:
        return _no_fabric_yet(candidate, profile)
    size = sizer(candidate.family, profile, platform)
    current = size(nodes)
    unit, unit_words = _unit_nodes(current, current.facts)
    most = max(nodes, MAX_GPUS // per_node)
    notes: list[str] = []

    next_nodes = (nodes // unit + 1) * unit
    next_step: GrowthStep | None = None
    if next_nodes <= most:
        grown = at_nodes(profile, next_nodes)
        bigger = design(candidate.family, facts_for(grown, platform), grown, None, platform)
        next_step = step(
            _sized(current),
            Sized(bigger.fabric, bigger.topology),
            candidate.bill_of_materials,
            bigger.bill_of_materials,
            (nodes * per_node, next_nodes * per_node),
            per_node,
        )

    tiers = current.topology.tiers
    cache: dict[int, Layout | None] = {nodes: current}

    def sized(n: int) -> Layout | None:
        """The layout at n servers; None where no fabric of the family holds them."""
        if n not in cache:
            try:
                cache[n] = size(n)
            except ValueError:  # FabricTooLarge: past every switch and topology of the family
                cache[n] = None
        return cache[n]

    def holds_tiers(n: int) -> bool:
        layout = sized(n)
        return layout is not None and layout.topology.tiers <= tiers and _same_fabric(current, layout)

    def only_adds(n: int) -> bool:
        layout = sized(n)
        return layout is not None and not recabling(_sized(current), _sized(layout))

    limit_nodes = _last_true(nodes, most, holds_tiers)
    keep_nodes = _last_true(nodes, limit_nodes, only_adds)
    next_tier = (limit_nodes + 1) * per_node if limit_nodes < most else None
    beyond = sized(limit_nodes + 1) if next_tier is not None else None
    at_limit = sized(limit_nodes)
    if next_tier is not None and beyond is None:
        notes.append(
            f"Up to {limit_nodes * per_node:,} GPUs the fabric stays {tiers} tier(s); past that no fabric of the "
            "family holds the cluster."
        )
    elif next_tier is not None and beyond is not None and at_limit is not None:
        change = recabling(_sized(at_limit), _sized(beyond))
        notes.append(
            f"Up to {limit_nodes * per_node:,} GPUs the fabric stays {tiers} tier(s) of "
            f"{current.switch.name if current.switch else 'no switch'}; at {next_tier:,} it becomes "
            f"{beyond.topology.tiers} tier(s) of {beyond.switch.name if beyond.switch else 'no switch'}"
            + (f": {change[0]}" if change else ".")
        )
    else:
        notes.append(f"Up to the largest cluster sized ({most * per_node:,} GPUs) the fabric keeps its tiers.")
    past = sized(keep_nodes + 1) if keep_nodes < limit_nodes else None
    why = recabling(_sized(current), _sized(past)) if past is not None else []
    notes.append(
        f"Adding only (nothing re-cabled) it grows to {keep_nodes * per_node:,} GPUs"
        + (f"; past that: {why[0]}" if why else ".")
    )
    notes.append(f"Each size is sized with the same rules, switches and sizing functions as the design ({SOURCE}).")
    return Growth(
        unit=unit_words,
        unit_gpus=unit * per_node,
        tiers=tiers,
        next_step=next_step,
        tier_limit_gpus=limit_nodes * per_node if current.topology.tiers else None,
        next_tier_gpus=next_tier,
        grows_without_recabling_to_gpus=keep_nodes * per_node,
        notes=notes,
    )


def _no_fabric_yet(candidate: Candidate, profile: WorkloadProfile) -> Growth:
    """One server (or one NVL72 rack): its GPUs share one scale-up domain, no compute fabric
    is built, so nothing is re-cabled to grow; the next server brings the first fabric,
    designed as a recommendation of its own (the engine then weighs every fabric family)."""
    gpus = profile.gpu_count or 1
    per_node = max(1, profile.gpus_per_node or 1)
    return Growth(
        unit=f"one server ({per_node} GPUs)",
        unit_gpus=per_node,
        tiers=0,
        next_step=None,
        tier_limit_gpus=None,
        next_tier_gpus=(max(1, profile.node_count or 1) + 1) * per_node,
        grows_without_recabling_to_gpus=gpus,
        notes=[
            f"{candidate.topology.notes[0] if candidate.topology.notes else 'No compute fabric.'} A second "
            f"server ({(max(1, profile.node_count or 1) + 1) * per_node:,} GPUs) needs a compute fabric: ask for "
            "that size and every fabric family is weighed for it."
        ],
    )


# ------------------------------------------------------------------------ expansion


def expanded_profile(stored: Recommendation, gpus: int) -> WorkloadProfile:
    """The stored design's profile at `gpus` GPUs, with its fabric kept: the fabric it was
    built with becomes the stated preference, so the larger design is sized on it (the
    servers stay as they are: `node_count` follows from the GPUs per server).

    Raises ValueError when `gpus` does not exceed the stored design's GPUs."""
    before = stored.profile.gpu_count or 1
    if gpus <= before:
        raise ValueError(
            f"gpus: an expansion adds GPUs: the stored design has {before:,}, so ask for more than {before:,} "
            f"(got {gpus:,}); to size a smaller cluster, ask for a new recommendation."
        )
    technology = str(stored.fabric.technology)
    keep = Preference(technology) if technology in Preference.__members__ else stored.profile.prefer
    return WorkloadProfile.model_validate(
        {**stored.profile.model_dump(), "gpu_count": gpus, "node_count": None, "prefer": keep}
    )


def expansion(stored: Recommendation, bigger: Recommendation) -> tuple[GrowthStep, list[str]]:
    """What the stored design's expansion to `bigger` adds, and notes on how it was designed."""
    per_node = max(1, stored.profile.gpus_per_node or 1)
    grown = step(
        Sized(stored.fabric, stored.topology),
        Sized(bigger.fabric, bigger.topology),
        stored.bill_of_materials,
        bigger.bill_of_materials,
        (stored.profile.gpu_count or 1, bigger.profile.gpu_count or 1),
        per_node,
    )
    notes = [
        f"The larger design is sized with the same rules and switches, on the stored design's fabric "
        f"({stored.fabric.name}); only what it adds to the stored bill of materials is listed.",
    ]
    if stored.topology.tiers == 0:
        notes.append("The stored design has no compute fabric (one server or rack): the expansion builds the first.")
    return grown, notes
