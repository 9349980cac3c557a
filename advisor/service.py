"""What the REST API, the action server and the CLI's `ask` call.

`recommend` and `get_recommendation` (from advisor.recommendations, re-exported here)
size a complete profile and store the result under a shareable id; `ask` takes a
person's question (plus what earlier turns established) and decides whether it is a
knowledge question, a sizing request, or a sizing request that still lacks something,
and answers accordingly.
"""

from __future__ import annotations

import gc
import re
from functools import cache, lru_cache
from pathlib import Path

import yaml
from pydantic import ValidationError

import knowledge
from advisor import store
from advisor.models import Answer, AskKind, AskResult
from advisor.recommendations import MEMO_SIZE, complete_profile, get_recommendation, recommend
from advisor.render import markdown
from extraction import extract
from extraction.extractor import warm_up as warm_up_extractor
from rules import engine
from rules.models import ProfileDraft, WorkloadProfile

__all__ = [
    "answer",
    "ask",
    "classify",
    "complete_profile",
    "design_topics",
    "get_recommendation",
    "recommend",
    "warm_up",
]

SIZE_FIELDS = ("gpu_count", "node_count", "model_params_b", "budget_usd", "network_budget_usd")


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
    if freeze:
        gc.collect()
        gc.freeze()


def answer(question: str) -> Answer | None:
    """The knowledge base's best entry for question, or None when nothing matches."""
    hits = knowledge.search(question, limit=1)
    if not hits:
        return None
    hit = hits[0]
    return Answer(
        text=hit.text,
        topic=hit.title,
        subject=hit.subject,
        source=hit.source,
        not_covered=knowledge.uncovered_acronyms(question),
    )


@cache
def _cue_file() -> dict:
    return yaml.safe_load((Path(__file__).parent / "cues.yaml").read_text())


def _pattern(phrases: list[str]) -> re.Pattern[str]:
    return re.compile(r"\b(?:" + "|".join(phrases) + r")\b", re.I)


@cache
def _cues() -> dict[str, re.Pattern[str]]:
    """Phrases that mark a sizing request or a knowledge question (advisor/cues.yaml)."""
    return {name: _pattern(_cue_file()[name]) for name in ("sizing", "knowledge")}


@cache
def _design_cues() -> dict[str, re.Pattern[str]]:
    return {topic: _pattern(phrases) for topic, phrases in _cue_file()["design"].items()}


def design_topics(question: str) -> list[str]:
    """The figures of a recommendation a question asks for ("how many switches is that?"
    -> ["switches"]), in the order of advisor/cues.yaml; empty for anything else."""
    return [topic for topic, pattern in _design_cues().items() if pattern.search(question)]


def classify(question: str, found: ProfileDraft, given: ProfileDraft | None, resized: bool = False) -> AskKind:
    """Which kind of reply a question wants.

    A size, a model size or a budget makes it a sizing request, and so does a relative
    change of the given cluster's size ("what if we double it?", `resized`) or a phrase
    asking for a design. Otherwise a question that asks what, how or whether ("is RoCE
    good enough for training?") is a knowledge question, even when it names a workload
    or a GPU. What is left and changes an earlier turn's profile ("and with Ethernet?",
    "it is for training") continues the sizing.
    """
    cues = _cues()
    if resized or any(getattr(found, name) is not None for name in SIZE_FIELDS):
        return AskKind.recommendation
    if cues["sizing"].search(question):
        return AskKind.recommendation
    if cues["knowledge"].search(question):
        return AskKind.answer
    if found.model_dump(exclude_none=True) and (given is not None or found.workload is not None):
        return AskKind.recommendation
    return AskKind.answer


def ask(question: str, profile: ProfileDraft | None = None) -> AskResult:
    """Answer a question in the context of what earlier turns established."""
    result = _ask(question, profile.model_dump_json(exclude_none=True) if profile else None)
    if result.recommendation is not None:  # remembered answers too: the id must be in today's database
        store.save(result.recommendation)
    return result


@lru_cache(maxsize=MEMO_SIZE)
def _ask(question: str, profile_json: str | None) -> AskResult:
    """`ask`, remembered per question and profile: the answer depends on nothing else."""
    profile = ProfileDraft.model_validate_json(profile_json) if profile_json else None
    extraction = extract(question)
    found = extraction.profile
    earlier = profile or ProfileDraft()
    merged = extraction.applied_to(earlier)
    resized = extraction.size_factor is not None and (merged.gpu_count, merged.node_count) != (
        earlier.gpu_count,
        earlier.node_count,
    )
    kind = classify(question, found, profile, resized)

    if kind == AskKind.answer:
        hit = answer(question)
        if hit is not None:
            return AskResult(
                kind=AskKind.answer,
                profile=merged,
                missing=merged.missing(),
                answer=hit,
                reply=markdown.answer_markdown(hit),
            )
        kind = AskKind.recommendation

    missing = merged.missing()
    if missing:
        unusable = markdown.rejected_markdown(extraction.rejected)
        return AskResult(
            kind=AskKind.clarification,
            profile=merged,
            missing=missing,
            reply="\n\n".join(filter(None, [unusable, markdown.clarification_markdown(missing)])),
        )
    try:
        complete = complete_profile(merged)
    except ValidationError as exc:
        return AskResult(
            kind=AskKind.clarification,
            profile=merged,
            missing=[],
            reply=markdown.invalid_profile_markdown(exc),
        )
    rec = recommend(complete)
    return AskResult(
        kind=AskKind.recommendation,
        profile=merged,
        missing=[],
        recommendation=rec,
        reply=markdown.recommendation_markdown(rec),
    )
