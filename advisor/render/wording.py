"""Customer-facing wording: what a customer reads names a source by its title and
publisher, never by our working name for it ("the seed guide") or a file of ours
(`knowledge/sources/pricebook.yaml`).

    >>> customer_text('Seed guide: "Fat-Tree (Clos Network)"')
    '"GPU Server Networking: InfiniBand, RoCE, and Ethernet for AI Clusters" (DCS Global AI Infrastructure Team): "Fat-Tree (Clos Network)"'
    >>> customer_text("Fabric Advisor bill of materials (knowledge/sources/pricebook.yaml)")
    'Fabric Advisor bill of materials (the Fabric Advisor price book)'

The facts keep their internal provenance (the rule files and sources say "Seed guide"
so a reviewer finds the passage); every renderer passes the design through `customer`
(or a text through `customer_text`) on its way out, so the rewrite lives in one place.
"""

from __future__ import annotations

import re
from typing import Any, TypeVar

from pydantic import BaseModel

GUIDE_TITLE = "GPU Server Networking: InfiniBand, RoCE, and Ethernet for AI Clusters"
GUIDE_PUBLISHER = "DCS Global AI Infrastructure Team"
GUIDE = f'"{GUIDE_TITLE}" ({GUIDE_PUBLISHER})'
GUIDE_SHORT = '"GPU Server Networking" guide'

#: (pattern, replacement), applied in order: the most specific first.
REWRITES: list[tuple[re.Pattern[str], str]] = [
    (re.compile(r"\b[Ss]eed guide\s*[:,]\s*"), GUIDE + ": "),
    (re.compile(r"\b([Tt])he seed guide's"), r"\1he " + GUIDE_SHORT + "'s"),
    (re.compile(r"\b([Tt])he seed guide\b"), r"\1he " + GUIDE_SHORT + f" ({GUIDE_PUBLISHER})"),
    (re.compile(r"\b[Ss]eed guide's"), GUIDE_SHORT + "'s"),
    (re.compile(r"\b[Ss]eed guide\b"), GUIDE_SHORT + f" ({GUIDE_PUBLISHER})"),
    (re.compile(r"\b[Ss]eed\b"), "reference"),
    (re.compile(r"`?knowledge/sources/pricebook\.ya?ml`?"), "the Fabric Advisor price book"),
    (re.compile(r"`?knowledge/[\w./-]+`?"), "the Fabric Advisor knowledge base"),
    (re.compile(r"`?rules/[\w./-]+`?"), "the Fabric Advisor rulebook"),
    # (a name starts where no name character precedes it, so a long run of hyphens is read once)
    (re.compile(r"`?(?<![\w-])[\w-]+\.ya?ml\b`?"), "Fabric Advisor data"),
]

Model = TypeVar("Model", bound=BaseModel)


def customer_text(text: str) -> str:
    """text with internal source names and file paths replaced by what a customer reads."""
    if not any(mark in text for mark in ("eed", "knowledge/", "rules/", ".yaml", ".yml")):
        return text  # the common case, without ten regular expressions
    for pattern, replacement in REWRITES:
        text = pattern.sub(replacement, text)
    return text


def _walk(value: Any) -> Any:
    if isinstance(value, str):
        return customer_text(value)
    if isinstance(value, list):
        return [_walk(item) for item in value]
    if isinstance(value, dict):
        return {key: _walk(item) for key, item in value.items()}
    return value


def customer(model: Model) -> Model:
    """The model (a Recommendation, an Answer) with every text in customer wording."""
    return type(model).model_validate(_walk(model.model_dump()))
