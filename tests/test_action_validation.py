"""Rasa checks the action server's replies with one validator built once
(bot/channels/action_validation.py), accepting and refusing what Rasa 3.6 does."""

from __future__ import annotations

import subprocess
import textwrap

import pytest

from tests.servers import RASA_BIN, REPO

pytestmark = pytest.mark.rasa

CHECK = textwrap.dedent(
    """
    import jsonschema
    import channels  # what Rasa imports first when it loads our Slack connector
    from rasa.core.actions.action import RemoteAction

    def rebuilt(*args, **kwargs):
        raise AssertionError("jsonschema.validate called: a validator built per reply")

    jsonschema.validate = rebuilt
    action = RemoteAction("action_recommend", None)
    good = {"events": [{"event": "slot", "name": "gpu_count", "value": 128}], "responses": [{"text": "hi"}]}
    assert action._validate_action_result(good) is True
    for bad in ({"events": [{"event": 3}]}, {"responses": "not a list"}, {"events": [{"name": "x"}]}):
        try:
            action._validate_action_result(bad)
        except jsonschema.ValidationError as error:
            assert "Failed to validate Action server response" in error.message, error.message
        else:
            raise AssertionError(f"accepted {bad}")
    print("ok")
    """
)


def test_action_replies_are_validated_without_building_a_validator_each_time() -> None:
    result = subprocess.run(
        [str(RASA_BIN / "python"), "-c", CHECK], cwd=REPO / "bot", capture_output=True, text=True, timeout=120
    )
    assert result.returncode == 0 and result.stdout.strip().endswith("ok"), result.stdout + result.stderr
