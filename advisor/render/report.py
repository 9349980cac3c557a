"""A recommendation as a quote-ready HTML report a sales engineer can send:
`report_html(rec)`; advisor.render.pdf prints the same page to PDF on the server.

The quote's heading (quote id, date, validity, prepared for, the versions of the data
the design used), the design, the topology diagram (the same SVG as /diagram.svg,
inline), racks and power, the chosen fabric's settings, the cost by network and by part
with the customer's discount, the bill of materials with totals, support and licence
lines, the alternatives side by side, every rule that fired with its source, the
assumptions, and the price book's date and sources. Every text passes through
advisor.render.wording first, so sources are named by title and publisher.

Self-contained (no scripts, fonts or images from elsewhere), so it opens offline, mails
as one file and prints to PDF from any browser: an A4 page size, page numbers in the
page margin ("Page 2 of 6", CSS @page counters), table headers repeated on every
printed page, rows never split. Every figure comes from the Recommendation and
every piece of its text is HTML-escaped.
"""

from __future__ import annotations

from html import escape

from advisor.render import headline
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
from advisor.render.wording import GUIDE, customer
from rules.models import BomLine, Recommendation
from rules.platform import platform_for

__all__ = ["quote_id", "report_html"]

STYLE = """
@page { size: A4; margin: 16mm 12mm 18mm;
        @bottom-right { content: "Page " counter(page) " of " counter(pages); font: 8pt sans-serif; color: #7b8794; }
        @bottom-left { content: string(quote); font: 8pt sans-serif; color: #7b8794; } }
.quote-id { string-set: quote "Quote " content(); }
dl.quote { display: grid; grid-template-columns: 30mm 1fr 30mm 1fr; gap: 0.6mm 3mm; margin: 2mm 0 4mm;
           padding: 2.5mm 3mm; border: 1px solid #cbd2d9; border-radius: 2mm; font-size: 9pt; }
dl.quote dt { font-weight: 600; } dl.quote dd { margin: 0; }
table.side th[scope=row] { width: 30mm; }
td, .source { overflow-wrap: anywhere; }
table.config { table-layout: fixed; }
table.config th:nth-child(1) { width: 18mm; } table.config th:nth-child(2) { width: 34mm; }
table.config th:nth-child(3) { width: 62mm; }
tr.discount td { color: #047857; }
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
        (headline.ports_label(rec), ports or "none"),
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
        f"<th class='num'>Switch space</th></tr></thead><tbody>{fabric_rows}{total}{_discount_rows(rec, 2)}</tbody></table>"
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
        words = platform_for(rec.profile.gpu_model).scale_up.words
        return f"<p>No network parts to buy: one server's GPUs talk over {_e(words)}.</p>"
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
    body.append(_discount_rows(rec, 6))
    return (
        "<table class='bom'><thead><tr><th>Category</th><th>Part number</th><th>Description</th>"
        "<th class='num'>Qty</th><th class='num'>Unit</th><th class='num'>Total</th></tr></thead>"
        f"<tbody>{''.join(body)}</tbody></table>"
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


def quote_id(rec: Recommendation) -> str:
    """The quote's id: the stored design's id, so the same design is the same quote."""
    return "Q-" + rec.id.removeprefix("r_").upper() if rec.id else "Q-DRAFT"


def _quote(rec: Recommendation) -> str:
    q, v = rec.quote, rec.versions
    rows = [("Quote", quote_id(rec)), ("Recommendation", rec.id or "not stored")]
    if q is not None:
        rows += [("Date", q.issued), ("Valid until", q.valid_until), ("Prepared for", q.prepared_for or "-")]
    rows.append(("Price book", rec.cost.price_book_date or "-"))
    if v is not None:
        rows += [("Rulebook", v.rulebook), ("Catalogue", v.catalogue), ("Price book version", v.price_book)]
    cells = "".join(f"<dt>{_e(k)}</dt><dd{' class=quote-id' if k == 'Quote' else ''}>{_e(val)}</dd>" for k, val in rows)
    validity = (
        f"<p class='source'>Prices hold until {_e(q.valid_until)}; after that, ask for the quote again.</p>"
        if q is not None
        else ""
    )
    return f"<dl class='quote'>{cells}</dl>{validity}"


def _racks(rec: Recommendation) -> str:
    r = rec.racks
    if r is None:
        return ""
    rows = [
        ("GPU servers", f"{r.servers:,}"),
        ("Racks of servers", f"{r.server_racks:,} ({r.servers_per_rack} per rack)"),
        ("Switch space", f"{r.switch_rack_units:,}U"),
        ("Network racks", f"{r.network_racks:,}"),
        ("Racks in all", f"{r.server_racks + r.network_racks:,}"),
        ("Network power", f"{r.network_watts / 1000:.1f} kW"),
    ]
    cells = "".join(f"<dt>{_e(k)}</dt><dd>{_e(v)}</dd>" for k, v in rows)
    return f"<h2>Racks and power</h2><dl class='facts'>{cells}</dl><p class='source'>{_e(r.basis)}</p>"


AREAS = {
    "switch": "Switch",
    "nic": "NIC",
    "nccl": "NCCL",
    "subnet_manager": "Subnet manager",
    "validation": "Validation",
}


def _configuration(rec: Recommendation) -> str:
    c = rec.fabric_configuration
    if c is not None:
        rows = [*c.settings, *c.validation]
        title = f"Configuration: {rec.fabric.name} on {c.switch_family}"
        body = "".join(
            f"<tr><td>{_e(AREAS.get(s.area, s.area))}</td><td>{_e(s.setting)}</td><td>{_e(s.value)}</td>"
            f"<td>{_e(s.why)}<div class='source'>{_e(s.source)}</div></td></tr>"
            for s in rows
        )
    elif rec.roce_configuration:
        title = "Configuration: RoCE"
        body = "".join(
            f"<tr><td>RoCE</td><td>{_e(s.setting)}</td><td>{_e(s.value)}</td>"
            f"<td>{_e(s.why)}<div class='source'>{_e(s.source)}</div></td></tr>"
            for s in rec.roce_configuration
        )
    else:
        return ""
    return (
        f"<h2>{_e(title)}</h2><table class='config'><thead><tr><th>Where</th><th>Setting</th><th>Value</th>"
        f"<th>Why</th></tr></thead><tbody>{body}</tbody></table>"
    )


def _discount_rows(rec: Recommendation, columns: int) -> str:
    """The discount and the net as rows of their own, under a table's total."""
    q = rec.quote
    if q is None or not q.discount_pct:
        return ""
    pad = f"<td colspan='{columns - 2}'></td>" if columns > 2 else ""
    return (
        f"<tr class='discount'><td>Discount ({q.discount_pct:g} %)</td>{pad}"
        f"<td class='num'>-{_usd(q.discount_usd_low, q.discount_usd_high)}</td></tr>"
        f"<tr class='total'><td>Net after discount</td>{pad}<td class='num'>{_usd(q.net_usd_low, q.net_usd_high)}</td></tr>"
    )


def _support(rec: Recommendation) -> str:
    q = rec.quote
    if q is None or not q.support:
        return ""
    rows = "".join(
        f"<tr><td>{_e(s.item)}</td><td>{_e('priced' if s.treatment == 'priced' else 'not included')}</td>"
        f"<td>{_e(s.why)}<div class='source'>{_e(s.source)}</div></td></tr>"
        for s in q.support
    )
    return (
        "<h2>Support and licences</h2><table><thead><tr><th>Item</th><th>In this quote</th><th>Why</th></tr>"
        f"</thead><tbody>{rows}</tbody></table>"
    )


def _side_by_side(rec: Recommendation) -> str:
    """The chosen fabric and each alternative as columns, the figures as rows."""
    if not rec.alternatives:
        return ""
    switches = {str(a.technology): a for a in (rec.quote.alternative_switches if rec.quote else [])}
    t = rec.topology

    def count(leaf: int, spine: int, core: int, model: str | None) -> str:
        total = leaf + spine + core
        return f"{total:,} x {model}" if model and total else f"{total:,}"

    columns = [
        (
            f"{rec.fabric.name} (recommended)",
            cost_range(rec.cost.network_usd_low, rec.cost.network_usd_high),
            "1.00x",
            f"{rec.performance.relative_training_throughput:.0%}",
            count(t.leaf_switches, t.spine_switches, t.core_switches, rec.fabric.switch_model),
            duration(rec.performance.allreduce_ms) if rec.performance.allreduce_ms is not None else "-",
            rec.fabric.latency_us + " us",
            "the recommendation",
        )
    ]
    for a in rec.alternatives:
        s = switches.get(str(a.technology))
        columns.append(
            (
                a.name,
                cost_range(a.network_usd_low, a.network_usd_high),
                f"{a.relative_cost:.2f}x" if a.relative_cost else "-",
                f"{a.relative_training_throughput:.0%}",
                count(s.leaf_switches, s.spine_switches, s.core_switches, s.switch_model) if s else "-",
                duration(a.allreduce_ms) if a.allreduce_ms is not None else "-",
                a.latency_us + " us",
                a.trade_off,
            )
        )
    labels = [
        "Network cost",
        "Cost vs recommended",
        "Training throughput",
        "Compute switches",
        "All-reduce",
        "Latency",
        "Trade-off",
    ]
    head = "".join(f"<th>{_e(c[0])}</th>" for c in columns)
    body = "".join(
        f"<tr><th scope='row'>{_e(label)}</th>" + "".join(f"<td>{_e(c[i + 1])}</td>" for c in columns) + "</tr>"
        for i, label in enumerate(labels)
    )
    return (
        "<h2>Alternatives side by side</h2><table class='side'><thead><tr><th></th>"
        f"{head}</tr></thead><tbody>{body}</tbody></table>"
        "<p class='source'>Training throughput relative to InfiniBand; costs from the same price book.</p>"
    )


def report_html(rec: Recommendation) -> str:
    """The whole report as one HTML document."""
    rec = customer(rec)
    t = rec.topology
    title = f"Network recommendation: {rec.fabric.name}, {TOPOLOGY_NAMES[str(t.kind)]}"
    ident = f"Recommendation {rec.id}" if rec.id else "Recommendation (not stored)"
    return (
        "<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'>"
        "<meta name='viewport' content='width=device-width, initial-scale=1'>"
        f"<title>{_e(title)}</title><style>{STYLE}</style></head><body>"
        f"<header><h1>{_e(title)}</h1><p class='sub'>For {_e(workload_line(rec))}. {_e(ident)}; "
        f"price book {_e(rec.cost.price_book_date or '-')}.</p>"
        f"{_quote(rec)}</header>"
        f"<section id='design'><h2>The design</h2>{_summary(rec)}</section>"
        f"<section id='diagram'><h2>Topology</h2><figure>{_inline_svg(rec)}</figure></section>"
        f"<section id='racks'>{_racks(rec)}</section>"
        f"<section id='configuration'>{_configuration(rec)}</section>"
        f"<section id='cost'><h2>Cost</h2>{_cost_tables(rec)}</section>"
        f"<section id='bom'><h2>Bill of materials</h2>{_bom(rec)}</section>"
        f"<section id='support'>{_support(rec)}</section>"
        f"<section id='alternatives'>{_side_by_side(rec)}</section>"
        f"<section id='reasons'><h2>Why</h2>{_reasons(rec)}</section>"
        f"<section id='assumptions'><h2>Assumptions</h2>{_assumptions(rec)}</section>"
        f"<footer>Made by Fabric Advisor from the rules of the guide {_e(GUIDE)}, NVIDIA reference "
        "architectures and a dated price book; every figure above says where it comes from.</footer>"
        "</body></html>"
    )
