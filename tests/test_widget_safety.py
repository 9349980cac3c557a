"""The web widget treats what the chat server sends as data, in Debian's headless
chromium: a socket.io server that plays a hostile or compromised Rasa (a real
python-socketio server on 127.0.0.1) sends a recommendation whose `diagram_url` is a
`javascript:` URL, an image attachment with a `data:` URL and HTML in text; the page
shows the card without the diagram link, no such image, the HTML as harmless markup,
and runs no script. The session id it asks Rasa for comes from the real API (signed),
and a refused session makes it ask the API for a new one.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
import socketio
from aiohttp import web

from api.routers.chat_session import issue, signature
from ops.chat_secrets import SESSION_SECRET_VARIABLE
from rules import engine
from rules.models import WorkloadProfile
from tests.browsers import playwright_api
from tests.servers import VENV_BIN, Server, free_port, running

pytestmark = pytest.mark.browser

expect = playwright_api.expect
SECRET = "widget-safety-secret"


class HostileRasa:
    """A socket.io server on 127.0.0.1 speaking Rasa's protocol: it refuses the first
    session id it is offered, confirms the next, and answers every message with
    `replies`."""

    def __init__(self, replies: list[dict[str, Any]]) -> None:
        self.port = free_port()
        self.replies = replies
        self.session_requests: list[Any] = []
        self.sio = socketio.AsyncServer(async_mode="aiohttp", cors_allowed_origins="*")
        self.app = web.Application()
        self.sio.attach(self.app)
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, daemon=True)
        self._runner: web.AppRunner | None = None

        @self.sio.on("session_request")
        async def session_request(sid: str, data: dict) -> None:
            self.session_requests.append((data or {}).get("session_id"))
            if len(self.session_requests) == 1:
                await self.sio.emit("session_refused", {"detail": "unknown session"}, room=sid)
                await self.sio.disconnect(sid)
                return
            await self.sio.emit("session_confirm", data["session_id"], room=sid)

        @self.sio.on("user_uttered")
        async def user_uttered(sid: str, data: dict) -> None:
            for reply in self.replies:
                await self.sio.emit("bot_uttered", reply, room=sid)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    async def _start(self) -> None:
        self._runner = web.AppRunner(self.app)
        await self._runner.setup()
        await web.TCPSite(self._runner, "127.0.0.1", self.port).start()

    def __enter__(self) -> HostileRasa:
        self._thread.start()
        asyncio.run_coroutine_threadsafe(self._start(), self._loop).result(timeout=10)
        return self

    def __exit__(self, *exc: object) -> None:
        if self._runner is not None:
            asyncio.run_coroutine_threadsafe(self._runner.cleanup(), self._loop).result(timeout=10)
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(timeout=10)


def hostile_replies() -> list[dict[str, Any]]:
    rec = engine.recommend(WorkloadProfile(workload="training", gpu_count=128, gpu_model="H100"))
    return [
        {"recommendation": rec.model_dump(mode="json"), "diagram_url": "javascript:window.__pwned=1//diagram.svg"},
        {"attachment": {"type": "image", "payload": {"src": "data:image/svg+xml,<svg onload='window.__pwned=2'/>"}}},
        {"text": "<img src=x onerror='window.__pwned=3'> <script>window.__pwned=4</script> **still bold**"},
    ]


@pytest.fixture(scope="module")
def api() -> Iterator[Server]:
    port = free_port()
    command = [str(VENV_BIN / "python"), "-m", "uvicorn", "api.app:app", "--host", "127.0.0.1", "--port", str(port)]
    env = {SESSION_SECRET_VARIABLE: SECRET, "FABRIC_ADVISOR_API_KEY": "secret-key-the-page-does-not-have"}
    with running(command, port=port, health_path="/healthz", env=env) as server:
        yield server


def test_the_widget_shows_hostile_server_data_as_data_and_asks_the_api_for_its_session(browser, api: Server) -> None:
    with HostileRasa(hostile_replies()) as rasa:
        context = browser.new_context()
        page = context.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda error: errors.append(str(error)))
        try:
            page.goto(f"{api.url}/?rasa={rasa.url}")
            expect(page.locator("#status")).to_have_attribute("data-state", "online", timeout=30_000)
            # refused once, then a second id from the API (an API key on the server does not stop the page)
            assert len(rasa.session_requests) == 2 and rasa.session_requests[0] != rasa.session_requests[1]
            for session_id in rasa.session_requests:
                nonce = session_id.split(".")[0]
                assert session_id == issue_with(SECRET, nonce)
            page.fill("#message", "size it")
            page.press("#message", "Enter")
            card = page.locator("article.card")
            expect(card).to_have_count(1, timeout=20_000)
            expect(page.locator(".md").filter(has_text="still bold")).to_have_count(1, timeout=20_000)
            page.wait_for_timeout(500)
            assert card.locator("[data-field=diagram]").count() == 0
            assert page.locator("a[href^='javascript:'], img[src^='javascript:'], img[src^='data:']").count() == 0
            assert page.locator(".md img[onerror], .md script").count() == 0
            assert page.locator(".md strong").filter(has_text="still bold").count() == 1
            assert page.evaluate("window.__pwned") is None
        finally:
            context.close()
        assert not errors, errors


def issue_with(secret: str, nonce: str) -> str:
    """The signed id for nonce, as the API signs (chat_session.issue draws the nonce itself)."""
    return f"{nonce}.{signature(secret, nonce)}"


def test_the_api_issues_a_fresh_signed_session_id_each_time(api: Server) -> None:
    ids = [httpx.post(f"{api.url}/v1/chat/sessions", timeout=10).json()["session_id"] for _ in range(3)]
    assert len(set(ids)) == 3
    for session_id in ids:
        nonce, signed = session_id.split(".")
        assert len(nonce) >= 43 and signed == issue_with(SECRET, nonce).split(".")[1]
    assert issue("another") != issue("another")
