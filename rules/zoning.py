"""AI zones: where a design is oversubscribed, how large its zones are, and when an
oversubscribed design is worth offering.

A customer asks for it (`oversubscription` N, optionally `zone_gpus`); otherwise the
engine prices Meta's published ratio, 7:1 above the zones, as an alternative and offers
it only where it saves at least `MIN_SAVING` of the network's cost. The arithmetic of a
zoned fabric is rules/sizing/oversubscribed.py; this module turns a profile's GPUs into
leaves and says what the zones cost a job.

Sources: Gangidi et al., "RDMA over Ethernet for Distributed AI Training at Meta Scale",
ACM SIGCOMM 2024 (AI zones, non-blocking inside, oversubscribed between zones, a
topology-aware scheduler); Glenn K. Lockwood, "Meta's H100 clusters" (8 zones of 3,072
GPUs per 24,576-GPU cluster, 7:1 between the cluster and aggregator tiers).
"""

from __future__ import annotations

import math

from rules.models import Topology, TopologyKind
from rules.physical.graph import Layout, NotWirable
from rules.platform import Platform
from rules.sizing.oversubscribed import ZONE_SOURCE, largest_zone_leaves, zone_hosts, zoned

#: Meta's ratio between the AI zones and the tier above them (Gangidi et al., SIGCOMM 2024).
PUBLISHED_RATIO = 7.0
#: Meta's AI zone: 3,072 GPUs (Lockwood, "Meta's H100 clusters", from the SIGCOMM 2024 paper).
PUBLISHED_ZONE_GPUS = 3072
#: Fabric Advisor rule: an oversubscribed design is offered only when it saves at least this
#: share of the whole network's cost (the midpoints of the two bills of materials).
MIN_SAVING = 0.05


def zoned_topology(
    topology: Topology,
    platform: Platform,
    gpus: int,
    oversubscription: float,
    zone_gpus: int | None,
    edge_ports: int,
    twin_port: bool,
) -> Topology:
    """The sized fabric rebuilt as AI zones of `zone_gpus` GPUs (default: the largest zone
    its spines hold at N:1), `oversubscription`:1 above them. A fabric that is not a one-plane
    Clos of two or three tiers (Dragonfly+, twin planes, one switch) is returned with a note."""
    if oversubscription <= 1:
        return topology
    if topology.kind not in (TopologyKind.fat_tree, TopologyKind.rail_optimized) or topology.tiers < 2:
        return _note(topology, "Not zoned: only a leaf-spine (Clos) fabric is built in AI zones here.")
    if topology.planes > 1:
        return _note(
            topology,
            "Not zoned: the twin-plane Spectrum-X fabric is two tiers per plane, with no tier above a zone "
            "to oversubscribe.",
        )
    try:
        layout = Layout.of(topology, platform, ports_per_node=edge_ports or None, twin_port=twin_port)
    except NotWirable:  # pragma: no cover - the kinds above are wired
        return topology
    group = layout.leaves_per_su if layout.kind == "rail_optimized" and layout.sus > 1 else 1
    k = topology.radix or 0
    largest = largest_zone_leaves(k, oversubscription, group)
    if zone_gpus:
        endpoints_per_gpu = topology.endpoints / max(1, gpus)
        leaves = math.ceil(zone_gpus * endpoints_per_gpu / max(1, layout.leaf_down))
        asked = math.ceil(leaves / group) * group
    else:
        asked = largest
    result = zoned(topology, asked, oversubscription, group, layout.hosts, layout.ports_per_host)
    if result.zones and zone_gpus and result.zone_leaves != asked:
        result.notes.insert(
            0,
            f"Zones of {zone_gpus:,} GPUs were asked; a zone spine of {k} ports at {oversubscription:g}:1 "
            f"reaches {largest} leaves at most"
            + (f" and the core joins at most {k} zones" if asked <= largest else "")
            + f", so each zone is {result.zone_leaves} leaves ({zone_size_gpus(result, platform, gpus):,} GPUs).",
        )
    return result


def zone_size_gpus(topology: Topology, platform: Platform, gpus: int) -> int:
    """GPUs in one full zone of a zoned fabric (0 when it is not zoned)."""
    if not topology.zones or not topology.zone_leaves:
        return 0
    layout = Layout.of(topology, platform)
    group = layout.leaves_per_su if layout.kind == "rail_optimized" and layout.sus > 1 else 1
    hosts = zone_hosts(topology, topology.zone_leaves, group, layout.hosts, layout.ports_per_host)
    return min(gpus, round(max(hosts) * layout.ports_per_host * gpus / max(1, topology.endpoints)))


def cost_words(topology: Topology, zone_gpus: int) -> str:
    """What the zones cost a job, in words: the cross-zone share of each GPU's link."""
    n = topology.zone_oversubscription
    return (
        f"{n:g}:1 above AI zones of {zone_gpus:,} GPUs: inside a zone every GPU keeps its full link, between "
        f"zones it gets about 1/{n:g} of it; a ring all-reduce crosses a zone boundary on one link per ring, so "
        "a dense job placed zone by zone (as Meta's topology-aware scheduler places it) loses little, while "
        f"all-to-all (mixture-of-experts) traffic between zones slows up to {n:g}-fold ({ZONE_SOURCE})"
    )


def _note(topology: Topology, text: str) -> Topology:
    return topology.model_copy(update={"notes": [*topology.notes, text]})
