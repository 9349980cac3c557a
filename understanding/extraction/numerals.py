"""Numbers written in digits, with suffixes or in words, read into values.

`NumberReader.read` turns the words of a phrase into a value ("two hundred and fifty-six"
-> 256, "2.5 million" -> 2.5e6, "a dozen" -> 12) or None when they are not one number
("four and eight"). The `fabric_numbers` pipeline component finds candidate phrases with
a Matcher built from the shapes in data/numbers.yaml, keeps the leftmost longest that
reads as a number, and marks them as NUM entities; values travel in `doc.user_data`.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Any

from spacy.language import Language
from spacy.matcher import Matcher
from spacy.tokens import Doc, Span

from understanding.extraction.resources import compile_pattern, load

NUMBER_VALUES = "fabric_advisor_numbers"  # doc.user_data key: {(start, end): Quantity}


@dataclass(frozen=True)
class Quantity:
    """A number and the largest multiplier written with it (1 for "128", 1e9 for "70B")."""

    value: float
    scale: float = 1.0


class NumberReader:
    """Reads number phrases with the word tables of data/numbers.yaml."""

    def __init__(self, table: dict[str, Any]) -> None:
        self.digits = re.compile(table["digits_regex"])
        self.units = {**table["units"]}
        self.teens = dict(table["teens"])
        self.tens = dict(table["tens"])
        self.hundred = dict(table["hundred"])
        self.scales = {word: float(value) for word, value in table["scales"].items()}
        self.suffixes = {word: float(value) for word, value in table["suffixes"].items()}
        self.groups = dict(table["groups"])
        self.fractions = {word: float(value) for word, value in table["fractions"].items()}
        self.articles = set(table["articles"])
        self.joiners = set(table["joiners"])
        self.article_takes = set(table["article_takes"])
        self.multipliers = {**self.scales, **self.suffixes, **self.hundred, "dozen": 12.0}
        self.words = (
            set(self.units)
            | set(self.teens)
            | set(self.tens)
            | set(self.hundred)
            | set(self.scales)
            | set(self.groups)
            | set(self.fractions)
        )

    def token_classes(self) -> dict[str, dict[str, Any]]:
        """Matcher token specs for the classes the digit shapes are written in."""
        return {
            # LIKE_NUM is checked natively; `read` rejects what is not plain digits
            "DIGITS": {"LIKE_NUM": True, "IS_ALPHA": False},
            "MULTIPLIER": {"LOWER": {"IN": sorted(self.multipliers)}},
        }

    def starts_words(self, word: str, following: str | None) -> bool:
        """Can a number in words start here ("sixty", "a dozen", but not a lone "a")?"""
        if word in self.articles:
            return following in self.article_takes
        return word in self.words

    def in_words(self, word: str) -> bool:
        return word in self.words or word in self.joiners or word in self.articles

    def read(self, words: list[str]) -> Quantity | None:
        """The value of a phrase's words (lower case), or None when they are not one number."""
        if not words:
            return None
        if self.digits.match(words[0]):
            return self._read_digits(words)
        return self._read_words(words)

    def _read_digits(self, words: list[str]) -> Quantity | None:
        value = float(words[0].replace(",", ""))
        rest = [word for word in words[1:] if word != "-"]
        if not rest:
            return Quantity(value)
        if len(rest) > 1 or rest[0] not in self.multipliers:
            return None
        scale = self.multipliers[rest[0]]
        return Quantity(value * scale, scale)

    def _read_words(self, words: list[str]) -> Quantity | None:
        """English cardinals: units, teens, tens, "hundred", scales, "dozen", "couple", "half a"."""
        words = _half_dozen_joined(words)
        article = words[0] in self.articles
        if article:
            if len(words) < 2 or words[1] not in self.article_takes:
                return None
            words = words[1:]
        total, current, scale_used = 0.0, 0.0, 1.0
        last_scale = math.inf
        previous: str | None = None
        for index, word in enumerate(words):
            following = words[index + 1] if index + 1 < len(words) else None
            if word == "-":
                if previous != "tens" or following not in self.units:
                    return None
                previous = "hyphen"
            elif word == "and":
                if previous not in ("hundred", "scale") or following not in (
                    self.units.keys() | self.teens.keys() | self.tens.keys()
                ):
                    return None
                previous = "and"
            elif word in self.articles:
                if previous != "half":
                    return None
                previous = "half_a"
            elif word in self.units:
                if previous not in (None, "hundred", "scale", "and", "hyphen", "tens"):
                    return None
                current += self.units[word]
                previous = "unit"
            elif word in self.teens or word in self.tens:
                if previous not in (None, "hundred", "scale", "and"):
                    return None
                current += self.teens[word] if word in self.teens else self.tens[word]
                previous = "teen" if word in self.teens else "tens"
            elif word in self.hundred:
                if previous in ("unit", "teen", "tens", "group") and 0 < current < 100:  # "a couple hundred"
                    current *= 100
                elif previous is None and article:
                    current = 100
                else:
                    return None
                scale_used = max(scale_used, 100.0)
                previous = "hundred"
            elif word in self.scales:
                scale = self.scales[word]
                if scale >= last_scale:
                    return None
                if previous in ("unit", "teen", "tens", "hundred", "group") and current > 0:
                    total += current * scale
                elif previous is None and article:
                    total += scale
                elif previous == "half_a":
                    total += 0.5 * scale
                else:
                    return None
                current, last_scale = 0.0, scale
                scale_used = max(scale_used, scale)
                previous = "scale"
            elif word == "dozen":
                if previous in ("unit", "teen", "tens"):
                    current *= 12
                elif previous is None and article:
                    current = 12
                elif previous in ("half_a", "half"):  # "half a dozen", "a half-dozen"
                    current = 6
                else:
                    return None
                previous = "group"
            elif word in self.groups:
                if previous is not None:
                    return None
                current = float(self.groups[word])
                previous = "group"
            elif word in self.fractions:
                # "half" starts a number ("half a million", "half-dozen"), after "a" only before "dozen"
                if previous is not None or (article and following != "dozen"):
                    return None
                current = self.fractions[word]
                previous = "half"
            else:
                return None
        if previous in ("hyphen", "and", "half_a", "half", None):
            return None
        return Quantity(total + current, scale_used)


def _half_dozen_joined(words: list[str]) -> list[str]:
    """ "a half-dozen" reads as "a half dozen" (the hyphen joins no tens and units)."""
    if "half" not in words:
        return words
    at = words.index("half")
    return words[: at + 1] + words[at + 2 :] if words[at + 1 : at + 3] == ["-", "dozen"] else words


@Language.factory("fabric_numbers")
def make_number_finder(nlp: Language, name: str) -> NumberFinder:
    return NumberFinder(nlp)


class NumberFinder:
    """Marks number phrases outside other entities as NUM entities and keeps their values."""

    def __init__(self, nlp: Language) -> None:
        table = load("numbers")
        self.reader = NumberReader(table)
        self.max_word_tokens = int(table["max_word_tokens"])
        self.negations = frozenset(str(word) for word in table["negations"])
        classes = self.reader.token_classes()
        self.digit_matcher = Matcher(nlp.vocab, validate=True)
        for index, shape in enumerate(table["shapes"]):
            self.digit_matcher.add(f"number#{index}", [compile_pattern(shape, classes).tokens])

    def __call__(self, doc: Doc) -> Doc:
        taken = {token.i for ent in doc.ents for token in ent}
        ends_by_start: dict[int, set[int]] = {}
        for _, start, end in self.digit_matcher(doc):
            ends_by_start.setdefault(start, set()).add(end)
        for start, end in self._word_runs(doc):
            ends_by_start.setdefault(start, set()).update(range(start + 1, end + 1))
        found: list[Span] = []
        values: dict[tuple[int, int], Quantity] = {}
        covered_until = 0
        for start in sorted(ends_by_start):  # leftmost, then longest phrase that reads as a number
            if start < covered_until:
                continue
            for end in sorted(ends_by_start[start], reverse=True):
                if any(i in taken for i in range(start, end)):
                    continue
                quantity = self.reader.read([token.lower_ for token in doc[start:end]])
                if quantity is not None:
                    found.append(Span(doc, start, end, label="NUM"))
                    values[(start, end)] = quantity
                    covered_until = end
                    break
        found = _merge_restated(doc, found, values)
        for span in found:  # "minus 32 GPUs": a negative count, which the size rules refuse
            if span.start > 0 and doc[span.start - 1].lower_ in self.negations:
                quantity = values[(span.start, span.end)]
                values[(span.start, span.end)] = Quantity(-quantity.value, quantity.scale)
        doc.user_data[NUMBER_VALUES] = values
        if found:
            doc.ents = sorted([*doc.ents, *found], key=lambda span: span.start)
        return doc

    def _word_runs(self, doc: Doc) -> list[tuple[int, int]]:
        """(start, furthest end) of each place a number in words may start."""
        words = [token.lower_ for token in doc]
        runs: list[tuple[int, int]] = []
        for start, word in enumerate(words):
            following = words[start + 1] if start + 1 < len(words) else None
            if not self.reader.starts_words(word, following):
                continue
            end = start + 1
            limit = min(len(words), start + self.max_word_tokens)
            while end < limit and self.reader.in_words(words[end]):
                end += 1
            runs.append((start, end))
        return runs


def _merge_restated(doc: Doc, found: list[Span], values: dict[tuple[int, int], Quantity]) -> list[Span]:
    """A number restated in brackets is one number: "eight (8)", "Sixteen (16)", the
    style of contracts and tenders. The span grows to the closing bracket."""
    merged: list[Span] = []
    index = 0
    while index < len(found):
        span = found[index]
        following = found[index + 1] if index + 1 < len(found) else None
        if (
            following is not None
            and following.start == span.end + 1
            and doc[span.end].text == "("
            and following.end < len(doc)
            and doc[following.end].text == ")"
            and values[(span.start, span.end)].value == values[(following.start, following.end)].value
        ):
            quantity = values.pop((span.start, span.end))
            values.pop((following.start, following.end))
            values[(span.start, following.end + 1)] = quantity
            merged.append(Span(doc, span.start, following.end + 1, label="NUM"))
            index += 2
            continue
        merged.append(span)
        index += 1
    return merged
