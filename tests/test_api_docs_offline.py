"""/docs (Swagger UI) and /redoc (ReDoc) render with no internet: Debian's chromium
opens them from a real API server with every request to another host refused, and
sees every operation of the OpenAPI document; no page asks for anything off the host."""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest

from tests.browsers import playwright_api
from tests.servers import REPO, VENV_BIN, Server, free_port, running

pytestmark = [pytest.mark.browser]


@pytest.fixture(scope="module")
def api(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    work = tmp_path_factory.mktemp("docs-api")
    port = free_port()
    env = {"FABRIC_ADVISOR_DB": str(work / "advisor.db"), "FABRIC_ADVISOR_API_KEY": ""}
    kb = REPO / "var" / "knowledge.db"
    if kb.exists():
        env["FABRIC_ADVISOR_KB"] = str(kb)
    command = [str(VENV_BIN / "python"), "-m", "uvicorn", "api.app:app", "--host", "127.0.0.1", "--port", str(port)]
    with running(command, port=port, health_path="/healthz", env=env) as server:
        yield server


def operations(api: Server) -> list[tuple[str, str, str]]:
    schema = httpx.get(api.url + "/openapi.json", timeout=30).json()
    return [
        (method.upper(), path, operation["summary"])
        for path, methods in schema["paths"].items()
        for method, operation in methods.items()
    ]


def offline_page(browser, api: Server):
    """A page whose requests to any other host are refused, and the list of them."""
    context = browser.new_context()
    page = context.new_page()
    elsewhere: list[str] = []

    def only_this_host(route) -> None:
        if route.request.url.startswith(api.url):
            route.continue_()
        else:
            elsewhere.append(route.request.url)
            route.abort()

    page.route("**/*", only_this_host)
    return context, page, elsewhere


def test_swagger_ui_shows_every_operation_offline(api: Server, browser) -> None:
    context, page, elsewhere = offline_page(browser, api)
    page.goto(api.url + "/docs")
    blocks = page.locator(".opblock")
    playwright_api.expect(blocks.first).to_be_visible(timeout=60_000)
    wanted = operations(api)
    playwright_api.expect(blocks).to_have_count(len(wanted), timeout=30_000)
    summaries = page.locator(".opblock-summary-description").all_inner_texts()
    context.close()
    assert sorted(summaries) == sorted(summary for _, _, summary in wanted)
    assert {"/v1/recommendations/{rec_id}/report.pdf", "/v1/recommendations/{rec_id}/bom.xlsx"} <= {
        path for _, path, _ in wanted
    }
    assert not elsewhere, elsewhere


def test_redoc_shows_the_operations_offline(api: Server, browser) -> None:
    context, page, elsewhere = offline_page(browser, api)
    page.goto(api.url + "/redoc")
    playwright_api.expect(page.get_by_text("Recommend a fabric for a workload").first).to_be_attached(timeout=60_000)
    text = page.locator("body").inner_text()
    context.close()
    for _, _, summary in operations(api):
        assert summary in text, summary
    assert not elsewhere, elsewhere
