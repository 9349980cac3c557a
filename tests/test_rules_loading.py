"""The rulebook is checked when it loads: a misspelled fact, a type mismatch, an unknown
decision or a template naming a missing fact stops the start with the file and rule."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from rules import design, engine, rulebook
from rules.models import WorkloadProfile

GOOD_RULE = """\
  - id: {id}
    priority: 10
    when: {when}
    because: {because}
    source: test
"""


def write_rulebook(directory: Path, stage: str, rule: str) -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    (directory / "10-test.yaml").write_text(f"stage: {stage}\nrules:\n{rule}")
    return directory


def load_error(tmp_path: Path, stage: str, rule: str) -> str:
    with pytest.raises(rulebook.RulebookError) as caught:
        rulebook.rules_by_stage(write_rulebook(tmp_path / "book", stage, rule))
    return str(caught.value)


def test_the_shipped_rulebook_loads_with_typed_facts() -> None:
    stages = rulebook.rules_by_stage()
    assert all(stages[stage] for stage in rulebook.STAGES)


def test_misspelled_fact_names_file_rule_and_the_likely_fact(tmp_path: Path) -> None:
    message = load_error(tmp_path, "fabric", GOOD_RULE.format(id="big", when="gpu_cout >= 16", because="x"))
    assert message.startswith("10-test.yaml: rule big:")
    assert "'gpu_cout'" in message and "did you mean 'gpu_count'" in message


def test_number_compared_with_a_string_fails_at_load(tmp_path: Path) -> None:
    message = load_error(tmp_path, "fabric", GOOD_RULE.format(id="typed", when="'gpu_count >= \"16\"'", because="x"))
    assert "10-test.yaml: rule typed" in message and "mismatch" in message


def test_equality_across_types_fails_at_load(tmp_path: Path) -> None:
    message = load_error(tmp_path, "fabric", GOOD_RULE.format(id="eq", when="workload == 3", because="x"))
    assert "rule eq" in message and "compares a string with a number" in message


def test_fact_of_a_later_stage_is_unknown_in_an_earlier_one(tmp_path: Path) -> None:
    message = load_error(tmp_path, "fabric", GOOD_RULE.format(id="early", when="link_gbps >= 400", because="x"))
    assert "rule early" in message and "'link_gbps'" in message


@pytest.mark.parametrize(
    ("stage", "decide", "words"),
    [
        ("fabric", "{fabirc: rocev2}", ["unknown key 'fabirc'"]),
        ("fabric", "{fabric: roce}", ["'roce' is not one of", "rocev2"]),
        ("advice", "{topology: fat_tree}", ["decided in the topology stage, not advice"]),
        ("link", "{ethernet_gbps: '400'}", ["'400' is not one of"]),
    ],
)
def test_decide_keys_and_values_are_checked(tmp_path: Path, stage: str, decide: str, words: list[str]) -> None:
    rule = GOOD_RULE.format(id="decides", when="training", because="x") + f"    decide: {decide}\n"
    message = load_error(tmp_path, stage, rule)
    assert "10-test.yaml: rule decides" in message
    for word in words:
        assert word in message


def test_template_naming_a_missing_fact_fails_at_load(tmp_path: Path) -> None:
    message = load_error(tmp_path, "fabric", GOOD_RULE.format(id="says", when="training", because="'{gpu_cont} GPUs'"))
    assert "rule says" in message and "{gpu_cont}" in message


def test_unknown_field_in_a_rule_is_named(tmp_path: Path) -> None:
    rule = GOOD_RULE.format(id="extra", when="training", because="x") + "    wehn: training\n"
    message = load_error(tmp_path, "fabric", rule)
    assert "rule extra" in message and "wehn" in message


def test_unknown_stage_and_broken_yaml_name_the_file(tmp_path: Path) -> None:
    assert "stage must be one of" in load_error(
        tmp_path / "a", "fabrik", GOOD_RULE.format(id="a", when="x", because="x")
    )
    book = tmp_path / "b"
    book.mkdir()
    (book / "20-broken.yaml").write_text("stage: fabric\nrules: [\n")
    with pytest.raises(rulebook.RulebookError, match=r"20-broken\.yaml: not valid YAML"):
        rulebook.rules_by_stage(book)


PROFILES = [
    {"workload": "training", "gpu_count": 8},
    {"workload": "training", "gpu_count": 128, "gpu_model": "H100", "model_params_b": 70, "budget_usd": 5e6},
    {"workload": "inference", "node_count": 4, "gpu_model": "L40S"},
    {"workload": "mixed", "gpu_count": 20_000, "gpu_model": "B200", "cost_sensitive": True},
    {"workload": "training", "gpu_count": 512, "prefer": "rocev2", "network_budget_usd": 1e6},
]
PYTHON_TYPES: dict[str, tuple[type, ...]] = {
    "number": (int, float),
    "boolean": (bool,),
    "string": (str,),
    "array": (list, tuple),
}


@pytest.mark.parametrize(
    "profile", PROFILES, ids=lambda p: f"{p['workload']}-{p.get('gpu_count', p.get('node_count'))}"
)
def test_the_engine_gives_every_stage_the_facts_facts_yaml_declares(
    profile: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    """facts.yaml and the code that computes the facts cannot drift apart."""
    seen: list[tuple[str, dict[str, Any]]] = []

    def recording(stage: str, facts: dict[str, Any]) -> list[rulebook.Fired]:
        seen.append((stage, dict(facts)))
        return rulebook.evaluate(stage, facts)

    monkeypatch.setattr(engine, "evaluate", recording)
    monkeypatch.setattr(design, "evaluate", recording)
    engine.recommend(WorkloadProfile.model_validate(profile))
    vocab = rulebook.vocabulary()
    assert {stage for stage, _ in seen} == set(rulebook.STAGES)
    for stage, facts in seen:
        for name, spec in vocab.facts(stage).items():
            assert name in facts, f"{stage}: facts.yaml declares {name}, the engine does not compute it"
            value = facts[name]
            ok = isinstance(value, PYTHON_TYPES[spec.type]) and (spec.type == "boolean") == isinstance(value, bool)
            assert ok, f"{stage}: {name} is {value!r}, facts.yaml says {spec.type}"
