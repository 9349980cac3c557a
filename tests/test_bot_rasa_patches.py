"""Rasa's check of the action server's answers, with its schema checked once
(bot/rasa_patches.py), run in Rasa's own environment: it still refuses a malformed
answer with Rasa's message, and it no longer checks the schema per answer."""

from __future__ import annotations

import subprocess

import pytest

from bot import launch
from ops.processes import RASA_BIN

pytestmark = pytest.mark.skipif(not (RASA_BIN / "python").exists(), reason="no Rasa environment (make rasa-venv)")

PROBE = """
import jsonschema.validators as v
from jsonschema import ValidationError
from rasa.core.actions.action import RemoteAction
from rasa_patches import check_action_answers_against_a_checked_schema

check_action_answers_against_a_checked_schema()
checked = []
cls = v.validator_for(RemoteAction.action_response_format_spec())
original = cls.check_schema
cls.check_schema = classmethod(lambda c, schema, *a, **k: checked.append(1) or original(schema, *a, **k))
action = RemoteAction.__new__(RemoteAction)
good = {"events": [{"event": "slot", "name": "gpu_count", "value": 128}], "responses": [{"text": "hi"}]}
for _ in range(3):
    assert action._validate_action_result(good) is True
try:
    action._validate_action_result({"events": [{"event": "slot", "name": 5}], "responses": "no"})
except ValidationError as e:
    print("refused:", e.message)
print("schema checks:", len(checked))
"""


def test_a_malformed_action_answer_is_refused_and_the_schema_is_not_checked_per_answer() -> None:
    result = subprocess.run(
        [str(RASA_BIN / "python"), "-c", PROBE],
        cwd=launch.BOT,
        capture_output=True,
        text=True,
        timeout=300,
        env={**launch.RASA_ENV, "PATH": "/usr/bin:/bin"},
    )
    assert result.returncode == 0, result.stderr[-2000:]
    lines = result.stdout.strip().splitlines()
    assert any(line.startswith("refused:") and "Failed to validate Action server response" in line for line in lines)
    assert lines[-1] == "schema checks: 0"
