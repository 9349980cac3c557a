"""The printable report, printed: Debian's headless chromium (driven by Playwright, no
browser download) opens GET /v1/recommendations/{id}/report from a real API server and
prints it to PDF; the PDF has A4 pages, as many as the content needs and no more, and
the page lays out within the printed width with every BOM line on it."""

from __future__ import annotations

import re
from collections.abc import Iterator

import httpx
import pytest

from tests.browsers import playwright_api
from tests.servers import REPO, VENV_BIN, Server, free_port, running

pytestmark = [pytest.mark.browser]


A4_POINTS = (595.0, 842.0)
A4_CSS_WIDTH_PX = 794  # 210 mm at 96 px per inch


@pytest.fixture(scope="module")
def api(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    work = tmp_path_factory.mktemp("report-api")
    port = free_port()
    kb = REPO / "var" / "knowledge.db"
    env = {"FABRIC_ADVISOR_DB": str(work / "advisor.db"), "FABRIC_ADVISOR_API_KEY": ""}
    if kb.exists():
        env["FABRIC_ADVISOR_KB"] = str(kb)
    command = [str(VENV_BIN / "python"), "-m", "uvicorn", "api.app:app", "--host", "127.0.0.1", "--port", str(port)]
    with running(command, port=port, health_path="/healthz", env=env) as server:
        yield server


def stored(api: Server, profile: dict) -> dict:
    response = httpx.post(api.url + "/v1/recommendations", json=profile, timeout=60)
    assert response.status_code == 201, response.text
    return response.json()


def pdf_pages(pdf: bytes) -> list[tuple[float, float]]:
    """The (width, height) in points of every page of a PDF chromium wrote: its page
    objects are plain dictionaries (`/Type /Page` with a `/MediaBox`)."""
    assert pdf.startswith(b"%PDF-"), pdf[:20]
    pages = []
    for match in re.finditer(rb"/Type\s*/Page(?![s\w])", pdf):
        window = pdf[max(0, match.start() - 600) : match.end() + 600]
        box = re.search(rb"/MediaBox\s*\[\s*([\d.]+)\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)\s*\]", window)
        assert box, "a page without a MediaBox"
        pages.append((float(box.group(3)) - float(box.group(1)), float(box.group(4)) - float(box.group(2))))
    # past 8 pages chromium nests the page tree: the root's /Count is the largest
    counts = [int(c) for c in re.findall(rb"/Count\s+(\d+)", pdf)]
    assert counts and max(counts) == len(pages)
    return pages


@pytest.mark.parametrize(
    ("profile", "most_pages"),
    [
        # the quote's sections (configuration, racks, support lines, alternatives side by side) add pages
        ({"workload": "training", "node_count": 16, "gpu_model": "H100", "budget_usd": 5_000_000}, 12),
        # three tiers, the storage, in-band and out-of-band networks (issue 22) each with their BOM lines
        ({"workload": "training", "gpu_count": 100_000, "gpu_model": "H100", "model_params_b": 1800}, 16),
        # RoCE: the configuration table's long sources (URLs) wrap inside the page
        ({"workload": "training", "gpu_count": 512, "gpu_model": "H100", "prefer": "rocev2"}, 16),
    ],
)
def test_the_report_prints_to_a4_pdf_pages(api: Server, browser, profile: dict, most_pages: int) -> None:
    rec = stored(api, profile)
    context = browser.new_context()
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    response = page.goto(f"{api.url}/v1/recommendations/{rec['id']}/report")
    assert response is not None and response.status == 200
    page.emulate_media(media="print")
    page.set_viewport_size({"width": A4_CSS_WIDTH_PX, "height": 1123})
    # laid out within the printed width: nothing sticks out to the right
    overflow = page.evaluate("document.documentElement.scrollWidth - document.documentElement.clientWidth")
    assert overflow <= 1, f"{overflow}px wider than an A4 page"
    assert (
        page.locator("table.bom tbody tr").count() == len(rec["bill_of_materials"]) + len(rec["cost"]["by_fabric"]) + 1
    )
    assert page.locator("figure svg").count() == 1
    pdf = page.pdf(format="A4", print_background=True)
    context.close()
    pages = pdf_pages(pdf)
    assert 2 <= len(pages) <= most_pages, len(pages)
    for width, height in pages:  # chromium rounds A4 to 8.27 x 11.7 inches
        assert width == pytest.approx(A4_POINTS[0], abs=2) and height == pytest.approx(A4_POINTS[1], abs=2)
    assert not errors, errors


def test_an_unknown_report_is_a_404_page_not_a_blank_pdf(api: Server) -> None:
    response = httpx.get(f"{api.url}/v1/recommendations/r_000000000000/report", timeout=30)
    assert response.status_code == 404


def test_the_widget_card_shows_cost_by_category_and_links_the_report_and_the_csv(api: Server, browser) -> None:
    """The card drawn from a conversation's saved history (no Rasa needed): its cost by
    category and by network, and links to the report and the CSV that the API serves."""
    rec = stored(api, {"workload": "training", "node_count": 16, "gpu_model": "H100"})
    diagram = f"{api.url}/v1/recommendations/{rec['id']}/diagram.svg"
    saved = {
        "sessionId": None,
        "messages": [{"role": "bot", "kind": "recommendation", "recommendation": rec, "diagramUrl": diagram, "at": 0}],
    }
    context = browser.new_context()
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto(api.url + "/?rasa=" + api.url)
    page.evaluate("state => sessionStorage.setItem('fabric-advisor.chat.v1', JSON.stringify(state))", saved)
    page.reload()
    card = page.locator("article.card").last
    playwright_api.expect(card.locator('[data-field="cost-categories"]')).to_contain_text("switches $")
    playwright_api.expect(card.locator('[data-field="cost-networks"]')).to_contain_text("compute fabric")
    report = card.locator('a[data-field="report"]').get_attribute("href")
    csv = card.locator('a[data-field="bom-csv"]').get_attribute("href")
    context.close()
    assert report == f"{api.url}/v1/recommendations/{rec['id']}/report"
    assert csv == f"{api.url}/v1/recommendations/{rec['id']}/bom.csv"
    for url, kind in ((report, "text/html"), (csv, "text/csv")):
        response = httpx.get(url, timeout=30)
        assert response.status_code == 200 and response.headers["content-type"].startswith(kind)
    assert not errors, errors
