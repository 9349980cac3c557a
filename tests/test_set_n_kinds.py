"""Kinds of message set N's first run missed (docs/evaluation.md, "Set N"), pinned with
phrasings of our own: the other fabric's design asked for with a comparing word before the
fabric ("the equivalent Ethernet design"), and the design's cost asked by the money's sign."""

from __future__ import annotations

import pytest

from advisor.models import AskKind
from tests.service_chat import chain


@pytest.mark.parametrize("ask", ["could you show a comparable RoCE build?", "give us the matching Ethernet version"])
def test_the_other_fabric_asked_with_a_comparing_word_is_a_what_if(ask: str) -> None:
    _, changed = chain("512 H100 for training", ask)
    assert changed.kind == AskKind.recommendation and changed.recommendation is not None
    assert changed.recommendation.fabric.technology != "infiniband_ndr"


@pytest.mark.parametrize("ask", ["and what $ roughly?", "how many dollars is that network?"])
def test_the_designs_cost_asked_by_the_money_sign_is_answered_from_the_design(ask: str) -> None:
    _, cost = chain("512 H100 for training", ask)
    assert cost.kind == AskKind.design_answer and "Network cost" in cost.reply
