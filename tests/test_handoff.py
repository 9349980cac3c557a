"""The handoff service (advisor/handoffs/handoff.py): a request is stored with its design,
conversation and contact details, sent to every configured destination (a real local
SMTP server, webhook sink and Slack stand-in), and the reply says only what happened."""

from __future__ import annotations

import json
import socket
import sqlite3
import time
from pathlib import Path

import pytest
from pydantic import ValidationError

from advisor.designs import recommendations
from advisor.handoffs import handoff
from advisor.handoffs.destinations import Destination
from core.settings import Settings, settings
from rules.models import WorkloadProfile
from tests.handoff_sinks import closed_port, handoff_env, http_sink, slack_sink, smtp_server

PROFILE = WorkloadProfile(workload="training", gpu_count=64, gpu_model="H100")
JANE = {"name": "Jane Doe", "email": "jane@acme.example", "company": "Acme AI Lab", "message": "A quote by Friday"}


@pytest.fixture
def db(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    path = tmp_path / "advisor.db"
    monkeypatch.setattr(settings, "db_path", path)
    return path


def config(env: dict[str, str]) -> Settings:
    return Settings(**env)  # type: ignore[arg-type]  # (the aliases, as the environment names them)


def stored(db: Path, reference: str) -> dict[str, object]:
    with sqlite3.connect(db) as conn:
        conn.row_factory = sqlite3.Row
        row = conn.execute("SELECT * FROM handoffs WHERE reference = ?", [reference]).fetchone()
    return dict(row)


def test_a_handoff_is_mailed_posted_to_the_webhook_and_to_slack_and_stored(db: Path) -> None:
    rec = recommendations.recommend(PROFILE)
    with smtp_server() as mailbox, http_sink() as webhook, slack_sink() as slack:
        request = handoff.HandoffRequest(**JANE, recommendation_id=rec.id, conversation_id="web-4c1d")
        done = handoff.submit(request, config(handoff_env(mailbox, webhook, slack)))
    assert done.reference.startswith("H-") and done.notified
    assert (
        done.reply == f"Sent to the sales engineering team by email, Slack and the webhook; reference {done.reference}."
    )
    # the mail
    [(recipients, mail)] = mailbox.mails
    assert recipients == ["sales-engineering@example.com"]
    assert done.reference in mail["Subject"] and "Acme AI Lab" in mail["Subject"]
    body = str(mail.get_payload())
    assert "jane@acme.example" in body and "A quote by Friday" in body and str(rec.id) in body
    # the webhook
    [(path, _, payload)] = webhook.received
    assert path == "/hooks/handoff"
    assert payload["reference"] == done.reference and payload["email"] == "jane@acme.example"
    assert payload["recommendation_id"] == rec.id and payload["conversation_id"] == "web-4c1d"
    # Slack
    [(path, headers, post)] = slack.received
    assert path == "/api/chat.postMessage" and headers["Authorization"] == "Bearer xoxb-test-token"
    assert post["channel"] == "#sales-engineering" and done.reference in post["text"]
    # the store
    row = stored(db, done.reference)
    assert (row["recommendation_id"], row["conversation_id"], row["name"], row["email"], row["company"]) == (
        rec.id,
        "web-4c1d",
        "Jane Doe",
        "jane@acme.example",
        "Acme AI Lab",
    )
    assert row["message"] == "A quote by Friday"
    assert [d["reached"] for d in json.loads(str(row["deliveries"]))] == [True, True, True]


def test_a_destination_that_is_down_is_reported_as_not_reached(db: Path) -> None:
    with smtp_server() as mailbox, http_sink() as webhook, slack_sink() as slack:
        env = handoff_env(mailbox, webhook, slack) | {"FABRIC_ADVISOR_HANDOFF_SMTP_PORT": str(closed_port())}
        done = handoff.submit(handoff.HandoffRequest(**JANE), config(env))
    outcome = {d.destination: d for d in done.deliveries}
    assert not outcome[Destination.email].reached and "Connection" in outcome[Destination.email].detail
    assert outcome[Destination.webhook].reached and outcome[Destination.slack].reached
    assert done.reply == (
        f"Sent to the sales engineering team by Slack and the webhook; reference {done.reference}. "
        "(email could not be reached.)"
    )
    assert not json.loads(str(stored(db, done.reference)["deliveries"]))[0]["reached"]


def test_with_every_destination_down_the_reply_says_nobody_was_notified(db: Path) -> None:
    env = {"FABRIC_ADVISOR_HANDOFF_WEBHOOK_URL": f"http://127.0.0.1:{closed_port()}/hook"}
    done = handoff.submit(
        handoff.HandoffRequest(**JANE), config(env | {"FABRIC_ADVISOR_HANDOFF_CONTACT": "se@example.com"})
    )
    assert not done.notified
    assert done.reply == (
        f"Recorded as {done.reference}, but the webhook could not be reached, so nobody has been notified yet: "
        f"please contact the sales engineering team at se@example.com and quote {done.reference}."
    )


def test_with_no_destination_configured_the_handoff_is_recorded_and_the_reply_says_so(db: Path) -> None:
    done = handoff.submit(handoff.HandoffRequest(**JANE), config({}))
    assert done.deliveries == [] and not done.notified
    assert done.reply.startswith(f"Recorded as {done.reference}, but no destination is configured")
    assert "will get in touch" not in done.reply
    assert stored(db, done.reference)["email"] == "jane@acme.example"


def test_a_refusal_from_slack_is_not_a_delivery(db: Path) -> None:
    env = {
        "FABRIC_ADVISOR_HANDOFF_SLACK_TOKEN": "xoxb-revoked",
        "FABRIC_ADVISOR_HANDOFF_SLACK_CHANNEL": "#gone",
    }
    with http_sink(answer={"ok": False, "error": "channel_not_found"}) as slack:
        env["FABRIC_ADVISOR_HANDOFF_SLACK_API_URL"] = slack.url
        [delivery] = handoff.submit(handoff.HandoffRequest(**JANE), config(env)).deliveries
    assert not delivery.reached and "channel_not_found" in delivery.detail


def test_a_destination_that_never_answers_holds_the_handoff_only_for_the_timeout(db: Path) -> None:
    with socket.socket() as silent:  # accepts connections (the backlog), never answers
        silent.bind(("127.0.0.1", 0))
        silent.listen()
        env = {
            "FABRIC_ADVISOR_HANDOFF_WEBHOOK_URL": f"http://127.0.0.1:{silent.getsockname()[1]}/hook",
            "FABRIC_ADVISOR_HANDOFF_TIMEOUT": "0.5",
        }
        started = time.monotonic()
        [delivery] = handoff.submit(handoff.HandoffRequest(**JANE), config(env)).deliveries
        took = time.monotonic() - started
    assert not delivery.reached and took < 5  # (a bound, not a speed figure: 2 x 0.5 s allowed)


def test_an_unknown_design_is_refused(db: Path) -> None:
    with pytest.raises(handoff.UnknownRecommendation):
        handoff.submit(handoff.HandoffRequest(**JANE, recommendation_id="r_000000000000"), config({}))


@pytest.mark.parametrize("email", ["jane", "jane at acme.example", "jane@acme", "@acme.example", "j@a@b.example"])
def test_a_malformed_email_is_refused(email: str) -> None:
    with pytest.raises(ValidationError, match=r"name@example\.com"):
        handoff.HandoffRequest(**{**JANE, "email": email})
