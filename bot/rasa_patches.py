"""Rasa 3.6's check of the action server's answers, with the schema checked once.

`RemoteAction._validate_action_result` calls `jsonschema.validate(result, schema)` on every
answer of the action server. `jsonschema.validate` "will first verify that the provided
schema is itself valid" (jsonschema 4.17 documentation, `jsonschema.validate`), so each
call also checks Rasa's fixed events schema against the JSON Schema meta-schema. Measured
with cProfile in `rasa run`'s process (docs/evaluation.md, chat turn speed): that check was
three quarters of a chat turn's time in Rasa, 2.5 times a turn. The schema is a constant,
so it is checked once here, when the patch is applied, and each answer is still validated
against it with the same error message: a malformed answer is refused as before.

Rasa's environment only (bot/rasa_run.py applies it before `rasa run` starts).
"""

from __future__ import annotations

from typing import Any

from jsonschema import ValidationError
from jsonschema.validators import validator_for
from rasa.core.actions.action import RemoteAction
from rasa.shared.constants import DOCS_BASE_URL


def check_action_answers_against_a_checked_schema() -> None:
    """Replace RemoteAction's per-answer validation by one with the schema checked once."""
    schema = RemoteAction.action_response_format_spec()
    validator_class = validator_for(schema)
    validator_class.check_schema(schema)  # what every call checked before, done once
    validator = validator_class(schema)

    def _validate_action_result(self: RemoteAction, result: dict[str, Any]) -> bool:
        try:
            validator.validate(result)
            return True
        except ValidationError as e:  # Rasa's own message, word for word
            e.message += (
                f". Failed to validate Action server response from API, "
                f"make sure your response from the Action endpoint is valid. "
                f"For more information about the format visit "
                f"{DOCS_BASE_URL}/custom-actions"
            )
            raise e

    RemoteAction._validate_action_result = _validate_action_result
