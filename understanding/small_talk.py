"""Small talk Rasa's classifier could not place ("gm", "ok thx"): told by its words
(small_talk.yml), so a greeting, a thanks or a goodbye the model has not seen is still
answered in kind rather than with the fallback's list of what the advisor can do."""

from __future__ import annotations

from functools import cache
from pathlib import Path

import yaml
from pydantic import BaseModel, ConfigDict, Field
from spacy.lang.en import English
from spacy.matcher import PhraseMatcher

from understanding.extraction.tokens import plain_english

DATA_FILE = Path(__file__).with_name("small_talk.yml")


class _Words(BaseModel):
    model_config = ConfigDict(extra="forbid")

    max_words: int = Field(ge=1)
    kinds: dict[str, list[str]] = Field(min_length=1, description="Reply key -> the words that ask for it.")
    filler: list[str]


@cache
def _words() -> _Words:
    return _Words.model_validate(yaml.safe_load(DATA_FILE.read_text(encoding="utf-8")))


@cache
def _nlp() -> English:
    return plain_english()


@cache
def _matcher() -> PhraseMatcher:
    nlp, words = _nlp(), _words()
    matcher = PhraseMatcher(nlp.vocab, attr="LOWER")
    for kind, phrases in words.kinds.items():
        matcher.add(kind, [nlp.make_doc(phrase) for phrase in phrases])
    matcher.add("filler", [nlp.make_doc(phrase) for phrase in words.filler])
    return matcher


def reply_key(text: str) -> str | None:
    """The reply (a key of replies.yml) for a message that is only small talk, else None:
    every token is a small-talk word or filler, and at least one is of a kind."""
    doc = _nlp().make_doc(text.strip())
    if not len(doc) or len([t for t in doc if not t.is_punct]) > _words().max_words:
        return None
    strings = doc.vocab.strings
    covered: set[int] = set()
    kinds: set[str] = set()
    for key, start, end in _matcher()(doc):
        covered.update(range(start, end))
        if strings[key] != "filler":
            kinds.add(strings[key])
    if any(token.i not in covered and not token.is_punct for token in doc):
        return None
    return next((kind for kind in _words().kinds if kind in kinds), None)
