"""What the matcher hands a handler (`Match`) and what a handler gives back (`Reading`).

Their own module, below both the handlers and the matching loop, so that each imports
them without importing the other.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from spacy.tokens import Doc


@dataclass(frozen=True)
class Match:
    """One match of one pattern: the tokens each role was bound to."""

    doc: Doc
    start: int
    end: int
    rule: dict[str, Any]
    roles: dict[str, list[int]]

    def role_tokens(self, role: str) -> list[int]:
        return self.roles.get(role, [])


@dataclass(frozen=True)
class Reading:
    """What a handler read from a match.

    `values` maps ProfileDraft fields to values; `sources` maps each field to the token
    range that gave it; `claims` are the (namespace, token) pairs no other reading may
    use; `kind` is the handler's name; `weak` marks values that count only when nothing
    stronger is said; `rejected` maps a field to the token range of a value stated for
    it but out of range ("0 GPUs").
    """

    rule: str
    kind: str
    start: int
    end: int
    values: dict[str, Any]
    sources: dict[str, tuple[int, int]]
    claims: frozenset[tuple[str, int]] = field(default_factory=frozenset)
    weak: bool = False
    rejected: dict[str, tuple[int, int]] = field(default_factory=dict)
