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

DATA_DIR = Path(__file__).parent / "data"

_ELEMENT = re.compile(r"^(?P<tok>.+?)(?:@(?P<role>[a-z_]+))?(?P<op>[?*+!]|\{\d*,?\d*\})?$")
_MACRO_NAME = re.compile(r"^[A-Z][A-Z0-9_]*$")


@cache
def load(name: str) -> dict[str, Any]:
    """A data file from extraction/data, parsed once per process."""
    with open(DATA_DIR / f"{name}.yaml", encoding="utf-8") as handle:
        return yaml.safe_load(handle)


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
            words = [word.lower() for word in token.split("|")]
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
