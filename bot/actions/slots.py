"""Fill the profile slots from every user message (Rasa's global slot validation).

Rasa calls `action_validate_slot_mappings` after each user message because every profile
slot has a custom mapping. We run our extractor on the message and merge what it found
into the slots with `Extraction.applied_to`, which also drops stale size details when a
new size is given ("what about 256 GPUs?" forgets the old node count) and scales the
size on the table when the message asks for a relative change ("what if we double it?"). Only slots whose
value changed are set, so the tracker stays lean. `profile_complete` follows: the rules
answer a request with nothing missing at once, without the form. A bare number ("128")
counts when the conversation has just asked for one (`expected_count`).
"""

from __future__ import annotations

import logging
import re
from typing import Any

from rasa_sdk import Tracker
from rasa_sdk.events import EventType
from rasa_sdk.executor import CollectingDispatcher
from rasa_sdk.forms import ValidationAction

import extraction
from advisor import understand
from bot.actions import profile, respond

logger = logging.getLogger(__name__)


class ValidateSlotMappings(ValidationAction):
    """`action_validate_slot_mappings`: the extractor fills the slots, turn by turn."""

    async def run(self, dispatcher: CollectingDispatcher, tracker: Tracker, domain: dict[str, Any]) -> list[EventType]:
        text = profile.latest_text(tracker)
        if not text.strip() or text.startswith("/"):
            return []  # an intent payload ("/restart") carries no workload details
        current = profile.draft_from_slots(tracker.slots)
        try:
            # the service's one decision on the message (bot.actions.respond.turn), kept for
            # the turn's reply: the merge the API takes too, a value taken back ("sorry, 256
            # not 128") replaced, a link speed the servers cannot run ("800G" on H100) left out
            merged = respond.turn(tracker).profile
        except Exception:  # a detail we cannot use must not break the turn
            logger.exception("could not extract workload details from %r", text)
            return []
        return profile.slot_events(current, merged) + profile.completeness_events(tracker, merged)


# intents with which a bare number after a recommendation changes its GPU count
# ("what about 1024?", "sorry, I meant 256", "no, 512")
_CORRECTIONS = frozenset({"what_if", "inform", "ask_recommendation", "deny", "out_of_scope", "nlu_fallback"})


# "which one does our design use?": "one" picks a thing, it is no count
_PICKS_ONE = re.compile(r"\b(?:which|that|this|the|each|every|any)\s+one\b", re.I)


def refused_a_size(tracker: Tracker) -> bool:
    """The user's previous message gave a size that could not be used (out of range)."""
    texts = [e.get("text") or "" for e in tracker.events if e.get("event") == "user"]
    if len(texts) < 2:
        return False
    earlier = respond.kept_turn(tracker, back=1)  # as decided then, not read again
    found = earlier.extraction if earlier is not None else extraction.extract(texts[-2])
    return bool(found.rejected)


def expected_count(tracker: Tracker) -> str | None:
    """The count a bare number in this message answers: the one the sizing form asked
    for (or, while the form runs without a size, the GPU count), else, once a
    recommendation was shown, its GPU count."""
    requested: str | None = tracker.get_slot("requested_slot")
    if tracker.active_loop_name == "sizing_form":
        if requested in profile.SIZE_SLOTS:
            return requested
        draft = profile.draft_from_slots(tracker.slots)
        if draft.gpu_count is None and draft.node_count is None:
            return "gpu_count"  # asked for the workload, told "256, training": the size is still missing
    text = profile.latest_text(tracker)
    if _PICKS_ONE.search(text) or (understand.design_topics(text) and not any(c.isdigit() for c in text)):
        return None  # "how long does one gradient sync take?" asks about the design
    if refused_a_size(tracker):  # "3,000,000 GPUs" was refused: "sorry, 3000" corrects it
        return "gpu_count"
    if tracker.get_slot(profile.RECOMMENDATION_SLOT) and profile.latest_intent(tracker) in _CORRECTIONS:
        return "gpu_count"
    return None
