"""The handoff in the chat: `handoff_form` asks for the contact details it does not have
yet (name, email, company) and what the person wants to discuss; `validate_handoff_form`
asks again for a malformed email; `action_handoff` calls advisor.handoffs.handoff.submit (the
function behind POST /v1/handoffs) with the design on the table, the conversation id and
the details given so far, and says what happened: sent by which channels, or recorded
but not sent. Contact details stay in the slots for the rest of the conversation; the
message is asked afresh for each handoff.

Every question of the form carries a Cancel quick reply, and "cancel", "never mind",
"stop" (understanding.chat.cancels; a plain "no" to a contact question too) typed instead
of an answer leave the form: the validation ends it with the answer dropped and
`handoff_message` set to CANCELLED, so `action_handoff`, which the rules run when the
form ends, records and sends nothing and says so. This is decided here rather than by an intent: Rasa runs an active
form before any rule, and the NLU's `deny` ("no", "never mind") at the last question
means "nothing to add" rather than "cancel".

A question typed where a contact detail is asked ("what does NDR mean?", "how much would
that cost?", "wait, which switch is that?") is no name, email or company: the validation
drops it from the slot (the understanding decides: `understanding.understand.
asks_instead_of_answering`), answers it as the chat would (a figure of the design on the
table, or a knowledge answer it is sure of) or says the handoff comes first, and the form
asks for the same detail again. Its slot mappings take any text (`from_text`), so this
is decided here too, with no change to the NLU data or the trained model. At the last
question (what to discuss) a question is the message, and kept.
"""

from __future__ import annotations

import re
from typing import Any

from rasa_sdk import Tracker
from rasa_sdk.events import EventType, SlotSet
from rasa_sdk.executor import CollectingDispatcher
from rasa_sdk.forms import REQUESTED_SLOT, FormValidationAction

from advisor.handoffs import handoff
from advisor.models import AskKind
from advisor.render import markdown
from advisor.storage.store import StoreUnavailable
from bot.actions import output, profile, replies, respond
from bot.actions.base import AdvisorAction
from bot.actions.conversation import summary
from understanding import chat, understand

#: the answer to "what would you like to discuss?" that means no message
NO_MESSAGE = "(nothing to add)"
NOTHING = frozenset({"nothing", "no", "none", "skip", "no thanks", "nope", "n/a", "-", "nothing else"})
LONGEST_DETAIL = 200

#: handoff_message when the person left the form: action_handoff sends nothing
CANCELLED = "(handoff cancelled)"
#: the quick reply under every question of the form; its payload is read as typed
CANCEL_BUTTON = {"title": "Cancel", "payload": "cancel"}


#: the details a question cannot stand for (at the last question, a question is the message)
CONTACT_SLOTS = ("contact_name", "contact_email", "contact_company")


class ValidateHandoffForm(FormValidationAction):
    """`validate_handoff_form`: asks the form's questions, asks again for a malformed
    email, takes "nothing" as no message."""

    def name(self) -> str:
        return "validate_handoff_form"

    async def run(self, dispatcher: CollectingDispatcher, tracker: Tracker, domain: dict[str, Any]) -> list[EventType]:
        """Leave the form on a cancel (understanding.chat.cancels) given instead of an answer, else validate."""
        asked = tracker.get_slot(REQUESTED_SLOT)
        answering = bool(asked) and tracker.active_loop.get("name") == self.form_name() and not _answered(tracker)
        if answering and chat.cancels(profile.latest_text(tracker), asked):
            # the answer Rasa took for the slot is dropped; action_handoff says it was cancelled
            return [SlotSet(asked, None), SlotSet("handoff_message", CANCELLED), SlotSet(REQUESTED_SLOT, None)]
        events: list[EventType] = await super().run(dispatcher, tracker, domain)
        return events

    async def next_requested_slot(
        self, dispatcher: CollectingDispatcher, tracker: Tracker, domain: dict[str, Any]
    ) -> EventType | None:
        """Ask the next missing detail here (replies.yml handoff_ask_*), as the sizing form
        does, or end the form when none is missing."""
        missing = [slot for slot in self.domain_slots(domain) if tracker.slots.get(slot) is None]
        if missing:
            again = missing[0] == tracker.get_slot(REQUESTED_SLOT) and asks_instead(
                missing[0], profile.latest_text(tracker)
            )
            key = f"handoff_reask_{missing[0]}" if again else f"handoff_ask_{missing[0]}"  # after a question aside
            output.say(dispatcher, tracker, replies.text(key), buttons=[CANCEL_BUTTON])
        return SlotSet(REQUESTED_SLOT, missing[0] if missing else None)

    def validate_contact_email(
        self, value: Any, dispatcher: CollectingDispatcher, tracker: Tracker, domain: dict[str, Any]
    ) -> dict[str, Any]:
        text = str(value or "").strip()
        if asks_instead("contact_email", text):
            return {"contact_email": None, **answer_aside(dispatcher, tracker)}
        candidate = chat.email_in(text)  # "it's jane@acme.example"
        if problem := handoff.email_problem(candidate):
            output.say(dispatcher, tracker, replies.text("handoff_bad_email", problem=problem))
            return {"contact_email": None}
        return {"contact_email": candidate}

    def validate_contact_name(
        self, value: Any, dispatcher: CollectingDispatcher, tracker: Tracker, domain: dict[str, Any]
    ) -> dict[str, Any]:
        return _detail("contact_name", value, dispatcher, tracker)

    def validate_contact_company(
        self, value: Any, dispatcher: CollectingDispatcher, tracker: Tracker, domain: dict[str, Any]
    ) -> dict[str, Any]:
        return _detail("contact_company", value, dispatcher, tracker)

    def validate_handoff_message(
        self, value: Any, dispatcher: CollectingDispatcher, tracker: Tracker, domain: dict[str, Any]
    ) -> dict[str, Any]:
        text = str(value or "").strip()
        if text.lower().rstrip(".!") in NOTHING or not text:
            return {"handoff_message": NO_MESSAGE}
        return {"handoff_message": text[: handoff.MAX_MESSAGE_CHARS]}


def asks_instead(slot: str, text: str) -> bool:
    """The answer to the question about slot asks something instead of giving the detail
    (an email address given inside a question is still the answer)."""
    if slot not in CONTACT_SLOTS or (slot == "contact_email" and chat.address_in(text)):
        return False
    return understand.asks_instead_of_answering(text)


def _detail(slot: str, value: Any, dispatcher: CollectingDispatcher, tracker: Tracker) -> dict[str, Any]:
    """A name or a company as typed (trimmed), or none after a question asked instead."""
    text = str(value or "").strip()
    if asks_instead(slot, text):
        return {slot: None, **answer_aside(dispatcher, tracker)}
    return {slot: text[:LONGEST_DETAIL] or None}


def answer_aside(dispatcher: CollectingDispatcher, tracker: Tracker) -> dict[str, Any]:
    """Answer a question asked in the middle of the form as the chat answers it (the turn's
    one decision, bot/actions/respond.py): a figure of the design on the table, or a
    knowledge answer the knowledge base is sure of; anything else (a new size, a question
    it would answer with "I'm not sure ... the closest entry is") waits until the handoff
    is done, and the person is told so: a hedge in the middle of a form is noise. The
    slots the answer sets (what it was about)."""
    decided = respond.turn(tracker)
    if decided.kind == AskKind.design_answer and decided.design_answer:
        output.say(dispatcher, tracker, decided.design_answer)
    elif (
        decided.kind == AskKind.answer
        and decided.answer is not None
        and decided.answer.confident
        and decided.relevance >= respond.CONFIDENT_ANSWER
    ):
        output.say(dispatcher, tracker, markdown.answer_markdown(decided.answer))
    else:
        output.say(dispatcher, tracker, replies.text("handoff_aside_later"))
        return {}
    return {respond.CONTEXT_SLOT: decided.context.model_dump()}


#: the actions of a turn that do not answer the message (Rasa runs the form before this
#: validation, so the form itself is among them)
_FORM_TURN = frozenset(
    {"action_listen", "action_extract_slots", "action_validate_slot_mappings", "handoff_form", "validate_handoff_form"}
)


def _answered(tracker: Tracker) -> bool:
    """True when an action has answered the latest message already (the form is resuming)."""
    return any(
        event.get("event") == "action" and event.get("name") not in _FORM_TURN
        for event in profile.events_this_turn(tracker)
    )


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
        if tracker.get_slot("handoff_message") == CANCELLED:  # the person left the form
            output.say(dispatcher, tracker, replies.text("handoff_cancelled"))
            return [SlotSet("handoff_message", None)]
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
