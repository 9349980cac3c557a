"""The sizing form's validation: ask for what is missing, one question at a time.

Rasa runs `validate_sizing_form` whenever the form runs. The profile slots are already
filled from the message by `action_validate_slot_mappings`; this action decides what
the form does with the turn:

- the question was answered (or the message added other details): ask the next thing
  `ProfileDraft.missing()` lists, or finish so the rules recommend;
- the message was an answer we cannot use ("lots" for a GPU count): say so with an
  example and ask again, never dropping it silently;
- the message changed the topic ("what is PFC?"): let the form be rejected, so the
  dialogue rules answer it, after which the form asks its question again.

The form asks its questions itself (replies.yml) rather than through `utter_ask_*`
responses, so the question can follow what is missing (a node count stands in for the
GPU count) and re-asks carry an example.
"""

from __future__ import annotations

import logging
from typing import Any

from rasa_sdk import Tracker
from rasa_sdk.events import EventType, SlotSet
from rasa_sdk.executor import CollectingDispatcher
from rasa_sdk.forms import REQUESTED_SLOT, FormValidationAction

from advisor.render import markdown
from bot.actions import output, profile, replies, respond
from rules.models import ProfileDraft
from understanding import extraction
from understanding.understand import Want

logger = logging.getLogger(__name__)

# intents that, in answer to a form question, mean "something else" rather than an answer
TOPIC_CHANGES = frozenset(
    {
        "ask_knowledge",
        "explain",
        "compare",
        "talk_to_engineer",
        "restart",
        "out_of_scope",
        "bot_challenge",
        "greet",
        "goodbye",
        "thank",
        "deny",
        "affirm",
    }
)


class ValidateSizingForm(FormValidationAction):
    """`validate_sizing_form`: the form asks for workload and GPU count until it has both."""

    def name(self) -> str:
        return "validate_sizing_form"

    async def run(self, dispatcher: CollectingDispatcher, tracker: Tracker, domain: dict[str, Any]) -> list[EventType]:
        draft = profile.draft_from_slots(tracker.slots)
        requested = tracker.get_slot(REQUESTED_SLOT)
        events: list[EventType] = []

        if self._is_answer_turn(tracker, requested):
            set_now = profile.slots_set_this_turn(tracker)
            if requested in draft.missing() and not set_now:
                # a typed button title ("both") means what clicking the button means
                events = self._button_answer(requested, draft, tracker)
                if events:
                    set_now = {requested}
                    draft = profile.draft_from_slots({**tracker.slots, **{e["name"]: e["value"] for e in events}})
            if not set_now and profile.latest_intent(tracker) in TOPIC_CHANGES:
                return []  # nothing for the form: Rasa rejects it and the rules answer
            if requested in draft.missing() and not set_now:
                output.say(dispatcher, tracker, replies.reask(requested, profile.latest_text(tracker)))
            if requested not in {e["name"] for e in events}:
                # mark the requested slot as handled this turn, else Rasa rejects the form
                # when the answer filled a slot outside the form ("8 nodes" for GPU count)
                events.append(SlotSet(requested, tracker.get_slot(requested)))

        missing = draft.missing()
        next_slot = missing[0] if missing else None
        if next_slot and not events and not profile.answered_since_user(tracker) and self._asks_instead(tracker):
            # a question Rasa took for a sizing request: end the form, action_recommend answers it
            return [SlotSet(REQUESTED_SLOT, None)]
        if next_slot and not events:
            # the form's first question: say first why a size the message gave is not used,
            # and answer a question asked beside the request, as /v1/ask does
            self._explain_unusable_sizes(dispatcher, tracker)
            self._answer_beside(dispatcher, tracker)
        if next_slot:
            output.say(dispatcher, tracker, **replies.question(next_slot))
        events.append(SlotSet(REQUESTED_SLOT, next_slot))
        return events

    @staticmethod
    def _asks_instead(tracker: Tracker) -> bool:
        """The message that started the form asks a question (understanding.understand), not for a design."""
        return respond.turn(tracker).decision.want != Want.sizing

    @staticmethod
    def _explain_unusable_sizes(dispatcher: CollectingDispatcher, tracker: Tracker) -> None:
        """ "training on 0 GPUs": say why 0 is not taken, rather than just asking again."""
        if profile.answered_since_user(tracker):
            return  # the message was answered already (an interruption); it was not about sizes
        unusable = respond.turn(tracker).unusable  # as the turn's one decision found it
        if unusable:
            output.say(dispatcher, tracker, unusable)

    @staticmethod
    def _answer_beside(dispatcher: CollectingDispatcher, tracker: Tracker) -> None:
        """ "our 16 DGX H100s: do we need a separate storage network?": the question is
        answered before the form asks what a design still needs."""
        if profile.answered_since_user(tracker):
            return
        side = respond.turn(tracker).side
        if side is not None:
            output.say(dispatcher, tracker, markdown.answer_markdown(side))

    def _is_answer_turn(self, tracker: Tracker, requested: str | None) -> bool:
        """The form asked `requested` and the latest message is the reply to it (not the
        form's activation, nor its return after another action answered the message)."""
        return (
            bool(requested)
            and tracker.active_loop_name == self.form_name()
            and not profile.answered_since_user(tracker)
        )

    @staticmethod
    def _button_answer(requested: str, draft: ProfileDraft, tracker: Tracker) -> list[EventType]:
        """Slot events for a typed button title, or none when the text names no button."""
        if requested not in replies.BUTTON_SLOTS:
            return []
        payload = replies.choice(requested, profile.latest_text(tracker))
        if payload is None:
            return []
        try:
            merged = extraction.extract(payload).applied_to(draft)
        except Exception:  # the re-ask below still tells the user what to write
            logger.exception("could not read the button answer %r", payload)
            return []
        if requested in merged.missing():
            return []
        return profile.slot_events(draft, merged) + profile.completeness_events(tracker, merged)
