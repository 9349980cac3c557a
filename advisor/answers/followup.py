"""Answers about the design on the table: its price, its share of the budget, the time of
one gradient sync, the switches, NICs and cables it uses, the settings its switches need,
and why not another fabric or topology.

Figures come from the recommendation itself; settings and background come from the
knowledge base entries named below, each quoted with its source, so the answer about a
design never says something the knowledge base does not.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable

import knowledge
from advisor.answers import verbs
from advisor.render import markdown
from advisor.render.wording import customer_text
from knowledge.formulas import ALLREDUCE_SOURCE, RATIO, buffer_gigabytes
from rules.models import Recommendation, Technology, Topology
from rules.platform import platform_for
from understanding.extraction import fabrics_named

#: knowledge entries that answer a settings topic, per fabric family of the design
SETTINGS_ENTRIES = {
    "infiniband": ["glossary-subnet-manager", "glossary-mtu", "glossary-sharp", "practice-infiniband-flow-control"],
    "rocev2": ["glossary-ecn-thresholds", "glossary-mtu"],
    "ethernet": ["glossary-mtu"],
    "nvlink": [],
}
TOPIC_ENTRIES = {
    "mtu": ["glossary-mtu"],
    "qos": ["glossary-ecn-thresholds"],
    "cables": ["glossary-optics"],
}
MANAGEMENT_ENTRIES = {
    "infiniband": ["glossary-ufm", "glossary-subnet-manager"],
    "rocev2": ["glossary-spectrum-x"],
    "ethernet": ["glossary-spectrum-x"],
    "nvlink": [],
}
LOSSLESS_ENTRIES = {
    "infiniband": ["practice-infiniband-flow-control"],
    "rocev2": ["glossary-lossless-ethernet", "glossary-pfc"],
    "ethernet": ["glossary-lossless-ethernet"],
    "nvlink": [],
}
TOPOLOGY_WORDS = {
    "topology-dragonfly-plus": re.compile(r"dragon\s*fly", re.I),
    "glossary-rail-only": re.compile(r"rail[- ]only|drop\s+the\s+spines?|without\s+(?:the\s+)?spines?", re.I),
    "topology-fat-tree": re.compile(r"fat[- ]?tree|clos", re.I),
    "topology-rail-optimized": re.compile(r"rail[- ]optimi[sz]ed", re.I),
}

Alternative = Callable[[Recommendation, str], Recommendation | None]


def family(technology: Technology | str) -> str:
    value = str(technology)
    if value.startswith("infiniband"):
        return "infiniband"
    if value.startswith("nvlink"):
        return "nvlink"
    return value


def _quote(entry_id: str) -> str:
    """An entry quoted under its title ("**UFM (NVIDIA Unified Fabric Manager)**: ..."), so
    the name the customer asked by is in the answer, with its source."""
    entry = knowledge.entry(entry_id)
    return f"**{entry.title}**: {entry.text} _(Source: {entry.source})_" if entry else ""


def _quotes(entry_ids: list[str]) -> list[str]:
    return [f"- {text}" for text in map(_quote, entry_ids) if text]


def _budget_line(rec: Recommendation, budget_usd: float | None) -> str:
    low, high = rec.cost.network_usd_low, rec.cost.network_usd_high
    budget = budget_usd or rec.profile.budget_usd
    network_budget = rec.profile.network_budget_usd
    if not budget and network_budget:  # "network budget 3M ... does it fit?"
        verdict = (
            "within it"
            if high <= network_budget
            else "over it at every price"
            if low > network_budget
            else "within it at the low end of the range, over it at the high end"
        )
        return (
            f"- **Network budget:** the network costs {markdown.cost_range(low, high)} against the "
            f"${network_budget:,.0f} network budget: {verdict}."
        )
    if not budget:
        return (
            f"- **Share of the budget:** no cluster budget was given; the network costs "
            f'{markdown.cost_range(low, high)}. Tell me the budget (e.g. "$10M total") for its share.'
        )
    return (
        f"- **Share of the budget:** {low / budget:.1%} - {high / budget:.1%} of the "
        f"${budget:,.0f} budget ({markdown.cost_range(low, high)} for the network)."
    )


#: words that ask for the lossless-Ethernet settings (which a plain Ethernet design has not)
LOSSLESS_WORDS = re.compile(r"\b(?:pfc|ecn|dcqcn|lossless|headroom|priority flow|congestion notification)\b", re.I)


def _configured(rec: Recommendation) -> list[str]:
    """The design's own settings: its fabric configuration (every fabric kind), else the
    RoCE list of older stored recommendations."""
    if rec.fabric_configuration is not None and rec.fabric_configuration.settings:
        return [f"- **{s.setting}:** {s.value} _(Source: {s.source})_" for s in rec.fabric_configuration.settings]
    return [f"- **{s.setting}:** {s.value} _(Source: {s.source})_" for s in rec.roce_configuration]


def _settings_lines(rec: Recommendation, question: str, alternative: Alternative | None) -> list[str]:
    """The settings of the design's fabric, or of the fabric the question names ("if we
    chose RoCEv2"), from the recommendation when it lists them, else the knowledge base.
    PFC/ECN asked of a plain Ethernet design are answered with what RoCEv2 on the same
    cluster would need, since the design itself runs without them."""
    named = [name for name in fabrics_named(question) if family(name) != family(rec.fabric.technology)]
    lossless_asked = bool(LOSSLESS_WORDS.search(question)) and family(rec.fabric.technology) == "ethernet"
    if lossless_asked and not named:
        named = ["rocev2"]
    target = rec
    if named and alternative is not None:
        target = alternative(rec, named[0]) or rec
    lines = _configured(target) or _quotes(SETTINGS_ENTRIES.get(family(target.fabric.technology), []))
    if not lines:
        return [f"- **Settings:** {target.fabric.name} needs no fabric settings beyond the servers' own NVLink."]
    head = f"- **Switch and NIC settings for {target.fabric.name}:**"
    if family(target.fabric.technology) == "infiniband":  # what it does not need: PFC, ECN
        lines = [*lines, *_quotes(LOSSLESS_ENTRIES["infiniband"])]
    if lossless_asked:
        head = (
            f"- {rec.fabric.name} runs lossy, without PFC or ECN (TCP or NCCL's socket transport). "
            f"Run RoCEv2 on it and the switches need these settings:"
            if target is not rec
            else f"- {rec.fabric.name} runs lossy, without PFC or ECN; its settings:"
        )
    return [head, *("  " + line for line in lines)]


def _why_not_lines(rec: Recommendation, question: str) -> list[str]:
    """ "Why not RoCE?", "is Dragonfly+ worth it?": what the named fabric would have meant
    for this cluster, or what the named topology is and which one the design uses."""
    lines: list[str] = []
    named = fabrics_named(question)
    if named:
        lead = markdown.why_markdown(rec, named).split(f"**Why {rec.fabric.name}")[0].strip()
        lines.append(lead or f"- The design already uses {rec.fabric.name}.")
    for entry_id, pattern in TOPOLOGY_WORDS.items():
        if pattern.search(question):
            lines.append(f"- {_quote(entry_id)}")
            lines.append(f"- The design I recommended is a {markdown.topology_line(rec.topology)}.")
    return lines or [markdown.why_markdown(rec)]


def _failure_lines(rec: Recommendation) -> list[str]:
    """ "And if a leaf dies mid job?": what one failed switch costs this design. Twin planes
    say it in their note (the job runs on at half bandwidth); a single plane loses the
    links of the leaf's servers, and a spine only its share of the uplinks."""
    t = rec.topology
    twin = [note for note in t.notes if note.startswith("What a failure costs")]
    if twin:
        return [f"- {twin[0]}", *_quotes(["practice-link-flaps"])]
    if t.total_switches == 0:
        return ["- No network switch to fail: the GPUs meet inside the server or rack (NVLink)."]
    rerouted = (
        "the subnet manager computes new routes around it"
        if family(rec.fabric.technology) == "infiniband"
        else "BGP withdraws its routes and ECMP spreads the flows over the spines that remain"
    )
    ports = -(-t.endpoints // max(t.leaf_switches, 1))
    lines = [
        f"- **A leaf fails:** the up to {ports} server ports cabled to it (one rail of each server under it, in a "
        f"rail-optimized fabric) go dark; a job with GPUs behind them stops at its next collective and restarts "
        f"from its last checkpoint, while jobs elsewhere keep running. {rec.fabric.name} has one plane, so there is no "
        f"failover for those ports: no second path takes over (NVIDIA's B300 Spectrum-X reference architecture adds a "
        f"second plane for that)."
    ]
    if t.spine_switches:
        share = 100 / t.spine_switches
        lines.append(
            f"- **A spine fails:** every leaf loses 1 of its {t.spine_switches} spines' uplinks ({share:.0f} % of its "
            f"uplink bandwidth); failover is automatic: {rerouted}, and jobs keep running a little slower."
        )
    return [*lines, *_quotes(["practice-link-flaps"])]


def _scale_up_line(rec: Recommendation) -> str:
    """ "What connects the GPUs inside each server?": the scale-up link of the design's
    platform, which the network (the scale-out fabric) does not carry."""
    platform = platform_for(rec.profile.gpu_model)
    up = platform.scale_up
    inside = "rack" if platform.rack_scale else "server"
    gpus = up.gpus if platform.rack_scale else rec.profile.gpus_per_node
    link = rec.fabric.link_gbps
    out = f", {link} Gb/s ({link / 8:g} GB/s) per GPU" if link else ""
    return (
        f"- **Inside each {inside}:** {up.name} joins its {gpus} GPUs ({up.nominal_gbytes:,g} GB/s per GPU as "
        f"stated, about {up.busbw_gbytes:g} GB/s of all-reduce bus bandwidth); the {rec.fabric.name} network joins "
        f"the {inside}s to each other{out}."
    )


def _oversubscription_lines(rec: Recommendation, question: str) -> list[str]:
    """The design's oversubscription, and what a ratio asked of its leaves would mean
    ("what if we did 2:1 at the leaf?"): ports split N down to 1 up, so up to 1/N of each
    GPU's line rate across the spines when all send at once, and about 1/N of the uplinks."""
    lines = [_oversubscription_line(rec)]
    asked = RATIO.search(question)  # "2:1", "3 to 1"
    t = rec.topology
    if asked and t.tiers >= 2 and float(asked.group(1)) > 1:
        ratio = float(asked.group(1))
        lines.append(
            f"- **At {ratio:g}:1 at the leaves:** each leaf would split its ports {ratio:g} down to 1 up, so the "
            f"same GPUs need about {1 / ratio:.0%} of today's leaf-to-spine links and spine ports"
            f"{_tapered_counts(t, ratio)}, and each GPU "
            f"gets about {1 / ratio:.0%} of its line rate across the spines when all send at once (an all-reduce "
            "does). Training back-ends are built 1:1 in NVIDIA's DGX SuperPOD designs; oversubscription suits "
            f"storage, front-end and inference networks. _(Source: {OVERSUBSCRIPTION_SOURCE})_"
        )
    return lines


def _tapered_counts(topology: Topology, ratio: float) -> str:
    """What a leaf taper takes out of a two-tier fabric, counted: its spines and its
    leaf-to-spine links divided by the ratio (the leaves and the server links stay)."""
    links = sum(tier.count for tier in topology.cables if tier.tier == "leaf-spine")
    if topology.tiers != 2 or not links or not topology.spine_switches:
        return ""
    spines = max(1, math.ceil(topology.spine_switches / ratio))
    return (
        f" (about {spines:,} spine switches instead of {topology.spine_switches:,} and "
        f"{math.ceil(links / ratio):,} leaf-to-spine links instead of {links:,}; the {topology.leaf_switches:,} leaves "
        "and every server link stay)"
    )


def _oversubscription_line(rec: Recommendation) -> str:
    """ "What oversubscription is that?", "is it non-blocking?": the leaves' down:up ratio
    of the design, and above its AI zones when it is built in zones."""
    t = rec.topology
    if t.tiers == 0:
        return "- **Oversubscription:** none: one server, no switch fabric."
    if t.oversubscription <= 1:
        ratio = "none: the compute fabric is non-blocking (1:1), every leaf has as many uplinks as server ports"
    else:
        ratio = f"{t.oversubscription:g}:1 at the leaves (more server ports than uplinks)"
    if t.zones:
        above = (
            f"{t.zone_oversubscription:g}:1 between them"
            if t.zone_oversubscription > 1
            else "non-blocking between them"
        )
        ratio += f"; built in {t.zones} AI zones, non-blocking inside each, {above}"
    return f"- **Oversubscription:** {ratio}."


def _allreduce_of_size_line(rec: Recommendation, question: str) -> str:
    """ "How long does an all-reduce of 20 GB take?" on the design: its own all-reduce time
    scaled to the buffer asked (the time is the bandwidth term, linear in the buffer:
    size x 2(n-1)/n / bus bandwidth, nccl-tests PERFORMANCE.md); "" when no size is named."""
    asked_gb = buffer_gigabytes(question)
    perf = rec.performance
    if asked_gb is None or not asked_gb or perf.allreduce_ms is None or not perf.message_bytes:
        return ""
    design_gb = perf.message_bytes / 1e9
    millis = perf.allreduce_ms * asked_gb / design_gb
    return (
        f"- **All-reduce of {asked_gb:g} GB:** about {markdown.duration(millis)} on this fabric: the design's "
        f"{markdown.duration(perf.allreduce_ms)} for {design_gb:g} GB scaled to the buffer, since the "
        f"bandwidth term grows linearly with it _(Source: {ALLREDUCE_SOURCE})_"
    )


_SHARP = re.compile(r"\b(?:sharp|collnet|in-network)\b", re.I)

#: where each figure of the latency, SHARP and oversubscription lines comes from
LATENCY_SOURCE = (
    '"GPU Server Networking: InfiniBand, RoCE, and Ethernet for AI Clusters" (DCS Global AI Infrastructure '
    'Team): "InfiniBand vs. Ethernet Comparison" (latency per switch); Al-Fares et al., SIGCOMM 2008 (a '
    "server-to-server path in a fat tree climbs to the top tier and back down)"
)
SHARP_SOURCE = (
    "NVIDIA Scalable Hierarchical Aggregation and Reduction Protocol (SHARP) documentation; NVIDIA "
    "NCCL-RDMA-SHARP plugin (NCCL CollNet)"
)
OVERSUBSCRIPTION_SOURCE = (
    "NVIDIA DGX SuperPOD Reference Architectures (non-blocking compute fabric); Gangidi et al. (Meta), "
    '"RDMA over Ethernet for Distributed AI Training at Meta Scale", SIGCOMM 2024 (oversubscription above the AI zone)'
)


def _sharp_line(rec: Recommendation) -> str:
    """ "And with SHARP enabled?": the design's all-reduce reduced in the switches, where
    its fabric can (InfiniBand with SHARP); said plainly where it cannot."""
    perf = rec.performance
    if perf.in_network_allreduce_ms is None or perf.allreduce_ms is None:
        return (
            f"- **With SHARP:** not available on {rec.fabric.name}: SHARP reduces in InfiniBand switches "
            f"(Quantum). _(Source: {SHARP_SOURCE})_"
        )
    return (
        f"- **All-reduce with SHARP:** about {markdown.duration(perf.in_network_allreduce_ms)} instead of "
        f"{markdown.duration(perf.allreduce_ms)}: the switches reduce the data, so each GPU sends its buffer "
        f"once instead of 2(n-1)/n times (NCCL's CollNet with the SHARP plugin). _(Source: {SHARP_SOURCE})_"
    )


def _latency_line(rec: Recommendation, of_allreduce: bool = False) -> str:
    """ "Latency between nodes?": the fabric's latency per switch hop and the most switches
    a server-to-server path crosses (up to the top tier and back down: 2 x tiers - 1); the
    all-reduce's own time leads when that is the latency asked ("the expected all-reduce
    latency"), which at a training step's buffer is set by bandwidth, not by hops."""
    t = rec.topology
    if t.tiers == 0:
        return f"- **Latency:** no switch between GPUs: {markdown.topology_line(t)}."
    hops = 2 * t.tiers - 1
    path = (
        f"about {rec.fabric.latency_us} µs per switch hop on {rec.fabric.name}, over at most {hops} "
        f"switch{'es' if hops != 1 else ''} between two servers ({t.tiers} tier{'s' if t.tiers != 1 else ''}: "
        "up to the top and back down)"
    )
    allreduce_ms = rec.performance.allreduce_ms
    if of_allreduce and allreduce_ms is not None:
        line = (
            f"- **All-reduce latency:** one all-reduce of the gradients takes about "
            f"{markdown.duration(allreduce_ms)} end to end, bound by bandwidth at this size; the fabric adds "
            f"{path}, which matters only for small messages"
        )
    else:
        line = f"- **Latency:** {path}"
        if allreduce_ms is not None:
            line += (
                f"; one all-reduce of the gradients takes about {markdown.duration(allreduce_ms)}, set by "
                "bandwidth at this size: switch latency matters for small messages only"
            )
    return f"{line}. _(Source: {LATENCY_SOURCE})_"


def _storage_lines(rec: Recommendation) -> list[str]:
    """ "Do we need a separate storage network?", "how many storage ports?": the design's
    storage ports and fabric, which keep datasets and checkpoints off the compute fabric."""
    ports = [p for p in rec.ports_per_server if str(p.role) == "storage" and p.count]
    if not ports:
        return ["- **Storage:** the design has no storage ports of its own; storage traffic shares the front end."]
    port = ports[0]
    servers = rec.profile.node_count
    part = rec.cost.fabric("storage")
    # no in-band fabric of its own: storage and in-band management share one Ethernet
    # fabric, as the platform's reference architecture builds it (GB200 NVL72)
    shared = (
        " (shared with in-band management, one converged Ethernet fabric)" if rec.cost.fabric("in_band") is None else ""
    )
    lines = [
        f"- **Storage network:** yes, a separate one{shared}: {port.count} x {port.gbps} Gb/s storage ports per "
        f"server ({port.count * servers:,} in all over {servers:,} servers). {customer_text(port.note)}"
    ]
    if part is not None:
        lines.append(f"- **Storage fabric cost:** {markdown.cost_range(part.usd_low, part.usd_high)}.")
    return lines


def _bisection_line(rec: Recommendation) -> str:
    """ "what's the bisection bandwidth?": the design's, and what makes it that."""
    t, link = rec.topology, rec.fabric.link_gbps
    if not t.bisection_gbps:
        return "- **Bisection bandwidth:** no switch fabric: the GPUs talk over NVLink inside one system."
    full = t.endpoints * link / 2
    share = t.bisection_gbps / full if full else 1.0
    how = (
        "non-blocking: any half of the GPU ports can send to the other half at full line rate"
        if share >= 0.999
        else f"{share:.0%} of the non-blocking {full / 1000:,.1f} Tb/s, from the oversubscription above the leaves"
    )
    return (
        f"- **Bisection bandwidth:** {t.bisection_gbps / 1000:,.1f} Tb/s ({t.endpoints:,} GPU ports x {link} Gb/s / 2; "
        f"{how})."
    )


def _out_of_band_line(rec: Recommendation) -> str:
    """ "what about the out of band?": the out-of-band management network's switches and
    cords, as the bill of materials lists them."""
    parts = [
        f"{line.quantity:,} x {line.description}"
        for line in rec.bill_of_materials
        if line.fabric == "out_of_band" and line.category in ("switch", "cable")
    ]
    if not parts:
        return "- **Out-of-band management network:** one server: its BMC port joins the site's management network."
    return (
        "- **Out-of-band management network:** a separate 1GbE network for every BMC and switch management port "
        "(NVIDIA DGX SuperPOD reference architecture): " + "; ".join(parts) + "."
    )


#: "are the nvlink switch trays in that switch count?" of an NVL72 design
_NVLINK_SWITCHES = re.compile(r"\bnvlink|\bnvswitch|\btrays?\b", re.I)


#: an NVL72 rack's trays: how many of each, and what they are (NVIDIA GB200 NVL72 and GB300
#: NVL72 system specifications; DGX SuperPOD GB200 reference architecture)
_RACK_TRAYS = {
    "nvlink": (
        "NVLink switch trays",
        9,
        "not in that count: {per} per rack ({total:,} across the {racks:,} racks), each NVL72 rack holding its own "
        "9 NVLink switch trays (18 NVLink switch chips) that join its 72 GPUs inside the rack; the switches counted "
        "are the network between the racks (NVIDIA GB200 NVL72 and DGX SuperPOD GB200 reference architecture).",
    ),
    "compute": (
        "Compute trays",
        18,
        "{per} per NVL72 rack, {total:,} across the {racks:,} racks (each tray 4 GPUs and 2 Grace CPUs; 9 NVLink "
        "switch trays per rack besides them) (NVIDIA GB200 NVL72 and GB300 NVL72 system specifications).",
    ),
}
#: "how many compute trays in total?" of an NVL72 design
_TRAYS = re.compile(r"\btrays?\b", re.I)


def _trays_line(kind: str, racks: int) -> str:
    label, per, text = _RACK_TRAYS[kind]
    return f"- **{label}:** " + text.format(per=per, total=per * racks, racks=racks)


#: a question about the switches' ports by what they do ("uplinks per leaf?", "ports used on each spine?")
_SWITCH_PORTS = re.compile(r"\b(up-?links?|down-?links?|ports?)\b", re.I)
_SWITCH_TIER_NAMED = re.compile(r"\b(leaf|leaves|leafs|spines?|switch(?:es)?)\b", re.I)


def _switch_ports_line(topology: Topology) -> str:
    """How each tier's ports are used, from the design's own cable counts: a leaf's ports
    down to servers and up to the spines, a spine's ports used of its radix."""
    links = {tier.tier: tier.count for tier in topology.cables}
    leaves, spines = topology.leaf_switches, topology.spine_switches
    if topology.tiers < 2 or not leaves or not spines:
        return ""
    down = math.ceil(links.get("node-leaf", 0) / leaves)
    up = math.ceil(links.get("leaf-spine", 0) / leaves)
    spine_used = math.ceil((links.get("leaf-spine", 0) + links.get("spine-core", 0)) / spines)
    radix = f" of {topology.radix}" if topology.radix else ""
    return (
        f"- **Switch ports:** each leaf has up to {down} ports down to servers and {up} uplinks to the spines; "
        f"each spine uses {spine_used}{radix} ports (from the design's cable counts)."
    )


#: switch tiers a question can ask about by name ("how many spine switches?")
_TIERS = re.compile(r"\b(spine|core|super[- ]?spine)s?\b", re.I)


def _absent_tier_lines(rec: Recommendation, question: str) -> list[str]:
    """ "How many spine switches does it have?" of a design with one tier: say it has none
    and why, rather than list the leaves and leave the question unanswered."""
    t = rec.topology
    counts = {"spine": t.spine_switches, "core": t.core_switches}
    lines = []
    for found in dict.fromkeys(m.group(1).lower() for m in _TIERS.finditer(question)):
        tier = "core" if found.startswith("super") else found
        if counts.get(tier) == 0 and t.kind != "single_node":
            lines.append(
                f"- **{tier.capitalize()} switches:** none: the fabric has {t.tiers} tier"
                f"{'s' if t.tiers != 1 else ''}, so every server reaches every other through "
                f"{'one layer of leaf switches' if t.tiers == 1 else 'the leaf and spine layers'}."
            )
    return lines


def _changes_lines(rec: Recommendation, previous: Recommendation | None) -> list[str]:
    """ "what changed?", "what's different now?": the design on the table against the one it
    replaced (a what-if, a correction, a growth), or that there is none yet."""
    if previous is None or previous.id == rec.id:
        return [
            "- **What changed:** nothing yet: this is the first design of the conversation. Ask a what-if "
            "(more GPUs, another fabric, another GPU model) and I'll say what it changes."
        ]
    return [markdown.what_changed_markdown(previous, rec)]


def design_answer(
    rec: Recommendation,
    topics: list[str],
    question: str = "",
    *,
    budget_usd: float | None = None,
    alternative: Alternative | None = None,
    lead: str | None = None,
    previous: Recommendation | None = None,
) -> str:
    """The answer to a question about the design on the table, led by the design it is
    about (or by `lead`, for a design sized for a question); one part per topic asked
    (understanding/extraction/data/cues.yaml `design`)."""
    fam = family(rec.fabric.technology)
    lines: list[str] = []
    for topic in dict.fromkeys(topics):
        if topic == "servers":
            lines.append(f"- **Servers:** {markdown.servers_line(rec)}")
            if rec.node_word != "server" and _TRAYS.search(question):
                lines.append(_trays_line("compute", math.ceil(rec.profile.gpu_count / 72)))
        elif topic == "changes":
            lines += _changes_lines(rec, previous)
        elif topic == "scale_up":
            lines.append(_scale_up_line(rec))
        elif topic == "budget_share":
            lines.append(_budget_line(rec, budget_usd))
        elif topic == "oversubscription":
            lines += _oversubscription_lines(rec, question)
        elif topic == "storage":
            lines += _storage_lines(rec)
        elif topic == "bisection":
            lines.append(_bisection_line(rec))
        elif topic == "out_of_band":
            lines.append(_out_of_band_line(rec))
        elif topic == "settings":
            lines += _settings_lines(rec, question, alternative)
        elif topic == "management":
            lines += _quotes(MANAGEMENT_ENTRIES.get(fam, [])) or ["- No fabric management software: one server."]
        elif topic == "lossless":
            lines += _quotes(LOSSLESS_ENTRIES.get(fam, [])) or ["- No network fabric: NVLink inside the server."]
        elif topic == "nics":
            nic = f" ({rec.fabric.nic_model})" if rec.fabric.nic_model else ""
            # the ports on the fabric this design sizes: compute ports, or for inference the
            # ports that carry its traffic (an inference design has no compute role)
            fabric_roles = (
                {"compute"} if any(str(p.role) == "compute" for p in rec.ports_per_server) else {"inference_traffic"}
            )
            role_word = "compute" if fabric_roles == {"compute"} else "inference-traffic"
            per_server = sum(p.count for p in rec.ports_per_server if str(p.role) in fabric_roles)
            servers = rec.profile.node_count
            lines.append(
                f"- **NICs:** {rec.fabric.link_gbps} Gb/s{nic} per {role_word} port, {per_server * servers:,} {role_word} "
                f"ports in all ({per_server} per {rec.node_word} x {servers:,} {rec.node_word}s); per {rec.node_word} "
                f"{markdown.ports_line(rec.ports_per_server)}"
            )
        elif topic in verbs.TOPICS:
            lines += verbs.design_lines(rec, topic)
        elif topic == "why_not":
            lines += _why_not_lines(rec, question)
        elif topic == "failure":
            lines += _failure_lines(rec)
        elif topic == "why":  # every rule that fired, led by what a fabric it names would have meant
            lines.append(markdown.why_markdown(rec, fabrics_named(question)))
        elif topic == "allreduce" and (sized := _allreduce_of_size_line(rec, question)):
            lines.append(sized)
        elif topic == "allreduce" and _SHARP.search(question):
            lines += [markdown.design_line(rec, topic), _sharp_line(rec)]
        elif topic == "latency":
            lines.append(_latency_line(rec, of_allreduce="allreduce" in topics))
        elif topic in markdown.DESIGN_LINES:
            lines.append(markdown.design_line(rec, topic))
            if topic == "switches":
                lines += _absent_tier_lines(rec, question)
                if rec.node_word != "server" and _NVLINK_SWITCHES.search(question):
                    lines.append(_trays_line("nvlink", math.ceil(rec.profile.gpu_count / 72)))
                if _SWITCH_PORTS.search(question) and (ports := _switch_ports_line(rec.topology)):
                    lines.append(ports)
            if topic == "ports" and _SWITCH_TIER_NAMED.search(question) and "switches" not in topics:
                # "spare spine ports?": a switch's ports, not the servers'
                lines.append(_switch_ports_line(rec.topology) or "- **Switch ports:** no switch tiers: one server.")
            if topic == "cables":
                lines += markdown.optics_lines(rec)
            lines += _quotes(TOPIC_ENTRIES.get(topic, []))
        else:
            lines += _quotes(TOPIC_ENTRIES.get(topic, []))
    if list(dict.fromkeys(topics)) == ["why"] and lead is None:  # "why?": the reasons name the design themselves
        return customer_text("\n".join(lines))
    lead = lead or f"For the design I recommended ({rec.fabric.name}, {markdown.workload_line(rec)}):"
    return customer_text("\n".join([lead, *lines]))  # quoted entries keep our working names for sources
