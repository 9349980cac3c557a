"""The chat's handoff actions (bot/actions/handoff.py) with the real handoff service and a
real local webhook sink: the form re-asks a malformed email, takes "nothing" as no
message, answers a question asked instead of a contact detail and asks for the detail
again, and action_handoff sends what the conversation knows and says it was sent."""

from __future__ import annotations

import asyncio
import sqlite3
from pathlib import Path

import pytest
from rasa_sdk.executor import CollectingDispatcher

from tests.handoff_sinks import http_sink
from tests.test_actions_fakes import fresh_turns, install_service_stubs, slot_event, texts, tracker  # noqa: F401 (autouse)

install_service_stubs()

from advisor import service  # noqa: E402
from bot.actions import handoff  # noqa: E402
from core.settings import settings  # noqa: E402
from rules.models import Recommendation, WorkloadProfile  # noqa: E402

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


FORM_DOMAIN = {"forms": {"handoff_form": {"required_slots": [*CONTACT, "handoff_message"]}}}


def answer_form(slots: dict[str, object], asked: str, text: str) -> tuple[list[dict[str, object]], list[str]]:
    """validate_handoff_form's events and words for text, typed in answer to asked (Rasa
    has already put the text in the asked slot: its from_text mapping)."""
    dispatcher = CollectingDispatcher()
    answered = tracker(
        slots={**slots, asked: text},
        text=text,
        active_loop="handoff_form",
        requested_slot=asked,
        # as Rasa sends it: its slot mapping took the text, then the form runs and hands
        # the validation its candidates at the end
        events_after_user=[
            {"event": "action", "name": "action_extract_slots"},
            slot_event(asked, text),
            {"event": "action", "name": "handoff_form"},
            slot_event(asked, text),
        ],
    )
    events = asyncio.run(handoff.ValidateHandoffForm().run(dispatcher, answered, FORM_DOMAIN))
    return events, texts(dispatcher)


def design_on_the_table() -> Recommendation:
    """A design stored in this test's store, as the chat shows it before the handoff."""
    return service.recommend(service.complete_profile(WorkloadProfile(workload="training", gpu_count=128)))


def after_a_design(rec: Recommendation) -> dict[str, object]:
    """The slots of a conversation that was shown rec and gave its name and email since."""
    shown = {"recommendation_id": rec.id, "workload": rec.profile.workload.value, "gpu_count": rec.profile.gpu_count}
    return {"contact_name": "Jane Doe", "contact_email": "jane@acme.example", **shown}


def slot_values(events: list[dict[str, object]]) -> dict[object, object]:
    return {e["name"]: e["value"] for e in events if e["event"] == "slot"}


@pytest.mark.parametrize(
    ("asked", "text"),
    [
        ("contact_name", "cancel"),
        ("contact_name", "Never mind."),
        ("contact_email", "stop"),
        ("contact_email", "no, forget it"),
        ("contact_company", "I've changed my mind"),
        ("contact_company", "No thanks"),
        ("handoff_message", "Don't send it"),
        ("handoff_message", "Cancel"),  # the quick reply's payload
    ],
)
def test_a_cancel_instead_of_an_answer_ends_the_form_without_keeping_the_answer(asked: str, text: str) -> None:
    order = [*CONTACT, "handoff_message"]
    known = {slot: CONTACT[slot] for slot in order[: order.index(asked)]}  # what the form asked before
    events, said = answer_form(known, asked, text)
    assert slot_values(events) == {asked: None, "handoff_message": handoff.CANCELLED, "requested_slot": None}
    assert said == []  # action_handoff, which the rules run when the form ends, says it


@pytest.mark.parametrize(
    ("asked", "text", "kept"),
    [
        ("contact_name", "Stopford Jones", "Stopford Jones"),
        ("contact_company", "Cancel Corp", "Cancel Corp"),
        ("handoff_message", "no", handoff.NO_MESSAGE),  # "no" to "anything to discuss?" is no message
        (
            "handoff_message",
            "please stop the quote going out before Friday",
            "please stop the quote going out before Friday",
        ),
    ],
)
def test_an_answer_that_merely_contains_a_cancel_word_is_an_answer(asked: str, text: str, kept: str) -> None:
    events, _ = answer_form({}, asked, text)
    assert slot_values(events)[asked] == kept
    assert handoff.CANCELLED not in slot_values(events).values()


def test_every_question_of_the_form_offers_cancel() -> None:
    dispatcher = CollectingDispatcher()
    asyncio.run(
        handoff.ValidateHandoffForm().next_requested_slot(dispatcher, tracker(active_loop="handoff_form"), FORM_DOMAIN)
    )
    [question] = dispatcher.messages
    assert question["text"] == "Happy to. What is your name?"
    assert question["buttons"] == [{"title": "Cancel", "payload": "cancel"}]


def test_action_handoff_after_a_cancel_sends_nothing_and_says_so(
    monkeypatch: pytest.MonkeyPatch, _private_store: Path
) -> None:
    slots = {**CONTACT, "handoff_message": handoff.CANCELLED, "gpu_count": 128}
    with http_sink() as webhook:
        monkeypatch.setattr(settings, "handoff_webhook_url", f"{webhook.url}/hook")
        dispatcher = CollectingDispatcher()
        events = asyncio.run(handoff.ActionHandoff().run(dispatcher, tracker(slots=slots), {}))
    assert webhook.received == []
    [said] = texts(dispatcher)
    assert said.startswith("OK, cancelled: no request was recorded and nothing was sent")
    assert {"event": "slot", "timestamp": None, "name": "handoff_message", "value": None} in events
    if _private_store.exists():
        with sqlite3.connect(_private_store) as db:
            tables = {row[0] for row in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
            assert "handoffs" not in tables or db.execute("SELECT count(*) FROM handoffs").fetchone() == (0,)


@pytest.mark.parametrize(
    ("asked", "text"),
    [
        ("contact_name", "what does NDR mean?"),
        ("contact_email", "what does NDR mean"),
        ("contact_company", "what is NDR?"),
    ],
)
def test_a_knowledge_question_instead_of_a_detail_is_answered_and_the_detail_asked_again(asked: str, text: str) -> None:
    order = [*CONTACT, "handoff_message"]
    known = {slot: CONTACT[slot] for slot in order[: order.index(asked)]}
    events, said = answer_form(known, asked, text)
    slots = slot_values(events)
    assert slots[asked] is None and slots["requested_slot"] == asked  # not stored, the same question next
    assert handoff.CANCELLED not in slots.values()
    answer, again = said
    assert "NDR" in answer and "Source:" in answer  # the glossary's answer, with its source
    assert again == handoff.replies.text(f"handoff_reask_{asked}")


@pytest.mark.parametrize(
    "text",
    ["how much would that cost?", "wait, which switch is that?", "how many switches is that"],
)
def test_a_question_about_the_design_on_the_table_is_answered_from_it_mid_form(text: str) -> None:
    rec = design_on_the_table()
    events, said = answer_form(after_a_design(rec), "contact_company", text)
    slots = slot_values(events)
    assert slots["contact_company"] is None and slots["requested_slot"] == "contact_company"
    answer, again = said
    assert rec.fabric.switch_model.split()[-1] in answer or "$" in answer, answer
    assert again == "Back to the handoff: which company are you with?"


def test_a_what_if_mid_form_waits_for_the_handoff_and_changes_no_design() -> None:
    rec = design_on_the_table()
    events, said = answer_form(after_a_design(rec), "contact_company", "what about 256 GPUs?")
    assert slot_values(events) == {"contact_company": None, "requested_slot": "contact_company"}
    assert said == [handoff.replies.text("handoff_aside_later"), "Back to the handoff: which company are you with?"]


def test_a_question_the_chat_cannot_answer_waits_and_the_form_asks_again() -> None:
    events, said = answer_form({}, "contact_name", "do you need my full legal name or is a nickname fine?")
    assert slot_values(events)["contact_name"] is None
    assert said == [handoff.replies.text("handoff_aside_later"), "Back to the handoff: what is your name?"]


@pytest.mark.parametrize(
    ("asked", "text", "kept"),
    [
        ("contact_name", "Jane Doe", "Jane Doe"),
        ("contact_name", "Will Smith", "Will Smith"),  # "will" can ask; a name written as one does not
        ("contact_name", "Do Thi Lan", "Do Thi Lan"),
        ("contact_name", "my name is Jane", "my name is Jane"),
        ("contact_email", "is jane@acme.example ok?", "jane@acme.example"),  # a question, with the answer in it
        ("contact_company", "Acme AI Lab", "Acme AI Lab"),
        ("contact_company", "When Labs", "When Labs"),
        ("handoff_message", "how much would 800G cost?", "how much would 800G cost?"),  # the question is the message
    ],
)
def test_a_plausible_detail_is_still_taken(asked: str, text: str, kept: str) -> None:
    order = [*CONTACT, "handoff_message"]
    known = {slot: CONTACT[slot] for slot in order[: order.index(asked)]}
    events, said = answer_form(known, asked, text)
    assert slot_values(events)[asked] == kept
    assert not [line for line in said if "Back to the handoff" in line or "finish the handoff" in line]
