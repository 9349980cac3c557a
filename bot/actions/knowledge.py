"""Questions: what the advisor's understanding says the words want (bot.actions.respond):
the knowledge-base answer with its source, an answer from the design on the table, or,
for a "question" that sizes a cluster ("how many ports for 64 H100s for training?"), a
recommendation.
"""

from __future__ import annotations

from typing import Any

from rasa_sdk import Tracker
from rasa_sdk.events import EventType
from rasa_sdk.executor import CollectingDispatcher

from bot.actions import output, replies, respond
from bot.actions.base import AdvisorAction


class ActionAnswerKnowledge(AdvisorAction):
    def name(self) -> str:
        return "action_answer_knowledge"

    def act(self, dispatcher: CollectingDispatcher, tracker: Tracker, domain: dict[str, Any]) -> list[EventType]:
        def unknown() -> list[EventType]:
            output.say(dispatcher, tracker, replies.text("unknown_question"))
            return []

        return respond.respond(dispatcher, tracker, unknown, terms_are_questions=True)
