"""The handoff in the chat: `handoff_form` asks for the contact details it does not have
yet (name, email, company) and what the person wants to discuss; `validate_handoff_form`
asks again for a malformed email; `action_handoff` calls advisor.handoff.submit (the
function behind POST /v1/handoffs) with the design on the table, the conversation id and
the details given so far, and says what happened: sent by which channels, or recorded
but not sent. Contact details stay in the slots for the rest of the conversation; the
message is asked afresh for each handoff.
"""

from __future__ import annotations

import re
from typing import Any

from rasa_sdk import Tracker
from rasa_sdk.events import EventType, SlotSet
from rasa_sdk.executor import CollectingDispatcher
from rasa_sdk.forms import REQUESTED_SLOT, FormValidationAction

from advisor import handoff
from advisor.store import StoreUnavailable
from bot.actions import output, profile, replies
from bot.actions.base import AdvisorAction
from bot.actions.conversation import summary

#: the answer to "what would you like to discuss?" that means no message
NO_MESSAGE = "(nothing to add)"
NOTHING = frozenset({"nothing", "no", "none", "skip", "no thanks", "nope", "n/a", "-", "nothing else"})
LONGEST_DETAIL = 200


class ValidateHandoffForm(FormValidationAction):
    """`validate_handoff_form`: asks the form's questions, asks again for a malformed
    email, takes "nothing" as no message."""

    def name(self) -> str:
        return "validate_handoff_form"

    async def next_requested_slot(
        self, dispatcher: CollectingDispatcher, tracker: Tracker, domain: dict[str, Any]
    ) -> EventType | None:
        """Ask the next missing detail here (replies.yml handoff_ask_*), as the sizing form
        does, or end the form when none is missing."""
        missing = [slot for slot in self.domain_slots(domain) if tracker.slots.get(slot) is None]
        if missing:
            output.say(dispatcher, tracker, replies.text(f"handoff_ask_{missing[0]}"))
        return SlotSet(REQUESTED_SLOT, missing[0] if missing else None)

    def validate_contact_email(
        self, value: Any, dispatcher: CollectingDispatcher, tracker: Tracker, domain: dict[str, Any]
    ) -> dict[str, Any]:
        text = str(value or "").strip()
        found = re.search(r"[^@\s<>()\"',;]+@[^@\s<>()\"',;]+", text)  # "it's jane@acme.example"
        candidate = found.group(0).rstrip(".") if found else text
        if problem := handoff.email_problem(candidate):
            output.say(dispatcher, tracker, replies.text("handoff_bad_email", problem=problem))
            return {"contact_email": None}
        return {"contact_email": candidate}

    def validate_contact_name(
        self, value: Any, dispatcher: CollectingDispatcher, tracker: Tracker, domain: dict[str, Any]
    ) -> dict[str, Any]:
        return {"contact_name": str(value or "").strip()[:LONGEST_DETAIL] or None}

    def validate_contact_company(
        self, value: Any, dispatcher: CollectingDispatcher, tracker: Tracker, domain: dict[str, Any]
    ) -> dict[str, Any]:
        return {"contact_company": str(value or "").strip()[:LONGEST_DETAIL] or None}

    def validate_handoff_message(
        self, value: Any, dispatcher: CollectingDispatcher, tracker: Tracker, domain: dict[str, Any]
    ) -> dict[str, Any]:
        text = str(value or "").strip()
        if text.lower().rstrip(".!") in NOTHING or not text:
            return {"handoff_message": NO_MESSAGE}
        return {"handoff_message": text[: handoff.MAX_MESSAGE_CHARS]}


def request_from(tracker: Tracker) -> handoff.HandoffRequest:
    """The handoff the conversation asks for: contact details, message, design, details."""
    message = str(tracker.get_slot("handoff_message") or "")
    rec_id = tracker.get_slot(profile.RECOMMENDATION_SLOT)
    return handoff.HandoffRequest(
        name=str(tracker.get_slot("contact_name") or ""),
        email=str(tracker.get_slot("contact_email") or ""),
        company=str(tracker.get_slot("contact_company") or ""),
        message="" if message == NO_MESSAGE else message,
        recommendation_id=rec_id
        if isinstance(rec_id, str) and re.fullmatch(handoff.RECOMMENDATION_ID, rec_id)
        else None,
        conversation_id=tracker.sender_id[:200],
        details=summary(tracker)[: handoff.MAX_MESSAGE_CHARS],
    )


class ActionHandoff(AdvisorAction):
    """End of the "talk to an engineer" path: record and send the handoff, say what happened."""

    def name(self) -> str:
        return "action_handoff"

    def act(self, dispatcher: CollectingDispatcher, tracker: Tracker, domain: dict[str, Any]) -> list[EventType]:
        request = request_from(tracker)
        try:
            try:
                done = handoff.submit(request)
            except handoff.UnknownRecommendation:  # the design expired meanwhile: hand off without it
                done = handoff.submit(request.model_copy(update={"recommendation_id": None}))
        except StoreUnavailable:
            output.say(dispatcher, tracker, replies.text("handoff_unrecorded"))
            return [SlotSet("handoff_message", None)]
        output.say(dispatcher, tracker, replies.text("handoff", result=done.reply, summary=request.details))
        return [SlotSet("handoff_message", None)]
