"""Slots <-> ProfileDraft: the conversation's memory of the workload.

Every WorkloadProfile field has a slot of the same name; these helpers turn the slots
into a `ProfileDraft`, and a new draft back into the few `SlotSet` events that changed.
They also read the current turn (what the latest user message set), which the form and
the answering actions use to tell a real answer from a change of topic.
"""

from __future__ import annotations

import logging
from typing import Any

from pydantic import ValidationError
from rasa_sdk import Tracker
from rasa_sdk.events import EventType, SlotSet

from rules.models import ProfileDraft

logger = logging.getLogger(__name__)

PROFILE_SLOTS: tuple[str, ...] = tuple(ProfileDraft.model_fields)
SIZE_SLOTS = frozenset({"gpu_count", "node_count", "gpus_per_node"})
SIZING_SLOTS = SIZE_SLOTS | {"workload"}
RECOMMENDATION_SLOT = "recommendation_id"
COMPLETE_SLOT = "profile_complete"

# actions Rasa runs inside a user turn that are not an answer to it
_TURN_INTERNAL_ACTIONS = frozenset(
    {"action_listen", "action_extract_slots", "action_validate_slot_mappings", "sizing_form", "validate_sizing_form"}
)


def draft_from_slots(slots: dict[str, Any]) -> ProfileDraft:
    """The profile the slots describe; a slot value the model rejects is left out."""
    values = {name: slots.get(name) for name in PROFILE_SLOTS if slots.get(name) is not None}
    try:
        return ProfileDraft.model_validate(values)
    except ValidationError:
        kept = {}
        for name, value in values.items():
            try:
                ProfileDraft.model_validate({name: value})
                kept[name] = value
            except ValidationError:
                logger.warning("slot %s=%r is not a valid profile value; ignored", name, value)
        return ProfileDraft.model_validate(kept)


def slot_values(draft: ProfileDraft) -> dict[str, Any]:
    """The draft as slot values (JSON types), every profile slot present."""
    return draft.model_dump(mode="json")


def slot_events(old: ProfileDraft, new: ProfileDraft) -> list[EventType]:
    """SlotSet for each profile slot whose value differs between old and new."""
    before, after = slot_values(old), slot_values(new)
    return [SlotSet(name, after[name]) for name in PROFILE_SLOTS if before[name] != after[name]]


def completeness_events(tracker: Tracker, draft: ProfileDraft) -> list[EventType]:
    """SlotSet for profile_complete when the draft's completeness differs from the slot."""
    complete = not draft.missing()
    return [] if bool(tracker.get_slot(COMPLETE_SLOT)) == complete else [SlotSet(COMPLETE_SLOT, complete)]


def events_this_turn(tracker: Tracker) -> list[dict[str, Any]]:
    """Events after the latest user message (empty when there is none)."""
    events = tracker.events
    for index in range(len(events) - 1, -1, -1):
        if events[index].get("event") == "user":
            return list(events[index + 1 :])
    return []


def slots_set_this_turn(tracker: Tracker) -> set[str]:
    """Profile slots the latest user message changed (through action_validate_slot_mappings)."""
    return {
        event["name"]
        for event in events_this_turn(tracker)
        if event.get("event") == "slot" and event.get("name") in PROFILE_SLOTS
    }


def answered_since_user(tracker: Tracker) -> bool:
    """True when some action already answered the latest user message (an interruption)."""
    return any(
        event.get("event") == "action" and event.get("name") not in _TURN_INTERNAL_ACTIONS
        for event in events_this_turn(tracker)
    )


def latest_text(tracker: Tracker) -> str:
    return (tracker.latest_message or {}).get("text") or ""


def latest_intent(tracker: Tracker) -> str | None:
    return ((tracker.latest_message or {}).get("intent") or {}).get("name")
