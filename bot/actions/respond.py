"""The chat's reply to a message that is not small talk, decided by the advisor's one
understanding (advisor.understand, through `service.understand_message`), the same the
REST API and the CLI use.

Rasa's intent picks the action (answer a question, recommend, explain, fallback); the
action then asks the advisor what the words want, so a message Rasa took for a question
but that sizes a cluster is sized, a question that names a size but asks for the guide's
figure is answered from the guide, and a follow-up about the design on the table
("price?", "what MTU do we set?", "and as a share of $15M?") is answered from that
design. Why this way rather than a custom Rasa NLU component: the component would run in
Rasa's Python 3.10 environment, where our code (pydantic 2, spaCy 3.8) cannot be
imported, so it would have to call the advisor over HTTP on every message; the action
server already runs our code in-process and sees the conversation (the design shown,
the slots before this turn), which the decision needs.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from pydantic import ValidationError
from rasa_sdk import Tracker
from rasa_sdk.events import EventType, SlotSet
from rasa_sdk.executor import CollectingDispatcher

from advisor import context as dialogue
from advisor import service
from advisor.followup import TOPOLOGY_WORDS
from advisor.models import DialogueContext
from advisor.render import markdown
from advisor.understand import Understanding, Want
from bot.actions import design, output, profile, slots
from rules.models import ProfileDraft, Recommendation

#: the slot that carries what the last answer was about (advisor.models.DialogueContext)
CONTEXT_SLOT = "dialogue_context"
#: a knowledge hit below this relevance does not answer a message Rasa could not place
#: (fallback, out of scope): "what's the weather?" must not get the closest entry
CONFIDENT_ANSWER = 0.45


def dialogue_context(tracker: Tracker) -> DialogueContext | None:
    """What the last answer was about, for a follow-up that leans on it ("and ECN?")."""
    value = tracker.get_slot(CONTEXT_SLOT)
    try:
        return DialogueContext.model_validate(value) if value else None
    except ValidationError:
        return None


def names_a_topology(text: str) -> bool:
    """ "why not Dragonfly+?", "could we go rail-only?": a topology, not a fabric."""
    return any(pattern.search(text) for pattern in TOPOLOGY_WORDS.values())


def slots_before_turn(tracker: Tracker) -> dict[str, Any]:
    """The profile slots as they were before the latest user message."""
    values: dict[str, Any] = {}
    events = tracker.events
    last_user = max((i for i, e in enumerate(events) if e.get("event") == "user"), default=len(events))
    for event in events[:last_user]:
        if event.get("event") == "slot" and event.get("name") in profile.PROFILE_SLOTS:
            values[event["name"]] = event.get("value")
        elif event.get("event") in ("restart", "session_started"):
            values.clear()
    return values


def understanding(tracker: Tracker) -> tuple[Understanding, ProfileDraft, Recommendation | None]:
    """What the latest message wants, what it said about the cluster, and the design shown."""
    before = profile.draft_from_slots(slots_before_turn(tracker))
    shown = design.shown_recommendation(tracker)
    decision, extraction, _ = service.understand_message(
        profile.latest_text(tracker),
        before if before.model_dump(exclude_none=True) else None,
        shown,
        expecting=slots.expected_count(tracker),
    )
    return decision, extraction.profile, shown


def answered_from_design(
    dispatcher: CollectingDispatcher, tracker: Tracker, *, excluding: tuple[str, ...] = ()
) -> bool:
    """Answer a question about the design on the table ("cables/optics count?", "why that
    price?") whichever intent Rasa gave it; False when there is no design or no such topic."""
    decision, found, shown = understanding(tracker)
    if shown is None or not [t for t in decision.design_topics if t not in excluding]:
        return False
    text = profile.latest_text(tracker)
    output.say(dispatcher, tracker, service.design_reply(shown, decision, text, found.budget_usd))
    return True


def respond(
    dispatcher: CollectingDispatcher,
    tracker: Tracker,
    otherwise: Callable[[], list[EventType]],
    *,
    min_relevance: float = 0.0,
    terms_are_questions: bool = False,
) -> list[EventType]:
    """Reply as the understanding says; `otherwise` when it is no question the knowledge
    base answers (at least `min_relevance`) and no sizing. With `terms_are_questions` (Rasa
    heard a question) a bare term ("SHARP", "rail-optimized topology") is looked up too."""
    text = profile.latest_text(tracker)
    decision, found, shown = understanding(tracker)
    if decision.want == Want.design and shown is not None:
        output.say(dispatcher, tracker, service.design_reply(shown, decision, text, found.budget_usd))
        about = dialogue.after_design(text, shown, ", ".join(decision.design_topics))
        return [SlotSet(CONTEXT_SLOT, about.model_dump())]
    completed = bool(profile.slots_set_this_turn(tracker) & profile.SIZING_SLOTS) and not (
        profile.draft_from_slots(tracker.slots).missing()
    )
    if decision.want == Want.sizing or (completed and decision.want != Want.question):
        return size(dispatcher, tracker, decision, shown)
    if decision.want == Want.question or (terms_are_questions and decision.want == Want.other):
        answer, about = service.follow_up_answer(text, dialogue_context(tracker), min_relevance=min_relevance)
        if answer is not None:
            output.say(dispatcher, tracker, markdown.answer_markdown(answer))
            return [SlotSet(CONTEXT_SLOT, about.model_dump())]
    return otherwise()


def size(
    dispatcher: CollectingDispatcher, tracker: Tracker, decision: Understanding, shown: Recommendation | None
) -> list[EventType]:
    """Recommend for the slots (or ask for what is missing), answering beside it the
    question the message also asked and the figures a what-if asked for."""
    refused = design.refuse_link_speed(dispatcher, tracker)
    rec = design.recommend_from_slots(tracker)
    if refused and rec is not None and shown is not None and rec.id == shown.id:
        return []  # "what if we use 800G?" on H100: said why, the design stays
    if rec is None:
        design.ask_for_missing(dispatcher, tracker)
        return []
    design.explain_unusable(dispatcher, tracker)  # "32 H900 GPUs for training": sized, and told why not the H900
    if decision.changed:  # a correction: "Changed: GPUs 128 -> 256."
        output.say(dispatcher, tracker, decision.changed)
    events = design.present(dispatcher, tracker, rec, shown)
    events.append(SlotSet(CONTEXT_SLOT, dialogue.after_design(profile.latest_text(tracker), rec).model_dump()))
    if decision.design_topics and shown is not None:  # "and the sync time at 512?"
        output.say(dispatcher, tracker, service.design_reply(rec, decision, profile.latest_text(tracker)))
    _, side = service.side_answer(rec, decision)
    if side:
        output.say(dispatcher, tracker, side)
    return events
