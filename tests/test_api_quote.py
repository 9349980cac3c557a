"""A design as a quote a sales engineer can send, through a real API server: the
customer's name, prices and discount on POST /v1/recommendations; the PDF report
WeasyPrint renders on the server (read back with pypdf) and the XLSX workbook (read
back with openpyxl), each checked against the stored design; and the "this looks
wrong" feedback stored with the design's versions."""

from __future__ import annotations

import io
import sqlite3
from collections.abc import Iterator
from datetime import date, timedelta
from pathlib import Path

import httpx
import openpyxl
import pypdf
import pytest

from tests.servers import REPO, VENV_BIN, Server, free_port, running

#: our code in another process (make test runs these; make check leaves them out)
pytestmark = pytest.mark.e2e

ROCE = {"workload": "training", "gpu_count": 512, "gpu_model": "H100", "prefer": "rocev2"}
H100 = {"workload": "training", "node_count": 16, "gpu_model": "H100"}


@pytest.fixture(scope="module")
def work(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("quote-api")


@pytest.fixture(scope="module")
def api(work: Path) -> Iterator[Server]:
    port = free_port()
    env = {"FABRIC_ADVISOR_DB": str(work / "advisor.db"), "FABRIC_ADVISOR_API_KEY": ""}
    kb = REPO / "var" / "knowledge.db"
    if kb.exists():
        env["FABRIC_ADVISOR_KB"] = str(kb)
    command = [str(VENV_BIN / "python"), "-m", "uvicorn", "api.app:app", "--host", "127.0.0.1", "--port", str(port)]
    with running(command, port=port, health_path="/healthz", env=env) as server:
        yield server


def create(api: Server, body: dict) -> httpx.Response:
    return httpx.post(api.url + "/v1/recommendations", json=body, timeout=120)


def pdf_text(pdf: bytes) -> tuple[int, str]:
    reader = pypdf.PdfReader(io.BytesIO(pdf))
    return len(reader.pages), "\n".join(page.extract_text() for page in reader.pages)


def test_the_pdf_report_of_a_roce_design_is_a_quote_with_its_configuration(api: Server) -> None:
    response = create(api, {**ROCE, "prepared_for": "Acme AI Lab"})
    assert response.status_code == 201, response.text
    rec = response.json()
    pdf = httpx.get(f"{api.url}/v1/recommendations/{rec['id']}/report.pdf", timeout=120)
    assert pdf.status_code == 200 and pdf.headers["content-type"] == "application/pdf"
    assert pdf.content.startswith(b"%PDF-")
    pages, text = pdf_text(pdf.content)
    flat = " ".join(text.split())
    quote_id = "Q-" + rec["id"].removeprefix("r_").upper()
    issued = date.fromisoformat(rec["quote"]["issued"])
    assert quote_id in flat and issued.isoformat() in flat
    assert (issued + timedelta(days=30)).isoformat() in flat  # FABRIC_ADVISOR_QUOTE_VALID_DAYS' default
    assert "Acme AI Lab" in flat
    assert f"Page 1 of {pages}" in flat and f"Page {pages} of {pages}" in flat
    for version in rec["versions"].values():
        assert version in flat
    # the configuration section: every setting of the RoCE fabric, PFC / ECN / DCQCN among them
    assert "Configuration" in flat
    settings = rec["fabric_configuration"]["settings"]
    assert {"switch", "nic", "nccl"} <= {s["area"] for s in settings}
    for setting in settings:
        assert " ".join(setting["setting"].split())[:30] in flat, setting["setting"]
    assert all(word in flat for word in ("PFC", "ECN", "DCQCN"))
    # racks, side-by-side alternatives, support lines; no internal names
    assert "Racks and power" in flat and f"{rec['racks']['server_racks']} (4 per rack)" in flat
    for alternative in rec["alternatives"]:
        assert alternative["name"] in flat
    assert "Switch support contracts" in flat
    for word in ("seed", "Seed", ".yaml", "knowledge/", "rules/"):
        assert word not in text


def test_the_same_design_asked_for_again_is_the_same_quote(api: Server) -> None:
    first, second = create(api, H100).json(), create(api, H100).json()
    assert first["id"] == second["id"] and first["quote"] == second["quote"]
    stored = httpx.get(f"{api.url}/v1/recommendations/{first['id']}", timeout=30).json()
    assert stored["quote"]["issued"] == first["quote"]["issued"]


def test_the_xlsx_has_a_summary_and_a_sheet_per_network_matching_the_bom(api: Server) -> None:
    rec = create(api, {**H100, "prepared_for": "Acme AI Lab", "discount_pct": 12.5}).json()
    response = httpx.get(f"{api.url}/v1/recommendations/{rec['id']}/bom.xlsx", timeout=60)
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("application/vnd.openxmlformats-officedocument.spreadsheetml")
    book = openpyxl.load_workbook(io.BytesIO(response.content))
    assert book.sheetnames == ["summary", "compute", "storage", "in_band", "out_of_band"]
    for network in ("compute", "storage", "in_band", "out_of_band"):
        sheet = book[network]
        header = [cell.value for cell in sheet[1]]
        rows = [dict(zip(header, row, strict=True)) for row in sheet.iter_rows(min_row=2, values_only=True)]
        lines = [line for line in rec["bill_of_materials"] if line["fabric"] == network]
        assert [(r["Part number"], r["Quantity"], r["Total USD (low)"], r["Total USD (high)"]) for r in rows[:-1]] == [
            (
                line["part_number"],
                line["quantity"],
                line["quantity"] * line["unit_usd_low"],
                line["quantity"] * line["unit_usd_high"],
            )
            for line in lines
        ]
        part = next(p for p in rec["cost"]["by_fabric"] if p["name"] == network)
        assert (rows[-1]["Total USD (low)"], rows[-1]["Total USD (high)"]) == (part["usd_low"], part["usd_high"])
    summary = {row[0]: row[1:] for row in book["summary"].iter_rows(values_only=True) if row[0]}
    assert summary["Fabric Advisor quote"][0] == "Q-" + rec["id"].removeprefix("r_").upper()
    assert summary["Prepared for"][0] == "Acme AI Lab"
    assert summary["Valid until"][0] == rec["quote"]["valid_until"]
    assert summary["Total network"][1:3] == (rec["cost"]["network_usd_low"], rec["cost"]["network_usd_high"])
    assert summary["Discount (12.5 %)"][1:3] == (-rec["quote"]["discount_usd_low"], -rec["quote"]["discount_usd_high"])
    assert summary["Net after discount"][1:3] == (rec["quote"]["net_usd_low"], rec["quote"]["net_usd_high"])


def test_customer_prices_replace_the_price_book_and_the_discount_is_its_own_line(api: Server) -> None:
    book = create(api, H100).json()
    quoted = create(api, {**H100, "prices": {"MQM9700-NS2F": 41000, "MMA4Z00-NS": 700}, "discount_pct": 10})
    assert quoted.status_code == 201, quoted.text
    rec = quoted.json()
    assert rec["id"] != book["id"]
    assert len(rec["bill_of_materials"]) == len(book["bill_of_materials"])
    moved = 0.0
    for line, old in zip(rec["bill_of_materials"], book["bill_of_materials"], strict=True):
        if line["part_number"] in ("MQM9700-NS2F", "MMA4Z00-NS") and not line["included"]:
            unit = 41000 if line["part_number"] == "MQM9700-NS2F" else 700
            assert (line["unit_usd_low"], line["unit_usd_high"]) == (unit, unit)
            assert line["source"] == "As quoted by the customer's price list"
            moved += (unit - old["unit_usd_low"]) * line["quantity"]
        else:
            assert line == old
    assert rec["cost"]["network_usd_low"] == round(book["cost"]["network_usd_low"] + moved)
    assert sum(p["usd_low"] for p in rec["cost"]["by_fabric"]) == rec["cost"]["network_usd_low"]
    quote = rec["quote"]
    assert quote["customer_priced"] == ["MMA4Z00-NS", "MQM9700-NS2F"]
    assert quote["discount_usd_low"] == round(rec["cost"]["network_usd_low"] * 0.10)
    assert quote["net_usd_high"] == rec["cost"]["network_usd_high"] - quote["discount_usd_high"]
    html = httpx.get(f"{api.url}/v1/recommendations/{rec['id']}/report", timeout=60).text
    assert "Discount (10 %)" in html and "Net after discount" in html
    assert "As quoted by the customer&#x27;s price list" in html


@pytest.mark.parametrize(
    ("body", "says"),
    [
        ({**H100, "prices": {"NOT-A-PART": 10, "MQM9700-NS2F": 1}}, "NOT-A-PART"),
        ({**H100, "prices": {"MQM9700-NS2F": -5}}, "0 or more"),
        ({**H100, "discount_pct": 100}, "discount_pct"),
        ({**H100, "prepared_for": ""}, "prepared_for"),
    ],
)
def test_bad_quote_terms_are_a_422_that_names_them(api: Server, body: dict, says: str) -> None:
    response = create(api, body)
    assert response.status_code == 422, response.text
    assert says in response.text
    if "NOT-A-PART" in body.get("prices", {}):
        assert "MQM9700-NS2F" not in response.json()["detail"][0]["msg"]


def test_feedback_is_stored_with_the_designs_versions(api: Server, work: Path) -> None:
    rec = create(api, H100).json()
    response = httpx.post(
        f"{api.url}/v1/recommendations/{rec['id']}/feedback", json={"reason": "Spine count looks low"}, timeout=30
    )
    assert response.status_code == 201, response.text
    filed = response.json()
    assert filed["recommendation_id"] == rec["id"] and filed["versions"] == rec["versions"]
    with sqlite3.connect(work / "advisor.db") as db:
        row = db.execute(
            "SELECT recommendation_id, reason, versions FROM feedback WHERE id = ?", [filed["id"]]
        ).fetchone()
    assert row[0] == rec["id"] and row[1] == "Spine count looks low" and rec["versions"]["rulebook"] in row[2]
    unknown = httpx.post(f"{api.url}/v1/recommendations/r_000000000000/feedback", json={"reason": "wrong"}, timeout=30)
    assert unknown.status_code == 404
    empty = httpx.post(f"{api.url}/v1/recommendations/{rec['id']}/feedback", json={"reason": ""}, timeout=30)
    assert empty.status_code == 422 and "reason" in empty.text


@pytest.mark.parametrize("artifact", ["report.pdf", "bom.xlsx"])
def test_an_unknown_design_has_no_artifacts(api: Server, artifact: str) -> None:
    response = httpx.get(f"{api.url}/v1/recommendations/r_000000000000/{artifact}", timeout=30)
    assert response.status_code == 404 and "r_000000000000" in response.json()["detail"]
