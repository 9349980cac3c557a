"""The order of decisions of understanding.understand is data (understanding/decisions.yaml): it is
checked when it loads, every rule in it can decide, and each answer of /v1/ask says
which rule decided it."""

from __future__ import annotations

import copy
import random
from typing import Any

import httpx
import pytest
import yaml

from understanding import understand
from understanding.understand import FACTS, DecisionFileError, Want, decide, load_decisions


def decision_file() -> dict[str, Any]:
    data: dict[str, Any] = yaml.safe_load(understand.DECISIONS_FILE.read_text(encoding="utf-8"))
    return data


#: the rule the malformed copies change (found by name: rules are added before it)
CHANGED_RULE = "what_if_on_design"
CHANGED_AT = [rule["name"] for rule in decision_file()["rules"]].index(CHANGED_RULE)


def with_rule(change: dict[str, Any], index: int = CHANGED_AT) -> dict[str, Any]:
    data = copy.deepcopy(decision_file())
    data["rules"][index].update(change)
    return data


def test_the_decision_file_loads_with_a_last_rule_that_always_holds() -> None:
    rules = load_decisions(decision_file())
    assert rules[-1].rule.when.strip() == "true"
    assert [rule.rule.name for rule in rules] == [rule.rule.name for rule in understand.decisions()]


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"want": "maybe"}, f"rules.{CHANGED_AT}.want"),
        (
            {"when": "design_shown and wants_a_pony"},
            "rule what_if_on_design: condition names unknown fact 'wants_a_pony'",
        ),
        ({"when": "design_shown and ("}, "rule what_if_on_design: bad condition"),
        ({"name": "reported_figures"}, "rule reported_figures: the name is used twice"),
        ({"colour": "red"}, f"rules.{CHANGED_AT}.colour"),
    ],
)
def test_a_bad_decision_rule_is_refused_naming_the_rule(change: dict[str, Any], message: str) -> None:
    with pytest.raises(DecisionFileError, match=r"decisions\.yaml") as raised:
        load_decisions(with_rule(change), "decisions.yaml")
    assert message in str(raised.value)


def test_facts_must_be_the_ones_the_code_computes() -> None:
    data = copy.deepcopy(decision_file())
    del data["facts"]["calculated"]
    with pytest.raises(DecisionFileError, match="facts must be the ones"):
        load_decisions(data)


def test_a_last_rule_that_can_fail_is_refused() -> None:
    with pytest.raises(DecisionFileError, match="rule other: the last rule must be `true`"):
        load_decisions(with_rule({"when": "question"}, index=-1))


def test_every_decision_rule_decides_some_combination_of_facts() -> None:
    """No rule is shadowed by the ones before it (a random sample of the 2**18
    combinations of facts, seeded, reaches every rule)."""
    names = {decision.rule.name for decision in understand.decisions()}
    generator = random.Random(24)
    reached: set[str] = set()
    for _ in range(20000):
        reached.add(decide({fact: generator.random() < 0.5 for fact in FACTS}).name)
        if reached == names:
            break
    assert reached == names


@pytest.mark.parametrize(
    ("question", "shown", "rule", "want"),
    [
        ("how many switches is that?", True, "about_shown_design", Want.design),
        ("what is PFC?", False, "question", Want.question),
        ("pretraining a 70B model on 128 H100s", False, "sized_with_design_or_count", Want.sizing),
        ("what network do we need?", False, "asks_for_design", Want.sizing),
        ("hello there", False, "small_talk", Want.small_talk),
        ("SHARP", False, "other", Want.other),
    ],
)
def test_understanding_names_the_rule_that_decided_it(question: str, shown: bool, rule: str, want: Want) -> None:
    from understanding.extraction import extract

    found = extract(question).profile
    decision = understand.understand(question, found, None, design_shown=shown)
    assert (decision.decided_by, decision.want) == (rule, want)


def test_ask_says_which_rule_decided_the_answer(client: httpx.Client) -> None:
    question = client.post("/v1/ask", json={"question": "what is PFC?"})
    assert question.status_code == 200, question.text
    assert question.json()["decided_by"] == "question"
    sizing = client.post("/v1/ask", json={"question": "pretraining a 70B model on 128 H100s"}).json()
    assert sizing["kind"] == "recommendation" and sizing["decided_by"] == "sized_with_design_or_count"
    follow_up = client.post(
        "/v1/ask",
        json={"question": "how many switches is that?", "recommendation_id": sizing["recommendation"]["id"]},
    ).json()
    assert follow_up["kind"] == "design_answer" and follow_up["decided_by"] == "about_shown_design"
    schema = client.get("/openapi.json").json()["components"]["schemas"]["AskResult"]["properties"]
    assert "decided_by" in schema
