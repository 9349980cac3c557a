"""A recommendation's bill of materials as an Excel workbook a purchasing team can use:
`bom_xlsx(rec)` (the API's bom.xlsx and the CLI's --bom-xlsx).

A summary sheet (the quote's id, date, validity, prepared for, the versions of the data,
the cost per network, the discount and the net), then one sheet per network (compute,
storage, in_band, out_of_band) with a row per part: part number, description, quantity,
unit and total prices (low = street, high = list), price date and source. Prices are
numbers in a dollar format, so the sheet sums and sorts; text that a spreadsheet would
read as a formula is prefixed with a quote, as in the CSV.
"""

from __future__ import annotations

import io

from openpyxl import Workbook
from openpyxl.styles import Font
from openpyxl.utils import get_column_letter
from openpyxl.worksheet.worksheet import Worksheet

from advisor.render.bom import CATEGORY_NAMES, FABRIC_NAMES
from advisor.render.report import quote_id
from advisor.render.wording import customer
from rules.models import Recommendation

__all__ = ["NETWORKS", "bom_xlsx"]

NETWORKS = ("compute", "storage", "in_band", "out_of_band")
USD = '"$"#,##0'
HEADER = (
    "Category",
    "Part number",
    "Description",
    "Quantity",
    "Unit USD (low)",
    "Unit USD (high)",
    "Total USD (low)",
    "Total USD (high)",
    "Included",
    "Price date",
    "Source",
    "Note",
)
WIDTHS = (12, 22, 60, 10, 15, 15, 16, 16, 9, 11, 60, 50)
BOLD = Font(bold=True)


def _text(value: str) -> str:
    return "'" + value if value[:1] in ("=", "+", "-", "@") else value


def _summary(sheet: Worksheet, rec: Recommendation) -> None:
    q, v, cost = rec.quote, rec.versions, rec.cost
    sheet.append(["Fabric Advisor quote", quote_id(rec)])
    sheet["A1"].font = Font(bold=True, size=13)
    rows: list[tuple[str, object]] = [("Recommendation", rec.id or "not stored")]
    if q is not None:
        rows += [("Date", q.issued), ("Valid until", q.valid_until), ("Prepared for", q.prepared_for or "")]
    rows += [("Fabric", _text(rec.fabric.name)), ("Price book", cost.price_book_date or "")]
    if v is not None:
        rows += [("Rulebook", v.rulebook), ("Catalogue", v.catalogue), ("Price book version", v.price_book)]
    for label, value in rows:
        sheet.append([label, value])
    sheet.append([])
    sheet.append(["Network", "Sheet", "USD (low)", "USD (high)", "Power (W)", "Rack units"])
    for cell in sheet[sheet.max_row]:
        cell.font = BOLD
    for part in cost.by_fabric:
        sheet.append(
            [
                FABRIC_NAMES.get(part.name, part.name),
                part.name,
                part.usd_low,
                part.usd_high,
                part.watts,
                part.rack_units,
            ]
        )
    sheet.append(["Total network", "", cost.network_usd_low, cost.network_usd_high, cost.watts, cost.rack_units])
    total_row = sheet.max_row
    if q is not None and q.discount_pct:
        sheet.append([f"Discount ({q.discount_pct:g} %)", "", -q.discount_usd_low, -q.discount_usd_high])
        sheet.append(["Net after discount", "", q.net_usd_low, q.net_usd_high])
    for row in sheet.iter_rows(min_row=total_row, max_row=sheet.max_row):
        row[0].font = BOLD
    for row in sheet.iter_rows(min_row=total_row - len(cost.by_fabric), max_row=sheet.max_row, min_col=3, max_col=4):
        for cell in row:
            cell.number_format = USD
    if q is not None and q.customer_priced:
        sheet.append([])
        sheet.append(["Customer prices", ", ".join(q.customer_priced) + ": as quoted by the customer's price list"])
    if q is not None and q.support:
        sheet.append([])
        sheet.append(["Support and licences", "In this quote", "Why", "", "", "Source"])
        for cell in sheet[sheet.max_row]:
            cell.font = BOLD
        for line in q.support:
            treatment = "priced" if line.treatment == "priced" else "not included"
            sheet.append([line.item, treatment, line.why, "", "", line.source])
    sheet.append([])
    sheet.append(["Cost basis", _text(cost.basis)])
    for column, width in zip("ABCDEF", (26, 40, 16, 16, 12, 12), strict=True):
        sheet.column_dimensions[column].width = width


def _network(sheet: Worksheet, rec: Recommendation, network: str) -> None:
    sheet.append(HEADER)
    for cell in sheet[1]:
        cell.font = BOLD
    sheet.freeze_panes = "A2"
    lines = [line for line in rec.bill_of_materials if line.fabric == network]
    for line in lines:
        sheet.append(
            [
                CATEGORY_NAMES.get(line.category, line.category),
                _text(line.part_number),
                _text(line.description),
                line.quantity,
                line.unit_usd_low,
                line.unit_usd_high,
                line.usd_low,
                line.usd_high,
                "yes" if line.included else "no",
                line.price_date,
                _text(line.source),
                _text(line.note),
            ]
        )
    part = next((p for p in rec.cost.by_fabric if p.name == network), None)
    sheet.append(
        [
            f"Total {FABRIC_NAMES.get(network, network)}",
            "",
            "",
            "",
            "",
            "",
            *((part.usd_low, part.usd_high) if part else (0, 0)),
        ]
    )
    for cell in sheet[sheet.max_row]:
        cell.font = BOLD
    for row in sheet.iter_rows(min_row=2, max_row=sheet.max_row, min_col=5, max_col=8):
        for cell in row:
            cell.number_format = USD
    for index, width in enumerate(WIDTHS, 1):
        sheet.column_dimensions[get_column_letter(index)].width = width


def bom_xlsx(rec: Recommendation) -> bytes:
    """The workbook as .xlsx bytes: a summary sheet, then a sheet per network."""
    rec = customer(rec)
    book = Workbook()
    summary = book.active
    assert summary is not None
    summary.title = "summary"
    _summary(summary, rec)
    for network in NETWORKS:
        _network(book.create_sheet(network), rec, network)
    out = io.BytesIO()
    book.save(out)
    return out.getvalue()
