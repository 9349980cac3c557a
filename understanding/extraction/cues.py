"""The cues of data/cues.yaml: what a message wants, matched in the extraction pipeline.

The pipeline's `fabric_cues` component (added by understanding.extraction.pipeline after the numbers,
before entities are merged, so "infiniband fabric" is still two words) runs one PhraseMatcher (patterns of plain words) and one
Matcher (token patterns) over the document and keeps every cue it finds, with its
character offsets, in `doc.user_data`. `cues_in(doc)` reads them back as `Cues`, which
answers "does this text, or this clause of it, have a cue of group X" without tokenizing
again: understanding.understand asks its questions of the one run over the message.

    >>> from understanding.extraction.extractor import cues_of
    >>> cues = cues_of("How many switches is that?")
    >>> cues.topics(), cues.has("deictic"), cues.has("sizing")
    (['switches'], True, False)
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass
from functools import cache
from typing import Any, Literal, get_args

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator
from spacy.attrs import LOWER
from spacy.language import Language
from spacy.matcher import Matcher, PhraseMatcher
from spacy.tokens import Doc
from spacy.vocab import Vocab

from understanding.extraction.resources import compile_pattern, load
from understanding.extraction.schemas import MACRO_NAME, DataFileError

#: doc.user_data key of the cues found: a tuple of `Cue`
CUES = "fabric_advisor_cues"
#: the groups understanding.understand reads besides the design topics
Group = Literal[
    "sizing",
    "knowledge",
    "deictic",
    "reported",
    "side",
    "change",
    "include",
    "mechanism",
    "about",
    "errand",
    "domain",
    "domain_shared",
    "counting",
    "path",
    "one_unit",
    "time_of_day",
    "tested",
    "trouble",
    "aside",
    "explains_why",
]
GROUPS: tuple[Group, ...] = get_args(Group)  # in the Literal's order: one list to add a group to
#: a design topic's cues are kept under "design:<topic>"
DESIGN = "design:"
#: most alternatives a plain-word pattern may expand to before it goes to the Matcher instead
_MAX_PHRASES = 64


class CuesFileError(DataFileError):
    """data/cues.yaml is malformed: the message names the file, the group and the entry."""


PatternSource = str | list[str | dict[str, Any]]


class CueEntry(BaseModel):
    """One cue pattern with its conditions."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    pattern: PatternSource
    at: Literal["start", "end"] | None = Field(
        default=None, description="The match opens (start) or closes (end) the text or clause asked about."
    )
    followed_by: list[PatternSource] = Field(
        default_factory=list, description="Patterns of which one must start right after it (not part of the cue)."
    )
    not_followed_by: list[PatternSource] = Field(default_factory=list, description="Patterns that cancel it.")
    capitalised: bool = Field(default=False, description='Its first word starts with a capital A-Z ("Meta").')
    starts_with: list[str] = Field(
        default_factory=list, description='Its first word starts with one of these ("gpt" for "gpt-4o", "GPT4").'
    )

    @model_validator(mode="before")
    @classmethod
    def _bare_pattern(cls, value: Any) -> Any:
        """An entry written as the pattern alone ("tell me about")."""
        return value if isinstance(value, dict) else {"pattern": value}


class CuesFile(BaseModel):
    """data/cues.yaml as a whole."""

    model_config = ConfigDict(extra="forbid")

    macros: dict[str, dict[str, Any]]
    cues: dict[Group, list[CueEntry]]
    design: dict[str, list[CueEntry]] = Field(min_length=1)


@dataclass(frozen=True)
class CuePattern:
    """A compiled cue: its label ("sizing", "design:cost"), Matcher tokens and conditions."""

    label: str
    tokens: list[dict[str, Any]]
    at: str | None
    followed_by: tuple[list[dict[str, Any]], ...]
    not_followed_by: tuple[list[dict[str, Any]], ...]
    capitalised: bool
    starts_with: tuple[str, ...]
    phrases: tuple[tuple[str, ...], ...]  # the word sequences it matches, when plain words only


@dataclass(frozen=True)
class CueSet:
    patterns: tuple[CuePattern, ...]
    topics: tuple[str, ...]  # the design topics, in the file's order


def check_cues(data: Any, source: str = "cues.yaml") -> CueSet:
    """Validate data/cues.yaml and compile its patterns, naming the file, the group and the
    entry on the first problem: the shape, a macro name, a macro the file does not define,
    a group missing, and a token attribute or operator spaCy's Matcher does not accept."""
    try:
        spec = CuesFile.model_validate(data)
    except ValidationError as exc:
        error = exc.errors(include_url=False)[0]
        path = ".".join(str(part) for part in error["loc"])
        raise CuesFileError(f"{source}: {path}: {error['msg']}") from exc
    for macro in spec.macros:
        if not MACRO_NAME.match(macro):
            raise CuesFileError(f"{source}: macro {macro!r} must be UPPER_CASE")
    missing = [group for group in GROUPS if group not in spec.cues]
    if missing:
        raise CuesFileError(f"{source}: cues: missing group(s) {', '.join(missing)}")
    groups: list[tuple[str, list[CueEntry]]] = [(group, spec.cues[group]) for group in GROUPS]
    groups += [(DESIGN + topic, entries) for topic, entries in spec.design.items()]
    probe = Matcher(Vocab(), validate=True)
    patterns: list[CuePattern] = []
    for label, entries in groups:
        for number, entry in enumerate(entries, start=1):
            where = f"{source}: {label.replace(DESIGN, 'design.')} #{number} ({_shown(entry.pattern)})"
            try:
                tokens = compile_pattern(entry.pattern, spec.macros).tokens
                before = tuple(compile_pattern(other, spec.macros).tokens for other in entry.followed_by)
                after = tuple(compile_pattern(other, spec.macros).tokens for other in entry.not_followed_by)
                for key, checked in enumerate((tokens, *before, *after)):
                    probe.add(f"probe{key}", [checked])
            except ValueError as exc:  # spaCy's MatchPatternError is a ValueError too
                raise CuesFileError(f"{where}: {str(exc).strip()}") from exc
            starts = tuple(word.lower() for word in entry.starts_with)
            patterns.append(
                CuePattern(label, tokens, entry.at, before, after, entry.capitalised, starts, _phrases(tokens))
            )
    return CueSet(patterns=tuple(patterns), topics=tuple(spec.design))


def _shown(pattern: PatternSource) -> str:
    return pattern if isinstance(pattern, str) else repr(pattern)


def _phrases(tokens: list[dict[str, Any]]) -> tuple[tuple[str, ...], ...]:
    """The word sequences a pattern of plain words matches ("what|how about" -> what about,
    how about), for the PhraseMatcher; empty when it uses anything else."""
    choices: list[list[str]] = []
    for token in tokens:
        if set(token) != {"LOWER"}:
            return ()
        value = token["LOWER"]
        if isinstance(value, str):
            choices.append([value])
        elif isinstance(value, dict) and set(value) == {"IN"}:
            choices.append([str(word) for word in value["IN"]])
        else:
            return ()
    count = 1
    for options in choices:
        count *= len(options)
    if count > _MAX_PHRASES:
        return ()
    return tuple(itertools.product(*choices))


@cache
def cue_set() -> CueSet:
    """data/cues.yaml, checked and compiled once per process."""
    return check_cues(load("cues"), "cues.yaml")


@dataclass(frozen=True)
class Cue:
    """A cue found: its label, where it is in the text, and where it must be."""

    label: str
    start: int
    end: int
    at: str | None


@Language.factory("fabric_cues")
def make_cue_finder(nlp: Language, name: str) -> CueFinder:
    """The pipeline's cue component: data/cues.yaml is checked here, when the pipeline is
    built, so a malformed file stops the start."""
    return CueFinder(nlp.vocab, cue_set())


class CueFinder:
    """Finds every cue of data/cues.yaml in a document and keeps them in `doc.user_data[CUES]`.

    Patterns of plain words go to one PhraseMatcher (a trie over lower-case words). Each
    other pattern has its own Matcher, run only when the document has, for every required
    token of the pattern matched on lower case, one of its words (as understanding.extraction.matching
    gates its rules): spaCy's
    Matcher tries every pattern at every token, and patterns that open on any word ("NAME
    ran") would otherwise cost more than the rest of the pipeline. `followed_by` and
    `not_followed_by` patterns are run only for a cue found. `capitalised` and
    `starts_with` are checked on a match's first word after matching: a custom token
    attribute in a pattern would be computed for every token of every message."""

    def __init__(self, vocab: Vocab, cues: CueSet) -> None:
        self.phrases = PhraseMatcher(vocab, attr="LOWER")
        self.gated: list[tuple[tuple[frozenset[str], ...], Matcher]] = []
        self.by_key: dict[int, CuePattern] = {}
        #: a cue's key -> Matchers of what must follow it, and of what must not
        self.after: dict[int, tuple[Matcher | None, Matcher | None]] = {}
        for index, cue in enumerate(cues.patterns):
            name = f"cue{index}"
            key = vocab.strings.add(name)
            self.by_key[key] = cue
            if cue.phrases:
                self.phrases.add(name, [Doc(vocab, words=list(words)) for words in cue.phrases])
            else:
                matcher = Matcher(vocab)
                matcher.add(name, [cue.tokens])
                self.gated.append((_gates(cue.tokens), matcher))
            if cue.followed_by or cue.not_followed_by:
                self.after[key] = (_matcher(vocab, name, cue.followed_by), _matcher(vocab, name, cue.not_followed_by))

    def __call__(self, doc: Doc) -> Doc:
        strings = doc.vocab.strings  # the words from the array of hashes: no Token object per word
        words = {strings[lower] for lower in set(doc.to_array(LOWER).tolist())}
        found = list(self.phrases(doc))
        for gates, matcher in self.gated:
            if all(not gate.isdisjoint(words) for gate in gates):
                found.extend(matcher(doc))
        starts: dict[int, tuple[set[int], set[int]]] = {}  # a cue's key -> where what follows it starts
        text = doc.text
        cues: dict[tuple[str, int, int], Cue] = {}
        for key, start, end in found:
            cue = self.by_key[key]
            if key in self.after:
                if key not in starts:
                    starts[key] = tuple(  # type: ignore[assignment]
                        {begin for _, begin, _ in matcher(doc)} if matcher is not None else set()
                        for matcher in self.after[key]
                    )
                wanted, unwanted = starts[key]
                if end in unwanted or (cue.followed_by and end not in wanted):
                    continue
            word = doc[start].text
            if (cue.capitalised and not "A" <= word[:1] <= "Z") or (
                cue.starts_with and not word.lower().startswith(cue.starts_with)
            ):
                continue
            first, last = doc[start].idx, doc[end - 1].idx + len(doc[end - 1].text)
            if _inside_word(text, first - 1) or _inside_word(text, last):
                continue  # part of a longer word or a hyphenated compound ("all-reduce" has no "reduce")
            cues.setdefault((cue.label, first, last), Cue(cue.label, first, last, cue.at))
        doc.user_data[CUES] = tuple(sorted(cues.values(), key=lambda cue: (cue.start, cue.end)))
        return doc


def _matcher(vocab: Vocab, name: str, patterns: tuple[list[dict[str, Any]], ...]) -> Matcher | None:
    if not patterns:
        return None
    matcher = Matcher(vocab)
    matcher.add(name, list(patterns))
    return matcher


def _gates(tokens: list[dict[str, Any]]) -> tuple[frozenset[str], ...]:
    """Per required token matched on lower case, the words of which a document must have
    one for the pattern to match ("how many WORD{,4} racks": how, many, racks)."""
    gates: list[frozenset[str]] = []
    for token in tokens:
        op = str(token.get("OP", ""))
        if op in ("?", "*", "!") or op.startswith(("{,", "{0")):
            continue
        value = token.get("LOWER")
        if isinstance(value, str):
            gates.append(frozenset([value]))
        elif isinstance(value, dict) and set(value) == {"IN"}:
            gates.append(frozenset(str(word) for word in value["IN"]))
    return tuple(gates)


#: what may follow a cue that closes the text: "?", and the particles an elliptical
#: fragment ends with ("spines then?", "optics too?", "cost now?")
_CLOSING = re.compile(r"[\s?]*(?:(?:then|now|too|also|again|though|pls|please|plz)[\s?,.!]*)*", re.I)


def _inside_word(text: str, index: int) -> bool:
    if index < 0 or index >= len(text):
        return False
    char = text[index]
    return char.isalnum() or char in "_-"


@dataclass(frozen=True)
class Cues:
    """The cues of one text, asked of the whole text or of one of its clauses
    (`start`, `end`: character offsets)."""

    text: str
    found: tuple[Cue, ...]

    def matches(self, label: str, start: int = 0, end: int | None = None) -> list[Cue]:
        """The cues of `label` inside text[start:end], where an anchored cue opens (only
        punctuation before it) or closes (only "?" and spaces after it) that part."""
        stop = len(self.text) if end is None else end
        return [
            cue
            for cue in self.found
            if cue.label == label and start <= cue.start and cue.end <= stop and self._placed(cue, start, stop)
        ]

    def _placed(self, cue: Cue, start: int, end: int) -> bool:
        if cue.at == "start":
            return not any(char.isalnum() or char == "_" for char in self.text[start : cue.start])
        if cue.at == "end":
            return bool(_CLOSING.fullmatch(self.text[cue.end : end]))
        return True

    def has(self, label: str, start: int = 0, end: int | None = None) -> bool:
        return bool(self.matches(label, start, end))

    def first(self, label: str, start: int = 0, end: int | None = None) -> int | None:
        """Where the first cue of `label` in that part starts, if any."""
        found = self.matches(label, start, end)
        return min(cue.start for cue in found) if found else None

    def topics(self, start: int = 0, end: int | None = None) -> list[str]:
        """The design topics that part names, in data/cues.yaml's order."""
        return [topic for topic in cue_set().topics if self.has(DESIGN + topic, start, end)]


def cues_in(doc: Doc) -> tuple[Cue, ...]:
    found: tuple[Cue, ...] = doc.user_data.get(CUES, ())
    return found
