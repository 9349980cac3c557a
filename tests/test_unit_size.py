"""A scalable unit the customer sizes stays that size: "five SUs of 32 systems", then "two
SUs" is 64 servers, not two of the reference architecture's units; "3 SUs of 16 systems"
counts servers, not GPUs (understanding.dialogue, the extraction rules, advisor.service)."""

from __future__ import annotations

import pytest

from tests.service_chat import chain
from understanding import dialogue
from understanding.extraction.extractor import extract


@pytest.mark.parametrize(
    ("text", "servers"),
    [
        ("We have five scalable units of 32 B300 systems each for training.", 32),
        ("4 SUs; each SU holds 32 DGX B200 nodes", 32),
        ("2 su of dgx h100, 32 nodes per su", 32),
        ("three SUs with 16 HGX H200 servers", 16),
        ("256 H100 for training in 2 SUs", 0),
        ("4 scalable units of 256 GPUs each", 0),
    ],
)
def test_stated_unit_size_is_read_in_servers(text: str, servers: int) -> None:
    assert dialogue.stated_unit_servers(text) == servers


@pytest.mark.parametrize(
    ("text", "nodes"),
    [("3 SUs of 16 systems", 48), ("two scalable units of 32 servers each", 64), ("four SUs, each with 32 nodes", 128)],
)
def test_units_of_servers_count_servers_not_gpus(text: str, nodes: int) -> None:
    profile = extract(text).profile
    assert profile.node_count == nodes
    assert profile.gpu_count is None


def test_later_unit_count_uses_the_stated_unit_size() -> None:
    first, fewer, other, more = chain(
        "We have five scalable units of 32 B300 systems each for training.",
        "And if we built only two scalable units at first?",
        "what about 3 SUs of 16 systems",
        "and 4 SUs?",
    )
    assert first.recommendation is not None and first.recommendation.profile.gpu_count == 1280
    assert fewer.recommendation is not None and fewer.recommendation.profile.gpu_count == 512
    assert other.recommendation is not None and other.recommendation.profile.gpu_count == 384
    assert more.recommendation is not None and more.recommendation.profile.gpu_count == 512


def test_unit_count_without_a_stated_size_uses_the_reference_unit() -> None:
    _, grown = chain("2 SUs of DGX H100 for training", "what about 4 SUs?")
    assert grown.recommendation is not None and grown.recommendation.profile.node_count == 128
