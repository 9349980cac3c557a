"""A question that asks what letters stand for wants the entry whose title spells them out,
not one that only uses them (understanding.query.expansion_fit, through knowledge.search)."""

from __future__ import annotations

import pytest

from advisor import service
from understanding.query import expansion_fit, expansions_asked


@pytest.mark.parametrize(
    ("question", "title_starts"),
    [
        ("RDMA stands for?", "RDMA (Remote Direct Memory Access)"),
        ("what does NCCL stand for", "NCCL (NVIDIA Collective Communications Library)"),
        ("ecmp stands for?", "ECMP (Equal-Cost Multi-Path)"),
    ],
)
def test_a_stand_for_question_is_answered_by_the_entry_that_expands_the_letters(question, title_starts):
    result = service.ask(question)
    assert result.answer is not None and result.answer.confident
    assert result.answer.topic.startswith(title_starts)


def test_only_a_title_that_spells_the_letters_out_is_preferred():
    asked = expansions_asked("what does SU stand for in a superpod")
    assert expansion_fit(asked, "Scalable unit (SU)") > 1.0
    assert expansion_fit(asked, "RDMA basics (verbs, queue pairs)") == 1.0
    assert expansions_asked("how many spines for 512 GPUs?") == ()
