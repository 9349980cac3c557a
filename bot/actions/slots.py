"""Fill the profile slots from every user message (Rasa's global slot validation).

Rasa calls `action_validate_slot_mappings` after each user message because every profile
slot has a custom mapping. We run our extractor on the message and merge what it found
into the slots with `Extraction.applied_to`, which also drops stale size details when a
new size is given ("what about 256 GPUs?" forgets the old node count) and scales the
size on the table when the message asks for a relative change ("what if we double it?"). Only slots whose
value changed are set, so the tracker stays lean. `profile_complete` follows: the rules
answer a request with nothing missing at once, without the form. A bare number ("128")
counts when the conversation has just asked for one (`respond.expected_count`).
"""

from __future__ import annotations

import logging
from typing import Any

from rasa_sdk import Tracker
from rasa_sdk.events import EventType
from rasa_sdk.executor import CollectingDispatcher
from rasa_sdk.forms import ValidationAction

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
