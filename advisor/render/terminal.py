"""Recommendations, topologies and knowledge hits as rich tables for the CLI."""

from __future__ import annotations

import re

from rich.console import Console, Group, RenderableType
from rich.table import Table
from rich.text import Text

from advisor.render import headline
from advisor.render.bom import CATEGORY_NAMES, FABRIC_NAMES, fabric_lines
from advisor.render.markdown import (
    PORT_ROLES,
    cables_line,
    cost_range,
    duration,
    plan_line,
    step_line,
    switches_line,
    topology_line,
)
from advisor.render.wording import customer
from rules.models import Growth, Recommendation, Topology


def recommendation_view(rec: Recommendation, diagram_url: str | None = None, *, titled: bool = True) -> Group:
    """The design as the CLI shows it; titled=False leaves out its first line
    (headline.title), which the CLI prints before loading rich."""
    rec = customer(rec)
    f, t, perf = rec.fabric, rec.topology, rec.performance
    title = Text(headline.title(rec), style="table.title") if titled else None  # a "[" typed is no markup
    summary = Table(title=title, show_header=False, title_justify="left")
    summary.add_column(style="bold")
    summary.add_column(overflow="fold")
    summary.add_row("Fabric", f.name + (f" on {f.switch_model}" if f.switch_model else ""))
    summary.add_row("Topology", topology_line(t))
    summary.add_row("Switches", switches_line(t))
    summary.add_row("Cables", cables_line(t))
    summary.add_row("Network cost", cost_range(rec.cost.network_usd_low, rec.cost.network_usd_high))
    if rec.growth is not None:
        summary.add_row("Growth", growth_line(rec.growth))
    if rec.cost.by_fabric:
        summary.add_row("By network", "; ".join(fabric_lines(rec.cost)))
    if perf.allreduce_ms is not None:
        summary.add_row("All-reduce", f"{duration(perf.allreduce_ms)} per gradient sync")
    summary.add_row("Training throughput", f"{perf.relative_training_throughput:.0%} of InfiniBand")
    if perf.plan:
        summary.add_row("Parallelism plan", plan_line(perf))
    if perf.step:
        summary.add_row("Training step", step_line(perf.step))
    if perf.in_network_allreduce_ms is not None:
        summary.add_row("With SHARP", f"{duration(perf.in_network_allreduce_ms)} per gradient sync (option)")
    if rec.id:
        summary.add_row("Id", rec.id)
    if rec.quote is not None:
        who = f" for {rec.quote.prepared_for}" if rec.quote.prepared_for else ""
        summary.add_row(
            "Quote", f"Q-{(rec.id or '').removeprefix('r_').upper()}{who}, valid until {rec.quote.valid_until}"
        )
        if rec.quote.discount_pct:
            net = cost_range(rec.quote.net_usd_low, rec.quote.net_usd_high)
            summary.add_row("After discount", f"{net} ({rec.quote.discount_pct:g} % off)")
    if diagram_url:
        summary.add_row("Diagram", diagram_url)

    ports = Table(title=headline.ports_label(rec), title_justify="left")
    for column in ("role", "count", "speed", "why"):
        ports.add_column(column)
    for p in rec.ports_per_server:
        ports.add_row(PORT_ROLES[str(p.role)], str(p.count), f"{p.gbps}G", p.note)

    reasons = Table(title="Why (every rule that fired)", title_justify="left")
    reasons.add_column("#", justify="right")
    reasons.add_column("rule", no_wrap=True)  # ids are grepped for: never split them
    reasons.add_column("statement")
    reasons.add_column("source", style="dim")
    for i, r in enumerate(rec.explanation, 1):
        reasons.add_row(str(i), r.rule_id, r.statement, r.source)

    parts: list[RenderableType] = [summary, ports, reasons]
    configuration = rec.fabric_configuration
    if configuration:
        settings = Table(title=f"Fabric configuration ({configuration.switch_family})", title_justify="left")
        for column in ("where", "setting", "value", "why"):
            settings.add_column(column)
        for item in configuration.settings + configuration.validation:
            settings.add_row(item.area.replace("_", " "), item.setting, item.value, item.why)
        parts.append(settings)
    elif rec.roce_configuration:
        roce = Table(title="RoCE configuration", title_justify="left")
        roce.add_column("setting")
        roce.add_column("value")
        roce.add_column("why")
        for check in rec.roce_configuration:
            roce.add_row(check.setting, check.value, check.why)
        parts.append(roce)
    if rec.alternatives:
        alternatives = Table(title="Alternatives", title_justify="left")
        for column in (
            "fabric",
            "network cost",
            "throughput",
            "all-reduce",
            "exposed / step",
            "latency (us)",
            "trade-off",
        ):
            alternatives.add_column(column)
        for a in rec.alternatives:
            alternatives.add_row(
                a.name,
                cost_range(a.network_usd_low, a.network_usd_high),
                f"{a.relative_training_throughput:.0%}",
                duration(a.allreduce_ms) if a.allreduce_ms is not None else "-",
                f"{duration(a.step.exposed_ms)} / {duration(a.step.step_ms)}" if a.step else "-",
                a.latency_us,
                a.trade_off,
            )
        parts.append(alternatives)
    parts += [Text(f"Check: {w}", style="yellow") for w in rec.warnings]
    return Group(*parts)


#: Below this many columns the BOM drops its unit-price column (the total stays).
WIDE_BOM = 110


def bom_view(rec: Recommendation, width: int | None = None) -> Table:
    """The bill of materials: a section per network (its subtotal, power and space),
    one row per line, then the total. Part numbers and prices never wrap or get cut;
    the description folds, so the table reads at 80 columns (the unit price shows from
    WIDE_BOM columns up)."""
    rec = customer(rec)
    wide = width is None or width >= WIDE_BOM
    table = Table(
        title=f"Bill of materials (price book {rec.cost.price_book_date or '-'}; low = street, high = list)",
        title_justify="left",
        expand=False,
    )
    longest = max((len(line.part_number) for line in rec.bill_of_materials), default=11)
    table.add_column("part number", no_wrap=True, min_width=max(longest, 11))
    table.add_column("description", overflow="fold", ratio=1)
    table.add_column("qty", justify="right", no_wrap=True)
    if wide:
        table.add_column("unit", justify="right", no_wrap=True)
    table.add_column("total", justify="right", no_wrap=True)
    for part in rec.cost.by_fabric:
        heading = f"[bold]{FABRIC_NAMES.get(part.name, part.name)}[/bold] ({part.watts:,} W, {part.rack_units}U)"
        table.add_row(
            "", heading, "", *([""] if wide else []), f"[bold]{cost_range(part.usd_low, part.usd_high)}[/bold]"
        )
        for line in (line for line in rec.bill_of_materials if line.fabric == part.name):
            unit = "included" if line.included else cost_range(line.unit_usd_low, line.unit_usd_high)
            total = "included" if line.included else cost_range(line.usd_low, line.usd_high)
            table.add_row(
                line.part_number,
                line.description
                if line.description.startswith("Spare")
                else f"{CATEGORY_NAMES.get(line.category, line.category)}: {line.description}",
                f"{line.quantity:,}",
                *([unit] if wide else []),
                total,
            )
        table.add_section()
    total = cost_range(rec.cost.network_usd_low, rec.cost.network_usd_high)
    table.add_row("", "[bold]Total network[/bold]", "", *([""] if wide else []), f"[bold]{total}[/bold]")
    q = rec.quote
    if q is not None and q.discount_pct:
        off = cost_range(q.discount_usd_low, q.discount_usd_high)
        table.add_row("", f"Discount ({q.discount_pct:g} %)", "", *([""] if wide else []), f"-({off})")
        net = cost_range(q.net_usd_low, q.net_usd_high)
        table.add_row("", "[bold]Net after discount[/bold]", "", *([""] if wide else []), f"[bold]{net}[/bold]")
    return table


def topology_view(t: Topology) -> Table:
    table = Table(title="Fabric sizing", show_header=False, title_justify="left")
    table.add_column(style="bold")
    table.add_column()
    table.add_row("Topology", topology_line(t))
    table.add_row("Endpoints", f"{t.endpoints:,}")
    table.add_row("Switches", switches_line(t))
    table.add_row("Cables", cables_line(t))
    table.add_row("Bisection", f"{t.bisection_gbps / 1000:,.1f} Tb/s")
    for note in t.notes:
        table.add_row("Note", note)
    return table


def print_view(view: RenderableType, console: Console | None = None) -> None:
    (console or Console()).print(view)


# a link's text holds no bracket and its address no bracket or space, so an unclosed "["
# costs one scan to the next bracket, not one to the end of the text (linear time)
_LINK = re.compile(r"\[([^\[\]]+)\]\(([^\s()\[\]]+)\)")
_STRONG = re.compile(r"\*\*(.+?)\*\*|(?<!\w)__(.+?)__(?!\w)")
# the emphasised words stop at the next mark or line end, so an unclosed mark costs one
# scan to it, not one to the end of the text (tests/test_input_bounds.py)
_EMPHASIS = re.compile(r"(?<![\w*])\*(?![\s*])([^*\n]+?)(?<!\s)\*(?![\w*])|(?<!\w)_(?![\s_])([^_\n]+?)(?<!\s)_(?!\w)")
_CODE = re.compile(r"`([^`]+)`")
_HEADING = re.compile(r"^#{1,6}\s+", re.M)


def plain_text(markdown: str) -> str:
    """An answer's markdown as plain text, for a pipe or a file (`ask` when stdout is not
    a terminal): the words and line breaks kept, the marks dropped (bold, emphasis, code
    spans, headings), a link as "text (url)". Lists keep their "- " and "1. "; lines are
    not wrapped, so grep and a mail client see whole sentences. Underscores inside words
    (NCCL_IB_HCA, mlx5_0) are not emphasis and stay."""
    text = _LINK.sub(lambda m: m.group(1) if m.group(1) == m.group(2) else f"{m.group(1)} ({m.group(2)})", markdown)
    text = _CODE.sub(r"\1", text)
    text = _STRONG.sub(lambda m: m.group(1) or m.group(2), text)
    text = _EMPHASIS.sub(lambda m: m.group(1) or m.group(2), text)
    return _HEADING.sub("", text)


def growth_line(growth: Growth) -> str:
    """The next unit, the tier boundary and the re-cabling limit, in one line."""
    parts = []
    step = growth.next_step
    if step is not None:
        parts.append(
            f"next unit to {step.gpus:,} GPUs adds {step.switches_added:,} switch(es), "
            f"{cost_range(step.cost_added_usd_low, step.cost_added_usd_high)}"
            + ("" if not step.recabling else " and re-cabling")
        )
    if growth.tier_limit_gpus is not None and growth.next_tier_gpus is not None:
        parts.append(f"{growth.tiers} tier(s) up to {growth.tier_limit_gpus:,} GPUs")
    elif growth.next_tier_gpus is not None:
        parts.append(f"a compute fabric from {growth.next_tier_gpus:,} GPUs")
    parts.append(f"adds without re-cabling up to {growth.grows_without_recabling_to_gpus:,} GPUs")
    return "; ".join(parts)
