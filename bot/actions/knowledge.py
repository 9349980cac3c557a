"""Questions: the knowledge-base answer with its source.

A "question" that carries the details of a cluster ("how many ports for 64 H100s for
training?") is really a sizing request: when the message set sizing details and the
profile is complete, the answer is a recommendation (which includes ports, switches,
cost...). Once a recommendation is on the table, a question about one of its figures
("how many switches is that?", "what's the all-reduce time?") is answered from it.
"""

from __future__ import annotations

from typing import Any

from rasa_sdk import Tracker
from rasa_sdk.events import EventType
from rasa_sdk.executor import CollectingDispatcher

from advisor import service
from advisor.render import markdown
from bot.actions import output, profile, recommend, replies
from bot.actions.base import AdvisorAction


def is_sizing_request(tracker: Tracker) -> bool:
    """The latest message gave sizing details and the cluster can now be sized."""
    set_now = profile.slots_set_this_turn(tracker)
    return bool(set_now & profile.SIZING_SLOTS) and not profile.draft_from_slots(tracker.slots).missing()


class ActionAnswerKnowledge(AdvisorAction):
    def name(self) -> str:
        return "action_answer_knowledge"

    def act(self, dispatcher: CollectingDispatcher, tracker: Tracker, domain: dict[str, Any]) -> list[EventType]:
        if is_sizing_request(tracker):
            return recommend.recommend(dispatcher, tracker)
        question = profile.latest_text(tracker)
        topics = service.design_topics(question)
        shown = recommend.shown_recommendation(tracker) if topics else None
        if shown is not None:  # "how many switches is that?" is about the design on the table
            output.say(dispatcher, tracker, markdown.design_answer(shown, topics))
            return []
        answer = service.answer(question)
        if answer is None:
            output.say(dispatcher, tracker, replies.text("unknown_question"))
        else:
            output.say(dispatcher, tracker, markdown.answer_markdown(answer))
        return []
