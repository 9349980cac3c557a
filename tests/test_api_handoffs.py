"""POST /v1/handoffs through a real API server whose handoff destinations are real local
sinks (an SMTP server, a webhook and a Slack stand-in): the request arrives at each, the
answer carries the reference and each destination's outcome, a malformed email is a 422."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests.handoff_sinks import HttpSink, Mailbox, handoff_env, http_sink, slack_sink, smtp_server
from tests.servers import REPO, VENV_BIN, Server, free_port, running

#: our code in another process (make test runs these; make check leaves them out)
pytestmark = pytest.mark.e2e

JANE = {"name": "Jane Doe", "email": "jane@acme.example", "company": "Acme AI Lab", "message": "A quote, please"}


@pytest.fixture(scope="module")
def sinks() -> Iterator[tuple[Mailbox, HttpSink, HttpSink]]:
    with smtp_server() as mailbox, http_sink() as webhook, slack_sink() as slack:
        yield mailbox, webhook, slack


@pytest.fixture(scope="module")
def work(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("handoff-api")


def serve(work: Path, extra: dict[str, str]) -> Iterator[Server]:
    port = free_port()
    env = {"FABRIC_ADVISOR_DB": str(work / "advisor.db"), "FABRIC_ADVISOR_API_KEY": "", **extra}
    kb = REPO / "var" / "knowledge.db"
    if kb.exists():
        env["FABRIC_ADVISOR_KB"] = str(kb)
    command = [str(VENV_BIN / "python"), "-m", "uvicorn", "api.app:app", "--host", "127.0.0.1", "--port", str(port)]
    with running(command, port=port, health_path="/healthz", env=env) as server:
        yield server


@pytest.fixture(scope="module")
def api(work: Path, sinks: tuple[Mailbox, HttpSink, HttpSink]) -> Iterator[Server]:
    yield from serve(work, handoff_env(*sinks))


def test_a_handoff_posted_to_the_api_arrives_by_mail_webhook_and_slack(
    api: Server, sinks: tuple[Mailbox, HttpSink, HttpSink], work: Path
) -> None:
    mailbox, webhook, slack = sinks
    rec = httpx.post(
        f"{api.url}/v1/recommendations", json={"workload": "training", "gpu_count": 64, "gpu_model": "H100"}, timeout=60
    ).json()
    response = httpx.post(f"{api.url}/v1/handoffs", json={**JANE, "recommendation_id": rec["id"]}, timeout=30)
    assert response.status_code == 201, response.text
    done = response.json()
    reference = done["reference"]
    assert done["notified"] and [d["reached"] for d in done["deliveries"]] == [True, True, True]
    assert (
        done["reply"] == f"Sent to the sales engineering team by email, Slack and the webhook; reference {reference}."
    )
    assert any(reference in mail["Subject"] and rec["id"] in str(mail.get_payload()) for _, mail in mailbox.mails)
    assert any(
        body["reference"] == reference and body["recommendation_id"] == rec["id"] for *_, body in webhook.received
    )
    assert any(reference in body["text"] for *_, body in slack.received)
    with sqlite3.connect(work / "advisor.db") as db:
        row = db.execute("SELECT email, recommendation_id FROM handoffs WHERE reference = ?", [reference]).fetchone()
    assert row == ("jane@acme.example", rec["id"])


def test_a_malformed_email_is_a_422_that_names_the_field(api: Server) -> None:
    response = httpx.post(f"{api.url}/v1/handoffs", json={**JANE, "email": "jane at acme"}, timeout=30)
    assert response.status_code == 422 and "email" in response.text and "name@example.com" in response.text


def test_an_unknown_design_is_a_404(api: Server) -> None:
    response = httpx.post(f"{api.url}/v1/handoffs", json={**JANE, "recommendation_id": "r_000000000000"}, timeout=30)
    assert response.status_code == 404 and "r_000000000000" in response.json()["detail"]


def test_a_destination_that_is_down_is_reported_as_not_reached_in_the_answer(tmp_path: Path) -> None:
    with smtp_server() as mailbox, http_sink() as webhook, slack_sink() as slack:
        env = handoff_env(mailbox, webhook, slack) | {
            "FABRIC_ADVISOR_HANDOFF_SLACK_API_URL": f"http://127.0.0.1:{free_port()}"
        }
        for server in serve(tmp_path, env):
            done = httpx.post(f"{server.url}/v1/handoffs", json=JANE, timeout=30).json()
    slack_outcome = next(d for d in done["deliveries"] if d["destination"] == "slack")
    assert not slack_outcome["reached"] and "(Slack could not be reached.)" in done["reply"]
    assert done["notified"]  # by email and the webhook
