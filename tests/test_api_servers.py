"""The API served for real: `uvicorn api.app:app` on a free 127.0.0.1 port, started
once per test session and shared by every tests/test_api_*.py module.

pytest gives each module that imports a session fixture its own instance, so the
servers are kept here, started by whichever module asks first and stopped at the end
of the session. This module's own tests pin the ways the API is served.
"""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from contextlib import ExitStack
from pathlib import Path

import httpx
import pytest

from api.server import UVICORN_FLAGS
from tests.servers import REPO, VENV_BIN, Server, free_port, running

API_KEY = "test-key-0123456789"

_servers: dict[str, Server] = {}
_stack = ExitStack()


def api_env(data_dir: Path) -> dict[str, str]:
    """Environment of a test server: its own store and knowledge base, no API key."""
    data_dir.mkdir(parents=True, exist_ok=True)
    env = {
        "FABRIC_ADVISOR_DB": str(data_dir / "advisor.db"),
        "FABRIC_ADVISOR_KB": str(data_dir / "knowledge.db"),
        "FABRIC_ADVISOR_API_KEY": "",
        # the shared servers answer every test module, faster than any one client may ask;
        # tests/test_api_exposure.py starts its own with the limit on
        "FABRIC_ADVISOR_RATE_LIMIT": "0",
    }
    _build_knowledge(Path(env["FABRIC_ADVISOR_KB"]))
    return env


def _build_knowledge(db: Path) -> None:
    """Build the knowledge database the server reads (the same step `make kb` runs)."""
    if db.exists() or not (REPO / "knowledge" / "__main__.py").exists():
        return
    subprocess.run(
        [str(VENV_BIN / "python"), "-m", "knowledge", "build", "--db", str(db)],
        cwd=REPO,
        check=True,
        capture_output=True,
        timeout=120,
    )


def uvicorn_command(port: int) -> list[str]:
    return [
        str(VENV_BIN / "python"),
        "-m",
        "uvicorn",
        "api.app:app",
        "--host",
        "127.0.0.1",
        "--port",
        str(port),
        *UVICORN_FLAGS,
    ]


def _shared(name: str, env: dict[str, str], request: pytest.FixtureRequest) -> Server:
    if name not in _servers:
        port = free_port()
        _servers[name] = _stack.enter_context(
            running(uvicorn_command(port), port=port, health_path="/healthz", env=env)
        )
        if len(_servers) == 1:
            request.session.config.add_cleanup(_stop_all)
    return _servers[name]


def _stop_all() -> None:
    _stack.close()
    _servers.clear()


@pytest.fixture(scope="session")
def api(tmp_path_factory: pytest.TempPathFactory, request: pytest.FixtureRequest) -> Server:
    """The API without a key: what `make run` serves by default."""
    env = api_env(tmp_path_factory.getbasetemp() / "api-open")
    return _shared("open", env, request)


@pytest.fixture(scope="session")
def keyed_api(tmp_path_factory: pytest.TempPathFactory, request: pytest.FixtureRequest) -> Server:
    """The API started with FABRIC_ADVISOR_API_KEY set."""
    env = api_env(tmp_path_factory.getbasetemp() / "api-keyed")
    return _shared("keyed", {**env, "FABRIC_ADVISOR_API_KEY": API_KEY}, request)


@pytest.fixture
def client(api: Server) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=api.url, timeout=30) as c:
        yield c


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
