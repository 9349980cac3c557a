"""Plain requests about the design on the table, through POST /v1/ask on the real HTTP
server (advisor.answers.verbs, decided by the one understanding the chat uses too): the bill of
materials with its files, the printable report, the racks, and a link speed, applied
where the servers' NICs run it and refused, with why and which platform can, where not."""

from __future__ import annotations

import re
from urllib.parse import urlsplit

import httpx
import pytest

#: our code in another process (make test runs these; make check leaves them out)
pytestmark = pytest.mark.e2e

DESIGN = "We will pretrain a 70B model on 128 H100s. What network do we need?"
QUICK_REPLIES = ["Download BOM", "Printable report", "Compare", "Why"]


def ask(client: httpx.Client, question: str, design: dict | None = None) -> dict:
    body: dict = {"question": question}
    if design is not None:
        body |= {"profile": design["profile"], "recommendation_id": design["recommendation"]["id"]}
    response = client.post("/v1/ask", json=body)
    assert response.status_code == 200, response.text
    return response.json()


@pytest.fixture(scope="module")
def h100(api) -> dict:  # type: ignore[no-untyped-def]
    with httpx.Client(base_url=api.url, timeout=60) as c:
        return ask(c, DESIGN)


def links(reply: str) -> dict[str, str]:
    """The reply's markdown links, by their path's last part (bom.csv, report.pdf, ...)."""
    return {urlsplit(url).path.rsplit("/", 1)[-1]: url for url in re.findall(r"\]\(([^)]+)\)", reply)}


def fetch(client: httpx.Client, url: str) -> httpx.Response:
    """A link of a reply, fetched from the server under test (the reply names the public URL)."""
    parts = urlsplit(url)
    return client.get(parts.path + (f"?{parts.query}" if parts.query else ""))


def test_a_design_offers_the_next_steps_as_quick_replies(h100: dict) -> None:
    assert h100["kind"] == "recommendation"
    assert [q["title"] for q in h100["quick_replies"]] == QUICK_REPLIES


@pytest.mark.parametrize(
    "question",
    [
        "show me the bill of materials",
        "export the BOM",
        "BOM as CSV",
        "can I have it as a spreadsheet?",
        "export the BOM as a spreadsheet",
        "I need the BOM in excel",
        "can I have the parts list as an Excel spreadsheet?",
    ],
)
def test_asking_for_the_bill_of_materials_lists_it_and_links_its_files(
    client: httpx.Client, h100: dict, question: str
) -> None:
    result = ask(client, question, h100)
    assert result["kind"] == "design_answer", result["decided_by"]
    rec = h100["recommendation"]
    switch = next(line for line in rec["bill_of_materials"] if line["category"] == "switch")
    assert f"`{switch['part_number']}`" in result["reply"]  # the lines themselves, in the reply
    files = links(result["reply"])
    csv = fetch(client, files["bom.csv"])
    assert csv.status_code == 200 and switch["part_number"] in csv.text
    xlsx = fetch(client, files["bom.xlsx"])
    assert xlsx.status_code == 200 and xlsx.content[:2] == b"PK"  # a zip: the workbook


@pytest.mark.parametrize("question", ["can I get this as a PDF?", "printable report"])
def test_asking_for_a_pdf_links_the_report_never_out_of_scope(client: httpx.Client, h100: dict, question: str) -> None:
    result = ask(client, question, h100)
    assert result["kind"] == "design_answer", result["decided_by"]
    pdf = fetch(client, links(result["reply"])["report.pdf"])
    assert pdf.status_code == 200 and pdf.content.startswith(b"%PDF")


def test_how_many_racks_counts_racks_not_servers(client: httpx.Client, h100: dict) -> None:
    result = ask(client, "how many racks?", h100)
    assert result["kind"] == "design_answer"
    racks = h100["recommendation"]["racks"]  # 16 DGX H100, 4 to a rack, and the switches' rack
    assert (racks["server_racks"], racks["network_racks"]) == (4, 1)
    assert "**Racks:** 5 in all: 4 for the GPU servers (16 servers, 4 per rack)" in result["reply"]
    assert "1 network rack" in result["reply"]
    assert "**Servers:**" not in result["reply"]


def test_a_slower_link_speed_is_a_what_if_designed_at_that_speed(client: httpx.Client, h100: dict) -> None:
    result = ask(client, "what if we use 200G links?", h100)
    assert result["kind"] == "recommendation"
    assert result["profile"]["link_gbps"] == 200
    fabric = result["recommendation"]["fabric"]
    assert fabric["link_gbps"] == 200 and "HDR" in fabric["name"]
    assert "**What changed**" in result["reply"]


def test_800g_on_h100_is_refused_with_why_and_the_platforms_that_can(client: httpx.Client, h100: dict) -> None:
    result = ask(client, "what if we use 800G?", h100)
    assert result["kind"] == "design_answer"
    assert result["recommendation"]["id"] == h100["recommendation"]["id"]  # the design stays
    assert result["profile"].get("link_gbps") is None  # never applied, not even to the profile
    reply = result["reply"]
    assert reply.startswith("**Not applied:**")
    assert "ConnectX-7 NICs run at most 400 Gb/s" in reply
    assert "GB300 NVL72 (ConnectX-8)" in reply and "B300" in reply


def test_800g_on_b300_is_designed_at_800g(client: httpx.Client) -> None:
    b300 = ask(client, "We will pretrain a 70B model on 128 B300 GPUs with 400G links")
    assert b300["recommendation"]["fabric"]["link_gbps"] == 400
    faster = ask(client, "what if we use 800G?", b300)
    assert faster["kind"] == "recommendation"
    assert faster["recommendation"]["fabric"]["link_gbps"] == 800


def test_the_api_field_refuses_a_speed_the_nics_cannot_run(client: httpx.Client) -> None:
    body = {"workload": "training", "gpu_count": 128, "gpu_model": "H100", "link_gbps": 800}
    response = client.post("/v1/recommendations", json=body)
    assert response.status_code == 422
    assert "ConnectX-7" in response.text and "ConnectX-8" in response.text
    body["link_gbps"] = 200
    assert client.post("/v1/recommendations", json=body).json()["fabric"]["link_gbps"] == 200
