"""The extractor's rule file is checked when it loads: a rule with an unknown handler,
an option its handler does not read, a mistyped option, an unknown macro or a pattern
spaCy's Matcher rejects stops the start with the file and the rule."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from understanding.extraction import matching
from understanding.extraction.resources import RulesFileError, load


def broken(change: Any) -> dict[str, Any]:
    data = copy.deepcopy(load("rules"))
    rule = next(r for r in data["rules"] if r["name"] == "workload_training")
    change(rule)
    return data


def error_for(change: Any) -> str:
    with pytest.raises(RulesFileError) as caught:
        matching.compile_rules(broken(change), "rules.yaml")
    return str(caught.value)


def test_the_shipped_rules_compile() -> None:
    assert len(matching.compile_rules(load("rules")).rules) == len(load("rules")["rules"])


def test_unknown_handler_names_the_rule() -> None:
    message = error_for(lambda rule: rule.update(handler="queue"))
    assert message.startswith("rules.yaml: rule workload_training: unknown handler 'queue'")
    assert "cue" in message


def test_option_the_handler_does_not_read_is_refused() -> None:
    message = error_for(lambda rule: rule.update(min_usd=10))
    assert "rule workload_training: the cue handler does not read min_usd" in message


def test_misspelled_option_is_refused() -> None:
    message = error_for(lambda rule: rule.update(not_aftr=["switch"]))
    assert "rule workload_training: not_aftr: Extra inputs are not permitted" in message


def test_mistyped_option_is_refused() -> None:
    message = error_for(lambda rule: rule.update(not_after_window="three"))
    assert "rule workload_training: not_after_window:" in message and "integer" in message


def test_field_the_file_does_not_resolve_is_refused() -> None:
    message = error_for(lambda rule: rule.update(field="wrkload"))
    assert "rule workload_training: 'wrkload' is not a field" in message


def test_unknown_macro_in_a_pattern_is_refused() -> None:
    message = error_for(lambda rule: rule["patterns"].append("TRAINNG_WORD"))
    assert "rule workload_training: unknown macro 'TRAINNG_WORD'" in message


def test_a_macro_among_word_alternatives_is_refused() -> None:
    """ "GROUP|units" would match the word "group", never the macro's words."""
    message = error_for(lambda rule: rule["patterns"].append("TRAINING_WORD|trained"))
    assert "rule workload_training: macro 'TRAINING_WORD' used as a word" in message


def test_pattern_the_matcher_rejects_names_rule_and_pattern() -> None:
    message = error_for(lambda rule: rule["patterns"].append([{"LOWR": "train"}]))
    assert "rules.yaml: rule workload_training: pattern" in message and "LOWR" in message
