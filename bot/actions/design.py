"""The design on the table: the recommendation shown in this conversation, a fresh one
for the slots, and showing one (leading with what changed). Shared by the recommendation
actions (recommend.py) and the reply the understanding decides (respond.py).
"""

from __future__ import annotations

from rasa_sdk import Tracker
from rasa_sdk.events import EventType, SlotSet
from rasa_sdk.executor import CollectingDispatcher

from advisor import service
from advisor.render import markdown
from bot.actions import output, profile
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
