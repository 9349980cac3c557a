"""Rasa locked down, on the real Rasa server (its env) with the real action server.

Pinned here: Rasa's HTTP API (a conversation's tracker, the model) and the REST channel
answer 401 without the Rasa token and work with it (`?token=`, or a Bearer header on
the REST channel); Rasa will not start without a token; CORS admits the widget's origin
only; conversation ids belong to their channel, so a web session (socket.io) or a REST
caller can neither read nor continue a Slack user's conversation, and the socket.io
channel refuses any session id the API did not sign.
"""

from __future__ import annotations

import asyncio
import subprocess
import time
import uuid
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from api.routers.chat_session import issue
from bot import launch
from ops.processes import RASA_BIN
from tests.test_slack_events import SIGNING_SECRET, TOKEN, SlackStub, event_body, new_ids, signed_headers

pytestmark = [
    pytest.mark.rasa,
    pytest.mark.skipif(not (RASA_BIN / "rasa").exists(), reason="no Rasa environment (make rasa-venv)"),
]

WIDGET_ORIGIN = "https://advisor.example"


@pytest.fixture(scope="module")
def slack() -> Iterator[SlackStub]:
    with SlackStub() as stub:
        yield stub


@pytest.fixture(scope="module")
def stack(slack: SlackStub, tmp_path_factory: pytest.TempPathFactory) -> Iterator[launch.ChatStack]:
    env = {
        "SLACK_BOT_TOKEN": TOKEN,
        "SLACK_SIGNING_SECRET": SIGNING_SECRET,
        "SLACK_API_URL": slack.api_url,
        "FABRIC_ADVISOR_PUBLIC_URL": WIDGET_ORIGIN,
    }
    with launch.chat_stack(tmp_path_factory.mktemp("secure-chat"), env=env) as running:
        yield running


def tracker(stack: launch.ChatStack, conversation: str) -> dict[str, Any]:
    response = httpx.get(f"{stack.rasa.url}/conversations/{conversation}/tracker", params=stack.auth, timeout=30)
    response.raise_for_status()
    return response.json()


def rest_turn(stack: launch.ChatStack, sender: str, text: str) -> httpx.Response:
    return httpx.post(stack.webhook, json={"sender": sender, "message": text}, params=stack.auth, timeout=60)


def test_rasas_http_api_answers_401_without_the_token_and_works_with_it(stack: launch.ChatStack) -> None:
    sender = f"api-{uuid.uuid4().hex[:8]}"
    assert rest_turn(stack, sender, "hello").status_code == 200
    url = stack.rasa.url
    conversation = f"{url}/conversations/rest:{sender}"
    attempts = [
        ("GET", f"{conversation}/tracker", None),
        ("POST", f"{conversation}/tracker/events", {"event": "slot", "name": "gpu_count", "value": 1}),
        ("PUT", f"{conversation}/tracker/events", []),
        ("POST", f"{conversation}/trigger_intent", {"name": "greet"}),
        ("POST", f"{url}/model/parse", {"text": "hello"}),
        ("PUT", f"{url}/model", {"model_file": "/etc/passwd"}),
        ("DELETE", f"{url}/model", None),
        ("GET", f"{url}/status", None),
    ]
    for method, target, body in attempts:
        for params in ({}, {"token": "wrong"}):
            refused = httpx.request(method, target, json=body, params=params, timeout=30)
            assert refused.status_code in (401, 403), (method, target, params, refused.status_code)
    assert tracker(stack, f"rest:{sender}")["sender_id"] == f"rest:{sender}"
    parsed = httpx.post(f"{url}/model/parse", json={"text": "hello"}, params=stack.auth, timeout=30)
    assert parsed.status_code == 200 and parsed.json()["intent"]["name"]
    # the model is still loaded: the refused DELETE did nothing
    assert rest_turn(stack, sender, "what is PFC?").json()


def test_the_rest_channel_needs_the_token_by_query_or_bearer_header(stack: launch.ChatStack) -> None:
    body = {"sender": f"rest-{uuid.uuid4().hex[:8]}", "message": "what is PFC?"}
    assert httpx.post(stack.webhook, json=body, timeout=30).status_code == 401
    assert httpx.post(stack.webhook, json=body, params={"token": "wrong"}, timeout=30).status_code == 401
    wrong_bearer = httpx.post(stack.webhook, json=body, headers={"Authorization": "Bearer wrong"}, timeout=30)
    assert wrong_bearer.status_code == 401
    by_query = httpx.post(stack.webhook, json=body, params=stack.auth, timeout=60)
    by_header = httpx.post(stack.webhook, json=body, headers={"Authorization": f"Bearer {stack.token}"}, timeout=60)
    for answered in (by_query, by_header):
        assert answered.status_code == 200 and any("PFC" in m.get("text", "") for m in answered.json())
    assert httpx.post(stack.webhook, json={"message": "hi"}, params=stack.auth, timeout=30).status_code == 400


def test_rasa_does_not_start_without_a_token() -> None:
    result = subprocess.run(
        [str(RASA_BIN / "python"), "rasa_run.py", "run", "--enable-api"],
        cwd=launch.BOT,
        env={**launch.RASA_ENV, "PATH": "/usr/bin:/bin"},
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 2 and "FABRIC_ADVISOR_RASA_TOKEN" in result.stderr


def test_cors_admits_the_widgets_origin_only(stack: launch.ChatStack) -> None:
    allowed = httpx.get(f"{stack.rasa.url}/", headers={"Origin": WIDGET_ORIGIN}, timeout=30)
    assert allowed.headers.get("access-control-allow-origin") == WIDGET_ORIGIN
    other = httpx.get(f"{stack.rasa.url}/", headers={"Origin": "https://attacker.example"}, timeout=30)
    assert other.headers.get("access-control-allow-origin") in (None, "")


async def socket_session(url: str, session_id: str, say: str | None = None, wait_for_reply: bool = True) -> dict:
    """One socket.io session: session_request with session_id, then optionally a message;
    what the server sent back (confirm, refusal, replies) and whether it disconnected us."""
    import socketio

    seen: dict[str, Any] = {"confirmed": None, "refused": None, "replies": [], "disconnected": False}
    client = socketio.AsyncClient(reconnection=False)
    client.on("session_confirm", lambda data: seen.__setitem__("confirmed", data))
    client.on("session_refused", lambda data: seen.__setitem__("refused", data))
    client.on("bot_uttered", lambda data: seen["replies"].append(data))
    client.on("disconnect", lambda *_: seen.__setitem__("disconnected", True))
    await client.connect(url, socketio_path="/socket.io", transports=["websocket"])
    try:
        await client.emit("session_request", {"session_id": session_id})
        for _ in range(100):
            if seen["confirmed"] or seen["refused"]:
                break
            await asyncio.sleep(0.1)
        if say is not None and not seen["disconnected"]:
            await client.emit("user_uttered", {"session_id": session_id, "message": say})
            for _ in range(300 if wait_for_reply else 30):
                if seen["replies"] and wait_for_reply:
                    break
                await asyncio.sleep(0.1)
        for _ in range(20):
            if seen["disconnected"] or seen["confirmed"]:
                break
            await asyncio.sleep(0.1)
    finally:
        if client.connected:
            await client.disconnect()
    return seen


def test_a_web_session_cannot_read_or_continue_a_slack_users_conversation(
    stack: launch.ChatStack, slack: SlackStub
) -> None:
    channel, user = new_ids()
    body = event_body("We train a 70B model on 128 H100s, what network do we need?", channel, user)
    answered = httpx.post(
        f"{stack.rasa.url}/webhooks/slack/webhook", content=body, headers=signed_headers(body), timeout=30
    )
    assert answered.status_code == 200
    slack.wait_for_posts(channel, 1)
    slack_conversation = f"slack:{user}"
    deadline = time.monotonic() + 60
    while tracker(stack, slack_conversation)["slots"].get("gpu_count") != 128 and time.monotonic() < deadline:
        time.sleep(0.5)
    before = tracker(stack, slack_conversation)
    assert before["slots"]["gpu_count"] == 128 and before["latest_input_channel"] == "slack"

    secret = stack.secrets["FABRIC_ADVISOR_SESSION_SECRET"]
    genuine = issue(secret)
    forged = [user, slack_conversation, f"{genuine.split('.')[0]}.{'A' * 43}", issue("another-secret"), ""]
    for session_id in forged:
        seen = asyncio.run(
            socket_session(stack.rasa.url, session_id, say="what if we double it?", wait_for_reply=False)
        )
        assert seen["refused"] and seen["confirmed"] is None and not seen["replies"], (session_id, seen)
        assert seen["disconnected"], session_id

    # the REST channel names its own conversations, whatever sender it is given
    for sender in (user, slack_conversation):
        reply = rest_turn(stack, sender, "what if we double it?")
        assert reply.status_code == 200
        assert "256" not in " ".join(m.get("text", "") for m in reply.json())
    after = tracker(stack, slack_conversation)
    assert after["events"] == before["events"] and after["slots"]["gpu_count"] == 128

    # a genuine session talks in a conversation of its own, and gets its replies
    seen = asyncio.run(socket_session(stack.rasa.url, genuine, say="what is PFC?"))
    assert seen["confirmed"] == genuine and seen["replies"], seen
    nonce = genuine.split(".")[0]
    assert tracker(stack, f"web:{nonce}")["latest_input_channel"] == "socketio"
    assert tracker(stack, slack_conversation)["events"] == before["events"]


def test_a_token_beginning_with_a_dash_is_still_rasas_token() -> None:
    """Rasa's own argument parser reads what the wrapper builds: a token that looks like
    an option (a url-safe token begins with '-' one time in 64) is the token's value."""
    probe = (
        "import rasa_run\n"
        "from rasa.__main__ import create_argument_parser\n"
        "args = create_argument_parser().parse_args(rasa_run.rasa_arguments(['run', '--enable-api'], '-t-x', ''))\n"
        "print(args.auth_token)\n"
    )
    result = subprocess.run(
        [str(RASA_BIN / "python"), "-c", probe], cwd=launch.BOT, capture_output=True, text=True, timeout=300
    )
    assert result.returncode == 0, result.stderr[-2000:]
    assert result.stdout.strip().splitlines()[-1] == "-t-x"


def test_generated_secrets_never_read_as_a_command_line_option() -> None:
    from ops.chat_secrets import for_tests

    assert all(not value.startswith("-") for _ in range(500) for value in for_tests().values())
