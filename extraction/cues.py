"""The cues of data/cues.yaml: what a message wants, matched in the extraction pipeline.

The pipeline's `fabric_cues` component (added by extraction.pipeline after the numbers,
before entities are merged, so "infiniband fabric" is still two words) runs one PhraseMatcher (patterns of plain words) and one
Matcher (token patterns) over the document and keeps every cue it finds, with its
character offsets, in `doc.user_data`. `cues_in(doc)` reads them back as `Cues`, which
answers "does this text, or this clause of it, have a cue of group X" without tokenizing
again: advisor.understand asks its questions of the one run over the message.

    >>> from extraction.cues import cues_of
    >>> cues = cues_of("How many switches is that?")
    >>> cues.topics(), cues.has("deictic"), cues.has("sizing")
    (['switches'], True, False)
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from functools import cache
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator
from spacy.language import Language
from spacy.matcher import Matcher, PhraseMatcher
from spacy.tokens import Doc, Token
from spacy.vocab import Vocab

from extraction.resources import compile_pattern, load
from extraction.schemas import MACRO_NAME, DataFileError

#: doc.user_data key of the cues found: a tuple of `Cue`
CUES = "fabric_advisor_cues"
#: the groups advisor.understand reads besides the design topics
Group = Literal["sizing", "knowledge", "deictic", "reported", "side", "change", "about"]
GROUPS: tuple[Group, ...] = ("sizing", "knowledge", "deictic", "reported", "side", "change", "about")
#: a design topic's cues are kept under "design:<topic>"
DESIGN = "design:"
#: most alternatives a plain-word pattern may expand to before it goes to the Matcher instead
_MAX_PHRASES = 64

#: token attributes the patterns may use besides spaCy's own: the first letter is A-Z
#: ("Meta", not "xAI"), and the letters a word starts with ("gpt-4o" -> "gpt", "llama3.1" -> "llama")
for _name, _getter in (
    ("fa_capitalised", lambda token: "A" <= token.text[:1] <= "Z"),
    ("fa_letters", lambda token: "".join(itertools.takewhile(str.isalpha, token.lower_))),
):
    if not Token.has_extension(_name):
        Token.set_extension(_name, getter=_getter)


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
            patterns.append(CuePattern(label, tokens, entry.at, before, after, _phrases(tokens)))
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

    Patterns of plain words go to one PhraseMatcher (a trie over lower-case words), the
    others to one Matcher; `followed_by`/`not_followed_by` patterns to a third, whose
    matches are looked up where a cue ends."""

    def __init__(self, vocab: Vocab, cues: CueSet) -> None:
        self.phrases = PhraseMatcher(vocab, attr="LOWER")
        self.tokens = Matcher(vocab)
        self.after = Matcher(vocab)
        self.by_key: dict[int, CuePattern] = {}
        #: key of a (not-)followed-by pattern -> its cue's key, and whether the cue needs it
        self.after_keys: dict[int, tuple[int, bool]] = {}
        for index, cue in enumerate(cues.patterns):
            name = f"cue{index}"
            key = vocab.strings.add(name)
            self.by_key[key] = cue
            if cue.phrases:
                self.phrases.add(name, [Doc(vocab, words=list(words)) for words in cue.phrases])
            else:
                self.tokens.add(name, [cue.tokens])
            for needed, others in ((True, cue.followed_by), (False, cue.not_followed_by)):
                for number, other in enumerate(others):
                    after_name = f"{name}.{'then' if needed else 'not'}{number}"
                    self.after.add(after_name, [other])
                    self.after_keys[vocab.strings.add(after_name)] = (key, needed)

    def __call__(self, doc: Doc) -> Doc:
        found = [*self.phrases(doc), *self.tokens(doc)]
        # what follows each position: (cue key, whether the cue needs it, token index)
        following = {(*self.after_keys[key], start) for key, start, _ in self.after(doc)}
        text = doc.text
        cues: dict[tuple[str, int, int], Cue] = {}
        for key, start, end in found:
            cue = self.by_key[key]
            if (key, False, end) in following or (cue.followed_by and (key, True, end) not in following):
                continue
            first, last = doc[start].idx, doc[end - 1].idx + len(doc[end - 1].text)
            if _inside_word(text, first - 1) or _inside_word(text, last):
                continue  # part of a longer word or a hyphenated compound ("all-reduce" has no "reduce")
            cues.setdefault((cue.label, first, last), Cue(cue.label, first, last, cue.at))
        doc.user_data[CUES] = tuple(sorted(cues.values(), key=lambda cue: (cue.start, cue.end)))
        return doc


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
            return not self.text[cue.end : end].strip(" \t\n?")
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


def cues_of(text: str) -> Cues:
    """The cues of `text`, from the pipeline's run over it (shared with `extract(text)`:
    the run is remembered, so asking both tokenizes the text once)."""
    from extraction.extractor import analysed, bounded

    if not isinstance(text, str) or not text.strip():
        return Cues(text="" if not isinstance(text, str) else text, found=())
    return Cues(text=bounded(text), found=cues_in(analysed(text)))
