"""The chat's handoff actions (bot/actions/handoff.py) with the real handoff service and a
real local webhook sink: the form re-asks a malformed email, takes "nothing" as no
message, and action_handoff sends what the conversation knows and says it was sent."""

from __future__ import annotations

import asyncio
import sqlite3
from pathlib import Path

import pytest
from rasa_sdk.executor import CollectingDispatcher

from tests.handoff_sinks import http_sink
from tests.test_actions_fakes import install_service_stubs, texts, tracker

install_service_stubs()

from bot.actions import handoff  # noqa: E402
from core.settings import settings  # noqa: E402

CONTACT = {"contact_name": "Jane Doe", "contact_email": "jane@acme.example", "contact_company": "Acme AI Lab"}


@pytest.fixture(autouse=True)
def _private_store(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setattr(settings, "db_path", tmp_path / "advisor.db")
    return tmp_path / "advisor.db"


def validate(slot: str, value: str) -> tuple[dict[str, object], list[str]]:
    dispatcher = CollectingDispatcher()
    method = getattr(handoff.ValidateHandoffForm(), f"validate_{slot}")
    return method(value, dispatcher, tracker(active_loop="handoff_form", requested_slot=slot), {}), texts(dispatcher)


def test_a_malformed_email_is_asked_for_again() -> None:
    slots, said = validate("contact_email", "jane at acme")
    assert slots == {"contact_email": None}
    assert said and "name@example.com" in said[0]


def test_an_email_inside_a_sentence_is_taken() -> None:
    assert validate("contact_email", "sure, it's jane@acme.example.")[0] == {"contact_email": "jane@acme.example"}


def test_nothing_to_add_is_no_message() -> None:
    assert validate("handoff_message", "Nothing.")[0] == {"handoff_message": handoff.NO_MESSAGE}
    assert handoff.request_from(tracker(slots={**CONTACT, "handoff_message": handoff.NO_MESSAGE})).message == ""


def test_action_handoff_sends_the_conversation_to_the_webhook_and_says_so(
    monkeypatch: pytest.MonkeyPatch, _private_store: Path
) -> None:
    slots = {**CONTACT, "handoff_message": "a quote by Friday", "workload": "training", "gpu_count": 128}
    with http_sink() as webhook:
        monkeypatch.setattr(settings, "handoff_webhook_url", f"{webhook.url}/hook")
        dispatcher = CollectingDispatcher()
        events = asyncio.run(handoff.ActionHandoff().run(dispatcher, tracker(slots=slots), {}))
    [(_, _, body)] = webhook.received
    assert body["name"] == "Jane Doe" and body["message"] == "a quote by Friday"
    assert body["conversation_id"] == "test" and "GPU count 128" in body["details"]
    [said] = texts(dispatcher)
    assert said.startswith(f"Sent to the sales engineering team by the webhook; reference {body['reference']}.")
    assert {"event": "slot", "timestamp": None, "name": "handoff_message", "value": None} in events
    with sqlite3.connect(_private_store) as db:
        assert db.execute("SELECT conversation_id FROM handoffs").fetchall() == [("test",)]


def test_the_form_asks_only_for_what_it_does_not_know_and_ends_when_it_knows_everything() -> None:
    domain = {"forms": {"handoff_form": {"required_slots": [*CONTACT, "handoff_message"]}}}
    form = handoff.ValidateHandoffForm()
    dispatcher = CollectingDispatcher()
    known_name = tracker(slots={"contact_name": "Jane Doe"}, active_loop="handoff_form")
    event = asyncio.run(form.next_requested_slot(dispatcher, known_name, domain))
    assert event is not None and event["value"] == "contact_email"
    assert texts(dispatcher) == ["Which email address should the engineer write to?"]
    everything = tracker(slots={**CONTACT, "handoff_message": "a quote"}, active_loop="handoff_form")
    event = asyncio.run(form.next_requested_slot(CollectingDispatcher(), everything, domain))
    assert event is not None and event["value"] is None
