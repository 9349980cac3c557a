"""Conversation actions: the fallback, small talk, starting over, and the summary a
handoff to an engineer carries (the handoff itself: bot/actions/handoff.py)."""

from __future__ import annotations

from abc import abstractmethod
from typing import Any

from rasa_sdk import Tracker
from rasa_sdk.events import EventType, Restarted
from rasa_sdk.executor import CollectingDispatcher

from advisor.render import markdown
from advisor.render.labels import labels
from advisor.settings import settings
from bot.actions import output, profile, replies, respond
from bot.actions.base import AdvisorAction
from understanding import dialogue, small_talk
from understanding.understand import Want

ACKNOWLEDGEMENTS = frozenset({"affirm", "deny"})


class ActionFallback(AdvisorAction):
    """When Rasa is unsure what the user meant.

    The advisor service's decision on the message still counts (bot.actions.respond): workload
    details are sized (or what is missing asked for), a follow-up about the design on the
    table is answered from it, a question the knowledge base answers with confidence is
    answered. Small talk it could not place ("gm", "ok thx": understanding/small_talk.yml)
    gets the small-talk reply. Otherwise the reply lists, with examples, what the advisor can do.
    """

    def name(self) -> str:
        return "action_fallback"

    def act(self, dispatcher: CollectingDispatcher, tracker: Tracker, domain: dict[str, Any]) -> list[EventType]:
        small = small_talk.reply_key(profile.latest_text(tracker))
        if small is not None:  # "gm", "ok thx": small talk the classifier did not place
            output.say(dispatcher, tracker, labels().small_talk[small])
            return []
        if (
            profile.latest_intent(tracker) in ACKNOWLEDGEMENTS
            and not profile.slots_set_this_turn(tracker)
            and not respond.service_decides(respond.turn(tracker))  # "sharp on that?" heard as an "ok"
        ):
            return self.otherwise(dispatcher, tracker)
        return respond.respond(
            dispatcher,
            tracker,
            lambda: self.otherwise(dispatcher, tracker),
            min_relevance=respond.CONFIDENT_ANSWER,
            unknown_words_otherwise=True,
        )

    def otherwise(self, dispatcher: CollectingDispatcher, tracker: Tracker) -> list[EventType]:
        # "ok" or "no" with nothing pending was understood, it just asks nothing
        lead = "acknowledged" if profile.latest_intent(tracker) in ACKNOWLEDGEMENTS else "fallback"
        output.say(dispatcher, tracker, f"{replies.text(lead)} {replies.text('capabilities')}")
        return []


class SmallTalk(AdvisorAction):
    """Greetings, thanks, goodbyes, "are you a bot?", "what can you do?": the domain's
    reply, unless the advisor's understanding says the words ask about the design on the
    table, size a cluster or ask a question ("how long would the all-reduce take?" is not
    a goodbye, "and as a share of $15M?" not a bot challenge, whatever Rasa heard)."""

    reply_key = ""

    @abstractmethod
    def name(self) -> str:
        """The action's name (each small-talk action is its own)."""

    def act(self, dispatcher: CollectingDispatcher, tracker: Tracker, domain: dict[str, Any]) -> list[EventType]:
        if respond.service_decides(respond.turn(tracker)):
            return respond.respond(
                dispatcher, tracker, lambda: self.reply(dispatcher, tracker), min_relevance=respond.CONFIDENT_ANSWER
            )
        return self.reply(dispatcher, tracker)

    def reply(self, dispatcher: CollectingDispatcher, tracker: Tracker) -> list[EventType]:
        output.say(dispatcher, tracker, labels().small_talk[self.reply_key])
        return []


class ActionGreet(SmallTalk):
    reply_key = "greet"

    def name(self) -> str:
        return "action_greet"


class ActionGoodbye(SmallTalk):
    reply_key = "goodbye"

    def name(self) -> str:
        return "action_goodbye"


class ActionThank(SmallTalk):
    reply_key = "you_are_welcome"

    def name(self) -> str:
        return "action_thank"


class ActionBotChallenge(SmallTalk):
    reply_key = "iamabot"

    def name(self) -> str:
        return "action_bot_challenge"


class ActionCapabilities(AdvisorAction):
    """ "What can you do?": the fallback's list of what the advisor does, with examples,
    without its apology."""

    def name(self) -> str:
        return "action_capabilities"

    def act(self, dispatcher: CollectingDispatcher, tracker: Tracker, domain: dict[str, Any]) -> list[EventType]:
        def capabilities() -> list[EventType]:
            output.say(dispatcher, tracker, replies.text("capabilities"))
            return []

        decided = respond.turn(tracker)
        if decided.decision.want == Want.design and decided.shown is not None:  # "what NICs would you use?"
            return respond.respond(dispatcher, tracker, capabilities)
        if respond.leans_on_last_answer(decided) and not _addresses_the_advisor(decided.question):
            # "what should i check first" after an answer on slow busbw, not "what can you do?"
            return respond.respond(dispatcher, tracker, capabilities)
        return capabilities()


#: words that address the advisor itself: "what can you do?", "what are your limits?"
_YOU = frozenset({"you", "your", "yours", "yourself", "u", "ur"})


def _addresses_the_advisor(text: str) -> bool:
    return bool(dialogue.words_of(text) & _YOU)


class ActionOutOfScope(ActionFallback):
    """A message the classifier put out of scope. A long brief about a cluster (or "sorry,
    I meant 256") can land there; when it gave workload details they are used as in the
    fallback, and only a message with none gets the polite out-of-scope reply."""

    def name(self) -> str:
        return "action_out_of_scope"

    def otherwise(self, dispatcher: CollectingDispatcher, tracker: Tracker) -> list[EventType]:
        output.say(dispatcher, tracker, markdown.OUT_OF_SCOPE)
        return []


def summary(tracker: Tracker) -> str:
    """What the engineer gets besides the contact details: the details given so far and
    the last recommendation."""
    values = profile.slot_values(profile.draft_from_slots(tracker.slots))
    parts = [f"{replies.field_name(name)} {value}" for name, value in values.items() if value is not None]
    rec_id = tracker.get_slot(profile.RECOMMENDATION_SLOT)
    if rec_id:
        parts.append(f"recommendation {rec_id} ({settings.public_url}/v1/recommendations/{rec_id})")
    return "; ".join(parts) + "." if parts else replies.text("handoff_nothing_yet")


class ActionRestart(AdvisorAction):
    """Rasa's restart, with a reply: forget the conversation and say so; unless the
    advisor's understanding sizes from the message ("Please revise: ten systems, not
    eight." is a correction of the design, which forgetting everything would lose)."""

    def name(self) -> str:
        return "action_restart"

    def act(self, dispatcher: CollectingDispatcher, tracker: Tracker, domain: dict[str, Any]) -> list[EventType]:
        def restart() -> list[EventType]:
            output.say(dispatcher, tracker, replies.text("restarted"))
            return [Restarted()]

        if respond.turn(tracker).decision.want == Want.sizing:
            return respond.respond(dispatcher, tracker, restart)
        return restart()
