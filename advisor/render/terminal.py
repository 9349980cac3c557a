"""Recommendations, topologies and knowledge hits as rich tables for the CLI."""

from __future__ import annotations

from rich.console import Console, Group, RenderableType
from rich.table import Table
from rich.text import Text

from advisor.render.bom import FABRIC_NAMES, fabric_lines
from advisor.render.markdown import (
    PORT_ROLES,
    cables_line,
    cost_range,
    duration,
    plan_line,
    step_line,
    switches_line,
    topology_line,
    workload_line,
)
from advisor.render.wording import customer
from rules.models import Recommendation, Topology


def recommendation_view(rec: Recommendation, diagram_url: str | None = None) -> Group:
    f, t, perf = rec.fabric, rec.topology, rec.performance
    summary = Table(title=f"Fabric Advisor: {workload_line(rec)}", show_header=False, title_justify="left")
    summary.add_column(style="bold")
    summary.add_column(overflow="fold")
    summary.add_row("Fabric", f.name + (f" on {f.switch_model}" if f.switch_model else ""))
    summary.add_row("Topology", topology_line(t))
    summary.add_row("Switches", switches_line(t))
    summary.add_row("Cables", cables_line(t))
    summary.add_row("Network cost", cost_range(rec.cost.network_usd_low, rec.cost.network_usd_high))
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
    if diagram_url:
        summary.add_row("Diagram", diagram_url)

    ports = Table(title="Ports per server", title_justify="left")
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

    parts: list = [summary, ports, reasons]
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


def bom_view(rec: Recommendation) -> Table:
    """The bill of materials: one row per line, then the total per network and overall."""
    rec = customer(rec)
    rec = customer(rec)
    table = Table(
        title=f"Bill of materials (price book {rec.cost.price_book_date or '-'}; low = street, high = list)",
        title_justify="left",
    )
    for column, justify in (
        ("network", "left"),
        ("category", "left"),
        ("part number", "left"),
        ("description", "left"),
        ("qty", "right"),
        ("unit", "right"),
        ("total", "right"),
    ):
        table.add_column(column, justify=justify)  # type: ignore[arg-type]
    for line in rec.bill_of_materials:
        unit = "included" if line.included else cost_range(line.unit_usd_low, line.unit_usd_high)
        total = "included" if line.included else cost_range(line.usd_low, line.usd_high)
        table.add_row(
            line.fabric,
            line.category,
            line.part_number,
            line.description,
            f"{line.quantity:,}",
            unit,
            total,
        )
    for part in rec.cost.by_fabric:
        table.add_row(
            f"[bold]{FABRIC_NAMES[part.name]}[/bold]",
            "",
            "",
            f"{part.watts:,} W, {part.rack_units}U",
            "",
            "",
            cost_range(part.usd_low, part.usd_high),
        )
    table.add_row(
        "[bold]total[/bold]", "", "", "", "", "", cost_range(rec.cost.network_usd_low, rec.cost.network_usd_high)
    )
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
