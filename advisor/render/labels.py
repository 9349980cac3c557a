"""The customer-facing names and questions of advisor/render/labels.yaml, validated when
they load: every field of the profile has a name, every topology kind and port role of
the contract has a name and a short form, and every question a text.

    >>> labels().topologies["rail_optimized"].short
    'rail-optimized fat-tree'
    >>> labels().fields["gpus_per_node"]
    'GPUs per server'
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from rules.models import PortRole, ProfileDraft, TopologyKind

LABELS_FILE = Path(__file__).with_name("labels.yaml")


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Button(_Strict):
    title: str = Field(min_length=1)
    payload: str = Field(min_length=1)


class Question(_Strict):
    text: str = Field(min_length=1)
    buttons: list[Button] = Field(default_factory=list)


class Name(_Strict):
    name: str = Field(min_length=1)
    short: str = Field(min_length=1)


class Labels(_Strict):
    questions: dict[str, Question]
    out_of_scope: str = Field(min_length=1)
    small_talk: dict[str, str] = Field(min_length=1, description="Reply per small-talk kind.")
    fields: dict[str, str]
    topologies: dict[str, Name]
    port_roles: dict[str, Name]

    @model_validator(mode="after")
    def _complete(self) -> Labels:
        contract = {
            "fields": set(ProfileDraft.model_fields),
            "topologies": {kind.value for kind in TopologyKind},
            "port_roles": {role.value for role in PortRole},
        }
        for what, names in contract.items():
            given = set(getattr(self, what))
            if names - given:
                raise ValueError(f"{what}: no label for {', '.join(sorted(names - given))}")
            if given - names:
                raise ValueError(f"{what}: {', '.join(sorted(given - names))} is not in the contract")
        unasked = set(ProfileDraft().missing()) - set(self.questions)  # what a conversation must ask
        if unasked:
            raise ValueError(f"questions: no question for {', '.join(sorted(unasked))}")
        if set(self.questions) - set(ProfileDraft.model_fields):
            raise ValueError(
                f"questions: {', '.join(sorted(set(self.questions) - set(ProfileDraft.model_fields)))} is not a profile field"
            )
        return self


@cache
def labels(path: Path = LABELS_FILE) -> Labels:
    """The labels file, validated (read once per process)."""
    try:
        return Labels.model_validate(yaml.safe_load(path.read_text(encoding="utf-8")))
    except (yaml.YAMLError, ValidationError) as exc:
        raise ValueError(f"{path.name}: {exc}") from exc
