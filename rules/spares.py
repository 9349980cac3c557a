"""The spares policy: spare switches and spare optics and cables per tier, as a stated
policy (rules/spares.yaml), checked when it loads.

    spares.policy().switches_for("leaf", 64)     # 4: one per 16 leaves
    spares.policy().optics_for("node-leaf", 512)   # 16: 3 %, rounded up

The figures are Fabric Advisor's own judgement (no vendor publishes spares ratios); the
policy's `source` says so and every spare line of a bill of materials carries it.
"""

from __future__ import annotations

import math
from functools import cache
from pathlib import Path
from typing import Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError

POLICY_FILE = Path(__file__).parent / "spares.yaml"

CableTierName = Literal["node-leaf", "leaf-spine", "spine-core", "group-global"]
SwitchTierName = Literal["leaf", "spine", "core"]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class CableSpares(_Strict):
    optics_pct: float = Field(ge=0, le=100, description="Spare optics, cables and fibre, % of the tier's.")
    why: str = Field(min_length=1)


class SwitchSpares(_Strict):
    one_per: int = Field(ge=1, description="One spare switch per this many switches of the tier, rounded up.")
    from_switches: int = Field(ge=1, description="Spares only once the tier has this many switches.")
    why: str = Field(min_length=1)


class SparesPolicy(_Strict):
    source: str = Field(min_length=1)
    cables: dict[CableTierName, CableSpares]
    switches: dict[SwitchTierName, SwitchSpares]

    def optics_for(self, tier: str, quantity: int) -> int:
        """Spare parts for `quantity` parts of one cable tier: its percentage, rounded up."""
        rule = next((r for t, r in self.cables.items() if t == tier), None)
        return math.ceil(quantity * rule.optics_pct / 100) if rule and quantity > 0 else 0

    def switches_for(self, tier: str, count: int) -> int:
        """Spare switches for a tier of `count` switches."""
        rule = next((r for t, r in self.switches.items() if t == tier), None)
        if rule is None or count < rule.from_switches:
            return 0
        return math.ceil(count / rule.one_per)

    def optics_words(self, tier: str) -> str:
        rule = next((r for t, r in self.cables.items() if t == tier), None)
        return f"{rule.optics_pct:g} %" if rule else "0 %"

    def switch_words(self, tier: str) -> str:
        rule = next((r for t, r in self.switches.items() if t == tier), None)
        return f"one per {rule.one_per}, from {rule.from_switches} switches" if rule else "none"


class PolicyError(ValueError):
    """The policy file does not load: says which file and what is wrong."""


@cache
def policy(path: Path = POLICY_FILE) -> SparesPolicy:
    """The spares policy, read and checked once."""
    try:
        return SparesPolicy.model_validate(
            yaml.load(path.read_text(), Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
        )
    except ValidationError as exc:
        raise PolicyError(f"{path.name}: {exc}") from None
