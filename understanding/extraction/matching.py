"""Matching the field rules of data/rules.yaml against a document.

Every pattern is added to one spaCy Matcher under its own key, so that the alignment
the Matcher returns tells which token played which role ("NUM@gpu_count"). Each match
goes to its rule's handler (understanding/extraction/handlers.py), which returns a `Reading`: the
values it gives and the tokens it claims. Where readings claim the same token, the
longest match wins.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, cast

from spacy.attrs import ENT_TYPE, LOWER
from spacy.matcher import Matcher
from spacy.tokens import Doc

from understanding.extraction.handlers import HANDLER_OPTIONS, HANDLERS
from understanding.extraction.pipeline import nlp
from understanding.extraction.readings import Match, Reading
from understanding.extraction.resources import Pattern, RulesFileError, check_rules, compile_pattern, load


@dataclass(frozen=True)
class Gate:
    """Words, entity labels or word shapes of which a document must contain one (one
    required token). A shape is (first letter, length): the words a typing-slip pattern
    ("training" give or take a letter, starting with "t") can match."""

    words: frozenset[str] = frozenset()
    labels: frozenset[str] = frozenset()
    shapes: frozenset[tuple[str, int]] = frozenset()


@dataclass(frozen=True)
class CompiledRule:
    rule: dict[str, Any]
    matcher: Matcher
    patterns: dict[str, Pattern]  # matcher key -> pattern
    needs: tuple[frozenset[int], ...]  # per pattern: the gates (ids) that must all open
    has_roles: bool  # False for cue and flag rules, which need only the span


@dataclass(frozen=True)
class RuleSet:
    rules: tuple[CompiledRule, ...]
    gates_by_word: dict[str, frozenset[int]]
    gates_by_label: dict[str, frozenset[int]]
    gates_by_shape: dict[tuple[str, int], frozenset[int]]

    def open_gates(self, doc: Doc) -> set[int]:
        """The gates a document opens: those with one of its words or entity labels.

        Read from the document's arrays of string hashes: making a Token object per word
        costs more than the lookups themselves."""
        opened: set[int] = set()
        strings = doc.vocab.strings
        for lower, ent_type in set(map(tuple, doc.to_array([LOWER, ENT_TYPE]).tolist())):
            word = strings[lower]
            gates = self.gates_by_word.get(word)
            if gates:
                opened.update(gates)
            gates = self.gates_by_shape.get((word[:1], len(word)))
            if gates:
                opened.update(gates)
            if ent_type:
                gates = self.gates_by_label.get(strings[ent_type])
                if gates:
                    opened.update(gates)
        return opened


@lru_cache(maxsize=1)
def rule_set() -> RuleSet:
    """One Matcher per rule of data/rules.yaml, and what each pattern needs (built once).

    spaCy's Matcher tries every pattern at every token, so a rule runs only when one of its
    patterns can match: every telling token the pattern requires ("cost" and "performance"
    for "performance matters more than cost") occurs in the question.
    """
    return compile_rules(load("rules"))


def compile_rules(data: Any, source: str = "rules.yaml") -> RuleSet:
    """The rule set of a rules file, checked first: its shape (`check_rules`), that each
    handler exists and reads the options the rule gives, and each pattern through spaCy's
    validating Matcher. Any problem raises RulesFileError naming the file and rule."""
    check_rules(data, source)
    gates: dict[Gate, int] = {}
    compiled: list[CompiledRule] = []
    for rule in data["rules"]:
        where = f"{source}: rule {rule['name']}"
        if rule["handler"] not in HANDLERS:
            raise RulesFileError(f"{where}: unknown handler {rule['handler']!r}; known: {', '.join(sorted(HANDLERS))}")
        ignored = set(rule) - {"name", "handler", "patterns", "fallback_for"} - HANDLER_OPTIONS[rule["handler"]]
        if ignored:
            readable = ", ".join(sorted(HANDLER_OPTIONS[rule["handler"]])) or "none"
            raise RulesFileError(
                f"{where}: the {rule['handler']} handler does not read {', '.join(sorted(ignored))} "
                f"(it reads: {readable})"
            )
        matcher = Matcher(nlp().vocab, validate=True)
        patterns: dict[str, Pattern] = {}
        needs: list[frozenset[int]] = []
        for index, raw in enumerate(rule["patterns"]):
            pattern = compile_pattern(raw, data["macros"])
            key = f"{rule['name']}#{index}"
            try:
                matcher.add(key, [pattern.tokens])
            except ValueError as exc:  # spaCy's MatchPatternError: the pattern is not valid
                raise RulesFileError(f"{where}: pattern {index + 1} {raw!r}: {exc}") from exc
            patterns[key] = pattern
            needs.append(frozenset(gates.setdefault(gate, len(gates)) for gate in _required(pattern)))
        has_roles = any(pattern.roles for pattern in patterns.values())
        compiled.append(CompiledRule(rule, matcher, patterns, tuple(needs), has_roles))
    by_word: dict[str, set[int]] = {}
    by_label: dict[str, set[int]] = {}
    by_shape: dict[tuple[str, int], set[int]] = {}
    for gate, number in gates.items():
        for word in gate.words:
            by_word.setdefault(word, set()).add(number)
        for label in gate.labels:
            by_label.setdefault(label, set()).add(number)
        for shape in gate.shapes:
            by_shape.setdefault(shape, set()).add(number)
    return RuleSet(
        tuple(compiled),
        {word: frozenset(ids) for word, ids in by_word.items()},
        {label: frozenset(ids) for label, ids in by_label.items()},
        {shape: frozenset(ids) for shape, ids in by_shape.items()},
    )


# Words too common to tell whether a pattern can match.
_COMMON = frozenset(
    {
        "a",
        "an",
        "the",
        "of",
        "is",
        "are",
        "to",
        "in",
        "on",
        "for",
        "and",
        "with",
        "we",
        "i",
        "our",
        "be",
        "'s",
        "it",
        "this",
        "that",
        "-",
        ",",
        ":",
        "/",
        "per",
        "each",
        "will",
        "have",
        "has",
        "would",
        "'d",
        "do",
        "does",
        "not",
        "n't",
        "no",
        "as",
        "at",
        "by",
        "or",
    }
)


def _required(pattern: Pattern) -> list[Gate]:
    """The telling tokens a pattern cannot match without (word lists free of common words, labels)."""
    required = []
    for spec in pattern.tokens:
        if spec.get("OP") not in (None, "+", "!"):
            continue
        gate = _spec_gate(spec)
        if gate is not None and not gate.words & _COMMON:
            required.append(gate)
    return required


_FUZZY = re.compile(r"^FUZZY(\d)$")
_FIRST_LETTER = re.compile(r"^\^([a-z])$")


def _spec_gate(spec: dict[str, Any]) -> Gate | None:
    lower = spec.get("LOWER")
    if isinstance(lower, dict):
        fuzzy = [(int(m[1]), value) for key, value in lower.items() if (m := _FUZZY.match(key))]
        first = _FIRST_LETTER.match(str(lower.get("REGEX", "")))
        if fuzzy and first:  # a typing slip of a word that keeps its first letter
            edits, word = fuzzy[0]
            lengths = range(max(1, len(word) - edits), len(word) + edits + 1)
            return Gate(shapes=frozenset((first[1], n) for n in lengths))
    if isinstance(lower, str):
        return Gate(words=frozenset({lower}))
    if isinstance(lower, dict) and "IN" in lower:
        return Gate(words=frozenset(lower["IN"]))
    ent = spec.get("ENT_TYPE")
    if isinstance(ent, str) and ent:
        return Gate(labels=frozenset({ent}))
    if isinstance(ent, dict) and "IN" in ent:
        return Gate(labels=frozenset(ent["IN"]))
    return None


def read(doc: Doc) -> list[Reading]:
    """Every reading of the document that survives the longest-match-wins rule."""
    rules = rule_set()
    opened = rules.open_gates(doc)
    readings: list[Reading] = []
    order: dict[str, int] = {}
    for position, compiled in enumerate(rules.rules):
        order[compiled.rule["name"]] = position
        if not any(need <= opened for need in compiled.needs):
            continue
        fallback_for = compiled.rule.get("fallback_for")
        if fallback_for and any(fallback_for in reading.values for reading in readings):
            continue  # only when nothing exact gave the field (typing slips)
        handle = HANDLERS[compiled.rule["handler"]]
        matches: Iterable[tuple[int, int, int, Sequence[int]]]
        if not compiled.has_roles:  # cue and flag rules: the span is all they need
            matches = ((key_id, start, end, ()) for key_id, start, end in compiled.matcher(doc))
        else:
            matches = cast(
                list[tuple[int, int, int, list[int]]], compiled.matcher(doc, with_alignments=True)
            )  # spaCy types it without alignments
        for key_id, start, end, alignment in matches:
            pattern = compiled.patterns[doc.vocab.strings[key_id]]
            roles: dict[str, list[int]] = {}
            for offset, pattern_index in enumerate(alignment):
                role = pattern.roles.get(pattern_index)
                if role is not None:
                    roles.setdefault(role, []).append(start + offset)
            reading = handle(Match(doc, start, end, compiled.rule, roles))
            if reading is not None:
                readings.append(reading)
    return select(readings, order)


def select(readings: list[Reading], order: dict[str, int]) -> list[Reading]:
    """Drop readings that claim a token a longer (then earlier) reading already has."""
    ranked = sorted(readings, key=lambda r: (-(r.end - r.start), r.start, order.get(r.rule, 0)))
    taken: set[tuple[str, int]] = set()
    kept: list[Reading] = []
    for reading in ranked:
        if reading.claims & taken:
            continue
        taken |= reading.claims
        kept.append(reading)
    return sorted(kept, key=lambda r: (r.start, r.end))
