"""The extractor's data files, loaded once per process, and the pattern shorthand they use.

Patterns in the YAML files are spaCy Matcher token patterns, written with a short form so
they read like the phrases they match (see the header of data/rules.yaml):

    "NUM@gpu_count PLUS? GPU_ADJ{,2} GPU? GPU_WORD"   matches   "2,000+ NVIDIA H100 GPUs"
"""

from __future__ import annotations

import copy
import re
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from understanding.extraction.schemas import DataFileError, check_entities, check_numbers

DATA_DIR = Path(__file__).parent / "data"

_ELEMENT = re.compile(r"^(?P<tok>.+?)(?:@(?P<role>[a-z_]+))?(?P<op>[?*+!]|\{\d*,?\d*\})?$")
_MACRO_NAME = re.compile(r"^[A-Z][A-Z0-9_]*$")


#: Checked as they load (understanding/extraction/schemas.py); rules.yaml is checked when its rules compile
#: (`check_rules`, called by understanding.extraction.matching), which also needs the handlers.
CHECKS = {"entities": check_entities, "numbers": check_numbers}


@cache
def load(name: str) -> dict[str, Any]:
    """A data file from understanding/extraction/data, parsed and checked once per process.

    Raises DataFileError naming the file and the entry when entities.yaml or numbers.yaml
    does not match its schema."""
    with open(DATA_DIR / f"{name}.yaml", encoding="utf-8") as handle:
        data: dict[str, Any] = yaml.safe_load(handle)
    check = CHECKS.get(name)
    if check is not None:
        check(data, f"{name}.yaml")
    return data


class RulesFileError(DataFileError):
    """data/rules.yaml is malformed: the message names the file and the rule."""


PatternSource = str | list[str | dict[str, Any]]


class FieldRule(BaseModel):
    """One rule of data/rules.yaml. The options are typed here; which of them a rule may
    give depends on its handler (understanding/extraction/handlers.py registers what each reads)."""

    model_config = ConfigDict(extra="forbid")

    name: str = Field(pattern=r"^[a-z][a-z0-9_]*$")
    handler: str
    patterns: list[PatternSource] = Field(min_length=1)
    fallback_for: str | None = None
    field: str | None = None
    value: str | bool | None = None
    limits: dict[str, tuple[int, int]] | tuple[float, float] | None = None
    factors: dict[str, float] | None = None
    not_after: list[str] | None = None
    not_after_window: int | None = Field(default=None, ge=1)
    not_followed_by: list[str] | None = None
    not_preceded_by: list[str] | None = None
    opening: bool | None = None
    lead_ins: list[str] | None = None
    shared_with: list[str] | None = None
    min_scale: float | None = None
    min_usd: float | None = None
    weak: bool | None = None
    questions_ask: bool | None = None
    wh_questions_ask: bool | None = None
    not_inverted: bool | None = None
    clause_end: bool | None = None
    percent: bool | None = None
    alone: bool | None = None
    questions_too: bool | None = None
    rack_scale_only: bool | None = None
    scalable_units: bool | None = None

    def options(self) -> set[str]:
        """The options this rule gives (beyond name, handler, patterns, fallback_for)."""
        return set(self.model_dump(exclude_none=True)) - {"name", "handler", "patterns", "fallback_for"}


class Negation(BaseModel):
    model_config = ConfigDict(extra="forbid")

    negators: list[str]
    bridges: list[str]
    releases: list[str]


class RulesFile(BaseModel):
    """data/rules.yaml as a whole."""

    model_config = ConfigDict(extra="forbid")

    macros: dict[str, dict[str, Any]]
    rules: list[FieldRule]
    negation: Negation
    internal: list[str]
    fields: dict[str, str]


def check_rules(data: Any, source: str = "rules.yaml") -> RulesFile:
    """Validate the field rules, naming the file and the rule on the first problem.

    Checks the shape and the option types, that every macro name is upper case, that
    `field` and `fallback_for` name a field the file resolves, and that every pattern's
    shorthand expands (unknown macros, bad elements)."""
    try:
        rules_file = RulesFile.model_validate(data)
    except ValidationError as exc:
        error = exc.errors(include_url=False)[0]
        location = list(error["loc"])
        where = source
        if location[:1] == ["rules"] and len(location) > 1 and isinstance(location[1], int):
            rule = data["rules"][location[1]]
            name = rule.get("name", f"#{location[1] + 1}") if isinstance(rule, dict) else f"#{location[1] + 1}"
            where, location = f"{source}: rule {name}", location[2:]
        path = ".".join(str(part) for part in location)
        raise RulesFileError(f"{where}: {path + ': ' if path else ''}{error['msg']}") from exc
    for macro in rules_file.macros:
        if not _MACRO_NAME.match(macro):
            raise RulesFileError(f"{source}: macro {macro!r} must be UPPER_CASE")
    seen: set[str] = set()
    for rule in rules_file.rules:
        where = f"{source}: rule {rule.name}"
        if rule.name in seen:
            raise RulesFileError(f"{where}: the name is used twice")
        seen.add(rule.name)
        for name in (rule.field, rule.fallback_for):
            if name is not None and name not in rules_file.fields:
                raise RulesFileError(f"{where}: {name!r} is not a field of `fields:` ({', '.join(rules_file.fields)})")
        for raw in rule.patterns:
            try:
                compile_pattern(raw, rules_file.macros)
            except ValueError as exc:
                raise RulesFileError(f"{where}: {exc}") from exc
    return rules_file


@dataclass(frozen=True)
class Pattern:
    """One Matcher pattern and the roles of its elements (pattern index -> role)."""

    tokens: list[dict[str, Any]]
    roles: dict[int, str] = field(default_factory=dict)


def compile_pattern(elements: str | list[Any], macros: dict[str, Any]) -> Pattern:
    """Expand the shorthand of one pattern into Matcher token dicts and a role map.

    A pattern is a string of space-separated elements, or a list of elements where an
    element can also be a raw Matcher token dict.
    """
    if isinstance(elements, str):
        elements = elements.split()
    tokens: list[dict[str, Any]] = []
    roles: dict[int, str] = {}
    for index, element in enumerate(elements):
        if isinstance(element, dict):
            tokens.append(copy.deepcopy(element))
            continue
        if not isinstance(element, str):
            raise ValueError(f"pattern element {element!r} is neither a string nor a token dict")
        token, role, op = _split_element(element)
        if token in macros:
            spec = copy.deepcopy(macros[token])
        elif _MACRO_NAME.match(token):
            raise ValueError(f"unknown macro {token!r} in pattern {elements!r}")
        else:
            alternatives = token.split("|")
            macro = next((word for word in alternatives if word in macros or _MACRO_NAME.match(word)), None)
            if macro is not None:  # "GROUP|units" would match the word "group", not the macro
                raise ValueError(
                    f"macro {macro!r} used as a word in {token!r} of pattern {elements!r}: give it a macro of its own"
                )
            words = [word.lower() for word in alternatives]
            spec = {"LOWER": words[0]} if len(words) == 1 else {"LOWER": {"IN": words}}
        if op:
            spec["OP"] = op
        if role:
            roles[index] = role
        tokens.append(spec)
    return Pattern(tokens=tokens, roles=roles)


def _split_element(element: str) -> tuple[str, str | None, str | None]:
    if len(element) == 1:  # a literal punctuation token such as "+" or "*"
        return element, None, None
    match = _ELEMENT.match(element)
    if match is None:  # pragma: no cover - the regex accepts every non-empty string
        raise ValueError(f"cannot read pattern element {element!r}")
    return match["tok"], match["role"], match["op"]
