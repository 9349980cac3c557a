"""Tasks of personal life are declined whatever words they share with the domain: a
booking, a plan for a party, a thing to buy, a story's plot, the home network, and the
layers of a neural network (not the network the advisor sizes)."""

from __future__ import annotations

import pytest

from advisor import service
from advisor.models import AskKind


@pytest.mark.parametrize(
    "text",
    [
        "could you book me a vet appointment for monday",
        "help me organise a team barbecue",
        "which laptop should i buy for college",
        "give me a synopsis of the novel dune",
        "my home wifi keeps dropping, which router",
        "what do the hidden layers of a neural network learn",
    ],
)
def test_a_personal_task_is_declined(text: str) -> None:
    assert service.ask(text).kind == AskKind.out_of_scope


@pytest.mark.parametrize(
    "text", ["which router for the oob network", "how many layers of switches", "what is a dense fabric"]
)
def test_the_same_words_about_a_cluster_are_answered(text: str) -> None:
    assert service.ask(text).kind != AskKind.out_of_scope
