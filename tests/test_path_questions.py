"""A question about the path between two endpoints ("how many switches does their traffic
cross?") asks about the topology: the count that names the path's ends is not a cluster to
size (advisor.answers.stated), so the answer is the fat-tree arithmetic, not a design."""

from __future__ import annotations

import pytest

from advisor import service
from advisor.models import AskKind


@pytest.mark.parametrize(
    "question",
    [
        "If two nodes sit under the same leaf, how many switches does their traffic cross?",
        "with 2 servers on different leaves, how many hops does a packet take?",
    ],
)
def test_switches_on_a_path_between_two_endpoints_are_not_a_sized_cluster(question: str) -> None:
    result = service.ask(question)
    assert result.kind == AskKind.answer and result.answer is not None
    assert result.answer.topic.startswith("Fat-tree")
    assert "Sized for" not in result.reply


def test_a_count_of_switches_for_a_named_cluster_is_still_sized() -> None:
    result = service.ask("how many leaf switches does a 2,048 H100 training cluster need?")
    assert result.kind == AskKind.recommendation and result.recommendation is not None
    assert result.recommendation.profile.gpu_count == 2048 and "leaf" in result.reply.lower()
