"""`fabric-advisor handoff`, the installed script, sending to a real local webhook sink."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.handoff_sinks import http_sink
from tests.test_cli import cli

#: our code in another process (make test runs these; make check leaves them out)
pytestmark = pytest.mark.e2e

JANE = ("--name", "Jane Doe", "--email", "jane@acme.example", "--company", "Acme AI Lab")


@pytest.fixture(autouse=True)
def _private_store(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FABRIC_ADVISOR_DB", str(tmp_path / "advisor.db"))


def test_handoff_sends_to_the_webhook_and_prints_the_reference(monkeypatch: pytest.MonkeyPatch) -> None:
    with http_sink() as webhook:
        monkeypatch.setenv("FABRIC_ADVISOR_HANDOFF_WEBHOOK_URL", f"{webhook.url}/hook")
        result = cli("handoff", *JANE, "--message", "A quote, please", "--json")
    assert result.returncode == 0, result.stderr
    done = json.loads(result.stdout)
    assert done["reply"] == f"Sent to the sales engineering team by the webhook; reference {done['reference']}."
    [(_, _, body)] = webhook.received
    assert body["reference"] == done["reference"] and body["message"] == "A quote, please"


def test_handoff_with_no_destination_says_nobody_was_notified_and_exits_1() -> None:
    result = cli("handoff", *JANE)
    assert result.returncode == 1
    assert "no destination is configured, so nobody has been notified yet" in " ".join(result.stdout.split())


def test_handoff_with_a_malformed_email_names_the_flag() -> None:
    result = cli("handoff", "--name", "Jane", "--email", "jane at acme", "--company", "Acme")
    assert result.returncode == 2 and "--email" in result.stderr and "name@example.com" in result.stderr
