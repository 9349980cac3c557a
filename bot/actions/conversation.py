"""Conversation actions: the fallback, the handoff to an engineer, starting over."""

from __future__ import annotations

from typing import Any

from rasa_sdk import Tracker
from rasa_sdk.events import EventType, Restarted
from rasa_sdk.executor import CollectingDispatcher

from advisor.settings import settings
from bot.actions import output, profile, replies, respond
from bot.actions.base import AdvisorAction

ACKNOWLEDGEMENTS = frozenset({"affirm", "deny"})


class ActionFallback(AdvisorAction):
    """When Rasa is unsure what the user meant.

    The advisor's understanding still reads the message (bot.actions.respond): workload
    details are sized (or what is missing asked for), a follow-up about the design on the
    table is answered from it, a question the knowledge base answers with confidence is
    answered. Otherwise the reply lists, with examples, what the advisor can do.
    """

    def name(self) -> str:
        return "action_fallback"

    def act(self, dispatcher: CollectingDispatcher, tracker: Tracker, domain: dict[str, Any]) -> list[EventType]:
        if profile.latest_intent(tracker) in ACKNOWLEDGEMENTS and not profile.slots_set_this_turn(tracker):
            return self.otherwise(dispatcher, tracker)
        return respond.respond(
            dispatcher, tracker, lambda: self.otherwise(dispatcher, tracker), min_relevance=respond.CONFIDENT_ANSWER
        )

    def otherwise(self, dispatcher: CollectingDispatcher, tracker: Tracker) -> list[EventType]:
        # "ok" or "no" with nothing pending was understood, it just asks nothing
        lead = "acknowledged" if profile.latest_intent(tracker) in ACKNOWLEDGEMENTS else "fallback"
        output.say(dispatcher, tracker, f"{replies.text(lead)} {replies.text('capabilities')}")
        return []


class ActionCapabilities(AdvisorAction):
    """ "What can you do?": the fallback's list of what the advisor does, with examples,
    without its apology."""

    def name(self) -> str:
        return "action_capabilities"

    def act(self, dispatcher: CollectingDispatcher, tracker: Tracker, domain: dict[str, Any]) -> list[EventType]:
        output.say(dispatcher, tracker, replies.text("capabilities"))
        return []


class ActionOutOfScope(ActionFallback):
    """A message the classifier put out of scope. A long brief about a cluster (or "sorry,
    I meant 256") can land there; when it gave workload details they are used as in the
    fallback, and only a message with none gets the polite out-of-scope reply."""

    def name(self) -> str:
        return "action_out_of_scope"

    def otherwise(self, dispatcher: CollectingDispatcher, tracker: Tracker) -> list[EventType]:
        output.say(dispatcher, tracker, replies.text("out_of_scope"))
        return []


def summary(tracker: Tracker) -> str:
    """What the engineer gets: the details given so far and the last recommendation."""
    values = profile.slot_values(profile.draft_from_slots(tracker.slots))
    parts = [f"{replies.field_name(name)} {value}" for name, value in values.items() if value is not None]
    rec_id = tracker.get_slot(profile.RECOMMENDATION_SLOT)
    if rec_id:
        parts.append(f"recommendation {rec_id} ({settings.public_url}/v1/recommendations/{rec_id})")
    return "; ".join(parts) + "." if parts else replies.text("handoff_nothing_yet")


class ActionHandoff(AdvisorAction):
    """End of the "talk to an engineer" path: the handoff message with a summary."""

    def name(self) -> str:
        return "action_handoff"

    def act(self, dispatcher: CollectingDispatcher, tracker: Tracker, domain: dict[str, Any]) -> list[EventType]:
        output.say(dispatcher, tracker, replies.text("handoff", summary=summary(tracker)))
        return []


class ActionRestart(AdvisorAction):
    """Rasa's restart, with a reply: forget the conversation and say so."""

    def name(self) -> str:
        return "action_restart"

    def act(self, dispatcher: CollectingDispatcher, tracker: Tracker, domain: dict[str, Any]) -> list[EventType]:
        output.say(dispatcher, tracker, replies.text("restarted"))
        return [Restarted()]
