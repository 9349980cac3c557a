"""Recommendation actions: recommend, what-if, why, compare.

They all read the profile from the slots (filled turn by turn from the user's words),
call the advisor service, and render with advisor.render; deciding and rendering live
there, not here. The id of the last recommendation shown is kept in the
`recommendation_id` slot, so "why?" and "compare" talk about what the user saw.
"""

from __future__ import annotations

import re
from typing import Any

from rasa_sdk import Tracker
from rasa_sdk.events import EventType
from rasa_sdk.executor import CollectingDispatcher

from advisor import service
from advisor.render import markdown
from bot.actions import design, output, profile, replies, respond
from bot.actions.base import AdvisorAction
from understanding import chat, extraction
from understanding.understand import Want

shown_recommendation = design.shown_recommendation
recommend_from_slots = design.recommend_from_slots
recommendation_for_question = design.recommendation_for_question
ask_for_missing = design.ask_for_missing
remember = design.remember
present = design.present
recommend = design.recommend


class ActionRecommend(AdvisorAction):
    """The recommendation summary, once the form has the workload and the GPU count."""

    def name(self) -> str:
        return "action_recommend"

    def act(self, dispatcher: CollectingDispatcher, tracker: Tracker, domain: dict[str, Any]) -> list[EventType]:
        # through the understanding: the form may have ended on a question ("what would IB
        # for 16 DGX H100 cost?"), and a complete profile may come with one ("is IB worth it?")
        return respond.respond(dispatcher, tracker, lambda: recommend(dispatcher, tracker))


class ActionWhatIf(AdvisorAction):
    """Recompute with the changed detail ("what about 256 GPUs?") and say what changed."""

    def name(self) -> str:
        return "action_what_if"

    def act(self, dispatcher: CollectingDispatcher, tracker: Tracker, domain: dict[str, Any]) -> list[EventType]:
        # "what about the MTU?", "what about SHARP?" are questions; "what about 256 GPUs?" a
        # sizing, said with what changed (or that nothing did)
        unchanged = replies.text("nothing_changed")
        return respond.respond(
            dispatcher,
            tracker,
            lambda: respond.size(dispatcher, tracker, respond.turn(tracker), unchanged=unchanged),
            unchanged=unchanged,
        )


class ActionExplain(AdvisorAction):
    """ "Why?": the rules that fired, each with its source."""

    def name(self) -> str:
        return "action_explain"

    def act(self, dispatcher: CollectingDispatcher, tracker: Tracker, domain: dict[str, Any]) -> list[EventType]:
        if respond.resizes_design(respond.turn(tracker)):  # "what would change at 2:1?"
            return respond.respond(dispatcher, tracker, list)
        # "justify why a lossless fabric is required", "why that price?"
        if respond.answered_from_design(dispatcher, tracker, excluding=("why_not",)):
            return []
        shown = shown_recommendation(tracker)
        if shown is not None and respond.names_a_topology(profile.latest_text(tracker)):
            return respond.respond(dispatcher, tracker, list)  # "why not Dragonfly+?"
        rec = recommendation_for_question(tracker)
        if rec is None:
            # no design to explain: "why are the nodes rail-aligned?" asks why in general,
            # answered from the knowledge base as the dispatcher decided
            def nothing_to_explain() -> list[EventType]:
                output.say(dispatcher, tracker, replies.text("no_recommendation"))
                return []

            return respond.respond(dispatcher, tracker, nothing_to_explain, terms_are_questions=True)
        why_not = extraction.fabrics_named(profile.latest_text(tracker))  # "why not RoCE?"
        output.say(dispatcher, tracker, markdown.why_markdown(rec, why_not))
        return remember(tracker, rec)


#: "Spectrum-X instead of InfiniBand", "RoCE rather than IB": the fabric named second is the
#: one replaced, so one fabric is tried
_REPLACING = re.compile(r"\b(?:instead\s+of|rather\s+than|in\s+place\s+of|replacing)\b", re.I)


def _one_fabric_to_try(decided: service.Turn, text: str) -> bool:
    """The message asks for the design on the table with one fabric it names (a what-if
    the dispatcher sizes), not for the candidates side by side."""
    named = len(extraction.fabrics_named(text))
    return (
        decided.decision.want == Want.sizing
        and decided.shown is not None
        and decided.extraction.profile.prefer is not None
        and (named == 1 or (named == 2 and _REPLACING.search(text) is not None))
    )


class ActionCompare(AdvisorAction):
    """The candidate fabrics side by side for this cluster."""

    def name(self) -> str:
        return "action_compare"

    def act(self, dispatcher: CollectingDispatcher, tracker: Tracker, domain: dict[str, Any]) -> list[EventType]:
        text = profile.latest_text(tracker)
        decided = respond.turn(tracker)
        if (
            respond.resizes_design(decided)
            and not chat.asks_to_compare(text)
            and (not extraction.fabrics_named(text) or _one_fabric_to_try(decided, text))
        ):
            # "could we do 2:1 to save money?", "please show an InfiniBand version as well": the
            # design again as the dispatcher sized it, not the fabrics side by side, and not only
            # the figures the message names
            return respond.respond(dispatcher, tracker, list)
        # "cables/optics count?" about the design shown; costs and why-nots are what the
        # comparison itself shows
        if respond.answered_from_design(dispatcher, tracker, excluding=("why_not", "cost")):
            return []
        if shown_recommendation(tracker) is not None and respond.names_a_topology(profile.latest_text(tracker)):
            # "would a rail-only design be cheaper?": a topology, which the fabrics side by
            # side do not show; answered from the design as the dispatcher decided
            return respond.respond(dispatcher, tracker, list)
        decision = decided.decision
        if _one_fabric_to_try(decided, text):
            # "please show the RoCE option", "change the fabric to RoCE": the design with that
            # fabric, as the dispatcher decided, not the comparison Rasa's intent names
            return respond.respond(dispatcher, tracker, lambda: self.compare(dispatcher, tracker))
        if decision.want in (Want.question, Want.sizing) and not (
            extraction.fabrics_named(text) or chat.asks_to_compare(text)
        ):
            # "would tensor parallelism across nodes be advisable?": nothing to compare;
            # "for clarity, there are four GPUs in each chassis": a detail that re-sizes
            return respond.respond(dispatcher, tracker, lambda: self.compare(dispatcher, tracker))
        return self.compare(dispatcher, tracker)

    def compare(self, dispatcher: CollectingDispatcher, tracker: Tracker) -> list[EventType]:
        rec = recommendation_for_question(tracker)
        if rec is None:
            # no cluster yet: "IB vs RoCE?" is then a general question
            answer = service.answer(profile.latest_text(tracker))
            text = markdown.answer_markdown(answer) if answer else replies.text("no_recommendation")
            output.say(dispatcher, tracker, text)
            return []
        output.say(dispatcher, tracker, markdown.compare_markdown(rec))
        return remember(tracker, rec)
