"""Turning whatever a user typed into a safe FTS5 query.

    >>> fts_query("What is priority flow control?")
    '"priority" OR "flow" OR "control" OR "priority flow" OR "flow control"'
    >>> fts_query('"NEAR(* OR')
    '"near"'

Words are lower-cased and pulled out with a regular expression, so FTS syntax (quotes,
`*`, `NEAR`, `AND`, parentheses, column filters) never reaches SQLite as syntax: every
word is emitted as a quoted string. Stopwords are dropped, synonyms added, hyphenated
words kept both as a phrase and as parts ("rail-optimized"), neighbouring words added as
phrases so exact wording ranks higher, and everything is OR-ed: bm25 then ranks entries
that match more (and rarer) words first. The word lists are data, in
`understanding/search_terms.yaml`.
"""

from __future__ import annotations

import functools
import re
from itertools import pairwise
from pathlib import Path
from typing import Any

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

TERMS_FILE = Path(__file__).parent / "search_terms.yaml"
MAX_INPUT_CHARS = 2000
MAX_WORDS = 16
MAX_PHRASES = 16

_WORD = re.compile(r"[^\W_]+(?:[-./][^\W_]+)*")
_COMPOUND_SEPARATOR = re.compile(r"[-./]")
_APOSTROPHE = re.compile(r"['’]s\b|['’]")


class Intent(BaseModel):
    """A kind of question (a definition, a price) and how it reweighs kinds of entry."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    cues: tuple[re.Pattern[str], ...]
    boosts: dict[str, float] = Field(default_factory=dict)
    otherwise: dict[str, float] = Field(default_factory=dict)

    @field_validator("cues", mode="before")
    @classmethod
    def _compile(cls, value: Any) -> Any:
        return tuple(_compiled(cue) for cue in value or [])

    def matches(self, text: str) -> bool:
        return any(cue.search(text) for cue in self.cues)


def _compiled(value: Any) -> re.Pattern[str]:
    try:
        return re.compile(str(value), re.IGNORECASE)
    except re.error as exc:
        raise ValueError(f"not a regular expression: {exc}") from exc


class AnswerType(BaseModel):
    """A kind of answer a question asks for ("how many ports") and how an answer of that
    kind reads (a port count)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    asks: re.Pattern[str]
    answer: re.Pattern[str]

    @field_validator("asks", "answer", mode="before")
    @classmethod
    def _compile(cls, value: Any) -> Any:
        return _compiled(value)


class SearchTerms(BaseModel):
    """The contents of search_terms.yaml, checked when first read: a misspelled section
    or a cue that is not a regular expression fails at load with its name."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    stopwords: frozenset[str]
    synonyms: dict[str, tuple[str, ...]]
    boosts: dict[str, float] = Field(default_factory=dict)
    intents: dict[str, Intent] = Field(default_factory=dict)
    answer_types: tuple[AnswerType, ...] = ()
    answer_type_penalty: float = Field(default=1.0, gt=0, le=1)
    title_match_boost: float = Field(default=0.0, ge=0, le=1)

    @field_validator("stopwords", mode="before")
    @classmethod
    def _lower_words(cls, value: Any) -> Any:
        # YAML reads a bare on / off / yes / no as a boolean, which would silently never match
        odd = [word for word in value or [] if not isinstance(word, str)]
        if odd:
            raise ValueError(f"{odd!r} are not words: quote on, off, yes and no in YAML")
        return [word.lower() for word in value or []]

    @field_validator("synonyms", mode="before")
    @classmethod
    def _lower_synonyms(cls, value: Any) -> Any:
        return {str(w).lower(): [str(s).lower() for s in alts] for w, alts in (value or {}).items()}


@functools.cache
def _terms() -> SearchTerms:
    try:
        return SearchTerms.model_validate(yaml.safe_load(TERMS_FILE.read_text(encoding="utf-8")) or {})
    except ValidationError as exc:
        problems = "; ".join(f"{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in exc.errors(include_url=False))
        raise ValueError(f"{TERMS_FILE.name}: {problems}") from exc


def intents(text: str) -> frozenset[str]:
    """The intents of search_terms.yaml a question matches ("what is PFC" -> definition)."""
    question = str(text or "")[:MAX_INPUT_CHARS]
    return frozenset(name for name, intent in _terms().intents.items() if intent.matches(question))


def wanted_answers(text: str) -> list[re.Pattern[str]]:
    """How an answer to `text` reads, for each kind of answer it asks for ("how many
    ports on a QM9700" wants a port count)."""
    question = str(text or "")[:MAX_INPUT_CHARS]
    return [kind.answer for kind in _terms().answer_types if kind.asks.search(question)]


def answer_fit(wanted: list[re.Pattern[str]], title: str, text: str) -> float:
    """1 when the entry gives every kind of answer wanted, else the penalty."""
    entry = f"{title} {text}"
    return 1.0 if all(pattern.search(entry) for pattern in wanted) else _terms().answer_type_penalty


#: a question that asks what letters stand for ("what does RoCE stand for", "HCA is short
#: for?", "the abbreviation DPU"), and the words in it that could be the letters
_EXPANSION_ASKED = re.compile(r"\bstands?\s+for\b|\bshort\s+for\b|\babbreviation\b|\bacronym\b", re.I)
_LETTERS = re.compile(r"\b[A-Za-z][A-Za-z0-9-]{1,11}\b")


def expansions_asked(question: str) -> tuple[str, ...]:
    """The words whose expansion the question asks for; () when it asks for none."""
    if not _EXPANSION_ASKED.search(question):
        return ()
    return tuple(word.lower() for word in _LETTERS.findall(question) if not is_stopword(word.lower()))


def expansion_fit(asked: tuple[str, ...], title: str) -> float:
    """The inverse of the answer-type penalty when the entry's title spells out one of the
    letters asked ("RoCEv2 (RDMA over Converged Ethernet v2)" for "what does RoCE stand
    for?"), else 1: a "stand for" question wants the entry that expands the letters, not one
    that only uses them ("RDMA basics (verbs, ...)" for "RDMA stands for?"). A boost, not a
    penalty of the others: the letters of a common word ("NCCL") match many entries weakly,
    and the one that expands them should still be sure enough to be the answer."""
    if not asked:
        return 1.0
    head = title.lower()
    spelled = any(
        re.match(rf"{re.escape(word)}[a-z0-9]{{0,2}}\s*\(", head)  # "RoCEv2 (RDMA over ...)"
        or re.search(rf"\(\s*{re.escape(word)}[a-z0-9]{{0,2}}\s*[),]", head)  # "Scalable unit (SU)"
        for word in asked
    )
    return 1.0 / _terms().answer_type_penalty if spelled else 1.0


def title_fit(question_words: frozenset[str], title: str) -> float:
    """1 plus `title_match_boost` times the share of the question's words the entry's
    title names: of two entries the text ranks alike, the one titled by what was asked
    ("adaptive routing" for "what is adaptive routing in InfiniBand") comes first."""
    if not question_words:
        return 1.0
    named = question_words & _title_words(title)
    return 1.0 + _terms().title_match_boost * len(named) / len(question_words)


@functools.lru_cache(maxsize=4096)
def _title_words(title: str) -> frozenset[str]:
    """A title's words, once per title: every search scores the same few hundred titles."""
    return content_words(title)


def content_words(text: str | None) -> frozenset[str]:
    """The single words (no phrases) a search for `text` looks for, synonyms included."""
    return frozenset(term for term in terms(text) if " " not in term)


def boost(kind: str, asked: frozenset[str] = frozenset()) -> float:
    """The relevance multiplier of a kind of entry: `boosts` in search_terms.yaml, times
    each intent's `boosts` when the question (whose intents are `asked`) matches it, or
    its `otherwise` when it does not."""
    terms = _terms()
    factor = terms.boosts.get(kind, 1.0)
    for name, intent in terms.intents.items():
        factor *= (intent.boosts if name in asked else intent.otherwise).get(kind, 1.0)
    return factor


def _vocabulary() -> tuple[frozenset[str], dict[str, tuple[str, ...]]]:
    terms = _terms()
    return terms.stopwords, terms.synonyms


def is_stopword(word: str) -> bool:
    """A word that frames a question rather than names its subject ("what", "actually")."""
    return word.lower() in _vocabulary()[0]


def is_query_word(word: str) -> bool:
    """A stopword, or a short form the search expands ("ib" -> "infiniband")."""
    stopwords, synonyms = _vocabulary()
    return word.lower() in stopwords or word.lower() in synonyms


def terms(text: str | None) -> list[str]:
    """The words and phrases (space-separated) a search for `text` looks for."""
    stopwords, synonyms = _vocabulary()
    cleaned = _APOSTROPHE.sub(" ", str(text or "")[:MAX_INPUT_CHARS].lower())
    words: list[str] = []
    phrases: list[str] = []
    content: list[str] = []

    def add(term: str) -> None:
        target = phrases if " " in term else words
        if term and term not in words and term not in phrases:
            target.append(term)

    for match in _WORD.finditer(cleaned):
        parts = [p for p in _COMPOUND_SEPARATOR.split(match.group()) if p]
        if len(parts) > 1:
            add(" ".join(parts))
        for part in parts:
            if part in stopwords:
                continue
            add(part)
            content.append(part)
            for alternative in synonyms.get(part, ()):
                add(alternative)
    for first, second in pairwise(content):
        if first != second:
            add(f"{first} {second}")
    return words[:MAX_WORDS] + phrases[:MAX_PHRASES]


def fts_query(text: str | None) -> str:
    """An FTS5 MATCH expression for `text`; empty when nothing is left to search for."""
    return " OR ".join(f'"{term}"' for term in terms(text))
