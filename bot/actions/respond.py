"""The chat's reply to a message that is not small talk: the advisor service decides the
message once (`advisor.service.decide`, the same decision `/v1/ask` and the CLI render)
and this module renders the parts of that decision on the chat's channel.

A chat turn runs several actions in the action server: the slot filling
(`action_validate_slot_mappings`, slots.py), maybe the sizing form's validation, then
the action Rasa's intent picked. The first that needs the decision makes it and keeps it
for the turn (`turn`), keyed by the conversation, the message and what it was said
against (the slots before it, the design shown, the last answer's context); the others
read the same one. So the extractor reads a message once per turn, and every action
of the turn acts on one decision: Rasa keeps what it is good at (greetings, goodbyes,
the handoff, restarting, the form's turn-taking), and what a message wants is never
decided twice.

Why not a custom Rasa NLU component: it would run in Rasa's Python 3.10 environment,
where our code (pydantic 2, spaCy 3.8) cannot be imported, so it would have to call the
advisor over HTTP on every message; the action server already runs our code in-process
and sees the conversation (the design shown, the slots before this turn), which the
decision needs.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable
from threading import Lock
from typing import Any

from pydantic import ValidationError
from rasa_sdk import Tracker
from rasa_sdk.events import EventType, SlotSet
from rasa_sdk.executor import CollectingDispatcher

from advisor import service
from advisor.answers.followup import TOPOLOGY_WORDS
from advisor.models import AskKind, DialogueContext
from advisor.render import markdown
from bot.actions import design, output, profile
from rules.models import ProfileDraft, Recommendation
from understanding import chat, corrections, extraction, understand
from understanding import context as dialogue
from understanding.understand import Want

#: the slot that carries what the last answer was about (advisor.models.DialogueContext)
CONTEXT_SLOT = "dialogue_context"
#: a knowledge hit below this relevance does not answer a message Rasa could not place
#: (fallback, out of scope): "what's the weather?" must not get the closest entry
CONFIDENT_ANSWER = 0.45
#: decisions kept for the turns under way (a turn needs its own for a few milliseconds;
#: this is far more than the conversations one action server serves at once)
KEPT_TURNS = 1024

_turns: OrderedDict[tuple[str, ...], service.Turn] = OrderedDict()
_turns_lock = Lock()


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


def _latest_user_index(tracker: Tracker) -> int:
    events = tracker.events
    return max((i for i, e in enumerate(events) if e.get("event") == "user"), default=len(events))


def slots_before_turn(tracker: Tracker) -> dict[str, Any]:
    """The profile slots as they were before the latest user message: the slots now, with
    what this turn set taken back to the value earlier events gave."""
    now = {name: tracker.get_slot(name) for name in profile.PROFILE_SLOTS}
    changed = profile.slots_set_this_turn(tracker)
    if not changed:
        return now
    earlier: dict[str, Any] = {}
    for event in tracker.events[: _latest_user_index(tracker)]:
        if event.get("event") == "slot" and event.get("name") in profile.PROFILE_SLOTS:
            earlier[event["name"]] = event.get("value")
        elif event.get("event") in ("restart", "session_started"):
            earlier.clear()
    return {**now, **{name: earlier.get(name) for name in changed}}


def _before(tracker: Tracker) -> ProfileDraft | None:
    before = profile.draft_from_slots(slots_before_turn(tracker))
    return before if before.model_dump(exclude_none=True) else None


def _key(tracker: Tracker, before: ProfileDraft | None) -> tuple[str, ...]:
    """What a turn's decision depends on: the conversation, the message, and what it was
    said against (none of which an action of the same turn changes before replying)."""
    context = tracker.get_slot(CONTEXT_SLOT)
    return (
        tracker.sender_id,
        str(_latest_user_index(tracker)),
        profile.latest_text(tracker),
        before.model_dump_json(exclude_none=True) if before else "",
        str(tracker.get_slot(profile.RECOMMENDATION_SLOT) or ""),
        repr(context),
    )


def kept_turn(tracker: Tracker, back: int = 0) -> service.Turn | None:
    """The decision kept for the latest user message (`back` = 1: the one before), if any."""
    users = [i for i, e in enumerate(tracker.events) if e.get("event") == "user"]
    if len(users) <= back:
        return None
    at = users[-1 - back]
    index, text = str(at), tracker.events[at].get("text") or ""
    with _turns_lock:
        for key, decided in reversed(_turns.items()):
            if key[:3] == (tracker.sender_id, index, text):
                return decided
    return None


def turn(tracker: Tracker) -> service.Turn:
    """The service's decision on the latest message, made once per turn (the first action
    that asks makes it; the others get the same one)."""
    before = _before(tracker)
    key = _key(tracker, before)
    with _turns_lock:
        decided = _turns.get(key)
        if decided is not None:
            _turns.move_to_end(key)
            return decided
    decided = service.decide(
        profile.latest_text(tracker),
        before,
        design.shown_recommendation(tracker),
        dialogue_context(tracker),
        expecting=expected_count(tracker),
    )
    with _turns_lock:
        _turns[key] = decided
        while len(_turns) > KEPT_TURNS:
            _turns.popitem(last=False)
    return decided


def service_decides(decided: service.Turn) -> bool:
    """The advisor's own decision outranks what Rasa heard: the words ask about the design
    on the table, size a cluster, ask a question or ask for an errand, whatever the small
    talk or "ok" Rasa took them for."""
    want = decided.decision.want
    return (want == Want.design and decided.shown is not None) or want in (
        Want.sizing,
        Want.question,
        Want.off_topic,
    )


def leans_on_last_answer(decided: service.Turn) -> bool:
    """The message was answered as a follow-up of the last answer: the question looked up
    carries what it left out of the last one ("what should i check first (nccl busbw)")."""
    looked_up = decided.context.question
    return decided.kind == AskKind.answer and looked_up != decided.question and looked_up.startswith(decided.question)


def resizes_design(decided: service.Turn) -> bool:
    """The dispatcher sizes the design on the table again from this message ("what would
    change at 2:1?", "include a separate storage network"): a what-if whose reply is the
    design again, whichever intent Rasa heard."""
    return (
        decided.kind == AskKind.recommendation
        and decided.shown is not None
        and decided.decision.decided_by == "what_if_on_design"
    )


def answered_from_design(
    dispatcher: CollectingDispatcher, tracker: Tracker, *, excluding: tuple[str, ...] = ()
) -> bool:
    """Answer a question about the design on the table ("cables/optics count?", "why that
    price?") whichever intent Rasa gave it; False when there is no design or no such topic."""
    decided = turn(tracker)
    shown = decided.shown
    if shown is None or not [t for t in decided.decision.design_topics if t not in excluding]:
        return False
    if decided.kind == AskKind.design_answer and decided.design_answer:
        text = decided.design_answer
    else:  # a design topic inside what the service read as a sizing or a question ("why that price?")
        text = service.design_reply(
            shown,
            decided.decision,
            decided.question,
            decided.extraction.profile.budget_usd,
            previous_id=decided.context.previous_recommendation_id,
        )
    output.say(dispatcher, tracker, text)
    return True


def respond(
    dispatcher: CollectingDispatcher,
    tracker: Tracker,
    otherwise: Callable[[], list[EventType]],
    *,
    min_relevance: float = 0.0,
    terms_are_questions: bool = False,
    unchanged: str = "",
    unknown_words_otherwise: bool = False,
) -> list[EventType]:
    """Render the service's decision on the latest message; `otherwise` when it is no
    question the knowledge base answers (at least `min_relevance`) and no sizing. With
    `terms_are_questions` (Rasa heard a question) a bare term ("SHARP", "rail-optimized
    topology") is looked up too. `unchanged`: what to say when a sizing gives the design
    already shown (a what-if that changes nothing). `unknown_words_otherwise`: a message
    declined only for naming nothing of the domain ("qwzx blorp") gets `otherwise` (the
    fallback's "didn't understand" and what the advisor does); an errand is declined on
    every action."""
    decided = turn(tracker)
    want = decided.decision.want
    if decided.kind == AskKind.out_of_scope:  # "order me a pizza", whichever intent Rasa gave it
        if unknown_words_otherwise and decided.decision.decided_by != "errand":
            return otherwise()
        output.say(dispatcher, tracker, markdown.OUT_OF_SCOPE)
        return []
    if decided.kind == AskKind.design_answer:  # a question about the design, or a link speed refused
        output.say(dispatcher, tracker, decided.design_answer)
        return [SlotSet(CONTEXT_SLOT, decided.context.model_dump())]
    completed = bool(profile.slots_set_this_turn(tracker) & profile.SIZING_SLOTS) and not (
        profile.draft_from_slots(tracker.slots).missing()
    )
    if want == Want.sizing or (completed and want != Want.question):
        return size(dispatcher, tracker, decided, unchanged=unchanged)
    # a question; a bare term where Rasa heard a question; a follow-up leaning on the last
    # answer, whatever Rasa heard ("and to a leaf 40m away" after a cable answer reads like
    # details); not a bare detail the sizing form asked for ("gb200", "need a design")
    asked = want == Want.question or (terms_are_questions and want == Want.other) or leans_on_last_answer(decided)
    if asked and decided.answer is not None and decided.relevance >= min_relevance:
        output.say(dispatcher, tracker, markdown.answer_markdown(decided.answer))
        return [SlotSet(CONTEXT_SLOT, decided.context.model_dump())]
    return otherwise()


def size(
    dispatcher: CollectingDispatcher, tracker: Tracker, decided: service.Turn, *, unchanged: str = ""
) -> list[EventType]:
    """The decision's design (or the question for what is missing), with what the message
    could not use, what a correction changed, the figures a what-if asked for and the
    answer to a question asked beside it."""
    text = decided.question
    draft = profile.draft_from_slots(tracker.slots)
    shown = decided.shown
    if decided.recommendation is not None and decided.kind == AskKind.recommendation and decided.profile == draft:
        rec: Recommendation | None = decided.recommendation
    else:  # the slots say more than the message (a typed button title, a form's last answer)
        rec = design.recommend_from_slots(tracker)
    if decided.refused:
        output.say(dispatcher, tracker, decided.refused)
        if rec is not None and shown is not None and rec.id == shown.id:
            return []  # "what if we use 800G?" on H100: said why, the design stays
    if rec is None:
        if decided.invalid:
            output.say(dispatcher, tracker, decided.invalid)
            return []
        if decided.side is not None:  # answered first, as /v1/ask does; then what a design still needs
            output.say(dispatcher, tracker, markdown.answer_markdown(decided.side))
        design.ask_for_missing(dispatcher, tracker)
        return []
    design_answer = decided.design_answer if rec is decided.recommendation else ""
    if decided.decision.design_topics and shown is not None and not design_answer:
        design_answer = service.design_reply(rec, decided.decision, text)
    if unchanged and shown is not None and shown.id == rec.id and not design_answer:  # a what-if that changes nothing
        output.say(dispatcher, tracker, unchanged)
        return []
    # a what-if that changes nothing but asks figures of it ("what would change at 2:1?",
    # "include a separate storage network"): the design again with them, as /v1/ask gives it
    if decided.unusable:  # "32 H900 GPUs for training": sized, and told why not the H900
        output.say(dispatcher, tracker, decided.unusable)
    if decided.changed:  # a correction: "Changed: GPUs 128 -> 256."
        output.say(dispatcher, tracker, decided.changed)
    events = design.present(dispatcher, tracker, rec, shown)
    last = dialogue_context(tracker)
    on_table = (
        DialogueContext(recommendation_id=shown.id or "", unit_servers=last.unit_servers if last else 0)
        if shown is not None
        else None
    )
    about = decided.context if rec is decided.recommendation else dialogue.after_design(text, rec, earlier=on_table)
    events.append(SlotSet(CONTEXT_SLOT, about.model_dump()))
    if design_answer:  # "and the sync time at 512?"
        output.say(dispatcher, tracker, design_answer)
    side = decided.side_text if rec is decided.recommendation else service.side_answer(rec, decided.decision)[1]
    if side:
        output.say(dispatcher, tracker, side)
    return events


# intents with which a bare number after a recommendation changes its GPU count
# ("what about 1024?", "sorry, I meant 256", "no, 512")
_CORRECTIONS = frozenset({"what_if", "inform", "ask_recommendation", "deny", "out_of_scope", "nlu_fallback"})


def refused_a_size(tracker: Tracker) -> bool:
    """The user's previous message gave a size that could not be used (out of range)."""
    texts = [e.get("text") or "" for e in tracker.events if e.get("event") == "user"]
    if len(texts) < 2:
        return False
    earlier = kept_turn(tracker, back=1)  # as decided then, not read again
    found = earlier.extraction if earlier is not None else extraction.extract(texts[-2])
    return bool(found.rejected)


def expected_count(tracker: Tracker) -> str | None:
    """The count a bare number in this message answers: the one the sizing form asked
    for (or, while the form runs without a size, the GPU count), else, once a
    recommendation was shown, its GPU count."""
    requested: str | None = tracker.get_slot("requested_slot")
    if tracker.active_loop_name == "sizing_form":
        if requested in profile.SIZE_SLOTS:
            return requested
        draft = profile.draft_from_slots(tracker.slots)
        if draft.gpu_count is None and draft.node_count is None:
            return "gpu_count"  # asked for the workload, told "256, training": the size is still missing
    text = profile.latest_text(tracker)
    if chat.picks_one(text) or (understand.design_topics(text) and not any(c.isdigit() for c in text)):
        return None  # "how long does one gradient sync take?" asks about the design
    if refused_a_size(tracker):  # "3,000,000 GPUs" was refused: "sorry, 3000" corrects it
        return "gpu_count"
    if tracker.get_slot(profile.RECOMMENDATION_SLOT) and profile.latest_intent(tracker) in _CORRECTIONS:
        return corrections.bare_count_field(profile.draft_from_slots(tracker.slots))  # "32?" after "16 servers?"
    return None
