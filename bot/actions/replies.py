"""The action server's own words (replies.yml).

Rendering of recommendations and answers is not here: that is advisor.render, shared
with the API and the CLI. This module only holds the sentences around it.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import Any

import yaml

from advisor.render.labels import labels

REPLIES_FILE = Path(__file__).with_name("replies.yml")
# questions answered with buttons (advisor/render/labels.yaml)
BUTTON_SLOTS = frozenset(slot for slot, question in labels().questions.items() if question.buttons)


@cache
def _replies() -> dict[str, Any]:
    replies: dict[str, Any] = yaml.safe_load(REPLIES_FILE.read_text())
    return replies


def text(key: str, **values: Any) -> str:
    """The reply called key, with its placeholders filled."""
    return str(_replies()[key]).format(**values).strip()


def question(slot: str) -> dict[str, Any]:
    """The form's question for slot: `utter_message` keyword arguments (text, buttons),
    from advisor/render/labels.yaml, where every renderer finds the same question."""
    entry = labels().questions[slot]
    return {"text": entry.text, "buttons": [button.model_dump() for button in entry.buttons]}


def choice(slot: str, answer: str) -> str | None:
    """The payload of the button of slot's question that answer names ("both" -> "Training
    and inference"), so a typed button title means what clicking it means."""
    wanted = _plain(answer)
    for button in labels().questions[slot].buttons:
        if wanted in (_plain(button.title), _plain(button.payload)):
            return button.payload
    return None


def _plain(text: str) -> str:
    return " ".join("".join(c for c in text.lower() if c.isalnum() or c.isspace()).split())


def reask(slot: str, answer: str) -> str:
    """Why the answer to slot could not be used, with an example of one that can."""
    answer = " ".join(answer.split())
    if len(answer) > 60:
        answer = answer[:57] + "..."
    return str(_replies()["reask"][slot]).format(answer=answer).strip()


def field_name(field: str) -> str:
    return labels().fields.get(field, field.replace("_", " "))
