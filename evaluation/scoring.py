"""The judging rules of the evaluation (see the package docstring), as pure functions of
the reply, so they can be tested without a chat stack."""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from pydantic import BaseModel

DATA = Path(__file__).resolve().parent.parent / "tests" / "data"
#: every collection of sets by its file prefix: `blind` (the first blind set), `dev` (our
#: own development questions, for tuning; never copies of blind ones), `heldout` (a
#: second blind set by another helper who saw neither our data nor the first, scored
#: once after issue 14 and never tuned to), `blind3` (a third, with chat intents,
#: scored first on the code before the work it measures), `blind4` (a fourth, the
#: issue's full size: 136 questions, 54 sizing requests, 34 conversations) and `blind5`
#: (a fifth of the same size, scored first on the code after the work blind4 led to),
#: `blind6` (a sixth: 160 questions, 48 requests, 32 conversations, scored first in stop 12)
#: and `blind7` (set A of the conversation issue: 130 questions, 45 requests, 32
#: conversations with corrections and elliptical follow-ups, written blind, scored first in
#: stop 27; docs/evaluation.md)
COLLECTIONS = (
    "blind",
    "dev",
    "heldout",
    "blind3",
    "blind4",
    "blind5",
    "blind6",
    "blind7",
    "blind8",
    "blind9",
    "blind11",
    "blind12",
    "blind13",
    "blind14",
    "blind15",
    "blind16",
    "blind17",
    "blind18",
    "blind19",
    "blind20",
)
KINDS = ("knowledge", "sizing", "conversations", "intents")


def set_path(collection: str, kind: str) -> Path:
    """The file of one kind of set in a collection (it may not exist: not every
    collection has every kind)."""
    return DATA / f"{collection}_{kind}.jsonl"


NUMBER_TOLERANCE = 0.005

_FABRIC = re.compile(r"infiniband|roce|ethernet|nvlink", re.I)
_SWITCH_COUNT = re.compile(r"switches:\**\s*\S*\s*\d", re.I)
# replies that mean "I did not follow": never a right answer to anything but a greeting
_NOT_UNDERSTOOD = (
    "didn't understand",
    "don't have a sourced answer",
    "doesn't change anything",
    "haven't recommended anything",
    "goodbye",
)
_REFUSAL = re.compile(r"can't|cannot|can not|couldn't|outside|sorry|\bneed\b|not able|unable", re.I)


class Verdict(BaseModel):
    """One judged item: what was asked, what came back, and whether it was right."""

    id: str
    ok: bool
    why: str = ""
    text: str = ""
    reply: str = ""
    answered: bool = True  # False for a knowledge reply that says it is not sure (no claim made)


def load(path: Path) -> list[dict[str, Any]]:
    """The items of a jsonl file (blank lines skipped)."""
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def missing_groups(reply: str, expect_all: Iterable[Iterable[str]] | None) -> list[list[str]]:
    """The groups of alternatives none of which the reply contains (case-insensitive)."""
    lowered = reply.lower()
    return [list(group) for group in (expect_all or []) if not any(str(alt).lower() in lowered for alt in group)]


def is_design(reply: str) -> bool:
    """The reply is a sized design: it names a fabric and a switch count."""
    return bool(_FABRIC.search(reply) and _SWITCH_COUNT.search(reply))


def is_not_understood(reply: str) -> bool:
    lowered = reply.lower()
    return not reply.strip() or any(marker in lowered for marker in _NOT_UNDERSTOOD)


def judge_turn(kind: str, reply: str, expect_all: list[list[str]] | None = None) -> str:
    """Why the reply fails a turn expecting `kind`; empty when it is right."""
    problems: list[str] = []
    if kind == "recommendation":
        if not is_design(reply):
            problems.append("no sized design (fabric + switch count)")
    elif kind == "ask_missing":
        if "?" not in reply or is_design(reply):
            problems.append("does not ask for what is missing")
    elif kind in ("knowledge", "design_answer"):
        if is_not_understood(reply):
            problems.append("not understood / fallback")
        elif kind == "knowledge" and is_design(reply):
            problems.append("a design instead of an answer")
    elif kind in ("greeting", "goodbye_or_thanks"):
        # any polite reply will do; only silence or the fallback is wrong
        if not reply.strip() or "didn't understand" in reply.lower():
            problems.append("no reply" if kind == "goodbye_or_thanks" else "no greeting")
    elif kind == "refusal_or_clarify":
        if is_design(reply) or not ("?" in reply or _REFUSAL.search(reply)):
            problems.append("neither refuses nor asks")
    else:
        problems.append(f"unknown expect kind {kind!r}")
    missing = missing_groups(reply, expect_all)
    if missing:
        problems.append("missing " + " / ".join("|".join(group) for group in missing))
    return "; ".join(problems)


#: names a set may label a preference by, for the contract's value ("roce" is RoCEv2,
#: the only RoCE the contract has)
PREFERENCE_NAMES = {"roce": "rocev2"}


def _family(expected: str, actual: str) -> bool:
    """A preference for a family ("infiniband") is met by any of its generations
    ("infiniband_ndr"): the customer said which fabric, the rules pick the generation."""
    return (expected == "infiniband" and actual.startswith("infiniband_")) or PREFERENCE_NAMES.get(expected) == actual


def _same(expected: Any, actual: Any) -> bool:
    if isinstance(expected, bool) or isinstance(actual, bool):
        return bool(expected == actual)
    if isinstance(expected, int | float) and isinstance(actual, int | float):
        return abs(expected - actual) <= NUMBER_TOLERANCE * max(abs(expected), 1e-9)
    if isinstance(expected, str) and actual is not None:
        want, got = expected.strip().lower(), str(actual).strip().lower()
        return want == got or _family(want, got)
    return bool(expected == actual)


def profile_mismatches(expected: Mapping[str, Any], profile: Mapping[str, Any]) -> list[str]:
    """'field: expected X, got Y' for each expected field the profile does not match."""
    return [
        f"{name}: expected {value!r}, got {profile.get(name)!r}"
        for name, value in expected.items()
        if not _same(value, profile.get(name))
    ]


def unanswered_side_questions(also_asks: Iterable[str], extra: str) -> list[str]:
    """The side questions of a sizing request (`also_asks`) that the reply's text besides
    the recommendation summary (`extra`) does not address: each must be named there by
    its longest word ("roce vs infiniband" -> "infiniband")."""
    lowered = extra.lower()
    return [topic for topic in also_asks if max(str(topic).lower().split(), key=len) not in lowered]


def summary_line(name: str, verdicts: list[Verdict]) -> str:
    right = sum(v.ok for v in verdicts)
    share = right / len(verdicts) if verdicts else 0.0
    line = f"{name}: {right}/{len(verdicts)} right ({share:.3f})"
    answered = [v for v in verdicts if v.answered]
    if len(answered) < len(verdicts):  # precision: answered and right / answered
        precision = sum(v.ok for v in answered) / len(answered) if answered else 0.0
        line += f"; precision {sum(v.ok for v in answered)}/{len(answered)} answered ({precision:.3f})"
    return line
