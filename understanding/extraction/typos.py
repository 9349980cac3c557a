"""Two neighbouring letters typed the wrong way round, put back: "total transcievers?",
"how many swtiches", "netwrok cost". People type fast in a chat; a cue or a rule written
for "transceivers" misses "transcievers", and the reply falls back to a search.

Only a swap of two neighbouring letters is undone, and only into a word of the domain's
own vocabulary (the words data/cues.yaml's design topics and domain words are written
with) of at least MIN_LENGTH letters: the text keeps its length, so every span still
points into the customer's own text, and an everyday word is never "corrected" into one
of ours (a swap that makes "tables" "cables" is no swap; "untied" is no word of ours).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from functools import lru_cache
from typing import Any

from understanding.extraction.resources import load

#: shorter words are left alone: a swap in them is as likely to make another real word
MIN_LENGTH = 6
_WORD = re.compile(rf"[A-Za-z]{{{MIN_LENGTH},}}")
_LETTERS = re.compile(r"[a-z]+")
#: the cue groups whose words are the domain's (data/cues.yaml)
_DOMAIN_GROUPS = ("domain", "domain_shared")


def _strings(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from _strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from _strings(item)


@lru_cache(maxsize=1)
def vocabulary() -> frozenset[str]:
    """The domain's words of at least MIN_LENGTH letters, from data/cues.yaml."""
    data = load("cues")
    sources = [data["design"], *(data["cues"][group] for group in _DOMAIN_GROUPS)]
    return frozenset(
        word
        for source in sources
        for text in _strings(source)
        for word in _LETTERS.findall(text.lower())
        if len(word) >= MIN_LENGTH
    )


@lru_cache(maxsize=4096)
def _unswapped(word: str) -> str | None:
    """The domain word `word` is with two neighbouring letters swapped back, if exactly one is."""
    lower = word.lower()
    known = vocabulary()
    if lower in known:
        return None
    found = [i for i in range(len(lower) - 1) if lower[i] != lower[i + 1] and _swap(lower, i) in known]
    return _swap(word, found[0]) if len(found) == 1 else None


def _swap(word: str, i: int) -> str:
    return word[:i] + word[i + 1] + word[i] + word[i + 2 :]


def unswapped(text: str) -> str:
    """`text` with each word that is a domain word with two neighbouring letters swapped
    put right (the same length, the customer's own case on each letter)."""
    return _WORD.sub(lambda found: _unswapped(found[0]) or found[0], text)
