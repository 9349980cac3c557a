"""Switch and cable counts for a compute fabric: fat-tree, rail-optimized, Dragonfly+.

Every function here is closed-form arithmetic on a handful of integers (the only
loops run over the divisors of one switch's port count), so sizing a
1,000,000-GPU fabric costs the same few microseconds as sizing 16 GPUs; the engine
sizes several candidates per recommendation.

Vocabulary used in the notes: a switch of radix k has k ports at the link speed;
"down" ports face the servers, "up" ports face the next tier. A leaf's uplinks
should spread evenly over the switches above it (every leaf reaches every spine of
its group by the same number of cables), so a switch count is rounded up to a
divisor of the uplink count when that costs at most half again the need, which is
what NVIDIA builds: 16 spines where 12 would carry the uplinks (DGX SuperPOD H100,
3 SU, 32 uplinks per leaf) and 36 where 32 would (DGX SuperPOD B300-XDR, 8 SU, 72
uplinks). Past that, the bare need is built and the cables spread as evenly as the
ports allow (some switch pairs get one cable more), rather than doubling the layer.

Sources:
- Fat-tree capacities k^2/2 (two tiers) and k^3/4 (three tiers): Al-Fares et al.,
  "A Scalable, Commodity Data Center Network Architecture", SIGCOMM 2008.
- Rail-optimized layout and the reference counts: NVIDIA DGX SuperPOD reference
  architectures (DGX H100, DGX B200, DGX B300), "Compute fabric" tables.
- Dragonfly+: Shpiner, Haramaty, Eliad, Zdornov, Gafni, Zahavi, "Dragonfly+: Low Cost
  Topology for Scaling Datacenters", HiPINEB @ HPCA 2017.
"""

from __future__ import annotations

import math
from bisect import bisect_left
from functools import lru_cache
from typing import NamedTuple

from rules.models import CableTier, Topology, TopologyKind


class FabricTooLarge(ValueError):
    """More endpoints than the topology can hold with switches of this radix.

    Carries the numbers so a caller can say what would fit: `endpoints` asked for,
    the switch `radix`, and the `maximum` endpoints the largest layout holds.
    """

    def __init__(self, message: str, *, endpoints: int, radix: int, maximum: int) -> None:
        super().__init__(message)
        self.endpoints = endpoints
        self.radix = radix
        self.maximum = maximum


# ------------------------------------------------------------------------------ helpers


@lru_cache(maxsize=512)
def _divisors(n: int) -> tuple[int, ...]:
    """The divisors of n in increasing order (n is a port count, so this is tiny)."""
    small = [d for d in range(1, math.isqrt(n) + 1) if n % d == 0]
    return tuple(sorted({*small, *(n // d for d in small)}))


def smallest_divisor_at_least(n: int, need: int) -> int:
    """The smallest divisor of `n` that is >= `need` (n itself when need > n's others).

    Used for switch counts: a leaf with n uplinks can spread them evenly over s
    switches only when s divides n.
    """
    divisors = _divisors(n)
    i = bisect_left(divisors, max(need, 1))
    if i == len(divisors):
        raise ValueError(f"no divisor of {n} is >= {need}")
    return divisors[i]


SPREAD_ROUNDING_LIMIT = 1.5
"""Fabric Advisor rule: round a switch count up to a divisor of the uplinks only while it
costs at most this factor over the need (NVIDIA's 16 for 12 and 36 for 32 are within it)."""


def switches_to_carry(uplinks: int, need: int) -> int:
    """How many switches take `uplinks` cables from each switch below, where `need` carry them.

    The smallest divisor of `uplinks` at least `need` when it is within
    SPREAD_ROUNDING_LIMIT x need (an even spread); else `need` itself, cables spread as
    evenly as the ports allow. Never fewer than `need`, and never less as `need` grows.
    """
    need = max(need, 1)
    if need > uplinks:
        return need
    even = smallest_divisor_at_least(uplinks, need)
    return even if even <= SPREAD_ROUNDING_LIMIT * need else need


def _spread_note(uplinks: int, need: int, count: int, what: str) -> str:
    if uplinks % count == 0:
        if count == need:
            return f"{count} {what} ({uplinks // count} cable(s) from each switch below to every one)"
        return (
            f"{count} {what}: the smallest divisor of {uplinks} that is at least {need}, so each switch's "
            f"{uplinks} uplinks spread evenly ({uplinks // count} cable(s) to every one)"
        )
    return (
        f"{count} {what}: an even spread of {uplinks} uplinks would need "
        f"{smallest_divisor_at_least(uplinks, need) if need <= uplinks else uplinks} (more than half again the "
        f"need), so {count} are built and each switch below sends {uplinks // count} or {uplinks // count + 1} "
        "cable(s) to each"
    )


def _check_radix(radix: int) -> None:
    if radix < 4:
        raise ValueError(f"radix: a switch needs at least 4 ports to build a fabric, got {radix}")


def _check_positive(**values: float) -> None:
    for name, value in values.items():
        if value < 1:
            raise ValueError(f"{name}: must be at least 1, got {value}")


class _Clos(NamedTuple):
    """The switches above the leaves of a folded Clos (fat-tree) network."""

    tiers: int
    spines: int
    cores: int
    leaf_spine_cables: int
    spine_core_cables: int
    notes: list[str]


def plane_cables(full_pods: int, h: int, partial_cables: int, planes: int) -> list[int]:
    """Spine-core cables each core plane carries: spine j of every full pod sends its h
    uplinks to plane j; a partial pod's uplinks go to the planes in turn (cable n to plane
    n mod planes), so plane p gets one more of them while p < the remainder."""
    base, extra = divmod(partial_cables, planes)
    return [full_pods * h + base + (1 if p < extra else 0) for p in range(planes)]


def core_grouping(per_plane: list[int], radix: int) -> tuple[int, int]:
    """(groups, core switches): the core planes joined in groups of consecutive planes
    that share one set of core switches, each group with ceil(its cables / radix) of them.

    One plane per group is the textbook fat-tree (Al-Fares et al.), but a plane whose
    cables are not a whole number of switches leaves one part-used (24,576 H100: 768
    cables a plane is 12 switches, exact; 4,608 GPUs of NVL72 trays: 144 a plane, 2.25
    switches). Planes are joined until the groups fill their switches: the most groups
    (the fewest planes per group, so each spine's uplinks meet the fewest switches) whose
    total is the fewest switches any grouping reaches, ceil(all cables / radix) when one
    group does. Groups divide the planes evenly."""
    planes = len(per_plane)
    best: tuple[int, int] | None = None
    for groups in sorted(_divisors(planes), reverse=True):
        size = planes // groups
        cores = sum(math.ceil(sum(per_plane[g * size : (g + 1) * size]) / radix) for g in range(groups))
        if best is None or cores < best[1]:
            best = (groups, cores)
    assert best is not None
    return best


def _clos_above_leaves(leaves: int, uplinks: int, radix: int) -> _Clos | None:
    """Spines (and core) for `leaves` leaf switches with `uplinks` cabled uplinks each.

    Two tiers while the spines can reach every leaf: each leaf sends at least one
    cable to every spine, so at most `uplinks` spines, each taking `radix` leaf
    cables, which joins up to `radix` leaves. Spine count: `switches_to_carry`.

    Three tiers beyond that (the k-ary fat-tree of Al-Fares et al.): leaves are
    grouped into pods of h = radix // 2 leaves; a full pod has `uplinks` spines
    (one cable from each leaf to each), each spine with h ports down and h up, so
    the spines are non-blocking and spine-core cables equal leaf-spine cables. A
    last, partial pod of r leaves gets the smallest divisor of `uplinks` that
    carries its r x uplinks cables. Spine j of every pod joins core plane j
    (`uplinks` planes, a partial pod's uplinks spread over all of them).

    Core: by what the uplinks need, ceil(spine-core cables / radix) switches. The
    planes share core switches in groups (`core_grouping`) so that no core switch is
    part-used where a whole number of them carries every cable: 24,576 H100 are 384
    core (every DGX SuperPOD row has core = GPUs / 64 on 64-port switches), not 512.
    Where the cables are not a whole number of switches one core switch is part-used,
    and the notes say so. That holds up to radix x h leaves (radix pods).

    `radix` is the spines' and cores' port count (the leaves' may differ: Quantum-2
    leaves under Quantum-X800 spines, `size_rail_optimized`'s `spine_radix`).

    Returns None when even three tiers cannot join that many leaves.
    """
    k = radix
    h = k // 2
    cables = leaves * uplinks
    if leaves <= k:
        need = math.ceil(cables / k)
        spines = switches_to_carry(uplinks, need)
        note = (
            f"Two tiers: {leaves} leaves x {uplinks} uplinks = {cables:,} leaf-spine cables "
            f"need {need} spine(s) of {k} ports; {_spread_note(uplinks, need, spines, 'spines')}."
        )
        return _Clos(2, spines, 0, cables, 0, [note])
    if leaves > k * h:
        return None
    full_pods, rest = divmod(leaves, h)
    partial_spines = switches_to_carry(uplinks, math.ceil(rest * uplinks / h)) if rest else 0
    spines = full_pods * uplinks + partial_spines
    per_plane = plane_cables(full_pods, h, rest * uplinks, uplinks)
    groups, cores = core_grouping(per_plane, k)
    need = math.ceil(cables / k)
    pods = f"{full_pods} pod(s) of {h} leaves with {uplinks} spines each"
    if rest:
        pods += f" plus a partial pod of {rest} leaves with {partial_spines} spines"
    size = uplinks // groups
    shared = (
        "each plane has its own core switches"
        if size == 1
        else "all planes share one set of core switches (a plane alone would leave core ports free)"
        if groups == 1
        else f"the planes share core switches in {groups} group(s) of {size} (a plane alone would leave core ports free)"
    )
    spread = f"{min(per_plane):,}" + (f"-{max(per_plane):,}" if max(per_plane) != min(per_plane) else "")
    notes = [
        f"Three tiers: {leaves} leaves are more than the {k} a two-tier fabric of {k}-port "
        f"switches joins, so leaves form pods of {h} (every spine has {h} ports down, {h} up): "
        f"{pods} = {spines:,} spines.",
        f"Core by what the uplinks need: ceil({cables:,} spine-core cables / {k} ports) = {need:,}; spine j of "
        f"every pod joins core plane j ({uplinks} planes, {spread} cables each); {shared}: {cores:,} core switches.",
    ]
    if rest:
        notes.append("The partial pod's spine uplinks are spread over the core planes in turn.")
    free = cores * k - cables
    if free:
        why = (
            f"{cables:,} cables are not a whole number of {k}-port switches"
            if cores == need
            else f"no grouping of the {uplinks} planes into equal groups fills every core switch, so "
            f"{cores - need} more than the bare {need:,} are built"
        )
        notes.append(f"{free:,} core port(s) are left free: {why}.")
    return _Clos(3, spines, cores, cables, cables, notes)


def _cable_tiers(link_gbps: int, node_leaf: int, leaf_spine: int = 0, spine_core: int = 0) -> list[CableTier]:
    tiers = [CableTier(tier="node-leaf", count=node_leaf, gbps=link_gbps)]
    if leaf_spine:
        tiers.append(CableTier(tier="leaf-spine", count=leaf_spine, gbps=link_gbps))
    if spine_core:
        tiers.append(CableTier(tier="spine-core", count=spine_core, gbps=link_gbps))
    return tiers


# ----------------------------------------------------------------------------- fat-tree


def leaf_port_split(radix: int, oversubscription: float = 1.0) -> tuple[int, int]:
    """(down, up) ports of a leaf for a down:up ratio r: down = floor(k*r/(1+r)).

    r = 1 gives the non-blocking k/2 : k/2 split; r = 3 on 64 ports gives 48 : 16.
    """
    _check_radix(radix)
    if oversubscription < 1:
        raise ValueError(f"oversubscription: the leaf down:up ratio must be >= 1, got {oversubscription}")
    down = math.floor(radix * oversubscription / (1 + oversubscription) + 1e-9)
    down = min(max(down, 1), radix - 1)
    return down, radix - down


def fat_tree_capacity(radix: int, tiers: int, oversubscription: float = 1.0) -> int:
    """Most endpoints a fat-tree of `tiers` tiers of `radix`-port switches holds.

    Non-blocking: k (one switch), k^2/2 (two tiers), k^3/4 (three tiers). With
    oversubscribed leaves (d ports down) the spines and core are unchanged, so the
    limits become k x d and k x (k/2) x d.
    """
    _check_radix(radix)
    if tiers == 1:
        return radix
    down, _ = leaf_port_split(radix, oversubscription)
    if tiers == 2:
        return radix * down
    if tiers == 3:
        return radix * (radix // 2) * down
    raise ValueError(f"tiers: 1, 2 or 3, got {tiers}")


def size_fat_tree(endpoints: int, radix: int, link_gbps: int, oversubscription: float = 1.0) -> Topology:
    """Leaf, spine and core switches and cables of a fat-tree (folded Clos) for `endpoints` ports.

    One switch when the endpoints fit its ports; otherwise leaves with
    down = floor(k*r/(1+r)) ports to endpoints and the rest up, and two tiers up to
    k x down endpoints (k^2/2 non-blocking), three tiers up to k x k/2 x down (k^3/4).
    Every leaf's uplinks are cabled, also on a partly filled last leaf, so the
    fabric can be filled later without recabling. Bisection bandwidth is
    endpoints x link / 2, divided by the leaf's down:up ratio when oversubscribed.

    Raises FabricTooLarge past three tiers.
    """
    _check_radix(radix)
    _check_positive(endpoints=endpoints, link_gbps=link_gbps)
    k = radix
    if endpoints <= k:
        return Topology(
            kind=TopologyKind.fat_tree,
            tiers=1,
            endpoints=endpoints,
            radix=k,
            leaf_switches=1,
            spine_switches=0,
            core_switches=0,
            cables=_cable_tiers(link_gbps, endpoints),
            bisection_gbps=endpoints * link_gbps / 2,
            notes=[
                f"One tier: {endpoints} endpoints fit the {k} ports of a single switch, which is "
                "non-blocking by itself (no leaf oversubscription applies)."
            ],
        )
    down, up = leaf_port_split(k, oversubscription)
    leaves = math.ceil(endpoints / down)
    clos = _clos_above_leaves(leaves, up, k)
    if clos is None:
        maximum = fat_tree_capacity(k, 3, oversubscription)
        advice = (
            "choose a higher-radix switch or oversubscribe the leaves"
            if oversubscription == 1
            else "choose a higher-radix switch or oversubscribe the leaves further"
        )
        raise FabricTooLarge(
            f"{endpoints:,} endpoints do not fit a fat-tree of {k}-port switches: three tiers hold "
            f"at most {maximum:,} endpoints (k^3/4 = {k**3 // 4:,} non-blocking; {down} of {k} "
            f"leaf ports down here); {advice}, or use Dragonfly+.",
            endpoints=endpoints,
            radix=k,
            maximum=maximum,
        )
    ratio = down / up
    notes = [
        f"Leaves: each {k}-port leaf has {down} ports down and {up} up "
        f"(down:up {ratio:.2f}, asked {oversubscription:g}); ceil({endpoints:,}/{down}) = {leaves:,} leaves.",
        *clos.notes,
    ]
    if ratio > 1:
        notes.append(f"Bisection is the non-blocking endpoints x link / 2 divided by the leaf ratio {ratio:.2f}.")
    return Topology(
        kind=TopologyKind.fat_tree,
        tiers=clos.tiers,
        endpoints=endpoints,
        radix=k,
        oversubscription=round(max(ratio, 1.0), 3),
        leaf_switches=leaves,
        spine_switches=clos.spines,
        core_switches=clos.cores,
        cables=_cable_tiers(link_gbps, endpoints, clos.leaf_spine_cables, clos.spine_core_cables),
        bisection_gbps=endpoints * link_gbps / 2 / max(ratio, 1.0),
        notes=notes,
    )


# ----------------------------------------------------------------------- rail-optimized


def _smaller_than_one_su(
    nodes: int, rails: int, k: int, link_gbps: int, manager_slot: bool, fabric_manager_cables: int, per_su: int
) -> Topology:
    """A rail-optimized fabric for fewer nodes than one SU holds, sized by what it needs.

    Building the whole SU for sixteen nodes would mean eight leaves each using half its
    ports; no one cables it so. What makes the fabric rail-optimized is that every rail
    is wholly on one leaf, so same-rail traffic (most of NCCL's) crosses one switch.
    That holds as well when a leaf carries several rails: each leaf takes as many whole
    rails as its down ports hold (`k // 2` of them), and when every port fits one switch
    there is no spine layer at all. Above the leaves, as many uplinks as down ports
    (non-blocking), rounded up so they spread evenly over the spines.

    The fabric manager (UFM) takes leaf ports only where some are free: it never adds a
    leaf or a spine. Where none are free, the managed switches' embedded subnet manager
    runs the fabric (or UFM attaches through the management network).
    """
    endpoints = nodes * rails
    if endpoints <= k:
        manager = min(fabric_manager_cables, rails, k - endpoints) if manager_slot else 0
        edge = endpoints + manager
        notes = [
            f"{nodes} node(s) x {rails} rails = {endpoints} ports"
            + (f" + {manager} fabric-manager (UFM) ports" if manager else "")
            + f" fit one {k}-port switch: every rail meets there, so all traffic crosses one switch; "
            "no spine layer.",
        ]
        if manager_slot and not manager:
            notes.append(
                "No switch port is left for a UFM server: the switch's embedded subnet manager runs the fabric."
            )
        return Topology(
            kind=TopologyKind.rail_optimized,
            tiers=1,
            endpoints=endpoints,
            radix=k,
            rails=rails,
            leaf_switches=1,
            spine_switches=0,
            core_switches=0,
            scalable_units=1,
            cables=_cable_tiers(link_gbps, edge),
            bisection_gbps=endpoints * link_gbps / 2,
            notes=notes,
        )
    half = k // 2
    rails_per_leaf = max(1, min(rails, half // nodes))
    leaves = math.ceil(rails / rails_per_leaf)
    rails_per_leaf = math.ceil(rails / leaves)  # share the rails evenly over that many leaves
    used = rails_per_leaf * nodes
    free = half - used
    manager = min(fabric_manager_cables, rails, free * leaves) if manager_slot and free > 0 else 0
    down = used + (math.ceil(manager / leaves) if manager else 0)
    spines_needed = math.ceil(leaves * down / k)
    uplinks = math.ceil(down / spines_needed) * spines_needed
    if down + uplinks > k:  # no room to round: spread them as evenly as the ports allow
        uplinks = down
    clos = _clos_above_leaves(leaves, uplinks, k)
    assert clos is not None and clos.tiers == 2  # at most `rails` leaves
    edge = endpoints + manager
    notes = [
        f"Smaller than one scalable unit ({nodes} of its {per_su} node slots), so built for what it needs, "
        f"not as a whole SU: {rails_per_leaf} rail(s) per leaf ({nodes} node ports per rail, {half} down "
        f"ports per leaf), {leaves} leaves; each rail still meets on one leaf.",
        f"Node-leaf cables: {nodes:,} nodes x {rails} rails = {endpoints:,}"
        + (f" + {manager} fabric-manager (UFM) cables = {edge:,}." if manager else "."),
        f"Each leaf has {down} ports down and {uplinks} up (non-blocking; rounded so they spread evenly "
        "over the spines).",
        *clos.notes,
    ]
    if manager_slot and not manager:
        notes.append(
            "The leaves have no free port for a UFM server, and none is added for it: the managed "
            "switches' embedded subnet manager runs a fabric this size (or UFM joins over the management network)."
        )
    return Topology(
        kind=TopologyKind.rail_optimized,
        tiers=2,
        endpoints=endpoints,
        radix=k,
        rails=rails,
        leaf_switches=leaves,
        spine_switches=clos.spines,
        core_switches=0,
        scalable_units=1,
        cables=_cable_tiers(link_gbps, edge, clos.leaf_spine_cables),
        bisection_gbps=endpoints * link_gbps / 2,
        notes=notes,
    )


def rail_optimized_capacity(
    rails: int = 8, radix: int = 64, nodes_per_su: int | None = None, reserved_endpoints: int = 1
) -> int:
    """Most nodes a three-tier rail-optimized fabric holds: radix x radix/2 leaves / rails SUs.

    Every slot of the largest fabric can hold a node (the fabric manager then attaches
    elsewhere), so `reserved_endpoints` no longer lowers the limit; it is kept for callers.
    """
    _check_radix(radix)
    per_su = nodes_per_su or radix // 2
    max_sus = radix * (radix // 2) // rails
    return max(max_sus * per_su, 0)


def size_rail_optimized(
    nodes: int,
    rails: int = 8,
    radix: int = 64,
    link_gbps: int = 400,
    nodes_per_su: int | None = None,
    reserved_endpoints: int = 1,
    fabric_manager_cables: int = 4,
    compare_smaller: bool = True,
    spine_radix: int | None = None,
) -> Topology:
    """The NVIDIA DGX SuperPOD compute fabric: one leaf per rail per scalable unit (SU).

    Rail r of every node (GPU r's NIC) in an SU goes to that SU's leaf r, so each SU
    has `rails` leaves. A leaf has `nodes_per_su` ports down (one per node slot;
    default radix // 2, 32 on the 64-port QM9700, 72 on the 144-port Q3400) and as
    many up, so it is non-blocking.

    SUs = ceil(nodes / nodes_per_su): the fabric manager never adds an SU or a tier.
    `reserved_endpoints` (0 or 1) says whether the fabric manager (UFM) takes a node slot
    as in the DGX SuperPOD H100 reference (31 nodes + UFM per SU, `fabric_manager_cables`
    = 4 leaf ports: 31 x 8 + 4 = 252); it takes one only when the SUs the nodes need
    have a slot free. Otherwise, and in the B200 / B300 layout (`reserved_endpoints=0`,
    every SU filled with nodes: 4 SU = 128 nodes), it attaches outside the compute
    leaves. In a fabric of two or more SUs a partly filled SU still gets all its leaves
    and leaf-spine cables (NVIDIA: build the full SU, leave the node slots empty), and
    the notes name the nearest smaller design and what the last SU's nodes cost. A
    cluster smaller than one SU is not built as an empty SU: see `_smaller_than_one_su`.

    Above the leaves it is the same Clos as `size_fat_tree`:
    - two tiers while there are at most `radix` leaves (8 SU at 8 rails, radix 64):
      1/2/3/4/8 SU give 4/8/16/16/32 spines (`switches_to_carry`);
    - three tiers beyond: pods of radix/2 leaves each with nodes_per_su spines, and
      nodes_per_su core planes of ceil(leaves/radix) switches, which gives 16 SU = 128
      leaf / 128 spine / 64 core, 32 SU = 256/256/128, 64 SU = 512/512/256, the B200
      SuperPOD reference counts.

    Endpoints are the GPU ports (nodes x rails); the fabric-manager cables are counted
    in the node-leaf cables. Raises FabricTooLarge past three tiers.

    `spine_radix`: the spines' and cores' ports where they are another switch than the
    leaves (Quantum-2 QM9700 leaves under NDR hosts, Quantum-X800 Q3400 spines and cores
    running NDR: NVIDIA's ConnectX-7 firmware release notes v28.47.1026, known issue
    4705241, "When Quantum-2 is part of an XDR topology, serving as a leaf switch connected
    to NDR-based hosts"). SUs and leaves follow the leaf's radix, pods and core the spine's.
    """
    _check_radix(radix)
    _check_positive(nodes=nodes, rails=rails, link_gbps=link_gbps)
    k = radix
    ks = spine_radix or radix
    per_su = nodes_per_su or k // 2
    if 2 * per_su > k:
        raise ValueError(
            f"nodes_per_su: a {k}-port leaf has room for at most {k // 2} node slots "
            f"(as many ports up as down), got {per_su}"
        )
    if reserved_endpoints < 0 or fabric_manager_cables < 0:
        raise ValueError("reserved_endpoints and fabric_manager_cables must be >= 0")
    manager_slot = reserved_endpoints > 0
    sus = math.ceil(nodes / per_su)
    slots = sus * per_su
    if sus == 1 and nodes + (1 if manager_slot else 0) < per_su:
        return _smaller_than_one_su(nodes, rails, k, link_gbps, manager_slot, fabric_manager_cables, per_su)
    # the manager plugs into a free slot's leaf ports, one per rail at most, if a slot is free
    manager_cables = min(fabric_manager_cables, rails) if manager_slot and slots > nodes else 0
    leaves = rails * sus
    endpoints = nodes * rails
    clos = _clos_above_leaves(leaves, per_su, ks)
    if clos is None:
        max_nodes = rail_optimized_capacity(rails, k, per_su)
        raise FabricTooLarge(
            f"{nodes:,} nodes ({endpoints:,} endpoints) do not fit a rail-optimized fabric of "
            f"{k}-port switches: three tiers join at most {k * (k // 2):,} leaves, "
            f"{max_nodes:,} nodes of {rails} rails ({max_nodes * rails:,} endpoints); choose a "
            "higher-radix switch, or a fat-tree with oversubscribed leaves, or Dragonfly+.",
            endpoints=endpoints,
            radix=k,
            maximum=max_nodes * rails,
        )
    notes = [
        f"Scalable units: ceil({nodes:,} nodes / {per_su} nodes per SU) = {sus} SU ({slots:,} node slots).",
        f"Leaves: one per rail per SU, {rails} x {sus} = {leaves:,}; each leaf has {per_su} ports "
        f"down (its SU's nodes on that rail) and {per_su} up.",
        f"Node-leaf cables: {nodes:,} nodes x {rails} rails = {endpoints:,}"
        + (
            f" + {manager_cables} fabric-manager (UFM) cables in a free node slot = {endpoints + manager_cables:,}."
            if manager_cables
            else "."
        ),
        *clos.notes,
    ]
    if manager_slot and not manager_cables:
        notes.append(
            "Every node slot holds a node, so the fabric manager (UFM) attaches outside the compute leaves, "
            "as in NVIDIA's B200 and B300 SuperPODs, rather than costing a whole extra SU."
        )
    if manager_cables:
        notes.append("The fabric manager (UFM) takes a free node slot, as in the DGX SuperPOD H100 reference.")
    taken = nodes + (1 if manager_cables else 0)
    if taken < slots:
        notes.append(
            f"The last SU is partly filled ({slots - taken} empty slot(s)); "
            "its leaves and leaf-spine cables are still built, as NVIDIA's reference asks."
        )
    if clos.tiers == 3 and (ks // 2) % rails == 0:
        notes.append(f"Each pod of {ks // 2} leaves is {(ks // 2) // rails} whole SU(s), all rails.")
    topology = Topology(
        kind=TopologyKind.rail_optimized,
        tiers=clos.tiers,
        endpoints=endpoints,
        radix=k,
        rails=rails,
        leaf_switches=leaves,
        spine_switches=clos.spines,
        core_switches=clos.cores,
        spine_radix=spine_radix if ks != k else None,
        scalable_units=sus,
        cables=_cable_tiers(link_gbps, endpoints + manager_cables, clos.leaf_spine_cables, clos.spine_core_cables),
        bisection_gbps=endpoints * link_gbps / 2,
        notes=notes,
    )
    if compare_smaller and sus > 1 and nodes < slots:
        topology.notes.append(
            _boundary_note(topology, nodes, per_su, rails, k, link_gbps, reserved_endpoints, spine_radix)
        )
    return topology


def _boundary_note(
    topology: Topology,
    nodes: int,
    per_su: int,
    rails: int,
    k: int,
    link_gbps: int,
    reserved: int,
    spine_radix: int | None = None,
) -> str:
    """What the nodes past the last full SU cost, against the nearest smaller design."""
    smaller_nodes = (topology.scalable_units or 1) * per_su - per_su
    smaller = size_rail_optimized(
        smaller_nodes,
        rails,
        k,
        link_gbps,
        per_su,
        reserved_endpoints=reserved,
        compare_smaller=False,
        spine_radix=spine_radix,
    )
    extra_nodes = nodes - smaller_nodes
    extra_switches = topology.total_switches - smaller.total_switches
    tier = f", and a tier ({smaller.tiers} -> {topology.tiers})" if topology.tiers > smaller.tiers else ""
    return (
        f"Past an SU boundary: {smaller_nodes:,} nodes fill {smaller.scalable_units} SU with "
        f"{smaller.total_switches:,} switches ({smaller.leaf_switches}/{smaller.spine_switches}/"
        f"{smaller.core_switches} leaf/spine/core, {smaller.tiers} tiers); the {extra_nodes:,} node(s) beyond "
        f"cost {extra_switches:,} more switch(es){tier}, about {extra_switches / extra_nodes:,.1f} per node."
    )


# -------------------------------------------------------------------------- Dragonfly+


def dragonfly_plus_capacity(radix: int) -> int:
    """Most endpoints of a Dragonfly+ of `radix`-port switches (Shpiner et al. 2017).

    A full group is a two-tier fat-tree of h = k/2 leaves (h hosts, h up) and h
    spines (h down, k - h global), so h^2 hosts; a group has h x (k - h) global
    links, one to each other group at most, so at most h(k - h) + 1 groups.
    For k = 64: 1,024 x 1,025 = 1,049,600.
    """
    _check_radix(radix)
    h = radix // 2
    return h * h * (h * (radix - h) + 1)


def size_dragonfly_plus(endpoints: int, radix: int, link_gbps: int) -> Topology:
    """Dragonfly+ (Shpiner et al., "Dragonfly+: Low Cost Topology for Scaling Datacenters", 2017).

    Groups are two-tier fat-trees: leaves with h = k/2 endpoints and h uplinks,
    every leaf cabled to every spine of its group; each spine has h ports down and
    k - h global ports. Groups are joined all-to-all by global spine-to-spine links
    (cable tier "group-global"), spreading each group's global ports evenly over the
    other groups. Leaves are shared evenly over ceil(leaves / h) groups; spines per
    group are the smallest divisor of h that serves the group's leaves.

    Reported as two switch tiers, no core. Bisection: groups are non-blocking inside;
    across an even split of the groups the links crossing the cut carry the traffic
    (minimal routing, as the paper's analysis; adaptive routing spreads load but does
    not add links), so bisection = min(endpoints x link / 2, crossing links x link) -
    full bisection for two groups, about half for many.

    Raises FabricTooLarge when the groups outnumber a group's global ports + 1.
    """
    _check_radix(radix)
    _check_positive(endpoints=endpoints, link_gbps=link_gbps)
    k = radix
    h = k // 2
    global_ports = k - h
    leaves = math.ceil(endpoints / h)
    groups = math.ceil(leaves / h)
    leaves_per_group = math.ceil(leaves / groups)
    spines_per_group = smallest_divisor_at_least(h, leaves_per_group)
    group_global_ports = spines_per_group * global_ports
    if groups - 1 > group_global_ports:
        maximum = dragonfly_plus_capacity(k)
        raise FabricTooLarge(
            f"{endpoints:,} endpoints do not fit a Dragonfly+ of {k}-port switches: {groups:,} groups "
            f"would need more than the {group_global_ports:,} global links a group has; it holds at "
            f"most {maximum:,} endpoints; choose a higher-radix switch.",
            endpoints=endpoints,
            radix=k,
            maximum=maximum,
        )
    spines = groups * spines_per_group
    full = endpoints * link_gbps / 2
    notes = [
        "Model: Dragonfly+ (Shpiner et al., HiPINEB @ HPCA 2017): groups are leaf/spine "
        "fat-trees, spines joined all-to-all between groups by global links.",
        f"Leaves: ceil({endpoints:,}/{h}) = {leaves:,} leaves of {h} endpoints and {h} uplinks; "
        f"groups: ceil({leaves:,}/{h}) = {groups:,}, about {leaves_per_group} leaves each.",
        f"Spines per group: smallest divisor of {h} that is at least {leaves_per_group} = "
        f"{spines_per_group} ({h // spines_per_group} cable(s) from every leaf to every spine), "
        f"{spines:,} in all; each spine has {global_ports} global ports.",
    ]
    if groups == 1:
        global_cables = 0
        bisection = full
        notes.append("One group: a plain leaf/spine fabric, no global links, full bisection.")
    else:
        per_pair = group_global_ports // (groups - 1)
        global_cables = groups * (groups - 1) // 2 * per_pair
        crossing = (groups // 2) * ((groups + 1) // 2) * per_pair
        bisection = min(full, crossing * link_gbps)
        unused = group_global_ports - per_pair * (groups - 1)
        notes.append(
            f"Global links: each group's {group_global_ports:,} global ports spread over the other "
            f"{groups - 1:,} groups, {per_pair} link(s) per pair = {global_cables:,} cables"
            + (f" ({unused} port(s) per group left free)." if unused else ".")
        )
        notes.append(
            f"Bisection: {crossing:,} global links cross an even split of the groups, "
            f"{bisection / full:.0%} of full bisection (minimal routing)."
        )
    cables = [
        CableTier(tier="node-leaf", count=endpoints, gbps=link_gbps),
        CableTier(tier="leaf-spine", count=leaves * h, gbps=link_gbps),
    ]
    if global_cables:
        cables.append(CableTier(tier="group-global", count=global_cables, gbps=link_gbps))
    return Topology(
        kind=TopologyKind.dragonfly_plus,
        tiers=2,
        endpoints=endpoints,
        radix=k,
        leaf_switches=leaves,
        spine_switches=spines,
        core_switches=0,
        cables=cables,
        bisection_gbps=bisection,
        notes=notes,
    )


# -------------------------------------------------------------------------- one server


def single_node(gpus: int, link: str = "NVLink") -> Topology:
    """A single server: its GPUs talk over its scale-up `link` (NVLink, AMD Infinity
    Fabric or PCIe), no compute fabric to build."""
    _check_positive(gpus=gpus)
    return Topology(
        kind=TopologyKind.single_node,
        tiers=0,
        endpoints=0,
        leaf_switches=0,
        spine_switches=0,
        core_switches=0,
        bisection_gbps=0,
        notes=[f"One server: its {gpus} GPU(s) communicate over {link} inside the node; no switches or cables."],
    )
