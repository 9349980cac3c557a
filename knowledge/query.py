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
`knowledge/search_terms.yaml`.
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


class SearchTerms(BaseModel):
    """The contents of search_terms.yaml, checked when first read: a misspelled section
    or a cue that is not a regular expression fails at load with its name."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    stopwords: frozenset[str]
    synonyms: dict[str, tuple[str, ...]]
    boosts: dict[str, float] = Field(default_factory=dict)
    definition_boosts: dict[str, float] = Field(default_factory=dict)
    definition_cues: tuple[re.Pattern[str], ...] = ()

    @field_validator("stopwords", mode="before")
    @classmethod
    def _lower_words(cls, value: Any) -> Any:
        return [str(word).lower() for word in value or []]

    @field_validator("synonyms", mode="before")
    @classmethod
    def _lower_synonyms(cls, value: Any) -> Any:
        return {str(w).lower(): [str(s).lower() for s in alts] for w, alts in (value or {}).items()}

    @field_validator("definition_cues", mode="before")
    @classmethod
    def _compile(cls, value: Any) -> Any:
        try:
            return tuple(re.compile(str(cue), re.IGNORECASE) for cue in value or [])
        except re.error as exc:
            raise ValueError(f"not a regular expression: {exc}") from exc


@functools.cache
def _terms() -> SearchTerms:
    try:
        return SearchTerms.model_validate(yaml.safe_load(TERMS_FILE.read_text(encoding="utf-8")) or {})
    except ValidationError as exc:
        raise ValueError(f"{TERMS_FILE.name}: {exc}") from exc


def asks_definition(text: str) -> bool:
    """The question asks what something is ("what is PFC", "explain rail-optimized")."""
    question = str(text or "")[:MAX_INPUT_CHARS]
    return any(cue.search(question) for cue in _terms().definition_cues)


def boost(kind: str, definition: bool = False) -> float:
    """The relevance multiplier of a kind of entry: `boosts` in search_terms.yaml, times
    its `definition_boosts` when the question asks for a definition."""
    terms = _terms()
    extra = terms.definition_boosts.get(kind, 1.0) if definition else 1.0
    return terms.boosts.get(kind, 1.0) * extra


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
