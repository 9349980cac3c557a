"""Recommendations and answers as markdown a person reads in chat (web widget, REST
clients, the CLI's `ask`). Rendering only: every figure comes from the Recommendation.

Lists rather than tables, because chat widgets render lists reliably and tables not.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Protocol

from pydantic import ValidationError

from advisor.models import Answer
from advisor.render import headline
from advisor.render.labels import labels
from advisor.render.wording import customer
from core import links
from knowledge import catalogue
from rules.formatting import usd
from rules.models import (
    MAX_GPUS,
    MAX_GPUS_PER_NODE,
    FabricConfiguration,
    Performance,
    Port,
    Reason,
    Recommendation,
    StepEstimate,
    Topology,
)
from rules.platform import platform_for

# customer-facing names and questions: advisor/render/labels.yaml, shared with the bot
QUESTIONS = {field: question.text for field, question in labels().questions.items()}
TOPOLOGY_NAMES = {kind: name.name for kind, name in labels().topologies.items()}
PORT_ROLES = {role: name.name for role, name in labels().port_roles.items()}
#: the reply to a task that is not the advisor's, on every channel
OUT_OF_SCOPE = labels().out_of_scope.strip()


def cost_range(low: float, high: float) -> str:
    return "none (included in the servers)" if high == 0 else f"{usd(low)} - {usd(high)}"


def duration(ms: float) -> str:
    return f"{ms / 1000:.2f} s" if ms >= 1000 else f"{ms:.1f} ms"


_MARKUP = re.compile(r"([\\`*_\[\]()<>~#|!])")


def escape_markdown(text: str) -> str:
    """Text a person typed, shown as typed: markdown's marks are backslash-escaped, so
    `[click](https://evil)` in a GPU name or an echoed question is no live link in the
    web chat nor in Slack (advisor.render.slack reads the escapes back as plain marks)."""
    return _MARKUP.sub(r"\\\1", text)


def workload_line(rec: Recommendation) -> str:
    return headline.workload_line(rec, escape_markdown)


def servers_line(rec: Recommendation) -> str:
    """ "8 x GB200 NVL72 (72 GPUs each), 576 GPUs": the servers the design is sized for."""
    p = rec.profile
    platform = platform_for(p.gpu_model)
    sized_as_its_server = p.gpus_per_node in (platform.gpus_per_host, platform.node_gpus)
    name = platform.server if not platform.assumed and sized_as_its_server else "servers"
    return f"{p.node_count:,} x {name} ({p.gpus_per_node} GPUs each), {p.gpu_count:,} GPUs"


def optics_lines(rec: Recommendation) -> list[str]:
    """The compute fabric's transceivers and cables, as the bill of materials counts them
    (a twin-port module or cable carries two links, so modules are fewer than links)."""
    parts = [
        item
        for item in rec.bill_of_materials
        if str(item.fabric) == "compute" and str(item.category) in ("transceiver", "cable", "fibre")
    ]
    return [f"- **{str(item.category).capitalize()}:** {item.quantity:,} x {item.description}" for item in parts]


def ports_line(ports: list[Port]) -> str:
    return ", ".join(f"{p.count} x {p.gbps}G {PORT_ROLES[str(p.role)]}" for p in ports if p.count)


def power_line(rec: Recommendation) -> str:
    """The network's power and rack units in all and per fabric, from the bill of materials."""
    c = rec.cost
    if not c.watts:
        return "none beyond the servers (no switch fabric)"
    parts = "; ".join(
        f"{p.name.replace('_', '-')} {p.watts / 1000:,.1f} kW, {p.rack_units} RU" for p in c.by_fabric if p.watts
    )
    return (
        f"{c.watts / 1000:,.1f} kW ({c.watts:,} W) and {c.rack_units} RU of switches in all ({parts}), "
        "summed over the parts of the bill of materials"
    )


def switches_line(t: Topology) -> str:
    if t.kind == "single_node":
        return "none"
    tiers = [("leaf", t.leaf_switches), ("spine", t.spine_switches), ("core", t.core_switches)]
    parts = [f"{n:,} {name}" for name, n in tiers if n]
    total = t.leaf_switches + t.spine_switches + t.core_switches
    return f"{' + '.join(parts)} = {total:,}"


def switches_summary(rec: Recommendation) -> str:
    """The compute fabric's switches; for a design without one that still has service
    networks (one NVL72 rack's 18 trays), those networks' switches too."""
    t = rec.topology
    service = sum(i.quantity for i in rec.bill_of_materials if str(i.category) == "switch")
    if t.kind != "single_node" or not service:
        return switches_line(t)
    platform = platform_for(rec.profile.gpu_model)
    inside = f"{platform.scale_up.words} inside the {'rack' if platform.rack_scale else 'server'}"
    return f"0 for GPU traffic ({inside}); {service:,} for the storage, in-band and out-of-band networks"


def cables_line(t: Topology) -> str:
    """ "256 node-leaf (400G), 256 leaf-spine (400G), 512 in all": each tier, and the total
    a cabling plan is counted by."""
    tiers = ", ".join(f"{c.count:,} {c.tier} ({c.gbps}G)" for c in t.cables) or "none"
    return f"{tiers}, {sum(c.count for c in t.cables):,} in all" if len(t.cables) > 1 else tiers


def topology_line(t: Topology) -> str:
    name = TOPOLOGY_NAMES[str(t.kind)]
    if t.kind == "single_node":
        return name
    extra = f", {t.rails} rails" if t.rails > 1 else ""
    su = f", {t.scalable_units} scalable unit{'s' if t.scalable_units != 1 else ''}" if t.scalable_units else ""
    return f"{name}, {t.tiers} tier{'s' if t.tiers != 1 else ''}{extra}{su}"


def plan_line(perf: Performance) -> str:
    """The parallelism plan in one line: "TP 8 x PP 16 x DP 128; 50.6 of 56 GB per GPU; ..."."""
    plan = perf.plan
    if plan is None:
        return ""
    fit = "" if plan.fits else " (does not fit)"
    return (
        f"TP {plan.tp} x PP {plan.pp} x DP {plan.dp:,}; {plan.state_gb_per_gpu:g} GB of model state per GPU "
        f"(budget {plan.memory_budget_gb:g} of {plan.gpu_memory_gb:g} GB){fit}; "
        f"{plan.gradient_gb_per_gpu:g} GB of gradient per GPU per step"
    )


def step_line(step: StepEstimate | None) -> str:
    """A training step in one line: exposed communication, its share and what bounds it."""
    if step is None:
        return ""
    return (
        f"{duration(step.exposed_ms)} of communication exposed in a {duration(step.step_ms)} step "
        f"({step.exposed_share:.1%}; compute {duration(step.compute_ms)}), bound by {step.bound_by}"
    )


def configuration_lines(configuration: FabricConfiguration | None) -> list[str]:
    """The fabric's settings and the validation targets, as markdown bullets."""
    if configuration is None:
        return []
    lines = ["", f"**Fabric configuration** ({configuration.switch_family})"]
    lines += [f"- **{s.setting}:** {s.value}" for s in configuration.settings]
    if configuration.validation:
        lines += ["", "**After cabling, expect**"]
        lines += [f"- {s.setting}: {s.value}" for s in configuration.validation]
    return lines


DESIGN_LINES = ("switches", "cables", "ports", "topology", "cost", "power", "allreduce")


def design_line(rec: Recommendation, topic: str) -> str:
    """The summary line of the design that answers a topic (one of DESIGN_LINES)."""
    f, t, perf = rec.fabric, rec.topology, rec.performance
    if topic == "switches":
        return f"- **Switches:** {switches_summary(rec)}" + (f" ({f.switch_model})" if f.switch_model else "")
    if topic == "cables":
        return f"- **Cables:** {cables_line(t)}"
    if topic == "ports":
        return f"- **{headline.ports_label(rec)}:** {ports_line(rec.ports_per_server)}"
    if topic == "topology":
        return f"- **Topology:** {topology_line(t)}"
    if topic == "cost":
        c = rec.cost
        per_gpu = f" ({cost_range(c.per_gpu_usd_low or 0, c.per_gpu_usd_high)} per GPU)" if c.per_gpu_usd_high else ""
        return f"- **Network cost:** {cost_range(c.network_usd_low, c.network_usd_high)}{per_gpu} _({c.basis})_"
    if topic == "power":
        return f"- **Network power and space:** {power_line(rec)}"
    if perf.allreduce_ms is None:
        return "- **All-reduce:** none between servers (inference)"
    return (
        f"- **All-reduce:** about {duration(perf.allreduce_ms)} per gradient synchronisation of "
        f"{(perf.message_bytes or 0) / 1e9:g} GB per GPU"
        + (f"; plan {plan_line(perf)}" if perf.plan else "")
        + (f"; {step_line(perf.step)}" if perf.step else "")
        + f" ({'; '.join(perf.assumptions)})"
    )


def top_reasons(rec: Recommendation, count: int) -> list[Reason]:
    """The reasons a summary has room for: first the rules that won over another rule's
    decision (a network budget that turned InfiniBand into RoCEv2), then the others in
    the engine's order. Options considered and not taken are never reasons."""
    winners = {c.chosen_by for c in rec.considered}
    ranked = sorted(rec.explanation, key=lambda r: r.rule_id not in winners)
    return ranked[:count]


def considered_lines(rec: Recommendation) -> list[str]:
    """The options weighed and not taken, apart from the reasons: what each proposed and why not."""
    if not rec.considered:
        return []
    lines = ["", "**Considered, not chosen:**"]
    lines += [f"- {c.option} (`{c.rule_id}`), not chosen: {c.why_not}" for c in rec.considered]
    return lines


def recommendation_markdown(rec: Recommendation, diagram_url: str | None = None, reasons: int = 4) -> str:
    """The summary a person reads: the design, its figures and the top reasons."""
    rec = customer(rec)
    f, t, perf = rec.fabric, rec.topology, rec.performance
    switch = f" on {f.switch_model}" if f.switch_model else ""
    lines = [
        f"**Recommendation: {f.name}, {TOPOLOGY_NAMES[str(t.kind)]}**",
        f"_For {workload_line(rec)}._",
        "",
        f"- **Fabric:** {f.name}{switch}",
        f"- **Topology:** {topology_line(t)}",
        f"- **{headline.ports_label(rec)}:** {ports_line(rec.ports_per_server)}",
        f"- **Switches:** {switches_summary(rec)}",
        f"- **Cables:** {cables_line(t)}",
        f"- **Network cost:** {cost_range(rec.cost.network_usd_low, rec.cost.network_usd_high)}",
    ]
    if perf.allreduce_ms is not None:
        lines.append(
            f"- **All-reduce:** about {duration(perf.allreduce_ms)} per gradient synchronisation"
            f" ({perf.relative_training_throughput:.0%} of InfiniBand training throughput)"
        )
    if perf.in_network_allreduce_ms is not None:
        lines.append(f"- **With SHARP (option):** about {duration(perf.in_network_allreduce_ms)} per all-reduce")
    if perf.plan:
        lines.append(f"- **Parallelism plan:** {plan_line(perf)}")
    if perf.step:
        lines.append(f"- **Training step:** {step_line(perf.step)}")
    lines += ["", "**Why**"]
    lines += [f"{i}. {r.statement} _({r.source})_" for i, r in enumerate(top_reasons(rec, reasons), 1)]
    if rec.warnings:
        lines += ["", *[f"> **Check:** {w}" for w in rec.warnings]]
    if rec.fabric_configuration:
        lines += configuration_lines(rec.fabric_configuration)
    elif rec.roce_configuration:
        lines += ["", "**RoCE configuration**"]
        lines += [f"- **{s.setting}:** {s.value}" for s in rec.roce_configuration]
    if rec.alternatives:
        lines += [
            "",
            "**Also considered:** "
            + "; ".join(f"{a.name} ({cost_range(a.network_usd_low, a.network_usd_high)})" for a in rec.alternatives),
        ]
    if diagram_url:  # signed when the server has an API key: a browser sends no key (core.links)
        lines += ["", f"[Topology diagram]({links.signed(diagram_url)})"]
    if rec.id:
        lines += ["", f'_Recommendation id: `{rec.id}`. Ask "why?" for every rule, or "compare" for the alternatives._']
    return "\n".join(lines)


def why_markdown(rec: Recommendation, why_not: list[str] | None = None) -> str:
    """Every rule that fired, in order, with its source; led, for "why not RoCE?", by
    what the named alternatives would have meant (`why_not`: fabric families or
    technologies the question names)."""
    rec = customer(rec)
    lines = []
    for alt in rec.alternatives:
        if any(str(alt.technology).startswith(name) for name in why_not or []):
            lines += [
                f"**Why not {alt.name}?** {alt.trade_off} Network cost "
                f"{cost_range(alt.network_usd_low, alt.network_usd_high)} against "
                f"{cost_range(rec.cost.network_usd_low, rec.cost.network_usd_high)} for {rec.fabric.name}; "
                f"{alt.relative_training_throughput:.0%} of InfiniBand training throughput.",
                "",
            ]
    lines += [f"**Why {rec.fabric.name} with a {TOPOLOGY_NAMES[str(rec.topology.kind)]}:**", ""]
    lines += [f"{i}. `{r.rule_id}`: {r.statement}  \n   _Source: {r.source}_" for i, r in enumerate(rec.explanation, 1)]
    lines += considered_lines(rec)
    if rec.performance.assumptions:
        lines += ["", "**The all-reduce estimate assumes:** " + " ".join(rec.performance.assumptions)]
    return "\n".join(lines)


def compare_markdown(rec: Recommendation) -> str:
    """The chosen fabric and the alternatives side by side."""
    rec = customer(rec)
    rows = [
        (
            f"**{rec.fabric.name}** (recommended)",
            cost_range(rec.cost.network_usd_low, rec.cost.network_usd_high),
            rec.performance.relative_training_throughput,
            rec.performance.allreduce_ms,
            rec.fabric.latency_us,
            "",
            rec.performance.step,
        )
    ]
    rows += [
        (
            a.name,
            cost_range(a.network_usd_low, a.network_usd_high),
            a.relative_training_throughput,
            a.allreduce_ms,
            a.latency_us,
            a.trade_off,
            a.step,
        )
        for a in rec.alternatives
    ]
    lines = [f"**Fabrics compared for {workload_line(rec)}**", ""]
    for name, cost, throughput, allreduce, latency, trade_off, step in rows:
        timing = f", all-reduce {duration(allreduce)}" if allreduce is not None else ""
        if step is not None:
            timing += (
                f", {duration(step.exposed_ms)} exposed per {duration(step.step_ms)} step ({step.exposed_share:.1%})"
            )
        lines.append(
            f"- {name}: network {cost}, {throughput:.0%} training throughput{timing}, latency {latency} us"
            + (f". {trade_off}" if trade_off else "")
        )
    return "\n".join(lines)


def what_changed_markdown(old: Recommendation, new: Recommendation) -> str:
    """The figures a what-if changed, before and after."""
    old = customer(old)
    new = customer(new)
    checks = [
        ("Workload", str(old.profile.workload), str(new.profile.workload)),
        ("GPU", old.profile.gpu_model or "not named", new.profile.gpu_model or "not named"),
        ("GPUs", f"{old.profile.gpu_count:,}", f"{new.profile.gpu_count:,}"),
        ("Servers" if new.node_word == "server" else f"{new.node_word}s", _servers(old), _servers(new)),
        ("Model", _model_size(old), _model_size(new)),
        ("Budget", _budget(old), _budget(new)),
        ("Fabric", old.fabric.name, new.fabric.name),
        ("Topology", topology_line(old.topology), topology_line(new.topology)),
        ("Switches", switches_line(old.topology), switches_line(new.topology)),
        (
            "Network cost",
            cost_range(old.cost.network_usd_low, old.cost.network_usd_high),
            cost_range(new.cost.network_usd_low, new.cost.network_usd_high),
        ),
    ]
    before_plan, after_plan = old.performance.plan, new.performance.plan
    if before_plan is not None and after_plan is not None:  # "and with PP 4?"
        checks.append(
            (
                "Parallelism",
                f"TP {before_plan.tp} x PP {before_plan.pp} x DP {before_plan.dp:,}",
                f"TP {after_plan.tp} x PP {after_plan.pp} x DP {after_plan.dp:,}",
            )
        )
    if old.performance.allreduce_ms is not None and new.performance.allreduce_ms is not None:
        checks.append(("All-reduce", duration(old.performance.allreduce_ms), duration(new.performance.allreduce_ms)))
    changed = [f"- **{name}:** {before} -> {after}" for name, before, after in checks if before != after]
    return "\n".join(["**What changed**", *changed]) if changed else "**Nothing in the design changed.**"


def _servers(rec: Recommendation) -> str:
    return f"{rec.profile.node_count:,} x {rec.profile.gpus_per_node} GPUs"


def _model_size(rec: Recommendation) -> str:
    return f"{rec.profile.model_params_b:g}B parameters" if rec.profile.model_params_b else "not given"


def _budget(rec: Recommendation) -> str:
    return cost_range(rec.profile.budget_usd, rec.profile.budget_usd) if rec.profile.budget_usd else "not given"


def changes_markdown(old: Recommendation, new: Recommendation) -> str:
    """What a what-if changed, followed by the new summary."""
    return f"{what_changed_markdown(old, new)}\n\n{recommendation_markdown(new, reasons=3)}"


_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9\"'(])")


def lead_and_detail(text: str) -> tuple[str, str]:
    """The first sentence of an answer (the direct answer) and the rest (the detail)."""
    parts = _SENTENCE_END.split(text.strip(), maxsplit=1)
    return parts[0], parts[1] if len(parts) > 1 else ""


def answer_markdown(answer: Answer) -> str:
    """The direct answer first (the entry's first sentence) with its source, then the detail."""
    answer = customer(answer)
    lead, detail = lead_and_detail(answer.text)
    entry = f"**{answer.topic}**: {lead}\n\n_Source: {answer.source}_"
    if answer.note:  # before the detail, which may repeat a claim of the guide the note corrects
        entry += f"\n\n**Note:** {answer.note}"
    if detail:
        entry += f"\n\n{detail}"
    for other in answer.related:  # nearly as relevant: the question may mean it
        entry += f"\n\n**Also relevant: {other.topic}**: {other.text}\n\n_Source: {other.source}_"
    if answer.not_covered:
        terms = ", ".join(answer.not_covered)
        return (
            f"My knowledge base has nothing on {terms}, so I can't answer that from a source. "
            f"The closest entry I have:\n\n{entry}"
        )
    if not answer.confident:
        others = "".join(f" or **{other.topic}**" for other in answer.related)
        return (
            f"I'm not sure I have the answer to that. The closest entry I have is **{answer.topic}**{others}; "
            "if it is not what you meant, tell me a little more.\n\n" + entry
        )
    return entry


# why a stated size could not be used (extraction's `rejected`), in the customer's words
SIZE_LIMITS = {
    "gpu_count": f"a cluster has 1 to {MAX_GPUS:,} GPUs",
    "node_count": f"a cluster has 1 to {MAX_GPUS:,} servers",
    "gpus_per_node": f"a server has 1 to {MAX_GPUS_PER_NODE} GPUs",
}


class StatedText(Protocol):
    """A piece of the customer's text and the field it gave (extraction's `Span` is one;
    renderers do not import the extractor)."""

    @property
    def field(self) -> str: ...

    @property
    def text(self) -> str: ...


def rejected_markdown(rejected: Iterable[StatedText]) -> str:
    """'I can't size "0 GPUs": a cluster has 1 to 1,000,000 GPUs.' for each rejected span,
    and for a GPU the catalogue does not have, the ones it does."""
    return "\n".join(_unusable(span) for span in rejected)


def _unusable(span: StatedText) -> str:
    if span.field == "gpu_model":
        known = ", ".join(catalogue.gpu_models())
        return f'I have no data for a GPU called "{escape_markdown(span.text)}" (I know {known}), so I leave the model out.'
    return f'I can\'t size "{escape_markdown(span.text)}": {SIZE_LIMITS.get(span.field, "that is out of range")}.'


def clarification_markdown(missing: list[str]) -> str:
    asks = [QUESTIONS.get(name, f"What is the {name.replace('_', ' ')}?") for name in missing]
    return "To size the network I still need:\n" + "\n".join(f"- {a}" for a in asks)


# the contract's field names as a person says them, for messages shown in chat
PLAIN_FIELDS = dict(labels().fields)
_FIELD_NAME = re.compile(r"\b(" + "|".join(sorted(PLAIN_FIELDS, key=len, reverse=True)) + r")\b")


def plain_fields(text: str) -> str:
    """'gpu_count: 100 is not node_count x gpus_per_node' in words a customer uses."""
    return _FIELD_NAME.sub(lambda m: PLAIN_FIELDS[m.group(1)], text)


def invalid_profile_markdown(error: ValidationError) -> str:
    problems = "\n".join(f"- {plain_fields(e['msg'].removeprefix('Value error, '))}" for e in error.errors())
    return f"Those details don't add up yet:\n{problems}"
