"""The shapes of data/entities.yaml and data/numbers.yaml, checked when they load.

A misspelt key, a GPU without aliases, an entity label no handler reads or a number word
that is not a number would otherwise surface as a KeyError deep in the pipeline, or as
text that silently stops matching. `check_entities` and `check_numbers` stop the start
with a message naming the file, the entry and what to fix. Hardware facts (GPUs per
system) are not here: they live in the hardware catalogue (knowledge/sources/hardware.yaml).
"""

from __future__ import annotations

import re
from typing import Any, Literal, TypeVar

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

MACRO_NAME = re.compile(r"^[A-Z][A-Z0-9_]*$")

#: The entity labels the handlers and the pipeline read (understanding/extraction/handlers.py, pipeline.py).
Label = Literal["GPU", "SYSTEM", "FABRIC_IB", "FABRIC_ETH", "LINK", "GEAR", "MEASURE"]


class DataFileError(ValueError):
    """An extractor data file is malformed: the message names the file and the entry."""


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class GpuModel(_Strict):
    id: str = Field(min_length=1)
    aliases: list[str] = Field(min_length=1)
    needs_context: bool = False  # a common word too ("L4"): counted only next to a number or a GPU word


class GpuSection(_Strict):
    label: Literal["GPU"]
    prefixes: list[str]
    suffixes: list[str]
    memory_units: list[str]
    after_memory: list[str]
    models: list[GpuModel] = Field(min_length=1)


class SystemName(_Strict):
    """A system's name as people write it. Its GPUs come from the hardware catalogue."""

    id: str = Field(min_length=1)
    aliases: list[str] = Field(min_length=1)
    # false for a system the catalogue does not carry (DGX-1, DGX-2): named, so its digits
    # are not read as a count, but no GPU count is derived from it
    in_catalogue: bool = True


class SystemSection(_Strict):
    label: Literal["SYSTEM"]
    systems: list[SystemName] = Field(min_length=1)


class FabricName(_Strict):
    label: Literal["FABRIC_IB", "FABRIC_ETH"]
    id: str = Field(min_length=1)
    aliases: list[str] = Field(min_length=1)


class TokenPattern(_Strict):
    label: Label
    id: str | None = None
    pattern: list[str | dict[str, Any]] = Field(min_length=1)


class GearSection(_Strict):
    label: Literal["GEAR"]
    aliases: list[str] = Field(min_length=1)


class EntitiesFile(_Strict):
    """data/entities.yaml as a whole."""

    gpu: GpuSection
    system: SystemSection
    fabric: list[FabricName] = Field(min_length=1)
    macros: dict[str, dict[str, Any]]
    patterns: list[TokenPattern]
    gear: GearSection

    @field_validator("macros")
    @classmethod
    def _macro_names_are_upper_case(cls, macros: dict[str, dict[str, Any]]) -> dict[str, dict[str, Any]]:
        for name in macros:
            if not MACRO_NAME.match(name):
                raise ValueError(f"macro {name!r} must be UPPER_CASE")
        return macros

    @model_validator(mode="after")
    def _names_are_unambiguous_and_macros_known(self) -> EntitiesFile:
        _unique("gpu model", [m.id for m in self.gpu.models])
        _unique("system", [s.id for s in self.system.systems])
        owners: dict[str, str] = {}
        for kind, entries in (("gpu model", self.gpu.models), ("system", self.system.systems)):
            for entry in entries:
                for alias in entry.aliases:
                    other = owners.setdefault(alias.lower(), f"{kind} {entry.id}")
                    if other != f"{kind} {entry.id}":
                        raise ValueError(f"alias {alias!r} of {kind} {entry.id} is also an alias of {other}")
        for index, item in enumerate(self.patterns):
            for element in item.pattern:
                if isinstance(element, str) and element not in self.macros:
                    raise ValueError(f"patterns.{index}: unknown macro {element!r} (macros: {', '.join(self.macros)})")
        return self


class NumbersFile(_Strict):
    """data/numbers.yaml as a whole."""

    digits_regex: str
    units: dict[str, int]
    teens: dict[str, int]
    tens: dict[str, int]
    hundred: dict[str, int]
    scales: dict[str, float]
    suffixes: dict[str, float]
    groups: dict[str, int]
    fractions: dict[str, float]
    articles: list[str]
    joiners: list[str]
    negations: list[str] = Field(description='Words that make the number after them negative ("minus").')
    article_takes: list[str]
    shapes: list[str] = Field(min_length=1)
    max_word_tokens: int = Field(ge=1)

    @field_validator("digits_regex")
    @classmethod
    def _regex_compiles(cls, text: str) -> str:
        try:
            re.compile(text)
        except re.error as exc:
            raise ValueError(f"not a regular expression: {exc}") from exc
        return text

    @field_validator("scales", "suffixes", "fractions")
    @classmethod
    def _multipliers_are_positive(cls, table: dict[str, float]) -> dict[str, float]:
        for word, value in table.items():
            if value <= 0:
                raise ValueError(f"{word!r} must be a positive number, not {value}")
        return table

    @field_validator("shapes")
    @classmethod
    def _shapes_use_known_classes(cls, shapes: list[str]) -> list[str]:
        for shape in shapes:
            for element in shape.split():
                if MACRO_NAME.match(element) and element not in ("DIGITS", "MULTIPLIER"):
                    raise ValueError(f"shape {shape!r}: {element!r} is neither DIGITS nor MULTIPLIER")
        return shapes

    @model_validator(mode="after")
    def _article_words_are_number_words(self) -> NumbersFile:
        words = {*self.units, *self.teens, *self.tens, *self.hundred, *self.scales, *self.groups, *self.fractions}
        unknown = [word for word in self.article_takes if word not in words]
        if unknown:
            raise ValueError(f"article_takes: {', '.join(unknown)} is not a number word of the tables")
        return self


Model = TypeVar("Model", bound=BaseModel)


def check_entities(data: Any, source: str = "entities.yaml") -> EntitiesFile:
    """The entity names and patterns, or DataFileError naming the file and the entry."""
    return _check(EntitiesFile, data, source)


def check_numbers(data: Any, source: str = "numbers.yaml") -> NumbersFile:
    """The number words and shapes, or DataFileError naming the file and the entry."""
    return _check(NumbersFile, data, source)


def _check(model: type[Model], data: Any, source: str) -> Model:
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        error = exc.errors(include_url=False)[0]
        where = ".".join(_describe(data, error["loc"]))
        message = str(error["msg"]).removeprefix("Value error, ")
        raise DataFileError(f"{source}: {where + ': ' if where else ''}{message}") from exc


def _describe(data: Any, location: tuple[int | str, ...]) -> list[str]:
    """The error's location, with the id of each list entry on the way ("gpu.models.3 (A100)")."""
    parts: list[str] = []
    node = data
    for step in location:
        try:
            node = node[step]
        except (KeyError, IndexError, TypeError):
            node = None
        identifier = node.get("id") if isinstance(step, int) and isinstance(node, dict) else None
        parts.append(f"{step} ({identifier})" if identifier else str(step))
    return parts


def _unique(kind: str, ids: list[str]) -> None:
    seen: set[str] = set()
    for identifier in ids:
        if identifier in seen:
            raise ValueError(f"{kind} {identifier!r} is listed twice")
        seen.add(identifier)
