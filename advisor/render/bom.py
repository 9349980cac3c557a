"""A recommendation's bill of materials as CSV (the API's bom.csv and the CLI's
--bom-csv) and the figures every renderer shows beside it (cost by category).

One row per BOM line, then one total row; prices in US dollars. Cells that a spreadsheet
would read as a formula (starting with =, +, -, @, a tab or a carriage return) are
prefixed with a quote.
"""

from __future__ import annotations

import csv
import io

from advisor.render.wording import customer
from core import links
from rules.facts import usd
from rules.models import Cost, Recommendation

COLUMNS = (
    "fabric",
    "category",
    "part_number",
    "description",
    "quantity",
    "unit_usd_low",
    "unit_usd_high",
    "total_usd_low",
    "total_usd_high",
    "included",
    "watts_each",
    "rack_units_each",
    "price_date",
    "source",
    "note",
)
FABRIC_NAMES = {
    "compute": "compute fabric",
    "storage": "storage",
    "in_band": "in-band management",
    "out_of_band": "out-of-band management",
}
CATEGORY_NAMES = {
    "switch": "switches",
    "nic": "NICs",
    "transceiver": "optics",
    "cable": "cables",
    "fibre": "fibre",
    "software": "software",
    "spare": "spares",
}


#: the first characters a spreadsheet reads as the start of a formula (OWASP's CSV injection
#: list: = + - @, and a tab or carriage return, after which Excel reads one of those)
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def _cell(value: object) -> object:
    if isinstance(value, str) and value[:1] in FORMULA_STARTS:
        return "'" + value
    return value


def _number(value: float | None) -> str:
    if value is None:
        return ""
    return f"{value:g}" if value != int(value) else str(int(value))


def bom_csv(rec: Recommendation) -> str:
    """The bill of materials as CSV text, with a final total row."""
    rec = customer(rec)
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\r\n")
    writer.writerow(COLUMNS)
    for line in rec.bill_of_materials:
        writer.writerow(
            [
                _cell(v)
                for v in (
                    line.fabric,
                    line.category,
                    line.part_number,
                    line.description,
                    line.quantity,
                    _number(line.unit_usd_low),
                    _number(line.unit_usd_high),
                    _number(line.usd_low),
                    _number(line.usd_high),
                    "yes" if line.included else "no",
                    _number(line.watts),
                    _number(line.rack_units),
                    line.price_date,
                    line.source,
                    line.note,
                )
            ]
        )
    cost = rec.cost
    total = {
        "fabric": "total",
        "description": f"Network for {rec.fabric.name}",
        "total_usd_low": cost.network_usd_low,
        "total_usd_high": cost.network_usd_high,
        "watts_each": cost.watts,
        "rack_units_each": cost.rack_units,
        "price_date": cost.price_book_date or "",
        "source": cost.basis,
    }
    writer.writerow([total.get(column, "") for column in COLUMNS])
    return out.getvalue()


def category_lines(cost: Cost) -> list[str]:
    """'switches $216K-$300K' for each category with a cost, largest first."""
    parts = sorted((p for p in cost.by_category if p.usd_high), key=lambda p: -p.usd_high)
    return [f"{CATEGORY_NAMES.get(p.name, p.name)} {usd(p.usd_low)}-{usd(p.usd_high)}" for p in parts]


def fabric_lines(cost: Cost) -> list[str]:
    """'compute fabric $273K-$432K (6.5 kW, 6U)' for each network."""
    return [
        f"{FABRIC_NAMES.get(p.name, p.name)} {usd(p.usd_low)}-{usd(p.usd_high)}"
        f" ({p.watts / 1000:.1f} kW, {p.rack_units}U)"
        for p in cost.by_fabric
    ]


def sibling_url(diagram_url: str | None, name: str) -> str | None:
    """The report's or the CSV's URL beside a recommendation's diagram URL
    (`.../r_x/diagram.svg` -> `.../r_x/report`), signed when the server has an API key
    (core.links: any file of a recommendation, bom.xlsx or report.pdf alike)."""
    if not diagram_url:
        return None
    diagram_url = links.unsigned(diagram_url)
    if not diagram_url.endswith("/diagram.svg"):
        return None
    return links.signed(diagram_url.removesuffix("diagram.svg") + name)
