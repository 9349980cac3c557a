"""A fabric in AI zones: non-blocking inside each zone, oversubscribed N:1 above it.

Meta's two 24,576-GPU H100 clusters are built this way (Gangidi et al., "RDMA over
Ethernet for Distributed AI Training at Meta Scale", ACM SIGCOMM 2024, and Meta's
engineering blog "A RoCE network for distributed AI training at scale", 2024-08-05): an
AI zone is a two-stage, non-blocking Clos of rack training switches (RTSW) and cluster
training switches (CTSW); aggregator training switches (ATSW) join the zones, and the
links between zones are deliberately oversubscribed, with a topology-aware scheduler
keeping a job's traffic inside zones where it can. Each 24K cluster is 8 zones of 3,072
GPUs, 7:1 from the CTSW to the ATSW layer (Glenn K. Lockwood, "Meta's H100 clusters",
summarising the paper and the Llama 3 paper).

Here the leaves and their cabling stay as the non-blocking design built them; what
changes is above the leaves:
- a zone is `zone_leaves` leaves (whole scalable units on a rail-optimized fabric) with
  their own spines: as many spines as carry the zone's leaf uplinks with d ports down each,
  where (d, u) = `leaf_port_split(radix, N)` (56 down / 8 up on a 64-port switch at 7:1),
  so a zone holds at most d leaves;
- each spine sends ceil(down / N) cables up (the zone's uplinks reduced N-fold), spine j
  of every zone to core plane j, spread evenly over the plane's cores (the smallest
  divisor of the spine's uplinks that carries the plane);
- every zone is built whole, the last one too (its free leaf slots fill later without
  recabling), as NVIDIA builds a whole scalable unit.

Bisection is what max-flow finds across the hosts split in two halves in plan order
(rules/physical/checks.py): inside a zone every pair meets at full rate; across the cut a
zone sends or receives at most its spines' uplinks. `zoned_bisection_gbps` states it.

    topology = zoned(base, zone_leaves=56, oversubscription=7, leaf_group=8,
                     hosts=2048, host_ports=8)
"""

from __future__ import annotations

import math

from rules.models import CableTier, Topology
from rules.sizing.fabric import leaf_port_split, smallest_divisor_at_least, switches_to_carry

ZONE_SOURCE = (
    'Meta\'s 24K-GPU clusters: Gangidi et al., "RDMA over Ethernet for Distributed AI Training at Meta Scale", '
    "ACM SIGCOMM 2024"
)


def largest_zone_leaves(radix: int, oversubscription: float, leaf_group: int = 1) -> int:
    """The most leaves one zone holds at N:1: a zone spine has d = leaf_port_split(k, N)[0]
    ports down, one cable per leaf at least, rounded down to whole groups (SUs)."""
    down, _ = leaf_port_split(radix, oversubscription)
    return (down // leaf_group) * leaf_group


def zone_spines(zone_leaves: int, leaf_uplinks: int, radix: int, oversubscription: float) -> tuple[int, int]:
    """(spines per zone, uplinks per spine) for a zone of `zone_leaves` leaves."""
    down, _ = leaf_port_split(radix, oversubscription)
    cables = zone_leaves * leaf_uplinks
    spines = switches_to_carry(leaf_uplinks, math.ceil(cables / down))
    return spines, math.ceil(cables / (spines * oversubscription) - 1e-9)


def zoned(
    base: Topology,
    zone_leaves: int,
    oversubscription: float,
    leaf_group: int,
    hosts: int,
    host_ports: int,
) -> Topology:
    """The `base` fabric (non-blocking, two or three tiers, one plane) rebuilt above its
    leaves as zones of `zone_leaves` leaves, N:1 above them. `leaf_group`: leaves that
    must stay in one zone (a scalable unit's rails; 1 on a fat-tree). `hosts` and
    `host_ports`: the servers (or compute trays) as cabled, for the stated bisection.

    Returns `base` itself, with a note saying why, when the fabric is one zone already
    or cannot be zoned with its switch (a zone must hold at least one group, and the
    core at most `radix` zones)."""
    k = base.radix or 0
    n = oversubscription
    leaves = base.leaf_switches
    cables = {c.tier: c.count for c in base.cables}
    leaf_uplinks = cables.get("leaf-spine", 0) // max(1, leaves)
    largest = largest_zone_leaves(k, n, leaf_group) if k >= 4 else 0
    zone = min((zone_leaves // leaf_group) * leaf_group, largest)
    if not leaf_uplinks or base.planes > 1 or n <= 1:
        return _unzoned(base, "the fabric has no spine layer to oversubscribe" if not leaf_uplinks else "")
    if zone < leaf_group:
        return _unzoned(
            base,
            f"a zone must hold a whole group of {leaf_group} leaves, and a zone spine of {k} ports at "
            f"{n:g}:1 has {leaf_port_split(k, n)[0]} down",
        )
    zones = math.ceil(leaves / zone)
    if zones > k:  # each core plane meets every zone's spine j: at most `radix` zones
        zone = math.ceil(math.ceil(leaves / k) / leaf_group) * leaf_group
        if zone > largest:
            return _unzoned(base, f"{leaves:,} leaves need more than {k} zones of at most {largest} leaves")
        zones = math.ceil(leaves / zone)
    if zones < 2:
        return _unzoned(base, f"all {leaves:,} leaves fit one zone of at most {largest} leaves")
    per_zone, up = zone_spines(zone, leaf_uplinks, k, n)
    cores_per_plane = smallest_divisor_at_least(up, math.ceil(zones * up / k))
    spines, cores = zones * per_zone, per_zone * cores_per_plane
    link = base.cables[0].gbps
    bisection = zoned_bisection_gbps(
        hosts,
        host_ports,
        link,
        zone_hosts(base, zone, leaf_group, hosts, host_ports),
        [min(zone, leaves - i * zone) for i in range(zones)],
        leaf_uplinks,
        per_zone,
        up,
    )
    down = math.ceil(zone * leaf_uplinks / per_zone)
    full = hosts * host_ports * link / 2
    notes = [
        f"AI zones ({ZONE_SOURCE}): {zones} zones of up to {zone} leaves, non-blocking inside; {n:g}:1 above them.",
        f"Each zone has {per_zone} spines, each with up to {down} ports down to its zone's leaves and "
        f"{up} up: the zone's {zone * leaf_uplinks:,} leaf uplinks reduced {n:g}-fold to {per_zone * up:,} "
        f"core links; {spines:,} spines in all. The last zone is built whole (spines and core links), so its "
        "free leaf slots fill later without recabling.",
        f"Core: spine j of every zone joins core plane j ({per_zone} planes) with {up} cables spread evenly over "
        f"the plane's {cores_per_plane} core switch(es) (the smallest divisor of {up} that carries "
        f"{zones} x {up} = {zones * up:,} cables on {k}-port switches); {cores:,} core switches.",
        f"Bisection: {bisection / full:.0%} of non-blocking ({bisection:,.0f} of {full:,.0f} Gb/s): traffic "
        f"between zones gets about 1/{n:g} of each GPU's link; inside a zone, full rate.",
    ]
    leaf_notes = [note for note in base.notes if note.startswith(("Scalable units", "Leaves", "Node-leaf"))]
    return base.model_copy(
        update={
            "tiers": 3,
            "spine_switches": spines,
            "core_switches": cores,
            "zones": zones,
            "zone_leaves": zone,
            "zone_oversubscription": n,
            "cables": [
                CableTier(tier="node-leaf", count=cables["node-leaf"], gbps=link),
                CableTier(tier="leaf-spine", count=leaves * leaf_uplinks, gbps=link),
                CableTier(tier="spine-core", count=spines * up, gbps=link),
            ],
            "bisection_gbps": bisection,
            "notes": [*leaf_notes, *notes],
        }
    )


def _unzoned(base: Topology, why: str) -> Topology:
    if not why:
        return base
    return base.model_copy(
        update={"notes": [*base.notes, f"Not zoned: {why}; the fabric stays non-blocking throughout."]}
    )


def _leaf_down(base: Topology) -> int:
    leaf_spine = next((c.count for c in base.cables if c.tier == "leaf-spine"), 0)
    return (base.radix or 0) - leaf_spine // max(1, base.leaf_switches)


def zone_hosts(base: Topology, zone: int, leaf_group: int, hosts: int, host_ports: int) -> list[int]:
    """Hosts in each zone, in plan order: whole scalable units of `leaf_group` leaves on a
    rail-optimized fabric (a host's rails all on its SU's leaves, `radix - uplinks` node
    slots per SU), else each host in the zone of its first port's leaf."""
    zones = math.ceil(base.leaf_switches / zone)
    leaf_down = _leaf_down(base)
    if base.kind == "rail_optimized" and leaf_group > 1:
        slots = (zone // leaf_group) * leaf_down
        return [max(0, min(slots, hosts - i * slots)) for i in range(zones)]
    counts = [0] * zones
    for host in range(hosts):
        counts[min(zones - 1, (host * host_ports) // leaf_down // zone)] += 1
    return counts


def zoned_bisection_gbps(
    hosts: int,
    host_ports: int,
    link_gbps: int,
    per_zone_hosts: list[int],
    per_zone_leaves: list[int],
    leaf_uplinks: int,
    spines_per_zone: int,
    spine_uplinks: int,
) -> float:
    """Max-flow across the hosts cut in two halves in plan order (the first half against
    the rest), scaled to half the endpoints when the halves are uneven, as
    rules/physical/checks.py measures it: inside a zone the two sides meet at full rate;
    what is left of a zone's side crosses through its spines' uplinks, each spine sending
    at most its uplinks and no more than its leaf cables bring it (a zone's leaf uplinks
    dealt to its spines in turn, as the wiring deals them)."""
    half = hosts // 2
    a_total, b_total = half * host_ports * link_gbps, (hosts - half) * host_ports * link_gbps
    if not a_total or not b_total:
        return 0.0
    internal = out = into = 0.0
    first = 0
    for count, leaves in zip(per_zone_hosts, per_zone_leaves, strict=True):
        a = max(0, min(count, half - first)) * host_ports * link_gbps
        b = count * host_ports * link_gbps - a
        first += count
        cables = leaves * leaf_uplinks
        spread, extra = divmod(cables, spines_per_zone)
        uplink = sum(min(spread + (j < extra), spine_uplinks) for j in range(spines_per_zone)) * link_gbps
        paired = min(a, b)
        internal += paired
        out += min(uplink, a - paired)
        into += min(uplink, b - paired)
    value = internal + min(out, into)
    return value * ((a_total + b_total) / 2) / min(a_total, b_total)
