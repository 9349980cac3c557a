"""Recommendations, topologies and knowledge hits as rich tables for the CLI."""

from __future__ import annotations

from rich.console import Console, Group, RenderableType
from rich.table import Table
from rich.text import Text

from advisor.render.markdown import (
    PORT_ROLES,
    cables_line,
    cost_range,
    duration,
    switches_line,
    topology_line,
    workload_line,
)
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
    if perf.allreduce_ms is not None:
        summary.add_row("All-reduce", f"{duration(perf.allreduce_ms)} per gradient sync")
    summary.add_row("Training throughput", f"{perf.relative_training_throughput:.0%} of InfiniBand")
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
    if rec.roce_configuration:
        roce = Table(title="RoCE configuration", title_justify="left")
        roce.add_column("setting")
        roce.add_column("value")
        roce.add_column("why")
        for s in rec.roce_configuration:
            roce.add_row(s.setting, s.value, s.why)
        parts.append(roce)
    if rec.alternatives:
        alternatives = Table(title="Alternatives", title_justify="left")
        for column in ("fabric", "network cost", "throughput", "all-reduce", "latency (us)", "trade-off"):
            alternatives.add_column(column)
        for a in rec.alternatives:
            alternatives.add_row(
                a.name,
                cost_range(a.network_usd_low, a.network_usd_high),
                f"{a.relative_training_throughput:.0%}",
                duration(a.allreduce_ms) if a.allreduce_ms is not None else "-",
                a.latency_us,
                a.trade_off,
            )
        parts.append(alternatives)
    parts += [Text(f"Check: {w}", style="yellow") for w in rec.warnings]
    return Group(*parts)


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
