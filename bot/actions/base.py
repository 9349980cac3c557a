"""The base of our actions: a failure becomes a reply that says what to fix, never a
traceback in the chat."""

from __future__ import annotations

import logging
from abc import ABC, abstractmethod
from typing import Any

from pydantic import ValidationError
from rasa_sdk import Action, Tracker
from rasa_sdk.events import EventType
from rasa_sdk.executor import CollectingDispatcher

from advisor.render import markdown
from bot.actions import output, replies

logger = logging.getLogger(__name__)


class AdvisorAction(Action, ABC):
    """An action whose work is `act`; errors are turned into a plain-words reply."""

    @abstractmethod
    def act(self, dispatcher: CollectingDispatcher, tracker: Tracker, domain: dict[str, Any]) -> list[EventType]:
        """Do the action's work and return its events."""

    async def run(self, dispatcher: CollectingDispatcher, tracker: Tracker, domain: dict[str, Any]) -> list[EventType]:
        try:
            return self.act(dispatcher, tracker, domain)
        except ValidationError as error:
            # an impossible profile ("100 GPUs on 16 nodes"): say what does not fit
            dispatcher.messages.clear()
            output.say(dispatcher, tracker, markdown.invalid_profile_markdown(error))
        except Exception:
            logger.exception("action %s failed", self.name())
            dispatcher.messages.clear()
            output.say(dispatcher, tracker, replies.text("failed"))
        return []
