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

import yaml

TERMS_FILE = Path(__file__).parent / "search_terms.yaml"
MAX_INPUT_CHARS = 2000
MAX_WORDS = 16
MAX_PHRASES = 16

_WORD = re.compile(r"[^\W_]+(?:[-./][^\W_]+)*")
_COMPOUND_SEPARATOR = re.compile(r"[-./]")
_APOSTROPHE = re.compile(r"['’]s\b|['’]")


@functools.cache
def _data() -> dict:
    return yaml.safe_load(TERMS_FILE.read_text(encoding="utf-8")) or {}


def boost(kind: str) -> float:
    """The relevance multiplier of a kind of entry (`boosts` in search_terms.yaml)."""
    return float((_data().get("boosts") or {}).get(kind, 1.0))


@functools.cache
def _vocabulary() -> tuple[frozenset[str], dict[str, tuple[str, ...]]]:
    data = _data()
    stopwords = frozenset(str(w).lower() for w in data.get("stopwords", []))
    synonyms = {
        str(word).lower(): tuple(str(s).lower() for s in alternatives)
        for word, alternatives in (data.get("synonyms") or {}).items()
    }
    return stopwords, synonyms


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
