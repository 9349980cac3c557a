"""Slack, end to end: Slack Events API payloads posted to the real Rasa server.

Rasa runs with our connector (`channels.slack.SlackConnector`, bot/channels/slack.py)
switched on by SLACK_BOT_TOKEN and SLACK_SIGNING_SECRET, and its Slack Web API URL
(SLACK_API_URL) pointing at a local stub that records every `chat.postMessage`. The
action server runs too, so replies are the bot's real ones.

Pinned here: a correctly signed message gets a reply; a wrongly signed or stale one is
refused and gets none; a retry of an event is not answered twice; a recommendation
arrives as Block Kit blocks with mrkdwn text; without the two variables the connector
stays off.
"""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import json
import os
import subprocess
import threading
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from urllib.parse import urlencode

import httpx
import pytest
import yaml
from aiohttp import web

from bot import launch
from ops.chat_secrets import for_tests
from tests.servers import RASA_BIN, REPO, Server, free_port, running

pytestmark = pytest.mark.rasa

TOKEN = "xoxb-test-token"
SIGNING_SECRET = "test-signing-secret-0123456789"
CONNECTOR = "channels.slack.SlackConnector"
BOT_USER = "UFABRICBOT"
REPLY_TIMEOUT = 60.0


# ----------------------------------------------------------------- the Slack stub


class SlackStub:
    """A local Slack Web API: answers every method `ok` and records the calls."""

    def __init__(self) -> None:
        self.port = free_port()
        self.calls: list[dict] = []
        self._lock = threading.Lock()
        self._loop = asyncio.new_event_loop()
        self._runner: web.AppRunner | None = None
        self._thread = threading.Thread(target=self._loop.run_forever, daemon=True)

    @property
    def api_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/api/"

    async def _handle(self, request: web.Request) -> web.Response:
        if request.content_type == "application/json":
            body = await request.json()
        else:
            body = dict(await request.post())
        with self._lock:
            self.calls.append(
                {
                    "method": request.match_info["method"],
                    "authorization": request.headers.get("Authorization"),
                    "body": body,
                }
            )
        return web.json_response({"ok": True, "channel": body.get("channel"), "ts": f"{time.time():.6f}"})

    async def _start(self) -> None:
        app = web.Application()
        app.router.add_post("/api/{method}", self._handle)
        self._runner = web.AppRunner(app)
        await self._runner.setup()
        await web.TCPSite(self._runner, "127.0.0.1", self.port).start()

    def __enter__(self) -> SlackStub:
        self._thread.start()
        asyncio.run_coroutine_threadsafe(self._start(), self._loop).result(timeout=10)
        return self

    def __exit__(self, *exc: object) -> None:
        if self._runner is not None:
            asyncio.run_coroutine_threadsafe(self._runner.cleanup(), self._loop).result(timeout=10)
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(timeout=10)

    def posts_to(self, channel: str) -> list[dict]:
        with self._lock:
            return [c for c in self.calls if c["method"] == "chat.postMessage" and c["body"].get("channel") == channel]

    def wait_for_posts(self, channel: str, count: int = 1, timeout: float = REPLY_TIMEOUT) -> list[dict]:
        """The posts to channel once there are `count` and no more arrived for a second."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            posts = self.posts_to(channel)
            if len(posts) >= count:
                time.sleep(1.0)
                if len(self.posts_to(channel)) == len(posts):
                    return posts
                continue
            time.sleep(0.2)
        raise AssertionError(
            f"{count} post(s) to {channel} expected within {timeout:.0f}s, got {self.posts_to(channel)}"
        )


# ------------------------------------------------------------------- the servers


def credentials_with_connector(path: Path) -> Path:
    """bot/credentials.yml plus our Slack connector, when it does not list it yet."""
    credentials = yaml.safe_load((launch.BOT / "credentials.yml").read_text()) or {}
    credentials.setdefault(CONNECTOR, None)
    path.write_text(yaml.safe_dump(credentials))
    return path


@contextmanager
def rasa_with_credentials(
    actions_url: str, tracker_db: Path, credentials: Path, env: dict[str, str]
) -> Iterator[Server]:
    """launch.rasa_server, with another credentials file."""
    port = free_port()
    command = launch.rasa_command(port)
    command[command.index("--credentials") + 1] = str(credentials)
    variables = {
        **launch.RASA_ENV,
        **for_tests(),
        "ACTION_SERVER_URL": f"{actions_url}/webhook",
        "RASA_TRACKER_DB": str(tracker_db),
        **env,
    }
    with running(
        command, port=port, health_path="/status", cwd=launch.BOT, env=variables, timeout=launch.RASA_START_TIMEOUT
    ) as server:
        yield server


@pytest.fixture(scope="module")
def slack() -> Iterator[SlackStub]:
    with SlackStub() as stub:
        yield stub


@pytest.fixture(scope="module")
def rasa(slack: SlackStub, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    work = tmp_path_factory.mktemp("slack-stack")
    launch.ensure_model()
    slack_env = {"SLACK_BOT_TOKEN": TOKEN, "SLACK_SIGNING_SECRET": SIGNING_SECRET, "SLACK_API_URL": slack.api_url}
    actions_env = {
        "FABRIC_ADVISOR_DB": str(work / "advisor.db"),
        "FABRIC_ADVISOR_PUBLIC_URL": "https://advisor.example",
    }
    credentials = credentials_with_connector(work / "credentials.yml")
    with (
        launch.action_server(env=actions_env) as actions,
        rasa_with_credentials(actions.url, work / "rasa-tracker.db", credentials, slack_env) as server,
    ):
        yield server


# --------------------------------------------------------------------- requests


def event_body(text: str, channel: str, user: str, event_id: str | None = None) -> bytes:
    """A Slack Events API `message.im` envelope, as Slack sends it."""
    ts = f"{time.time():.6f}"
    return json.dumps(
        {
            "token": "legacy-verification-token",
            "team_id": "T0TEST",
            "api_app_id": "A0TEST",
            "type": "event_callback",
            "event_id": event_id or f"Ev{uuid.uuid4().hex[:10].upper()}",
            "event_time": int(time.time()),
            "authorizations": [{"team_id": "T0TEST", "user_id": BOT_USER, "is_bot": True}],
            "event": {
                "type": "message",
                "channel_type": "im",
                "channel": channel,
                "user": user,
                "text": text,
                "ts": ts,
                "event_ts": ts,
                "client_msg_id": str(uuid.uuid4()),
            },
        }
    ).encode()


def signed_headers(body: bytes, secret: str = SIGNING_SECRET, timestamp: int | None = None) -> dict[str, str]:
    """The headers Slack signs a request with (v0 HMAC-SHA256 of `v0:<ts>:<body>`)."""
    ts = str(int(time.time()) if timestamp is None else timestamp)
    digest = hmac.new(secret.encode(), f"v0:{ts}:".encode() + body, hashlib.sha256).hexdigest()
    return {"Content-Type": "application/json", "X-Slack-Request-Timestamp": ts, "X-Slack-Signature": f"v0={digest}"}


def post(rasa: Server, body: bytes, headers: dict[str, str]) -> httpx.Response:
    return httpx.post(f"{rasa.url}/webhooks/slack/webhook", content=body, headers=headers, timeout=30)


def new_ids() -> tuple[str, str]:
    """A fresh DM channel and user, so each test is its own conversation."""
    suffix = uuid.uuid4().hex[:8].upper()
    return f"D{suffix}", f"U{suffix}"


def no_posts_for(slack: SlackStub, channel: str, seconds: float = 6.0) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if slack.posts_to(channel):
            return False
        time.sleep(0.2)
    return True


# ----------------------------------------------------------------------- tests


def test_a_signed_message_gets_a_reply_through_the_configured_api_url(rasa: Server, slack: SlackStub) -> None:
    channel, user = new_ids()
    body = event_body("hello", channel, user)
    response = post(rasa, body, signed_headers(body))
    assert response.status_code == 200, response.text

    posts = slack.wait_for_posts(channel)
    assert posts[0]["authorization"] == f"Bearer {TOKEN}"
    assert "Fabric Advisor" in posts[0]["body"]["text"]
    assert "as_user" not in posts[0]["body"]


def test_a_recommendation_arrives_as_blocks_with_mrkdwn_text(rasa: Server, slack: SlackStub) -> None:
    channel, user = new_ids()
    body = event_body("We will train a 70B model on 128 H100s", channel, user)
    assert post(rasa, body, signed_headers(body)).status_code == 200

    posts = slack.wait_for_posts(channel)
    # form-encoded calls carry blocks as a JSON string
    messages = [b if isinstance(b, list) else json.loads(b) for p in posts if (b := p["body"].get("blocks"))]
    assert messages, f"no Block Kit message among {posts}"
    headed = [m for m in messages if m[0]["type"] == "header"]
    assert headed, f"no message opens with a header among {messages}"
    blocks = headed[-1]
    assert blocks[0]["text"]["text"].startswith("Recommendation:")
    # the next steps follow the design as buttons (Download BOM, Printable report, Compare, Why)
    after = messages[messages.index(blocks) + 1 :]
    buttons = [e["text"]["text"] for m in after for b in m if b["type"] == "actions" for e in b["elements"]]
    assert "Download BOM" in buttons, after
    fields = next(b for b in blocks if "fields" in b)["fields"]
    assert any(f["text"].startswith("*Switches*") for f in fields)
    assert any(b["type"] == "context" and b["elements"][0]["text"].startswith("Source:") for b in blocks)
    for p in posts:
        assert "**" not in p["body"].get("text", ""), f"markdown, not mrkdwn, sent to Slack: {p['body']['text']!r}"


def test_a_button_click_answers_the_question_it_belongs_to(rasa: Server, slack: SlackStub) -> None:
    channel, user = new_ids()
    body = event_body("I need a network recommendation", channel, user)
    assert post(rasa, body, signed_headers(body)).status_code == 200
    question = next(p["body"] for p in slack.wait_for_posts(channel) if p["body"].get("blocks"))
    section, actions = question["blocks"]
    assert section["text"]["type"] == "mrkdwn"
    buttons = {e["text"]["text"]: e["value"] for e in actions["elements"]}
    assert "Training" in buttons

    # Slack posts a click as a form-encoded `payload` (interactivity), signed the same way
    click = {
        "type": "block_actions",
        "user": {"id": user},
        "channel": {"id": channel},
        "message": {"ts": f"{time.time():.6f}"},
        "actions": [
            {
                "type": "button",
                "action_id": "a1",
                "value": buttons["Training"],
                "text": {"type": "plain_text", "text": "Training"},
            }
        ],
    }
    form = urlencode({"payload": json.dumps(click)}).encode()
    headers = {**signed_headers(form), "Content-Type": "application/x-www-form-urlencoded"}
    answered = len(slack.posts_to(channel))
    assert post(rasa, form, headers).status_code == 200
    replies = slack.wait_for_posts(channel, count=answered + 1)[answered:]
    assert any("GPU" in r["body"].get("text", "") for r in replies), replies


def test_a_wrongly_signed_message_is_refused_and_not_answered(rasa: Server, slack: SlackStub) -> None:
    channel, user = new_ids()
    body = event_body("hello", channel, user)
    response = post(rasa, body, signed_headers(body, secret="not-the-secret"))
    assert response.status_code == 401
    unsigned = {"Content-Type": "application/json"}
    assert post(rasa, body, unsigned).status_code == 401
    assert no_posts_for(slack, channel)


def test_a_stale_message_is_refused_and_not_answered(rasa: Server, slack: SlackStub) -> None:
    channel, user = new_ids()
    body = event_body("hello", channel, user)
    six_minutes_ago = int(time.time()) - 6 * 60
    response = post(rasa, body, signed_headers(body, timestamp=six_minutes_ago))
    assert response.status_code == 401
    assert no_posts_for(slack, channel)


@pytest.mark.parametrize("reason", ["http_timeout", "http_error"])
def test_a_retried_event_is_answered_once(rasa: Server, slack: SlackStub, reason: str) -> None:
    channel, user = new_ids()
    body = event_body("hello", channel, user)
    assert post(rasa, body, signed_headers(body)).status_code == 200
    answered = len(slack.wait_for_posts(channel))

    for attempt in (1, 2):
        retry = {**signed_headers(body), "X-Slack-Retry-Num": str(attempt), "X-Slack-Retry-Reason": reason}
        response = post(rasa, body, retry)
        assert response.status_code == 200
        assert response.headers.get("X-Slack-No-Retry") == "1"
    time.sleep(5)
    assert len(slack.posts_to(channel)) == answered


def test_a_retry_of_an_event_never_received_is_answered(rasa: Server, slack: SlackStub) -> None:
    """The first delivery was lost (Rasa was down): the retry is the only chance to answer."""
    channel, user = new_ids()
    body = event_body("hello", channel, user)
    retry = {**signed_headers(body), "X-Slack-Retry-Num": "1", "X-Slack-Retry-Reason": "http_error"}
    assert post(rasa, body, retry).status_code == 200
    assert slack.wait_for_posts(channel)


def test_slack_url_verification_gets_its_challenge_back(rasa: Server) -> None:
    body = json.dumps(
        {"token": "t", "challenge": "3eZbrw1aBm2rZgRNFdxV2595E9CY3gmdALWMmHkvFXO7tYXAYM8P", "type": "url_verification"}
    ).encode()
    response = post(rasa, body, signed_headers(body))
    assert response.status_code == 200
    assert response.json() == {"challenge": "3eZbrw1aBm2rZgRNFdxV2595E9CY3gmdALWMmHkvFXO7tYXAYM8P"}


def test_the_connector_is_off_without_token_and_signing_secret(tmp_path: Path) -> None:
    """In Rasa's environment: no variables, no Slack; one of the two is not enough."""
    script = """
import json, os
from channels.slack import SlackConnector, SlackDisabled
results = {}
for env in ({}, {"SLACK_BOT_TOKEN": "xoxb-1"}, {"SLACK_SIGNING_SECRET": "s"},
            {"SLACK_BOT_TOKEN": "xoxb-1", "SLACK_SIGNING_SECRET": "s"}):
    for name in ("SLACK_BOT_TOKEN", "SLACK_SIGNING_SECRET", "SLACK_API_URL"):
        os.environ.pop(name, None)
    os.environ.update(env)
    channel = SlackConnector.from_credentials(None)
    results[",".join(sorted(env)) or "none"] = [type(channel).__name__, getattr(channel, "api_url", None)]
os.environ["SLACK_API_URL"] = "https://slack-gov.com/api"
results["gov"] = SlackConnector.from_credentials(None).api_url
results["credentials"] = SlackConnector.from_credentials({"api_url": "http://127.0.0.1:9/api/"}).api_url
print(json.dumps(results))
"""
    env = {k: v for k, v in os.environ.items() if not k.startswith("SLACK_")}
    done = subprocess.run(
        [str(RASA_BIN / "python"), "-c", script], cwd=REPO / "bot", env=env, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr[-3000:]
    results = json.loads(done.stdout.strip().splitlines()[-1])
    assert results["none"] == ["SlackDisabled", None]
    assert results["SLACK_BOT_TOKEN"] == ["SlackDisabled", None]
    assert results["SLACK_SIGNING_SECRET"] == ["SlackDisabled", None]
    assert results["SLACK_BOT_TOKEN,SLACK_SIGNING_SECRET"] == ["SlackConnector", "https://slack.com/api/"]
    assert results["gov"] == "https://slack-gov.com/api/"
    assert results["credentials"] == "http://127.0.0.1:9/api/"
