"""Fixtures more than one test module uses; pytest hands them to any test that names
them. Module-only fixtures stay in their module, helpers in tests/servers.py and
tests/browsers.py."""

from __future__ import annotations

import shutil
from collections.abc import Iterator

import httpx
import pytest

from ops.processes import adopt_server_env
from tests.servers import API_KEY, Server, api_env, free_port, running, uvicorn_command

# in-process searches run as the servers run them: one BLAS thread (ops.processes says why)
adopt_server_env()


def _serve_api(env: dict[str, str]) -> Iterator[Server]:
    port = free_port()
    with running(uvicorn_command(port), port=port, health_path="/healthz", env=env) as server:
        yield server


@pytest.fixture(scope="session")
def api(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """The API without a key, as `make run` serves it by default: `uvicorn api.app:app`
    on a free 127.0.0.1 port, started once for the test session."""
    yield from _serve_api(api_env(tmp_path_factory.mktemp("api-open")))


@pytest.fixture(scope="session")
def keyed_api(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """The API started with FABRIC_ADVISOR_API_KEY set (to tests.servers.API_KEY)."""
    env = api_env(tmp_path_factory.mktemp("api-keyed"))
    yield from _serve_api({**env, "FABRIC_ADVISOR_API_KEY": API_KEY})


@pytest.fixture
def client(api: Server) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=api.url, timeout=30) as c:
        yield c


@pytest.fixture(scope="module")
def browser() -> Iterator[object]:
    """Debian's headless chromium, one per test module. Playwright is imported here, so
    only the browser tests pay for it."""
    from tests.browsers import CHROMIUM_ARGS, playwright_api

    chromium = shutil.which("chromium")
    if chromium is None:
        pytest.fail("Debian's chromium is not installed: `make browser` (apt-get install chromium)")
    with playwright_api.sync_playwright() as p:
        launched = p.chromium.launch(executable_path=chromium, headless=True, args=CHROMIUM_ARGS)
        yield launched
        launched.close()
