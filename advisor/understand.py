"""The one decision of what a message wants, used by `/v1/ask`, the CLI and the chat.

The chat's intent classifier (Rasa) routes a turn to an action, but which reply the
message gets (a design, a knowledge answer, an answer about the design on the table) is
decided here, from the message, what earlier turns established and whether a design is
shown. The action server calls `understand` for every turn that is not small talk, so
the chat and the API cannot disagree on the same words.

The decision, in order:

1. Once a design is shown, a message asking about one of its figures or settings
   (advisor/cues.yaml `design`: "price?", "what MTU do we set", "why not Dragonfly+?") is
   about that design, unless it gives a new GPU or server count (a what-if). A fabric,
   workload or training plan ("and with PP 4?") stated after it is a what-if too.
2. A relative resize ("double it") or a GPU/server count, model size or budget is a
   sizing request, except a question ("what would ...", "is ... worth it") that names no
   workload, asks for nothing to be designed, continues no sizing of earlier turns, and
   that the knowledge base answers: "what does an InfiniBand fabric for 16 DGX H100
   cost?" asks for the guide's figure, not for a design. A workload named in a question
   about someone else's figures or cluster ("did Meta's 24K-GPU training cluster use
   DCQCN?") does not make it a sizing request either.
3. A phrase asking for a design ("what network do we need") is a sizing request; a
   question (what, how, why, is ...) is a knowledge question; details that continue or
   start a profile ("it is for training") continue the sizing.

A sizing request can carry a question of its own ("..., is Dragonfly+ worth
considering?"): `side_question` is that clause, answered beside the recommendation.
"""

from __future__ import annotations

import re
from enum import StrEnum
from functools import cache
from pathlib import Path
from typing import Any

import yaml
from pydantic import BaseModel, Field

from rules.models import ProfileDraft

CUES_FILE = Path(__file__).with_name("cues.yaml")
SIZE_FIELDS = ("gpu_count", "node_count", "model_params_b", "budget_usd", "network_budget_usd")
COUNT_FIELDS = ("gpu_count", "node_count")
#: details that change the design shown when stated after it ("with RoCE?", "and with PP 4?")
WHAT_IF_FIELDS = ("prefer", "workload", "tp", "pp", "moe")
#: a message of at most this many words that names a design topic is about the design
#: shown even without "it" or "our" ("price?", "and mtu?", "switch count")
SHORT_FOLLOW_UP_WORDS = 5


class Want(StrEnum):
    sizing = "sizing"
    question = "question"
    design = "design"
    other = "other"  # tells nothing the advisor reads: small talk, a bare term ("SHARP")


class Understanding(BaseModel):
    """What a message wants, and what to answer it from."""

    want: Want
    design_topics: list[str] = Field(default_factory=list, description="Figures of the design asked about.")
    side_question: str | None = Field(default=None, description="A question asked inside a sizing request.")


@cache
def _cue_file() -> dict[str, Any]:
    cues: dict[str, Any] = yaml.safe_load(CUES_FILE.read_text(encoding="utf-8"))
    return cues


def _pattern(phrases: list[str]) -> re.Pattern[str]:
    return re.compile(r"(?<![\w-])(?:" + "|".join(phrases) + r")(?![\w-])", re.I)


@cache
def _cues() -> dict[str, re.Pattern[str]]:
    return {
        name: _pattern(_cue_file()[name]) for name in ("sizing", "knowledge", "deictic", "reported", "side", "change")
    }


@cache
def _design_cues() -> dict[str, re.Pattern[str]]:
    return {topic: _pattern(phrases) for topic, phrases in _cue_file()["design"].items()}


def design_topics(question: str) -> list[str]:
    """The figures of a recommendation a question asks for ("how many switches is that?"
    -> ["switches"]), in the order of advisor/cues.yaml; empty for anything else."""
    return [topic for topic, pattern in _design_cues().items() if pattern.search(question)]


def is_question(text: str) -> bool:
    """It asks something (a question word or a question mark), rather than tells."""
    return bool(_cues()["knowledge"].search(text)) or text.rstrip().endswith("?")


def asks_about_reported_figures(text: str) -> bool:
    """ "what % would IB be at the guide's numbers?", "did Meta's 24K-GPU cluster use
    DCQCN?": a question about figures or a cluster that are not the customer's."""
    return bool(_cues()["reported"].search(text))


def asks_for_design(text: str) -> bool:
    return bool(_cues()["sizing"].search(text))


def about_shown_design(text: str) -> bool:
    """It points at the design on the table ("it", "our", "the network") or is short."""
    return bool(_cues()["deictic"].search(text)) or len(text.split()) <= SHORT_FOLLOW_UP_WORDS


# `(?:(?<!\s)\s+)?`: a break's leading spaces are taken from the start of their run only
# (a break found from inside a run is found from its start too, and reading the rest of
# the run again from each of its positions is quadratic)
_CLAUSE_BREAK = re.compile(
    r"(?<=[.?!;:])\s+|(?:(?<!\s)\s+)?(?:,|\s-\s|\s–\s|\s—\s|\band\s+also\b|\balso\b)\s*"
    r"(?=(?:(?:also|and|but|plus)\s+)?(?:is|are|should|would|does|do|can|could|what|whats|what's|how|why|which|will|any)\b)",
    re.I,
)


def clauses(text: str) -> list[str]:
    """The sentences and question clauses of a message."""
    return [part.strip(" ,-") for part in _CLAUSE_BREAK.split(text) if part and part.strip(" ,-")]


def side_question(text: str) -> str | None:
    """The question clause of a sizing request that asks something besides the design
    ("is dragonfly worth considering at this size?"), if there is one."""
    parts = clauses(text)
    for index, part in enumerate(parts):
        asks = is_question(part) or bool(_WH_START.match(_LEADING_JOINER.sub("", part)))  # "..., what pfc settings"
        if index and asks and (design_topics(part) or not asks_for_design(part)) and not _gives_a_count(part):
            return _LEADING_JOINER.sub("", " ".join(parts[index:]))
        asked = _cues()["side"].search(part)
        if asked and (index or asked.start()) and not _gives_a_count(part[asked.start() :]):
            return " ".join([part[asked.start() :], *parts[index + 1 :]])
    if len(parts) < 2:
        return _listed_question(text)
    first = parts[0]
    if is_question(first) and not asks_for_design(first) and not _gives_a_count(first):
        return first
    return _listed_question(text)


def _listed_question(text: str) -> str | None:
    """A question listed after the request's details, comma-separated: "20k h100 training,
    ib vs roce whats cheaper at that scale", "600 a100s training, hdr ib ok? budget tight"."""
    parts = [part.strip() for part in text.split(",")]
    for index, part in enumerate(parts[1:], start=1):
        if (is_question(part) or "?" in part) and not asks_for_design(part) and not _gives_a_count(part):
            return ", ".join(parts[index:])
    return None


_WH_START = re.compile(r"^(?:what|whats|what's|which|how|why)\b", re.I)
_LEADING_JOINER = re.compile(r"^(?:(?:and|but|plus|also)\s+)+", re.I)
# a count: "1,024 GPUs", "16k h100s", "8 x gpus". The number's run is read up to 20
# characters (the rest of a longer run is a word of the `\w+` part) and the spaces around
# "k" once: both keep the pattern linear on long runs of digits or spaces
_COUNT = re.compile(
    r"\b\d[\d,.]{0,20}\s*(?:k\b\s*)?(?:x\s*)?(?:\w+\s+){0,2}(?:gpus?|nodes?|servers?|h100s?|h200s?|b200s?|a100s?)", re.I
)


def _gives_a_count(text: str) -> bool:
    return bool(_COUNT.search(text))


def understand(
    question: str,
    found: ProfileDraft,
    given: ProfileDraft | None,
    *,
    resized: bool = False,
    design_shown: bool = False,
    knowledge_answers: bool = True,
    calculated: bool = False,
) -> Understanding:
    """What `question` wants (see the module docstring).

    `found` is what the extractor read from the question alone, `given` what earlier
    turns established (None when nothing), `resized` whether it scales the size on the
    table, `design_shown` whether a recommendation is on the table, `knowledge_answers`
    whether the knowledge base has an entry for it, `calculated` whether it asks for a sum
    with its own numbers ("time to all-reduce 14 GB over 400G": its "7B" is no cluster).
    """
    topics = design_topics(question)
    new_count = resized or any(getattr(found, name) is not None for name in COUNT_FIELDS)
    what_if = any(getattr(found, name) is not None for name in WHAT_IF_FIELDS) or (
        found.gpu_model is not None and bool(_cues()["change"].search(question))
    )
    about_shown = design_shown and bool(topics) and about_shown_design(question)  # "what does it use?"
    if is_question(question) and asks_about_reported_figures(question) and not new_count and not about_shown:
        # "how large were Meta's Llama 3 training pods?": someone else's cluster re-sizes nothing
        return Understanding(want=Want.question, design_topics=topics)
    if design_shown and what_if and not asks_only_about(question):
        # "what if we go RoCE instead, how much would we save?", "and with TP 4?", "and if we
        # used 200GbE instead to save money?": a what-if on the design, its figures asked of
        # the new one (before the follow-up check: the cost cue would take it for one)
        return _sizing(question, topics)
    if design_shown and topics and not new_count and about_shown_design(question):
        return Understanding(want=Want.design, design_topics=topics)
    # a sum asked alone; "256 H100 training, and an all-reduce of 14 GB at 400G?" is a request
    if calculated and not asks_for_design(question) and not resized and not (new_count and found.workload):
        return Understanding(want=Want.question, design_topics=topics)
    sized = new_count or any(getattr(found, name) is not None for name in SIZE_FIELDS)
    continues = given is not None and given.workload is not None
    if sized:
        guide_fact = (
            is_question(question)
            and (found.workload is None or asks_about_reported_figures(question))
            and not asks_for_design(question)
            and not continues
            and not resized
            and knowledge_answers
        )
        if not guide_fact:
            return _sizing(question, topics if design_shown or new_count else [])
        return Understanding(want=Want.question)
    if asks_for_design(question):
        return _sizing(question, [])
    if is_question(question) or asks_about_reported_figures(question):  # "meta llama3 trained on roce or ib"
        return Understanding(want=Want.question, design_topics=topics)
    if found.model_dump(exclude_none=True) and (given is not None or found.workload is not None):
        return _sizing(question, [])
    return Understanding(want=Want.other, design_topics=topics)


_ABOUT = re.compile(r"^\s*(?:what|how)\s+(?:is|are|does|do)\b|\b(?:explain|define|meaning\s+of)\b", re.I)


def asks_only_about(text: str) -> bool:
    """ "what is RoCE?", "explain InfiniBand": asks what a fabric is, changes nothing."""
    return bool(_ABOUT.search(text))


def _sizing(question: str, topics: list[str]) -> Understanding:
    return Understanding(want=Want.sizing, design_topics=topics, side_question=side_question(question))
