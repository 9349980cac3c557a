"""A recommendation as a printable HTML report a sales engineer can send: `report_html(rec)`.

The design, the topology diagram (the same SVG as /diagram.svg, inline), the cost by
network and by part, the bill of materials with totals, the alternatives, every rule
that fired with its source, the assumptions, and the price book's date and sources.

Self-contained (no scripts, fonts or images from elsewhere), so it opens offline, mails
as one file and prints to PDF from any browser: an A4 page size, table headers repeated
on every printed page, rows never split. Every figure comes from the Recommendation and
every piece of its text is HTML-escaped.
"""

from __future__ import annotations

from html import escape

from advisor.render.bom import CATEGORY_NAMES, FABRIC_NAMES
from advisor.render.markdown import (
    PORT_ROLES,
    TOPOLOGY_NAMES,
    cables_line,
    cost_range,
    duration,
    switches_line,
    topology_line,
    workload_line,
)
from advisor.render.svg import topology_svg
from rules.models import BomLine, Recommendation

__all__ = ["report_html"]

STYLE = """
@page { size: A4; margin: 14mm 12mm; }
* { box-sizing: border-box; }
body { font: 10pt/1.45 -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif; color: #1f2933;
       margin: 0 auto; max-width: 190mm; padding: 8mm 0; }
h1 { font-size: 18pt; margin: 0 0 2mm; }
h2 { font-size: 12.5pt; margin: 7mm 0 2mm; padding-bottom: 1mm; border-bottom: 1px solid #cbd2d9; break-after: avoid; }
p.sub, .muted { color: #616e7c; }
dl.facts { display: grid; grid-template-columns: 38mm 1fr; gap: 1mm 4mm; margin: 0; }
dl.facts dt { font-weight: 600; }
dl.facts dd { margin: 0; }
.kpis { display: grid; grid-template-columns: repeat(4, 1fr); gap: 3mm; margin: 4mm 0; }
.kpi { border: 1px solid #e4e7eb; border-radius: 2mm; padding: 2.5mm 3mm; break-inside: avoid; }
.kpi b { display: block; font-size: 13pt; }
.kpi span { color: #616e7c; font-size: 8.5pt; }
figure { margin: 3mm 0; break-inside: avoid; }
figure svg { width: 100%; height: auto; max-height: 120mm; }
table { width: 100%; border-collapse: collapse; font-size: 8.5pt; margin: 2mm 0; }
thead { display: table-header-group; }
tr { break-inside: avoid; }
th, td { text-align: left; padding: 1.2mm 1.5mm; border-bottom: 1px solid #e4e7eb; vertical-align: top; }
th { background: #f5f7fa; font-weight: 600; }
td.num, th.num { text-align: right; white-space: nowrap; }
tr.subtotal td { font-weight: 600; background: #fafbfc; }
tr.total td { font-weight: 700; border-top: 2px solid #1f2933; }
ol.reasons li { margin-bottom: 1.5mm; break-inside: avoid; }
.source { color: #616e7c; font-size: 8.5pt; }
.warn { border-left: 3px solid #d97706; padding: 1mm 3mm; background: #fffbeb; }
ul.sources { font-size: 8pt; color: #52606d; }
footer { margin-top: 8mm; font-size: 8pt; color: #7b8794; }
"""


def _e(text: object) -> str:
    return escape(str(text), quote=True)


def _usd(low: float, high: float) -> str:
    return _e(cost_range(low, high))


def _kpi(label: str, value: str, note: str) -> str:
    return f'<div class="kpi"><span>{_e(label)}</span><b>{_e(value)}</b><span>{_e(note)}</span></div>'


def _summary(rec: Recommendation) -> str:
    f, t, perf, cost = rec.fabric, rec.topology, rec.performance, rec.cost
    per_gpu = (
        f"{cost_range(cost.per_gpu_usd_low or 0, cost.per_gpu_usd_high or 0)} per GPU"
        if cost.per_gpu_usd_high
        else "no network to buy"
    )
    share = (
        f"; {cost.budget_share_low:.1%}-{cost.budget_share_high:.1%} of the budget"
        if cost.budget_share_low is not None and cost.budget_share_high is not None
        else ""
    )
    kpis = [
        _kpi("Network cost", cost_range(cost.network_usd_low, cost.network_usd_high), per_gpu + share),
        _kpi("Switches", switches_line(t), f.switch_model or "none"),
        _kpi("Power and space", f"{cost.watts / 1000:.1f} kW", f"{cost.rack_units}U of switches"),
        _kpi(
            "All-reduce",
            duration(perf.allreduce_ms) if perf.allreduce_ms is not None else "none",
            f"{perf.relative_training_throughput:.0%} of InfiniBand training throughput",
        ),
    ]
    ports = ", ".join(f"{p.count} x {p.gbps}G {PORT_ROLES[str(p.role)]}" for p in rec.ports_per_server if p.count)
    facts = [
        ("Fabric", f.name + (f" on {f.switch_model}" if f.switch_model else "")),
        ("Topology", topology_line(t)),
        ("Server NIC", f.nic_model or "-"),
        ("Ports per server", ports or "none"),
        ("Cables", cables_line(t)),
        ("Latency", f"{f.latency_us} us port to port"),
    ]
    rows = "".join(f"<dt>{_e(k)}</dt><dd>{_e(v)}</dd>" for k, v in facts)
    return f'<div class="kpis">{"".join(kpis)}</div><dl class="facts">{rows}</dl>'


def _cost_tables(rec: Recommendation) -> str:
    cost = rec.cost
    if not cost.by_fabric:
        return f"<p>{_e(cost.basis)}</p>"
    fabric_rows = "".join(
        f"<tr><td>{_e(FABRIC_NAMES.get(p.name, p.name))}</td><td class='num'>{_usd(p.usd_low, p.usd_high)}</td>"
        f"<td class='num'>{p.watts:,} W</td><td class='num'>{p.rack_units}U</td></tr>"
        for p in cost.by_fabric
    )
    category_rows = "".join(
        f"<tr><td>{_e(CATEGORY_NAMES.get(p.name, p.name))}</td><td class='num'>{_usd(p.usd_low, p.usd_high)}</td></tr>"
        for p in cost.by_category
    )
    total = (
        f"<tr class='total'><td>Total</td><td class='num'>{_usd(cost.network_usd_low, cost.network_usd_high)}</td>"
        f"<td class='num'>{cost.watts:,} W</td><td class='num'>{cost.rack_units}U</td></tr>"
    )
    return (
        "<table><thead><tr><th>Network</th><th class='num'>Cost</th><th class='num'>Power</th>"
        f"<th class='num'>Switch space</th></tr></thead><tbody>{fabric_rows}{total}</tbody></table>"
        "<table><thead><tr><th>Category</th><th class='num'>Cost</th></tr></thead>"
        f"<tbody>{category_rows}</tbody></table>"
        f"<p class='source'>{_e(cost.basis)}</p>"
    )


def _bom_row(line: BomLine) -> str:
    unit = "included" if line.included else cost_range(line.unit_usd_low, line.unit_usd_high)
    total = "included" if line.included else cost_range(line.usd_low, line.usd_high)
    return (
        f"<tr><td>{_e(CATEGORY_NAMES.get(line.category, line.category))}</td><td>{_e(line.part_number)}</td>"
        f"<td>{_e(line.description)}<div class='source'>{_e(line.note)}</div></td>"
        f"<td class='num'>{line.quantity:,}</td><td class='num'>{_e(unit)}</td><td class='num'>{_e(total)}</td></tr>"
    )


def _bom(rec: Recommendation) -> str:
    if not rec.bill_of_materials:
        return "<p>No network parts to buy: one server's GPUs talk over NVLink.</p>"
    body = []
    for part in rec.cost.by_fabric:
        lines = [line for line in rec.bill_of_materials if line.fabric == part.name]
        body.append(
            f"<tr class='subtotal'><td colspan='5'>{_e(FABRIC_NAMES.get(part.name, part.name))}</td>"
            f"<td class='num'>{_usd(part.usd_low, part.usd_high)}</td></tr>"
        )
        body += [_bom_row(line) for line in lines]
    body.append(
        f"<tr class='total'><td colspan='5'>Total network</td>"
        f"<td class='num'>{_usd(rec.cost.network_usd_low, rec.cost.network_usd_high)}</td></tr>"
    )
    return (
        "<table class='bom'><thead><tr><th>Category</th><th>Part number</th><th>Description</th>"
        "<th class='num'>Qty</th><th class='num'>Unit</th><th class='num'>Total</th></tr></thead>"
        f"<tbody>{''.join(body)}</tbody></table>"
    )


def _alternatives(rec: Recommendation) -> str:
    if not rec.alternatives:
        return ""
    rows = "".join(
        f"<tr><td>{_e(a.name)}</td><td class='num'>{_usd(a.network_usd_low, a.network_usd_high)}</td>"
        f"<td class='num'>{_e(f'{a.relative_cost:.2f}x' if a.relative_cost else '-')}</td>"
        f"<td class='num'>{a.relative_training_throughput:.0%}</td><td>{_e(a.trade_off)}</td></tr>"
        for a in rec.alternatives
    )
    return (
        "<h2>Alternatives considered</h2><table><thead><tr><th>Fabric</th><th class='num'>Network cost</th>"
        "<th class='num'>Cost vs recommended</th><th class='num'>Training throughput</th><th>Trade-off</th></tr>"
        f"</thead><tbody>{rows}</tbody></table>"
    )


def _reasons(rec: Recommendation) -> str:
    items = "".join(
        f"<li>{_e(r.statement)}<div class='source'>Rule <code>{_e(r.rule_id)}</code>. Source: {_e(r.source)}</div></li>"
        for r in rec.explanation
    )
    warnings = "".join(f"<p class='warn'><b>Check:</b> {_e(w)}</p>" for w in rec.warnings)
    return f"<ol class='reasons'>{items}</ol>{warnings}"


def _assumptions(rec: Recommendation) -> str:
    items = [*rec.cost.assumptions, *rec.performance.assumptions, *rec.topology.notes]
    lis = "".join(f"<li>{_e(a)}</li>" for a in items)
    sources = sorted({line.source for line in rec.bill_of_materials if not line.included})
    price_sources = "".join(f"<li>{_e(s)}</li>" for s in sources)
    book = rec.cost.price_book_date or "-"
    return (
        f"<ul>{lis}</ul><h2>Price book</h2><p>Prices from the price book of <b>{_e(book)}</b>; each range runs "
        "from street to list price. Prices change: ask for a quote before committing.</p>"
        f"<ul class='sources'>{price_sources}</ul>"
    )


def _inline_svg(rec: Recommendation) -> str:
    """The diagram without its XML declaration, which has no place inside HTML."""
    svg = topology_svg(rec)
    return svg.split("?>", 1)[1].lstrip() if svg.startswith("<?xml") else svg


def report_html(rec: Recommendation) -> str:
    """The whole report as one HTML document."""
    t = rec.topology
    title = f"Network recommendation: {rec.fabric.name}, {TOPOLOGY_NAMES[str(t.kind)]}"
    ident = f"Recommendation {rec.id}" if rec.id else "Recommendation (not stored)"
    return (
        "<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'>"
        "<meta name='viewport' content='width=device-width, initial-scale=1'>"
        f"<title>{_e(title)}</title><style>{STYLE}</style></head><body>"
        f"<header><h1>{_e(title)}</h1><p class='sub'>For {_e(workload_line(rec))}. {_e(ident)}; "
        f"price book {_e(rec.cost.price_book_date or '-')}.</p></header>"
        f"<section id='design'><h2>The design</h2>{_summary(rec)}</section>"
        f"<section id='diagram'><h2>Topology</h2><figure>{_inline_svg(rec)}</figure></section>"
        f"<section id='cost'><h2>Cost</h2>{_cost_tables(rec)}</section>"
        f"<section id='bom'><h2>Bill of materials</h2>{_bom(rec)}</section>"
        f"<section id='alternatives'>{_alternatives(rec)}</section>"
        f"<section id='reasons'><h2>Why</h2>{_reasons(rec)}</section>"
        f"<section id='assumptions'><h2>Assumptions</h2>{_assumptions(rec)}</section>"
        "<footer>Made by Fabric Advisor from the seed guide's rules, NVIDIA reference architectures and a "
        "dated price book; every figure above says where it comes from.</footer>"
        "</body></html>"
    )
