"""The rules, loaded from the YAML files in rules/rulebook/ and parsed once.

A rule is data a sales engineer can read and change: an id, a priority, a condition
(a rule-engine expression over the facts), what it decides, an explanation template
and a source. Conditions are parsed at load time against the typed facts of
rules/facts.yaml, and decisions and templates are checked against it too, so a typo
or a type mismatch fails at start-up with the file and the rule's id, never in the
middle of a customer's question.
"""

from __future__ import annotations

import difflib
import string
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any, Literal

import rule_engine
import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from rules import parse_tables

parse_tables.keep(rule_engine.Rule.parser)  # its LALR tables in var/cache, read at the next start

RULEBOOK = Path(__file__).parent / "rulebook"
FACTS_FILE = Path(__file__).parent / "facts.yaml"
STAGES = ("fabric", "link", "topology", "budget", "advice")
#: Fact sets that stages extend but no rule file targets: `profile` is what
#: rules/facts.py derives before any candidate is designed (the link and topology
#: stages see it while each candidate is designed; the fabric stage adds the job's step
#: on every candidate to it).
BASE_STAGES = ("profile",)

_MEMO_LIMIT = 4096


class RulebookError(ValueError):
    """A rule file is malformed: the message names the file and the rule."""


# ------------------------------------------------------------------- the facts rules see

FactType = Literal["number", "boolean", "string", "array"]
_DATA_TYPES: dict[str, rule_engine.DataType] = {
    "number": rule_engine.DataType.FLOAT,
    "boolean": rule_engine.DataType.BOOLEAN,
    "string": rule_engine.DataType.STRING,
    "array": rule_engine.DataType.ARRAY,
}


class FactSpec(BaseModel):
    model_config = ConfigDict(extra="forbid")

    type: FactType
    about: str = Field(min_length=1)


class StageSpec(BaseModel):
    model_config = ConfigDict(extra="forbid")

    extends: str | None = None
    facts: dict[str, FactSpec]


class DecisionSpec(BaseModel):
    model_config = ConfigDict(extra="forbid")

    stages: list[str] = Field(min_length=1)
    values: list[str | int | bool] = Field(min_length=1)


class Vocabulary(BaseModel):
    """rules/facts.yaml: the facts each stage's rules may name and what they may decide."""

    model_config = ConfigDict(extra="forbid")

    stages: dict[str, StageSpec]
    decisions: dict[str, DecisionSpec]

    @model_validator(mode="after")
    def _stages_known(self) -> Vocabulary:
        for name, stage in self.stages.items():
            if name not in STAGES + BASE_STAGES:
                raise ValueError(f"stage {name!r}: the stages are {', '.join(STAGES + BASE_STAGES)}")
            if stage.extends is not None and stage.extends not in self.stages:
                raise ValueError(f"stage {name!r} extends unknown stage {stage.extends!r}")
        for key, decision in self.decisions.items():
            unknown = [s for s in decision.stages if s not in STAGES]
            if unknown:
                raise ValueError(f"decision {key!r}: unknown stage {unknown[0]!r}")
        return self

    def facts(self, stage: str) -> dict[str, FactSpec]:
        """Every fact a stage's rules see: its own and those of the stages it extends."""
        spec = self.stages[stage]
        inherited = self.facts(spec.extends) if spec.extends else {}
        return {**inherited, **spec.facts}


@cache
def vocabulary(path: Path = FACTS_FILE) -> Vocabulary:
    """rules/facts.yaml, validated (read once per process)."""
    try:
        return Vocabulary.model_validate(
            yaml.load(path.read_text(encoding="utf-8"), Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
        )
    except (yaml.YAMLError, ValidationError) as exc:
        raise RulebookError(f"{path.name}: {exc}") from exc


# ------------------------------------------------------------------------------ rules


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
    memo: dict[tuple[Any, ...], bool] = field(default_factory=dict)

    @classmethod
    def load(cls, raw: Any, stage: str, vocab: Vocabulary | None = None) -> Rule:
        """Validate one rule against its stage's facts and decisions; raises ValueError
        naming the rule (the caller adds the file)."""
        vocab = vocab or vocabulary()
        name = raw.get("id", "?") if isinstance(raw, dict) else "?"
        try:
            spec = RuleSpec.model_validate(raw)
        except ValidationError as exc:
            raise ValueError(f"rule {name}: {_errors(exc)}") from exc
        facts = vocab.facts(stage)
        types = {fact: _DATA_TYPES[declared.type] for fact, declared in facts.items()}
        context = rule_engine.Context(type_resolver=rule_engine.type_resolver_from_dict(types))
        try:
            condition = rule_engine.Rule(spec.when.strip(), context=context)
        except rule_engine.SymbolResolutionError as exc:
            raise ValueError(
                f"rule {spec.id}: condition names unknown fact {exc.symbol_name!r}"
                f"{_suggestion(exc.symbol_name, facts)} (the {stage} stage's facts are in rules/facts.yaml)"
            ) from exc
        except rule_engine.EngineError as exc:
            hint = " (compare numbers with numbers, strings with quoted strings)" if "type" in exc.message else ""
            raise ValueError(f"rule {spec.id}: bad condition {spec.when!r}: {exc.message}{hint}") from exc
        mismatch = _mixed_comparison(condition.statement.expression)
        if mismatch:
            raise ValueError(f"rule {spec.id}: condition {spec.when!r} {mismatch}")
        for template in (spec.because, spec.warn or ""):
            check_template(spec.id, template, facts)
        _check_decisions(spec, stage, vocab)
        return cls(**spec.model_dump(), stage=stage, condition=condition, symbols=tuple(sorted(context.symbols)))

    def fires(self, facts: dict[str, Any]) -> bool:
        """Whether the condition holds. The answer depends only on the facts the
        condition names, so it is remembered per combination of their values: most
        rules name a few flags, and rule-engine's evaluation is the costly part (the
        memo takes a recommendation from ~2 ms to ~0.4 ms: `make bench`, engine part).
        A condition over a list-valued fact is evaluated every time."""
        try:
            key = tuple([facts[name] for name in self.symbols])
        except KeyError as exc:
            raise RuntimeError(f"rule {self.id}: condition names unknown fact {exc.args[0]!r}") from None
        try:
            known = self.memo.get(key)
        except TypeError:  # an unhashable value (a list): nothing to remember it by
            return self._evaluate(facts)
        if known is not None:
            return known
        result = self._evaluate(facts)
        if len(self.memo) >= _MEMO_LIMIT:
            self.memo.clear()
        self.memo[key] = result
        return result

    def _evaluate(self, facts: dict[str, Any]) -> bool:
        try:
            return bool(self.condition.matches(facts))
        except rule_engine.EngineError as exc:
            raise RuntimeError(f"rule {self.id}: cannot evaluate {self.when!r}: {exc}") from exc


def _errors(exc: ValidationError) -> str:
    return "; ".join(
        f"{'.'.join(str(p) for p in e['loc']) or 'rule'}: {e['msg']}" for e in exc.errors(include_url=False)
    )


def _suggestion(name: str, known: dict[str, Any]) -> str:
    close = difflib.get_close_matches(name, list(known), n=1)
    return f" (did you mean {close[0]!r}?)" if close else ""


def _mixed_comparison(node: Any) -> str | None:
    """rule-engine types arithmetic and ordering at parse time, but lets `==`, `!=` and
    `in` compare any two types (always false): a number compared with a string is caught
    here instead."""
    if isinstance(node, rule_engine.ast.ComparisonExpression):
        left, right = node.left.result_type, node.right.result_type
        if _definite(left) and _definite(right) and not rule_engine.DataType.is_compatible(left, right):
            return f"compares a {_type_name(left)} with a {_type_name(right)}"
    if isinstance(node, rule_engine.ast.ContainsExpression):
        member, container = node.member.result_type, node.container.result_type
        values = getattr(container, "value_type", None)
        if (
            _definite(member)
            and values is not None
            and _definite(values)
            and not rule_engine.DataType.is_compatible(member, values)
        ):
            return f"looks for a {member.name.lower()} among {values.name.lower()} values"
    for child in vars(node).values():
        if isinstance(child, rule_engine.ast.ExpressionBase):
            found = _mixed_comparison(child)
            if found:
                return found
        elif isinstance(child, tuple | list):
            for item in child:
                if isinstance(item, rule_engine.ast.ExpressionBase):
                    found = _mixed_comparison(item)
                    if found:
                        return found
    return None


def _type_name(data_type: Any) -> str:
    names = {rule_engine_type.name: ours for ours, rule_engine_type in _DATA_TYPES.items()}
    name: str = data_type.name
    return names.get(name, name.lower())


def _definite(data_type: Any) -> bool:
    return (
        data_type is not None and data_type != rule_engine.DataType.UNDEFINED and data_type != rule_engine.DataType.NULL
    )


def _check_decisions(spec: RuleSpec, stage: str, vocab: Vocabulary) -> None:
    for key, value in spec.decide.items():
        decision = vocab.decisions.get(key)
        if decision is None:
            known = ", ".join(sorted(vocab.decisions))
            raise ValueError(f"rule {spec.id}: decides unknown key {key!r}; rules decide {known}")
        if stage not in decision.stages:
            raise ValueError(
                f"rule {spec.id}: {key!r} is decided in the {' or '.join(decision.stages)} stage, not {stage}"
            )
        if not any(value == allowed and type(value) is type(allowed) for allowed in decision.values):
            allowed = ", ".join(str(v) for v in decision.values)
            raise ValueError(f"rule {spec.id}: {key}: {value!r} is not one of {allowed}")


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


class _Facts(dict[str, Any]):
    def __missing__(self, key: str) -> str:
        raise KeyError(f"template names unknown fact {key!r}")


def check_template(rule_id: str, template: str, facts: dict[str, Any] | None = None) -> None:
    """Templates may name plain facts only (with a format spec): no attribute access, and
    when `facts` is given, only facts the stage has."""
    try:
        fields = [name for _, name, _, _ in string.Formatter().parse(template) if name is not None]
    except ValueError as exc:
        raise ValueError(f"rule {rule_id}: template {template!r}: {exc}") from exc
    for name in fields:
        if not name.isidentifier():
            raise ValueError(f"rule {rule_id}: template field {{{name}}} must be a plain fact name")
        if facts is not None and name not in facts:
            raise ValueError(f"rule {rule_id}: template names unknown fact {{{name}}}{_suggestion(name, facts)}")


def render(template: str, facts: dict[str, Any]) -> str:
    """Fill a rule's template with facts, on one line."""
    return " ".join(template.format_map(_Facts(facts)).split())


@cache
def rules_by_stage(directory: Path = RULEBOOK) -> dict[str, tuple[Rule, ...]]:
    """Every rule, grouped by stage and sorted by priority (highest first)."""
    grouped: dict[str, list[Rule]] = {stage: [] for stage in STAGES}
    seen: set[str] = set()
    vocab = vocabulary()
    files = sorted(directory.glob("*.yaml"))
    if not files:
        raise RulebookError(f"no rule files (*.yaml) in {directory}")
    for path in files:
        try:
            # libyaml's safe loader when PyYAML has it: ten times faster, the same documents
            document = yaml.load(path.read_text(encoding="utf-8"), Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
        except yaml.YAMLError as exc:
            raise RulebookError(f"{path.name}: not valid YAML: {exc}") from exc
        if not isinstance(document, dict) or not isinstance(document.get("rules", []), list):
            raise RulebookError(f"{path.name}: expected a mapping with `stage` and a list of `rules`")
        stage = document.get("stage")
        if stage not in grouped:
            raise RulebookError(f"{path.name}: stage must be one of {', '.join(STAGES)}, not {stage!r}")
        for raw in document.get("rules", []):
            try:
                rule = Rule.load(raw, stage, vocab)
            except ValueError as exc:
                raise RulebookError(f"{path.name}: {exc}") from exc
            if rule.id in seen:
                raise RulebookError(f"{path.name}: rule id {rule.id} is used twice")
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
