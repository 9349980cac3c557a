"""Language in, answers out: `ask` takes a person's question (plus what earlier turns
established and the design on the table) and, through the one understanding
(understanding.understand), answers it as a knowledge question, a question about the design
shown, a sizing request, or a sizing request that still lacks something.

Recommending and fetching stored recommendations live in advisor.designs.recommendations (no
spaCy, so the CLI's `recommend` starts fast); this module re-exports them so the API, the
action server and the CLI can call either.
"""

from __future__ import annotations

import gc
import re
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from pydantic import ValidationError

import knowledge
from advisor.answers import followup, stated, verbs
from advisor.designs.recommendations import MEMO_SIZE, complete_profile, expand, get_recommendation, recommend
from advisor.models import Answer, AskKind, AskResult, Change, DialogueContext, RelatedEntry
from advisor.render import markdown
from advisor.render.labels import labels
from advisor.storage import store
from knowledge.formulas import RATIO
from knowledge.search import CALCULATION, COMPUTED_KINDS
from rules import engine
from rules.models import ProfileDraft, Recommendation, WorkloadProfile
from understanding import context as dialogue_context
from understanding import corrections, dialogue, small_talk, understand
from understanding.extraction import Extraction
from understanding.extraction.extractor import bounded
from understanding.extraction.extractor import warm_up as warm_up_extractor
from understanding.understand import COUNT_FIELDS, Understanding, Want

__all__ = [
    "Turn",
    "alternative",
    "answer",
    "ask",
    "complete_profile",
    "decide",
    "design_reply",
    "expand",
    "follow_up_answer",
    "get_recommendation",
    "recommend",
    "side_answer",
    "understand_message",
    "warm_up",
]


def warm_up(freeze: bool = False) -> None:
    """Load the extractor, the rules, the catalogue and the knowledge database now, so
    the first person to ask does not wait a couple of seconds for them.

    `freeze` is for a server's start (the API's lifespan), never an import: what is
    loaded now lives as long as the server, so it is moved out of the collector's sight
    and its full passes look only at what requests create (a pass over everything cost
    ~100 ms and showed as the API's p99)."""
    warm_up_extractor()
    engine.recommend(WorkloadProfile(workload="training", gpu_count=16))
    knowledge.search("warm up", limit=1)
    _entry_bodies()  # what `_naming_first` weighs names by, read once at start, not on a question
    if freeze:
        gc.collect()
        gc.freeze()


#: a runner-up entry scoring at least this share of the best one's is shown after the
#: answer: the search cannot tell which of the two the question means, and an answer with
#: the right entry second beats one without it. At 0.9 it shows on about a quarter of the
#: questions of the seven question sets and gains 22 of 815 (0.8: 27, 0.95: 14;
#: docs/evaluation.md).
RELATED_SHARE = 0.9
#: a computed answer (a sum, a count from a sized design) shows the knowledge base's best
#: entry after it when the entry scores at least this: the rule behind the figure, or the
#: other half of a two-part question ("how many racks is 576 GB200, and is that one SU?")
RELATED_TO_COMPUTED = 0.6


#: below this search score an entry is offered as the closest, not as the answer. Measured on
#: the 915 knowledge questions of the eight blind sets (docs/evaluation.md, stop 27): with
#: this and the name check below, precision (answered and right / answered) rose from
#: 0.956 to 0.965 over all sets and from 0.915 to 0.942 on blind7, at 32 right answers
#: marked unsure (their text is still shown).
UNSURE_BELOW = 0.56
#: at or above this search score the entry matches the question closely enough that the
#: question is the domain's even when it names none of its listed words ("what is ibdiagnet
#: for": 1.01), and below it a question of everyday words matches by them alone ("order me
#: a pizza": 0.79, "book a table": 0.57); measured on the nine blind sets' questions
SURE_ABOVE = 0.9


def confident(question: str, hit: knowledge.Entry) -> bool:
    """The entry answers the question, as far as can be told: a computed answer, or a
    search score of at least UNSURE_BELOW with at least one of the technologies the
    question names ("which switch family is used for NDR?": NDR) in the entry."""
    if hit.kind in COMPUTED_KINDS:
        return True
    if hit.score < UNSURE_BELOW:
        return False
    names = dialogue.names(question)
    body = f"{hit.title} {hit.text} {hit.note}".lower()
    return not names or any(name in body for name in names)


def answer(question: str, min_relevance: float = 0.0) -> Answer | None:
    """The knowledge base's best entry for question, or None when nothing matches (at
    least `min_relevance`, knowledge.search's score), with the runner-up when it scores
    nearly as high."""
    question = bounded(question)
    hits = _top_hits(question)
    if not hits or hits[0].score < min_relevance:
        return None
    hit = hits[0]
    least = RELATED_TO_COMPUTED if hit.kind in COMPUTED_KINDS else RELATED_SHARE * hit.score
    related = [
        RelatedEntry(topic=other.title, text=other.text, source=other.source)
        for other in hits[1:]
        if other.score >= least
    ]
    return Answer(
        text=hit.text,
        topic=hit.title,
        subject=hit.subject,
        source=hit.source,
        note=hit.note,
        not_covered=knowledge.uncovered_acronyms(question),
        confident=confident(question, hit),
        related=related,
    )


def follow_up_answer(
    question: str, context: DialogueContext | None, min_relevance: float = 0.0
) -> tuple[Answer | None, DialogueContext]:
    """The knowledge answer to a question that may lean on the last one ("and ECN?",
    "is the spec finished?", "what about Ethernet?": understanding.context), and the context the
    next one leans on."""
    looked_up = dialogue_context.resolve(question, context)
    hit = answer(looked_up, min_relevance=min_relevance)
    top = _top_hit(bounded(looked_up)) if hit is not None else None
    return hit, dialogue_context.after_answer(looked_up, hit, top.id if top else "", context)


def _top_hit(question: str) -> knowledge.Entry | None:
    hits = _top_hits(question)
    return hits[0] if hits else None


@lru_cache(maxsize=MEMO_SIZE)
def _top_hits(question: str) -> tuple[knowledge.Entry, ...]:
    """The best entry for a question and the runner-up, remembered: the understanding and
    the answer both ask for them, and the knowledge base is fixed for a process's life. A
    question that asks for a sum with its own numbers gets it done (knowledge.formulas:
    bits and bytes, an all-reduce's time, a fat tree's size), and one that asks for a count
    of a cluster it names gets the count from a design sized for it (advisor.answers.stated)."""
    computed = knowledge.calculation(question) or stated.answer(question)
    found = _naming_first(question, knowledge.search(question, limit=1 if computed else NAMED_CANDIDATES))
    return (computed, *found[:1]) if computed is not None else tuple(found[:2])


#: entries searched for one that names what the question names, and how close to the best
#: score it must be to lead: "What MTU should we configure on the switches for a RoCEv2 AI
#: fabric?" ranked an entry on non-NVIDIA switches (0.625) above the MTU entry (0.59).
#: Measured on the knowledge sets (docs/evaluation.md): 0.75 answered one more right than
#: 0.9 on blind7 and on the held-out set, and none fewer elsewhere
NAMED_CANDIDATES = 4
NAMED_SHARE = 0.75


def _naming_first(question: str, hits: list[knowledge.Entry]) -> list[knowledge.Entry]:
    """The hits, with the one that best names what the question names moved to the front
    when it names it better than the best hit and scores nearly as high: an answer that
    never says what was asked about is no answer (`confident`). A name counts by how rare
    it is in the knowledge base ("MTU" in a few entries says more than "AI" in many)."""
    # a follow-up's own names count twice those of the last answer added in brackets ("and
    # what does DCQCN add on top? (pfc roce)": the answer must say DCQCN first of all)
    own = dialogue.names(question.partition(" (")[0])
    names = own + dialogue.names(question)
    if not names or len(hits) < 2:
        return hits
    close = [hit for hit in hits if hit.score >= NAMED_SHARE * hits[0].score]
    best = max(close, key=lambda hit: _naming(hit, names))  # the first of the best naming
    if _naming(best, names) <= _naming(hits[0], names):
        return hits
    return [best, *(other for other in hits if other is not best)]


def _naming(hit: knowledge.Entry, names: list[str]) -> float:
    """The names the entry says, as words ("ai" is not in "fail"), each weighed 1 / the
    number of entries that say it."""
    body = f"{hit.title} {hit.text} {hit.note}".lower()
    return sum(1 / _entries_naming(name) for name in names if _word(name).search(body))


@lru_cache(maxsize=1024)
def _word(name: str) -> re.Pattern[str]:
    return re.compile(rf"(?<!\w){re.escape(name)}(?!\w)")


@lru_cache(maxsize=1024)
def _entries_naming(name: str) -> int:
    """How many entries of the knowledge base say `name` (at least 1)."""
    return max(1, sum(bool(_word(name).search(body)) for body in _entry_bodies()))


@lru_cache(maxsize=1)
def _entry_bodies() -> tuple[str, ...]:
    return tuple(
        f"{row.get('title', '')} {row.get('text', '')} {row.get('note', '')}".lower()
        for subject in knowledge.subjects()
        for row in knowledge.subject(subject)
    )


def alternative(rec: Recommendation, prefer: str) -> Recommendation | None:
    """The same cluster sized with another fabric ("which settings if we chose RoCE?")."""
    try:
        return recommend(WorkloadProfile.model_validate({**rec.profile.model_dump(), "prefer": prefer}), save=False)
    except ValidationError:
        return None


def understand_message(
    question: str,
    profile: ProfileDraft | None = None,
    shown: Recommendation | None = None,
    expecting: str | None = None,
    context: DialogueContext | None = None,
) -> tuple[Understanding, Extraction, ProfileDraft]:
    """What a message wants (understanding.understand), with what the extractor read from it and
    the profile merged with it: the one decision `ask`, the CLI and the chat all use.
    `context`: what the last answer was about (a figure asked after an answer about the
    design is asked of the design)."""
    question = bounded(question)  # every channel's text, read to the API's limit and no further
    earlier = profile or ProfileDraft()
    # the extractor's reading merged with earlier turns, and a value taken back replaced
    # ("sorry, 256 not 128", "make that B200"): understanding.corrections, as the chat's slots
    # "we need two of those with DGX B200" after an answer on scalable units: two of them
    counted = dialogue.units_of_the_model(
        dialogue.counted_in_last_subject(question, context),
        earlier.gpu_model,
        context.unit_servers if context is not None else 0,
    )
    revision = corrections.revise(
        counted,
        profile,
        expecting=expecting,
        shown=shown is not None,
        total_in_gpus=context is not None and context.sized_in == "gpus",
    )
    extraction, merged = revision.extraction, revision.merged
    # a relative size ("double it") or a value taken back changes the design on the table
    # as a new count would
    resized = (extraction.size_factor is not None or extraction.size_added is not None or revision.corrects) and (
        merged != earlier
    )
    top = _top_hit(question)
    decision = understand.understand(
        question,
        extraction.profile,
        profile,
        resized=resized,
        design_shown=shown is not None,
        knowledge_answers=top is not None,
        calculated=top is not None and top.kind == CALCULATION,
        computed=top is not None and top.kind in COMPUTED_KINDS,
        changes=revision.changes if revision.corrects else None,
        changed=corrections.changed_line(revision),
        follows_design=context is not None and context.about == "design",
        follows_answer=context is not None and bool(context.question),
        knowledge_sure=top is not None and top.score >= SURE_ABOVE,
        unfamiliar=_unfamiliar(question),
    )
    return decision, extraction, merged


#: words the knowledge base never uses that tell a message outside the domain: beside its
#: one everyday word of the domain ("my wedding cake's tiers"), or with none of its words
#: in the middle of a conversation ("can you help plan my kid's birthday party")
UNFAMILIAR_WORDS = 2


def _unfamiliar(question: str) -> bool:
    """Whether the message names nothing of the domain (or only one everyday word of it) and
    has words no entry uses (looked up only then: most messages name the domain plainly)."""
    return (
        understand.domain_sense(question) != "domain" and len(knowledge.unmentioned_words(question)) >= UNFAMILIAR_WORDS
    )


def design_reply(
    rec: Recommendation,
    decision: Understanding,
    question: str,
    budget_usd: float | None = None,
    previous_id: str = "",
) -> str:
    """The answer to a question about the design on the table (`previous_id`: the design it
    replaced, for "what changed?")."""
    # the design replaced is read from the store only for "what changed?", not for every design question
    previous = get_recommendation(previous_id) if previous_id and "changes" in decision.design_topics else None
    return followup.design_answer(
        rec,
        decision.design_topics,
        bounded(question),
        budget_usd=budget_usd,
        alternative=alternative,
        previous=previous,
    )


def _on_table(context: DialogueContext | None, shown: Recommendation | None) -> DialogueContext | None:
    """What the conversation had on the table before this message: the client's context when
    it is about the design shown, else just that design."""
    if shown is None or (context is not None and context.recommendation_id == shown.id):
        return context
    return DialogueContext(recommendation_id=shown.id or "", unit_servers=context.unit_servers if context else 0)


#: the design topics a recommendation's summary already shows: a new design's request that
#: names them ("256 H100 for training, switches and cost please") reads them there
#: at most this many parts named by a new request are the figures it wants first
SPECIFIC_TOPICS = 2
SUMMARY_TOPICS = frozenset({"servers", "switches", "nics", "ports", "cables", "topology", "cost", "allreduce"})


def _parts_asked(rec: Recommendation, decision: Understanding, question: str, shown: Recommendation | None) -> str:
    """The parts of the design the message asks about: all it names, when a design was on
    the table ("and the sync time at 512?"); for a new design, those its side question does
    not ask: one or two named are the figures wanted first ("how many spines for 4,608
    B300?", "... together with the expected cost"), while a list of parts asks for the whole
    design, whose summary already shows its figures ("fabric, switches, cables and cost")."""
    topics = decision.design_topics
    if "oversubscription" in topics and RATIO.search(question):  # "could we do 2:1 to save money?": that first
        topics = ["oversubscription", *(topic for topic in topics if topic != "oversubscription")]
    if shown is None:
        asked = set(understand.design_topics(decision.side_question or ""))
        topics = [topic for topic in topics if topic not in asked]
        if len(topics) > SPECIFIC_TOPICS:
            topics = [topic for topic in topics if topic not in SUMMARY_TOPICS]
    if not topics:
        return ""
    return design_reply(rec, decision.model_copy(update={"design_topics": topics}), question)


def side_answer(rec: Recommendation | None, decision: Understanding) -> tuple[Answer | None, str]:
    """The answer to a question asked inside a sizing request, as markdown to show beside
    the recommendation: from the design when it is about it, else the knowledge base
    (also while the request still lacks a detail and there is no design yet)."""
    asked = decision.side_question
    if not asked:
        return None, ""
    topics = understand.design_topics(asked)
    if topics and rec is not None:
        text = followup.design_answer(rec, topics, asked, alternative=alternative)
        return None, f"**You also asked:** _{markdown.escape_markdown(asked)}_\n\n{text}"
    hit = answer(asked)
    if hit is None:
        return None, ""
    return hit, f"**You also asked:** _{markdown.escape_markdown(asked)}_\n\n{markdown.answer_markdown(hit)}"


def ask(
    question: str,
    profile: ProfileDraft | None = None,
    recommendation_id: str | None = None,
    context: DialogueContext | None = None,
) -> AskResult:
    """Answer a question in the context of what earlier turns established (`profile`),
    the design on the table (`recommendation_id`, for "price?" or "what MTU do we set?")
    and what the last answer was about (`context`, for "and ECN?")."""
    result = _ask(
        bounded(question),
        profile.model_dump_json(exclude_none=True) if profile else None,
        recommendation_id,
        context.model_dump_json() if context else None,
    )
    if result.recommendation is not None:  # remembered answers too: the id must be in today's database
        store.save(result.recommendation)
    return result


@lru_cache(maxsize=MEMO_SIZE)
def _ask(
    question: str, profile_json: str | None, recommendation_id: str | None = None, context_json: str | None = None
) -> AskResult:
    """`ask`, remembered per question, profile, design and context: the answer depends on nothing else."""
    profile = ProfileDraft.model_validate_json(profile_json) if profile_json else None
    context = DialogueContext.model_validate_json(context_json) if context_json else None
    # the design on the table: the one named, else the one the context carries ("what connects them?")
    recommendation_id = recommendation_id or dialogue_context.shown_design(context)
    shown = get_recommendation(recommendation_id) if recommendation_id else None
    # after a design, a bare number is its new GPU count ("and at 512?"), as in the chat
    expecting = corrections.bare_count_field(profile) if shown else None
    return decide(question, profile, shown, context, expecting=expecting).result()


@dataclass(frozen=True)
class Turn:
    """One message, decided once: what it wants and everything a reply is made of. `ask`
    (the API, the CLI) renders it as one markdown reply (`result`); the chat
    (bot/actions/respond.py) renders the same parts on its channel (a Slack message, the
    widget's card), so the two cannot disagree on what a message gets."""

    question: str
    kind: AskKind
    decision: Understanding
    extraction: Extraction
    #: what earlier turns established, merged with this message (a refused link speed left out)
    profile: ProfileDraft
    #: the design on the table before this message
    shown: Recommendation | None = None
    #: a new design (kind recommendation) or the one a design answer is about
    recommendation: Recommendation | None = None
    #: the knowledge answer (kind answer), and the search score of its entry
    answer: Answer | None = None
    relevance: float = 0.0
    #: the answer from a design ("what MTU do we set?", "and the sync time at 512?")
    design_answer: str = ""
    #: the answer to a question asked inside a sizing request, and its markdown
    side: Answer | None = None
    side_text: str = ""
    #: why a link speed is not applied ("800G" on H100), why a detail is not used ("0 GPUs")
    refused: str = ""
    unusable: str = ""
    #: why the details do not fit together (kind clarification with nothing missing)
    invalid: str = ""
    context: DialogueContext = field(default_factory=DialogueContext)

    @property
    def missing(self) -> list[str]:
        return self.profile.missing()

    @property
    def changes(self) -> list[Change]:
        """What a correction changed ("sorry, 256 not 128": GPUs 128 -> 256)."""
        return self.decision.changes or []

    @property
    def changed(self) -> str:
        """ "Changed: GPUs 128 -> 256.", or ""."""
        return self.decision.changed

    def result(self) -> AskResult:
        """The turn as the API's answer: one markdown reply."""
        common: dict[str, Any] = {
            "kind": self.kind,
            "decided_by": self.decision.decided_by,
            "profile": self.profile,
            "missing": self.missing,
            "context": self.context,
        }
        if self.kind == AskKind.design_answer:
            return AskResult(
                **common,
                recommendation=self.recommendation,
                reply=self.design_answer,
                quick_replies=list(verbs.QUICK_REPLIES),
            )
        if self.kind == AskKind.out_of_scope:
            return AskResult(**common, reply=markdown.OUT_OF_SCOPE)
        if self.kind == AskKind.small_talk:
            return AskResult(**common, reply=labels().small_talk[small_talk.reply_key(self.question) or "greet"])
        if self.kind == AskKind.answer:
            assert self.answer is not None
            return AskResult(**common, answer=self.answer, reply=markdown.answer_markdown(self.answer))
        if self.kind == AskKind.clarification:
            if self.invalid:
                return AskResult(**{**common, "missing": []}, reply=self.invalid)
            # a question asked beside an incomplete request ("our 16 DGX H100s: do we need a
            # separate storage network?") is answered first; what a design still needs follows
            lead = markdown.answer_markdown(self.side) if self.side is not None else self.side_text
            parts = [self.unusable, self.changed, lead, markdown.clarification_markdown(self.missing)]
            return AskResult(**common, answer=self.side, reply="\n\n".join(filter(None, parts)), changed=self.changes)
        rec = self.recommendation
        assert rec is not None
        summary = markdown.recommendation_markdown(rec)
        if self.design_answer:  # "and the sync time at 512?"
            summary = self.design_answer + "\n\n" + summary
        elif self.shown is not None and self.shown.id != rec.id:  # a what-if or a correction: lead with what changed
            summary = markdown.what_changed_markdown(self.shown, rec) + "\n\n" + summary
        parts = [self.refused, self.unusable, self.changed, summary, self.side_text]
        return AskResult(
            **common,
            recommendation=rec,
            answer=self.side,
            reply="\n\n".join(filter(None, parts)),
            changed=self.changes,
            quick_replies=list(verbs.QUICK_REPLIES),
        )


_NEGATED = re.compile(r"(?:\bminus|\bnegative|-)\s*$", re.I)


def _negative(question: str, said: str) -> bool:
    """The count `said` is written negative in the question ("-8 GPUs", "minus 32 GPUs")."""
    at = question.find(said)
    return said.lstrip().startswith("-") or (at > 0 and _NEGATED.search(question[:at]) is not None)


def decide(
    question: str,
    profile: ProfileDraft | None = None,
    shown: Recommendation | None = None,
    context: DialogueContext | None = None,
    expecting: str | None = None,
) -> Turn:
    """Decide a message once: what it wants (understanding.understand), in the context of what
    earlier turns established (`profile`), the design on the table (`shown`), what the
    last answer was about (`context`) and the count a bare number answers (`expecting`),
    and everything its reply is made of. The extractor reads the message once, here."""
    # "and with 128 GPUs?" after a sum: the last question, with the follow-up's numbers
    question = bounded(question)
    question = dialogue_context.recomputed(question, context) or question
    earlier = _on_table(context, shown)
    said = dialogue_context.after_design(question, shown, earlier=earlier)
    decision, extraction, merged = understand_message(question, profile, shown, expecting, context)
    parts: dict[str, Any] = {
        "question": question,
        "decision": decision,
        "extraction": extraction,
        "shown": shown,
        "unusable": markdown.rejected_markdown(extraction.rejected),  # "32 H900 GPUs": sized without the GPU named
    }
    # a link speed the servers' NICs cannot run ("what if we use 800G?" on H100) is answered
    # with why and which platform can, and left out of the profile: never applied
    refused = verbs.link_refusal(extraction.profile, merged)
    if refused:
        merged = merged.model_copy(update={"link_gbps": profile.link_gbps if profile else None})
        parts["refused"] = refused
        unchanged = merged.model_dump(exclude_none=True) == (profile or ProfileDraft()).model_dump(exclude_none=True)
        if shown is not None and unchanged:
            return Turn(
                kind=AskKind.design_answer,
                profile=merged,
                recommendation=shown,
                design_answer=refused,
                context=said,
                **parts,
            )
    parts["profile"] = merged

    # a count refused stops the turn where the message asks to size with it, or it is negative
    # ("minus 32 GPUs"); "2 m server to leaf": 2 metres read as 2 million servers, a question still
    count_refused = any(
        span.field in COUNT_FIELDS and (decision.want == Want.sizing or _negative(question, span.text))
        for span in extraction.rejected
    )
    if count_refused and shown is None and decision.want != Want.sizing:
        # "network for -8 GPUs": said why, and asked for the count, as a request with no count is
        return Turn(kind=AskKind.clarification, context=said, **parts)
    model_refused = decision.want == Want.sizing and any(span.field == "gpu_model" for span in extraction.rejected)
    if shown is not None and (count_refused or model_refused):
        # "and for 25 million GB200 GPUs?", "minus 32 GPUs", "now do 48 of the T900": no cluster
        # of that size, or a GPU the advisor has no data for, so nothing the message changes is
        # applied; the design on the table stays, and the reply says why and asks
        kept = "The design on the table is unchanged. " + (
            "Which size should I use instead?" if count_refused else "Which GPU model is it?"
        )
        return Turn(
            kind=AskKind.design_answer,
            recommendation=shown,
            design_answer=f"{parts['unusable']}\n\n{kept}",
            context=said,
            **{**parts, "profile": profile or merged},
        )
    if decision.want == Want.off_topic:  # "order me a pizza": declined, the context kept for what follows
        return Turn(kind=AskKind.out_of_scope, context=context or DialogueContext(), **parts)
    if decision.want == Want.small_talk:  # "thanks, that's all": answered in kind, the design kept
        return Turn(kind=AskKind.small_talk, context=context or DialogueContext(), **parts)
    if decision.want == Want.design and shown is not None:
        return Turn(
            kind=AskKind.design_answer,
            recommendation=shown,
            design_answer=design_reply(
                shown, decision, question, extraction.profile.budget_usd, previous_id=said.previous_recommendation_id
            ),
            context=dialogue_context.after_design(question, shown, ", ".join(decision.design_topics), earlier),
            **parts,
        )
    if decision.want != Want.sizing:
        looked_up = dialogue_context.resolve(question, context)
        hit = answer(looked_up)
        if hit is not None:
            top = _top_hit(bounded(looked_up))
            return Turn(
                kind=AskKind.answer,
                answer=hit,
                relevance=top.score if top is not None else 0.0,
                context=dialogue_context.after_answer(looked_up, hit, top.id if top else "", earlier),
                **parts,
            )

    stated = dialogue.sized_in(extraction.spans)  # a count given in GPUs or in servers
    if merged.missing():
        side, side_text = side_answer(None, decision)
        context_after = said.model_copy(update={"sized_in": stated or said.sized_in})
        return Turn(kind=AskKind.clarification, side=side, side_text=side_text, context=context_after, **parts)
    try:
        complete = complete_profile(merged)
    except ValidationError as exc:
        return Turn(kind=AskKind.clarification, invalid=markdown.invalid_profile_markdown(exc), **parts)
    rec = recommend(complete)
    side, side_text = side_answer(rec, decision)
    return Turn(
        kind=AskKind.recommendation,
        recommendation=rec,
        side=side,
        side_text=side_text,
        design_answer=_parts_asked(rec, decision, question, shown),
        context=dialogue_context.after_design(question, rec, earlier=earlier, sized_in=stated),
        **parts,
    )
