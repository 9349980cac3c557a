"""Validate the action server's replies with one jsonschema validator, built once.

Rasa 3.6's `RemoteAction._validate_action_result` calls `jsonschema.validate(result,
schema)` on every action call. That function first checks the schema itself against
the meta-schema and then builds a new validator, every time: about two thirds of
Rasa's CPU in a chat turn here (DESIGN.md, known traps). The schema never changes, so
it is checked once, here, and one validator serves every call. What is accepted and
what is refused (and the message a refused reply raises) stay Rasa's.

Installed by `channels/__init__.py`, so it is in place whenever Rasa loads one of our
channels from credentials.yml, before the first conversation.
"""

from typing import Any

from jsonschema import ValidationError
from jsonschema.exceptions import best_match
from jsonschema.validators import validator_for
from rasa.core.actions.action import RemoteAction
from rasa.shared.constants import DOCS_BASE_URL

_schema = RemoteAction.action_response_format_spec()
_validator_class = validator_for(_schema)
_validator_class.check_schema(_schema)
VALIDATOR = _validator_class(_schema)


def validate_action_result(_: RemoteAction, result: dict[str, Any]) -> bool:
    """Rasa's check of an action server reply, with the validator built once."""
    error = best_match(VALIDATOR.iter_errors(result))  # what jsonschema.validate raises
    if error is None:
        return True
    error.message += (
        ". Failed to validate Action server response from API, "
        "make sure your response from the Action endpoint is valid. "
        f"For more information about the format visit {DOCS_BASE_URL}/custom-actions"
    )
    raise error


def install() -> None:
    """Make every RemoteAction validate with the shared validator (idempotent)."""
    RemoteAction._validate_action_result = validate_action_result


__all__ = ["VALIDATOR", "ValidationError", "install", "validate_action_result"]
