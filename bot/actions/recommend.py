"""Recommendation actions: recommend, what-if, why, compare.

They all read the profile from the slots (filled turn by turn from the user's words),
call the advisor service, and render with advisor.render; deciding and rendering live
there, not here. The id of the last recommendation shown is kept in the
`recommendation_id` slot, so "why?" and "compare" talk about what the user saw.
"""

from __future__ import annotations

from typing import Any

from rasa_sdk import Tracker
from rasa_sdk.events import EventType, SlotSet
from rasa_sdk.executor import CollectingDispatcher

import extraction
from advisor import service
from advisor.render import markdown
from bot.actions import output, profile, replies
from bot.actions.base import AdvisorAction
from rules.models import Recommendation


def shown_recommendation(tracker: Tracker) -> Recommendation | None:
    """The last recommendation shown in this conversation, if it is still stored."""
    rec_id = tracker.get_slot(profile.RECOMMENDATION_SLOT)
    return service.get_recommendation(rec_id) if rec_id else None


def recommend_from_slots(tracker: Tracker) -> Recommendation | None:
    """A fresh recommendation for the profile in the slots; None while details are missing.

    Raises pydantic.ValidationError when the details do not fit together.
    """
    draft = profile.draft_from_slots(tracker.slots)
    if draft.missing():
        return None
    return service.recommend(service.complete_profile(draft))


def recommendation_for_question(tracker: Tracker) -> Recommendation | None:
    """What "why?" or "compare" refers to: the one shown, else one for the slots."""
    return shown_recommendation(tracker) or recommend_from_slots(tracker)


def ask_for_missing(dispatcher: CollectingDispatcher, tracker: Tracker) -> None:
    missing = profile.draft_from_slots(tracker.slots).missing()
    output.say(dispatcher, tracker, markdown.clarification_markdown(missing))


def remember(tracker: Tracker, rec: Recommendation) -> list[EventType]:
    if tracker.get_slot(profile.RECOMMENDATION_SLOT) == rec.id:
        return []
    return [SlotSet(profile.RECOMMENDATION_SLOT, rec.id)]


def present(
    dispatcher: CollectingDispatcher, tracker: Tracker, rec: Recommendation, previous: Recommendation | None
) -> list[EventType]:
    """Show rec (leading with what changed when it replaces a different one) and remember it."""
    output.send_recommendation(dispatcher, tracker, rec, previous)
    return remember(tracker, rec)


def recommend(dispatcher: CollectingDispatcher, tracker: Tracker) -> list[EventType]:
    """Recommend for the slots, or ask for what is missing."""
    rec = recommend_from_slots(tracker)
    if rec is None:
        ask_for_missing(dispatcher, tracker)
        return []
    return present(dispatcher, tracker, rec, shown_recommendation(tracker))


class ActionRecommend(AdvisorAction):
    """The recommendation summary, once the form has the workload and the GPU count."""

    def name(self) -> str:
        return "action_recommend"

    def act(self, dispatcher: CollectingDispatcher, tracker: Tracker, domain: dict[str, Any]) -> list[EventType]:
        return recommend(dispatcher, tracker)


class ActionWhatIf(AdvisorAction):
    """Recompute with the changed detail ("what about 256 GPUs?") and say what changed."""

    def name(self) -> str:
        return "action_what_if"

    def act(self, dispatcher: CollectingDispatcher, tracker: Tracker, domain: dict[str, Any]) -> list[EventType]:
        rec = recommend_from_slots(tracker)
        if rec is None:
            ask_for_missing(dispatcher, tracker)
            return []
        previous = shown_recommendation(tracker)
        if previous is not None and previous.id == rec.id:
            output.say(dispatcher, tracker, replies.text("nothing_changed"))
            return []
        return present(dispatcher, tracker, rec, previous)


class ActionExplain(AdvisorAction):
    """ "Why?": the rules that fired, each with its source."""

    def name(self) -> str:
        return "action_explain"

    def act(self, dispatcher: CollectingDispatcher, tracker: Tracker, domain: dict[str, Any]) -> list[EventType]:
        rec = recommendation_for_question(tracker)
        if rec is None:
            output.say(dispatcher, tracker, replies.text("no_recommendation"))
            return []
        why_not = extraction.fabrics_named(profile.latest_text(tracker))  # "why not RoCE?"
        output.say(dispatcher, tracker, markdown.why_markdown(rec, why_not))
        return remember(tracker, rec)


class ActionCompare(AdvisorAction):
    """The candidate fabrics side by side for this cluster."""

    def name(self) -> str:
        return "action_compare"

    def act(self, dispatcher: CollectingDispatcher, tracker: Tracker, domain: dict[str, Any]) -> list[EventType]:
        rec = recommendation_for_question(tracker)
        if rec is None:
            # no cluster yet: "IB vs RoCE?" is then a general question
            answer = service.answer(profile.latest_text(tracker))
            text = markdown.answer_markdown(answer) if answer else replies.text("no_recommendation")
            output.say(dispatcher, tracker, text)
            return []
        output.say(dispatcher, tracker, markdown.compare_markdown(rec))
        return remember(tracker, rec)
