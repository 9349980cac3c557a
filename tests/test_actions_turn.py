"""One chat turn, one decision: the slot filling and the action Rasa picked act on the
advisor service's one decision on the message (bot.actions.respond.turn), so the
extractor reads the message once per turn, and the chat says what `/v1/ask` says.

The real service, rules and knowledge base run here (no fakes); the stores are a
temporary database."""

from __future__ import annotations

import asyncio
import sys
from typing import Any

import pytest
from rasa_sdk.executor import CollectingDispatcher

import understanding.extraction.extractor
from advisor import service
from advisor.settings import settings
from bot.actions import conversation, knowledge, recommend
from bot.actions.slots import ValidateSlotMappings
from rules.models import ProfileDraft, WorkloadProfile
from tests.test_actions_fakes import fresh_turns, slot_event, slots_of, texts, tracker  # noqa: F401 (autouse)

TRAINING_128 = {"workload": "training", "gpu_count": 128, "gpu_model": "H100"}


@pytest.fixture
def reads(monkeypatch: pytest.MonkeyPatch, tmp_path: Any) -> list[str]:
    """Every text the extractor's entry point reads during the test, whichever module
    calls it (each imported it under its own name)."""
    monkeypatch.setattr(settings, "db_path", tmp_path / "advisor.db")
    real = understanding.extraction.extractor.extract
    seen: list[str] = []

    def counting(text: str, expecting: str | None = None, known_model: str | None = None) -> Any:
        seen.append(text)
        return real(text, expecting=expecting, known_model=known_model)

    for name, module in list(sys.modules.items()):
        if name.split(".")[0] in ("advisor", "bot", "understanding", "knowledge") and (
            getattr(module, "extract", None) is real
        ):
            monkeypatch.setattr(module, "extract", counting)
    service._top_hits.cache_clear()  # a question searched in another test was read there
    return seen


def chat_turn(action: Any, text: str, intent: str, slots: dict[str, Any] | None = None) -> tuple[list[Any], str]:
    """One user message through the slot filling and then `action`, as Rasa runs them:
    the events and what the chat said."""
    history = [slot_event(name, value) for name, value in (slots or {}).items()]
    before = tracker(slots=slots, text=text, intent=intent, history=history)
    filled = asyncio.run(ValidateSlotMappings().run(CollectingDispatcher(), before, {}))
    after = tracker(
        slots={**(slots or {}), **slots_of(filled)},
        text=text,
        intent=intent,
        events_after_user=[{"event": "action", "name": "action_validate_slot_mappings"}, *filled],
        history=history,
    )
    dispatcher = CollectingDispatcher()
    events = asyncio.run(action.run(dispatcher, after, {}))
    return [*filled, *events], "\n\n".join(texts(dispatcher))


def shown_design() -> dict[str, Any]:
    """Slots as after a design for 128 H100 for training was shown."""
    rec = service.recommend(service.complete_profile(WorkloadProfile(**TRAINING_128)))
    return {**TRAINING_128, "recommendation_id": rec.id}


@pytest.mark.parametrize(
    ("action", "text", "intent", "design_shown"),
    [
        (knowledge.ActionAnswerKnowledge(), "What is PFC?", "ask_knowledge", False),
        (recommend.ActionRecommend(), "We pretrain a 70B model on 128 H100s", "inform", False),
        (recommend.ActionWhatIf(), "what about 256 GPUs?", "what_if", True),
        (conversation.ActionOutOfScope(), "sorry, 256 not 128", "out_of_scope", True),
        (knowledge.ActionAnswerKnowledge(), "what MTU do we set?", "ask_knowledge", True),
        (conversation.ActionGreet(), "hello there", "greet", False),
    ],
)
def test_the_extractor_reads_a_chat_message_once_per_turn(
    reads: list[str], action: Any, text: str, intent: str, design_shown: bool
) -> None:
    slots = shown_design() if design_shown else None
    reads.clear()
    _, said = chat_turn(action, text, intent, slots)
    assert said  # the turn was answered
    assert reads == [text]


def test_the_chat_sizes_a_correction_as_the_api_does(reads: list[str]) -> None:
    slots = shown_design()
    events, said = chat_turn(conversation.ActionOutOfScope(), "sorry, 256 not 128", "out_of_scope", slots)
    asked = service.ask("sorry, 256 not 128", ProfileDraft(**TRAINING_128), slots["recommendation_id"])
    assert slots_of(events)["gpu_count"] == 256 == asked.profile.gpu_count
    assert asked.recommendation is not None
    assert slots_of(events)["recommendation_id"] == asked.recommendation.id
    assert "Changed: GPUs 128 -> 256." in said and "Changed: GPUs 128 -> 256." in asked.reply


def test_the_chat_answers_a_question_with_the_entry_the_api_answers(reads: list[str]) -> None:
    _, said = chat_turn(knowledge.ActionAnswerKnowledge(), "What is PFC?", "ask_knowledge")
    asked = service.ask("What is PFC?")
    assert asked.answer is not None
    assert asked.reply == said


@pytest.mark.parametrize(
    ("action", "text", "intent"),
    [
        (recommend.ActionCompare(), "Please show the RoCE option.", "compare"),
        (recommend.ActionWhatIf(), "Please change the fabric to RoCE.", "what_if"),
        (recommend.ActionWhatIf(), "switch the network over to RoCE", "what_if"),
    ],
)
def test_a_command_to_try_one_fabric_sizes_the_design_with_it(
    reads: list[str], action: Any, text: str, intent: str
) -> None:
    """ "show the RoCE option", "change the fabric to RoCE": the design on the table with
    that fabric (the dispatcher's what-if), whichever of compare or what-if Rasa heard,
    not the candidates side by side nor "that changes nothing"."""
    slots = shown_design()
    events, said = chat_turn(action, text, intent, slots)
    new_ids = [e["value"] for e in events if e.get("event") == "slot" and e.get("name") == "recommendation_id"]
    assert new_ids and new_ids[-1] != slots["recommendation_id"]
    rec = service.get_recommendation(new_ids[-1])
    assert rec is not None and str(rec.fabric.technology) == "rocev2"
    assert "Fabrics compared" not in said and "RoCE" in said


def test_why_asked_before_any_design_is_answered_from_the_knowledge_base(reads: list[str]) -> None:
    """ "Why are the nodes rail-aligned?" heard as `explain` with no design yet asks why in
    general: the knowledge answer, not "I haven't recommended anything yet"."""
    events, said = chat_turn(recommend.ActionExplain(), "Why are the nodes rail-aligned?", "explain")
    assert "rail" in said.lower() and "haven't recommended" not in said
    assert not [e for e in events if e.get("name") == "recommendation_id"]
