"""action_validate_slot_mappings: every user message goes through our extractor and what
it finds is merged into the profile slots; only changed slots are set."""

from __future__ import annotations

import asyncio

import pytest
from rasa_sdk.executor import CollectingDispatcher

from bot.actions.slots import ValidateSlotMappings
from rules.models import ProfileDraft
from tests.test_actions_fakes import fresh_turns, slots_of, tracker  # noqa: F401 (autouse)
from understanding import extraction
from understanding.extraction.models import Extraction


@pytest.fixture
def extracted(monkeypatch):
    """Make the extractor return the given draft (or whole Extraction) for each text."""
    results: dict[str, ProfileDraft | Extraction] = {}
    seen: list[str] = []

    def fake_extract(text: str, expecting: str | None = None, known_model: str | None = None):
        seen.append(text)
        if text == "boom":
            raise RuntimeError("extractor failed")
        found = results.get(text, ProfileDraft())
        return found if isinstance(found, Extraction) else Extraction(profile=found)

    monkeypatch.setattr(extraction, "extract", fake_extract, raising=False)
    results["seen"] = seen  # type: ignore[assignment]
    return results


def run(t):
    dispatcher = CollectingDispatcher()
    events = asyncio.run(ValidateSlotMappings().run(dispatcher, t, {}))
    assert dispatcher.messages == []  # slot filling never talks
    return events


def test_the_action_is_rasas_global_slot_validation():
    assert ValidateSlotMappings().name() == "action_validate_slot_mappings"


def test_details_in_the_message_fill_their_slots(extracted):
    extracted["We train a 70B model."] = ProfileDraft(workload="training", model_params_b=70)
    events = run(tracker(text="We train a 70B model."))
    assert slots_of(events) == {"workload": "training", "model_params_b": 70.0}


def test_details_from_earlier_turns_are_kept_and_unchanged_slots_not_reset(extracted):
    extracted["on 128 H100s"] = ProfileDraft(gpu_count=128, gpu_model="H100")
    earlier = {"workload": "training", "model_params_b": 70.0, "gpu_model": "H100"}
    events = run(tracker(slots=earlier, text="on 128 H100s"))
    assert slots_of(events) == {"gpu_count": 128, "profile_complete": True}


def test_a_new_size_drops_the_stale_size_details(extracted):
    extracted["what about 256 GPUs?"] = ProfileDraft(gpu_count=256)
    earlier = {"workload": "training", "node_count": 16, "gpus_per_node": 8, "gpu_count": 128, "profile_complete": True}
    events = run(tracker(slots=earlier, text="what about 256 GPUs?", intent="what_if"))
    assert slots_of(events) == {"gpu_count": 256, "node_count": None}


def test_a_relative_change_scales_the_size_in_the_slots(extracted):
    extracted["what if we double it?"] = Extraction(size_factor=2)
    earlier = {"workload": "training", "node_count": 16, "gpus_per_node": 8, "gpu_count": 128, "profile_complete": True}
    events = run(tracker(slots=earlier, text="what if we double it?", intent="what_if"))
    assert slots_of(events) == {"gpu_count": 256, "node_count": 32}


def test_profile_complete_tells_the_rules_whether_the_form_is_needed(extracted):
    extracted["training"] = ProfileDraft(workload="training")
    assert slots_of(run(tracker(text="training"))) == {"workload": "training"}  # still incomplete
    events = run(tracker(slots={"node_count": 4}, text="training"))
    assert slots_of(events) == {"workload": "training", "profile_complete": True}


def test_a_message_without_details_sets_nothing(extracted):
    assert run(tracker(slots={"workload": "training"}, text="what is PFC?", intent="ask_knowledge")) == []


def test_intent_payloads_are_not_read(extracted):
    assert run(tracker(text="/restart", intent="restart")) == []
    assert extracted["seen"] == []


def test_an_extractor_failure_does_not_break_the_turn(extracted):
    assert run(tracker(text="boom")) == []


def test_an_invalid_slot_value_is_ignored_not_fatal(extracted):
    extracted["64 GPUs"] = ProfileDraft(gpu_count=64)
    events = run(tracker(slots={"gpu_count": -3, "workload": "training"}, text="64 GPUs"))
    assert slots_of(events) == {"gpu_count": 64, "profile_complete": True}


def run_real(t):
    """The action with the real extractor (the fixture above replaces it)."""
    return asyncio.run(ValidateSlotMappings().run(CollectingDispatcher(), t, {}))


def test_a_bare_number_answers_the_forms_gpu_count_question():
    t = tracker(
        slots={"workload": "training"},
        text="128",
        intent="inform",
        active_loop="sizing_form",
        requested_slot="gpu_count",
    )
    assert slots_of(run_real(t)) == {"gpu_count": 128, "profile_complete": True}


def test_a_bare_number_after_a_recommendation_is_its_new_gpu_count():
    shown = {"workload": "training", "gpu_count": 128, "recommendation_id": "r_1", "profile_complete": True}
    t = tracker(slots=shown, text="sorry, I meant 256", intent="out_of_scope")
    assert slots_of(run_real(t)) == {"gpu_count": 256}


def test_a_bare_number_in_small_talk_changes_nothing():
    shown = {"workload": "training", "gpu_count": 128, "recommendation_id": "r_1", "profile_complete": True}
    assert slots_of(run_real(tracker(slots=shown, text="thanks, 5 stars", intent="thank"))) == {}
    assert slots_of(run_real(tracker(slots={"workload": "training"}, text="128", intent="inform"))) == {}


def test_a_server_shape_after_the_total_keeps_the_total():
    shown = {"workload": "training", "gpu_count": 32, "recommendation_id": "r_1", "profile_complete": True}
    assert slots_of(run_real(tracker(slots=shown, text="8 per node", intent="inform"))) == {"gpus_per_node": 8}
