"""The API served for real: `uvicorn api.app:app` on a free 127.0.0.1 port. The `api`
and `keyed_api` servers every tests/test_api_*.py module uses are session fixtures in
conftest.py; this module's own tests pin the ways the API is served.
"""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest

from tests.servers import REPO, VENV_BIN, api_env, free_port, running

#: our code in another process (make test runs these; make check leaves them out)
pytestmark = pytest.mark.e2e

# ----------------------------------------------------------------------------- tests


def test_uvicorn_serves_the_app_and_its_openapi(client: httpx.Client) -> None:
    assert client.get("/healthz").json() == {"status": "ok"}
    schema = client.get("/openapi.json").json()
    assert {"/v1/recommendations", "/v1/ask", "/v1/faq", "/healthz"} <= schema["paths"].keys()


def test_serve_runs_the_api_for_the_cli(tmp_path: Path) -> None:
    port = free_port()
    code = f"from api.server import serve; serve('127.0.0.1', {port})"
    with running(
        [str(VENV_BIN / "python"), "-c", code], port=port, health_path="/healthz", env=api_env(tmp_path)
    ) as server:
        assert httpx.get(server.url + "/healthz").json() == {"status": "ok"}
    assert server.process.poll() is not None, "serve() kept running after SIGTERM"


def test_root_serves_the_widget_page_when_installed(client: httpx.Client) -> None:
    page = REPO / "api" / "static" / "index.html"
    if not page.exists():
        pytest.skip("the widget page (api/static/index.html) is not written yet")
    response = client.get("/")
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/html")
    assert response.text == page.read_text()
    assert "/" not in client.get("/openapi.json").json()["paths"], "the page is not part of the API"
