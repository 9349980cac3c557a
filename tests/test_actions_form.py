"""validate_sizing_form: asks for what is missing one question at a time, re-asks an
answer it cannot use with an example, and steps aside when the user changes the topic."""

from __future__ import annotations

import asyncio

from rasa_sdk.executor import CollectingDispatcher

from bot.actions.form import ValidateSizingForm
from tests.test_actions_fakes import fresh_turns, slot_event, slots_of, texts, tracker  # noqa: F401 (autouse)

FORM = "sizing_form"


def run(t):
    dispatcher = CollectingDispatcher()
    events = asyncio.run(ValidateSizingForm().run(dispatcher, t, {}))
    return events, dispatcher


def answer(text, slots=None, requested="gpu_count", intent="inform", set_now=()):
    """The tracker the form sees after the user answered its question with text."""
    after = [slot_event(name, value) for name, value in set_now]
    after.append({"event": "action", "name": FORM})
    return tracker(
        slots={**(slots or {}), **dict(set_now)},
        text=text,
        intent=intent,
        events_after_user=after,
        active_loop=FORM,
        requested_slot=requested,
    )


def test_activation_asks_the_first_missing_detail_with_buttons():
    events, dispatcher = run(tracker(text="I need a network", intent="ask_recommendation"))
    assert slots_of(events) == {"requested_slot": "workload"}
    [message] = dispatcher.messages
    assert "What will the cluster run" in message["text"]
    assert [b["title"] for b in message["buttons"]] == ["Training", "Inference", "Both"]


def test_activation_says_why_an_impossible_size_is_not_used_then_asks():
    events, dispatcher = run(
        tracker(slots={"workload": "training"}, text="training on 0 GPUs", intent="ask_recommendation")
    )
    assert slots_of(events) == {"requested_slot": "gpu_count"}
    unusable, question = texts(dispatcher)
    assert unusable == 'I can\'t size "0 GPUs": a cluster has 1 to 1,000,000 GPUs.'
    assert "How many GPUs" in question


def test_activation_with_everything_known_finishes_at_once():
    events, dispatcher = run(tracker(slots={"workload": "training", "gpu_count": 128}))
    assert slots_of(events) == {"requested_slot": None}
    assert dispatcher.messages == []


def test_a_node_count_stands_in_for_the_gpu_count():
    t = answer(
        "8 nodes of 8 H100",
        slots={"workload": "training"},
        set_now=[("node_count", 8), ("gpus_per_node", 8), ("gpu_model", "H100")],
    )
    events, dispatcher = run(t)
    # the requested slot is marked as handled, so Rasa does not reject the form
    assert slots_of(events) == {"gpu_count": None, "requested_slot": None}
    assert dispatcher.messages == []


def test_the_next_question_follows_a_usable_answer():
    events, dispatcher = run(answer("Training", requested="workload", set_now=[("workload", "training")]))
    assert slots_of(events) == {"workload": "training", "requested_slot": "gpu_count"}
    assert texts(dispatcher) == ['How many GPUs will it have? For example "64 GPUs" or "8 nodes of 8 H100".']


def test_an_unusable_answer_is_asked_again_with_an_example():
    events, dispatcher = run(answer("lots", slots={"workload": "training"}))
    assert slots_of(events) == {"gpu_count": None, "requested_slot": "gpu_count"}
    reask, question = texts(dispatcher)
    assert '"lots"' in reask and "I need a whole number" in reask and "8 nodes of 8 H100" in reask
    assert question.startswith("How many GPUs")


def test_an_unusable_workload_is_asked_again_with_buttons():
    events, dispatcher = run(answer("dunno", requested="workload", intent="nlu_fallback"))
    assert slots_of(events) == {"workload": None, "requested_slot": "workload"}
    assert "couldn't tell what the cluster runs" in texts(dispatcher)[0]
    assert dispatcher.messages[-1]["buttons"]


def test_other_details_in_the_answer_are_kept_and_the_question_repeated_without_complaint():
    events, dispatcher = run(answer("it's H100s", slots={"workload": "training"}, set_now=[("gpu_model", "H100")]))
    assert slots_of(events) == {"gpu_count": None, "requested_slot": "gpu_count"}
    assert [t for t in texts(dispatcher) if "couldn't" in t] == []


def test_a_change_of_topic_lets_the_rules_answer():
    events, dispatcher = run(answer("what is PFC?", slots={"workload": "training"}, intent="ask_knowledge"))
    assert events == [] and dispatcher.messages == []


def test_after_an_interruption_the_question_is_asked_again():
    after = [
        {"event": "action", "name": "action_answer_knowledge"},
        {"event": "bot", "text": "PFC is..."},
        {"event": "action", "name": FORM},
    ]
    t = tracker(
        slots={"workload": "training"},
        text="what is PFC?",
        intent="ask_knowledge",
        events_after_user=after,
        active_loop=FORM,
        requested_slot="gpu_count",
    )
    events, dispatcher = run(t)
    assert slots_of(events) == {"requested_slot": "gpu_count"}
    assert texts(dispatcher) == ['How many GPUs will it have? For example "64 GPUs" or "8 nodes of 8 H100".']


def test_a_typed_button_title_means_what_the_button_means(monkeypatch):
    from rules.models import ProfileDraft
    from understanding import extraction
    from understanding.extraction.models import Extraction

    seen = []

    def fake_extract(text):
        seen.append(text)
        return Extraction(
            profile=ProfileDraft(workload="mixed") if text == "Training and inference" else ProfileDraft()
        )

    monkeypatch.setattr(extraction, "extract", fake_extract, raising=False)
    events, dispatcher = run(answer("Both!", requested="workload", slots={"gpu_count": 64}))
    assert seen == ["Training and inference"]
    assert slots_of(events) == {"workload": "mixed", "profile_complete": True, "requested_slot": None}
    assert [t for t in texts(dispatcher) if "couldn't" in t] == []
