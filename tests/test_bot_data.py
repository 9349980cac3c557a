"""The bot's training data and conversation tests, checked by Rasa itself (its env):
`rasa data validate` with no warnings, and every conversation test in
bot/tests/test_stories.yml predicted right (`rasa test --fail-on-prediction-errors`).

`rasa test` runs no actions (it emulates them from the stories), so no server is needed.
"""

from __future__ import annotations

import os
import re
import subprocess

import pytest
import yaml

from bot import launch
from ops.processes import RASA_BIN

pytestmark = [
    pytest.mark.rasa,
    pytest.mark.skipif(not (RASA_BIN / "rasa").exists(), reason="no Rasa environment (make rasa-venv)"),
]

TEST_STORIES = launch.BOT / "tests" / "test_stories.yml"
INTENTS_TO_COVER = {
    "greet",
    "goodbye",
    "thank",
    "affirm",
    "deny",
    "ask_recommendation",
    "inform",
    "ask_knowledge",
    "explain",
    "what_if",
    "compare",
    "restart",
    "bot_challenge",
    "capabilities",
    "out_of_scope",
    "talk_to_engineer",
    "nlu_fallback",
}


def rasa(*args: str, timeout: float = 600) -> subprocess.CompletedProcess:
    return subprocess.run(
        [str(RASA_BIN / "rasa"), *args],
        cwd=launch.BOT,
        env={**os.environ, **launch.RASA_ENV},
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def test_rasa_data_validate_passes_with_no_warnings():
    result = rasa("data", "validate", "--fail-on-warnings")
    output = result.stdout + result.stderr
    assert result.returncode == 0, output[-4000:]
    assert "UserWarning" not in output, [line for line in output.splitlines() if "UserWarning" in line]


def test_every_intent_has_at_least_15_examples():
    nlu = yaml.safe_load((launch.BOT / "data" / "nlu.yml").read_text())["nlu"]
    counts = {item["intent"]: len(re.findall(r"^\s*- ", item["examples"], re.M)) for item in nlu if "intent" in item}
    assert set(counts) == INTENTS_TO_COVER - {"nlu_fallback"}
    assert {name: n for name, n in counts.items() if n < 15} == {}


def test_conversation_tests_cover_every_path():
    stories = yaml.safe_load(TEST_STORIES.read_text())["stories"]
    assert len(stories) >= 15
    intents = {step["intent"] for story in stories for step in story["steps"] if "intent" in step}
    actions = {step["action"] for story in stories for step in story["steps"] if "action" in step}
    assert intents >= INTENTS_TO_COVER
    domain = yaml.safe_load((launch.BOT / "domain.yml").read_text())
    assert (
        set(domain["actions"]) - {"action_validate_slot_mappings", "validate_sizing_form", "validate_handoff_form"}
        <= actions
    )
    assert {"sizing_form", "handoff_form", "action_deactivate_loop"} <= actions


def test_rasa_test_predicts_every_conversation(tmp_path):
    launch.ensure_model()
    result = rasa(
        "test",
        "core",
        "--stories",
        str(TEST_STORIES),
        "--e2e",
        "--fail-on-prediction-errors",
        "--model",
        str(launch.MODEL),
        "--out",
        str(tmp_path),
    )
    output = result.stdout + result.stderr
    assert result.returncode == 0, output[-4000:]
    correct = re.search(r"Correct:\s+(\d+) / (\d+)", output)
    assert correct and correct.group(1) == correct.group(2), output[-2000:]
