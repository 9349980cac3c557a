"""Plain requests about the design on the table, answered from it: its bill of materials
(with the CSV and Excel files), its printable report (PDF), its racks, and a link speed
the servers cannot run. Which words ask for which is data (understanding/extraction/data/cues.yaml `design`:
`bom`, `report`, `racks`), decided by the one understanding (understanding.understand), so the
chat, `/v1/ask` and the CLI's `ask` answer the same words the same way; advisor.answers.followup
calls `design_lines` for these topics.

After a design, the next obvious steps are offered as quick replies (`QUICK_REPLIES`):
their payloads are plain words that the same understanding reads, not intents, so a
button and the same words typed get the same answer.
"""

from __future__ import annotations

from advisor.designs.quote import racks
from advisor.models import QuickReply
from advisor.render import markdown
from core import links
from core.settings import settings
from rules.models import ProfileDraft, Racks, Recommendation
from rules.servers import link_problem

#: the design topics answered here (understanding/extraction/data/cues.yaml `design`)
TOPICS = ("bom", "report", "racks")

#: the next steps offered after a design: (button title, the words it sends)
QUICK_REPLIES = (
    QuickReply(title="Download BOM", payload="export the bill of materials"),
    QuickReply(title="Printable report", payload="printable report of this design"),
    QuickReply(title="Compare", payload="compare the fabric options"),
    QuickReply(title="Why", payload="why this design?"),
)

#: BOM lines listed in a reply before the rest are left to the files
BOM_LINES_SHOWN = 12


def file_url(rec: Recommendation, name: str) -> str:
    """The public link to one of a stored design's files (bom.csv, bom.xlsx, report.pdf),
    signed when the server has an API key: a browser following it sends no key."""
    return links.signed(f"{settings.public_url}/v1/recommendations/{rec.id}/{name}") or ""


def _bom_lines(rec: Recommendation) -> list[str]:
    bought = [line for line in rec.bill_of_materials if line.quantity]
    head = (
        f"- **Bill of materials:** {len(bought)} lines, the network at "
        f"{markdown.cost_range(rec.cost.network_usd_low, rec.cost.network_usd_high)} (list prices, dated and "
        "sourced per line in the files):"
    )
    rows = [
        f"  - {line.quantity:,} x `{line.part_number}` ({line.fabric.replace('_', ' ')}): "
        f"{markdown.escape_markdown(line.description)}" + (" (with the servers)" if line.included else "")
        for line in bought[:BOM_LINES_SHOWN]
    ]
    if len(bought) > BOM_LINES_SHOWN:
        rows.append(f"  - ... and {len(bought) - BOM_LINES_SHOWN} more lines in the files below.")
    files = (
        f"- **Files:** [Bill of materials (CSV)]({file_url(rec, 'bom.csv')}) · "
        f"[Spreadsheet (XLSX, a sheet per network)]({file_url(rec, 'bom.xlsx')})"
    )
    return [head, *rows, files]


def _report_lines(rec: Recommendation) -> list[str]:
    return [
        f"- **Printable report:** [Report (PDF)]({file_url(rec, 'report.pdf')}) · "
        f"[Report (web page, prints on A4)]({file_url(rec, 'report')}): the design, its diagram, the bill of "
        "materials with totals, the configuration, the alternatives side by side and the sources."
    ]


def racks_of(rec: Recommendation) -> Racks:
    """The design's racks: as stored with it (the quote's floor figures), else worked out
    the same way."""
    return rec.racks if rec.racks is not None else racks(rec)


def _racks_lines(rec: Recommendation) -> list[str]:
    r = racks_of(rec)
    held = (
        f"{r.servers:,} rack-scale systems, one per rack"
        if r.servers_per_rack == 1
        else f"{r.servers:,} servers, {r.servers_per_rack} per rack"
    )
    assumed, _, source = r.basis.partition(" Source: ")
    return [
        f"- **Racks:** {r.server_racks + r.network_racks:,} in all: {r.server_racks:,} for the GPU servers "
        f"({held}) and {r.network_racks:,} network rack{'s' if r.network_racks != 1 else ''} for the switches "
        f"({r.switch_rack_units:,} rack units). Assumed: {assumed}" + (f" (source: {source})" if source else "")
    ]


def design_lines(rec: Recommendation, topic: str) -> list[str]:
    """The lines of the answer about one of TOPICS."""
    if topic == "bom":
        return _bom_lines(rec)
    if topic == "report":
        return _report_lines(rec)
    return _racks_lines(rec)


def link_refusal(asked: ProfileDraft, merged: ProfileDraft) -> str | None:
    """Why the link speed this message asks for (`asked.link_gbps`) cannot be applied to
    the profile it joins (`merged`: its GPU), in markdown; None when it can or none is asked."""
    if asked.link_gbps is None:
        return None
    problem = link_problem(merged.model_copy(update={"link_gbps": asked.link_gbps}))
    if not problem:
        return None
    return f"**Not applied:** {problem.removeprefix('link_gbps: ')} The link speed stays as it was."
