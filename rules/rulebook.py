"""The rules, loaded from the YAML files in rules/rulebook/ and parsed once.

A rule is data a sales engineer can read and change: an id, a priority, a condition
(a rule-engine expression over the facts), what it decides, an explanation template
and a source. Conditions are parsed at load time, so a typo fails at start-up with
the rule's id, never in the middle of a customer's question.
"""

from __future__ import annotations

import string
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

import rule_engine
import yaml
from pydantic import BaseModel, ConfigDict, Field

RULEBOOK = Path(__file__).parent / "rulebook"
STAGES = ("fabric", "link", "topology", "budget", "advice")

_MEMO_LIMIT = 4096


class RuleSpec(BaseModel):
    """A rule as written in YAML; validated once when the rulebook loads."""

    model_config = ConfigDict(extra="forbid")

    id: str = Field(pattern=r"^[a-z0-9]+(-[a-z0-9]+)*$")
    priority: int = Field(ge=0, le=1000)
    when: str
    decide: dict[str, Any] = Field(default_factory=dict)
    because: str
    warn: str | None = None
    source: str


@dataclass(slots=True)
class Rule:
    """A loaded rule: its spec plus the parsed condition.

    A plain dataclass, not a pydantic model, because `fires` runs dozens of times per
    recommendation and attribute access must stay cheap."""

    id: str
    priority: int
    when: str
    decide: dict[str, Any]
    because: str
    warn: str | None
    source: str
    stage: str
    condition: rule_engine.Rule
    symbols: tuple[str, ...]
    memo: dict[tuple, bool] = field(default_factory=dict)

    @classmethod
    def load(cls, raw: dict[str, Any], stage: str) -> Rule:
        spec = RuleSpec.model_validate(raw)
        context = rule_engine.Context(default_value=None)
        try:
            condition = rule_engine.Rule(spec.when.strip(), context=context)
        except rule_engine.RuleSyntaxError as exc:
            raise ValueError(f"rule {spec.id}: bad condition {spec.when!r}: {exc.message}") from exc
        for template in (spec.because, spec.warn or ""):
            check_template(spec.id, template)
        return cls(**spec.model_dump(), stage=stage, condition=condition, symbols=tuple(sorted(context.symbols)))

    def fires(self, facts: dict[str, Any]) -> bool:
        """Whether the condition holds. The answer depends only on the facts the
        condition names, so it is remembered per combination of their values: most
        rules name a few flags, and rule-engine's evaluation is the costly part."""
        try:
            key = tuple([facts[name] for name in self.symbols])
        except KeyError as exc:
            raise RuntimeError(f"rule {self.id}: condition names unknown fact {exc.args[0]!r}") from None
        known = self.memo.get(key)
        if known is not None:
            return known
        try:
            result = bool(self.condition.matches(facts))
        except rule_engine.EngineError as exc:
            raise RuntimeError(f"rule {self.id}: cannot evaluate {self.when!r}: {exc}") from exc
        if len(self.memo) >= _MEMO_LIMIT:
            self.memo.clear()
        self.memo[key] = result
        return result


@dataclass(frozen=True, slots=True)
class Fired:
    """A rule that fired, with the facts it fired on. The statement is rendered only
    when asked for: most fired rules belong to alternatives nobody reads out."""

    rule: Rule
    facts: dict[str, Any]

    @property
    def statement(self) -> str:
        return render(self.rule.because, self.facts)

    @property
    def warning(self) -> str | None:
        return render(self.rule.warn, self.facts) if self.rule.warn else None


class _Facts(dict):
    def __missing__(self, key: str) -> str:
        raise KeyError(f"template names unknown fact {key!r}")


def check_template(rule_id: str, template: str) -> None:
    """Templates may name plain facts only (with a format spec): no attribute access."""
    for _, name, _, _ in string.Formatter().parse(template):
        if name is not None and not name.isidentifier():
            raise ValueError(f"rule {rule_id}: template field {{{name}}} must be a plain fact name")


def render(template: str, facts: dict[str, Any]) -> str:
    """Fill a rule's template with facts, on one line."""
    return " ".join(template.format_map(_Facts(facts)).split())


@cache
def rules_by_stage(directory: Path = RULEBOOK) -> dict[str, tuple[Rule, ...]]:
    """Every rule, grouped by stage and sorted by priority (highest first)."""
    grouped: dict[str, list[Rule]] = {stage: [] for stage in STAGES}
    seen: set[str] = set()
    for path in sorted(directory.glob("*.yaml")):
        document = yaml.safe_load(path.read_text())
        stage = document.get("stage")
        if stage not in grouped:
            raise ValueError(f"{path.name}: stage must be one of {', '.join(STAGES)}, not {stage!r}")
        for raw in document.get("rules", []):
            rule = Rule.load(raw, stage)
            if rule.id in seen:
                raise ValueError(f"{path.name}: rule id {rule.id} is used twice")
            seen.add(rule.id)
            grouped[stage].append(rule)
    return {stage: tuple(sorted(rules, key=lambda r: -r.priority)) for stage, rules in grouped.items()}


def forget_memos() -> None:
    """Drop every rule's remembered results (benchmarks measure the cold path with it)."""
    for rule in all_rules():
        rule.memo.clear()


def all_rules() -> list[Rule]:
    return [rule for rules in rules_by_stage().values() for rule in rules]


def evaluate(stage: str, facts: dict[str, Any]) -> list[Fired]:
    """The stage's rules that fire on facts, highest priority first."""
    snapshot = dict(facts)
    return [Fired(rule, snapshot) for rule in rules_by_stage()[stage] if rule.fires(facts)]


def decisions(fired: list[Fired]) -> dict[str, Any]:
    """What the fired rules decide; for each key the highest-priority rule wins.

    `fired` may join several stages' lists, so it is ordered by priority here."""
    decided: dict[str, Any] = {}
    for item in sorted(fired, key=_by_priority):
        for key, value in item.rule.decide.items():
            decided.setdefault(key, value)
    return decided


def _by_priority(item: Fired) -> int:
    return -item.rule.priority
