"""Sums done with the question's own numbers (knowledge.formulas): the reply leads with
the result, then the formula and its source."""

import pytest

from knowledge import calculation
from knowledge.formulas import allreduce_time, fat_tree_capacity


@pytest.mark.parametrize(
    "question, lead",
    [
        ("all-reduce of a 1 GB buffer across 8 GPUs at a busbw of 100 GB/s, how long?", "About 17.5 ms"),
        ("rough time to allreduce 14 GB of grads over 400g per gpu", "About 0.56 s (560 ms)"),
        ("how long is one all-reduce of a 7B model's bf16 gradients over 400 Gb/s links?", "About 0.56 s"),
        ("allreduce time for 70B params in fp32 at 800G", "About 5.6 s"),
        ("all-reduce 512 MB across 2 GPUs at 50 GB/s", "About 10.2 ms"),
    ],
)
def test_an_allreduce_time_is_size_times_two_n_minus_one_over_n_over_bandwidth(question, lead):
    entry = allreduce_time(question)
    assert entry is not None
    assert entry.text.startswith(lead)
    assert "nccl-tests" in entry.source


@pytest.mark.parametrize(
    "question, lead",
    [
        ("with 128 port switches how many gpus can 2 tiers hold", "Two tiers of 128-port switches hold 8,192 hosts"),
        ("max GPUs in a 3-tier fat tree of 64-port switches?", "Three tiers of 64-port switches hold 65,536 hosts"),
        ("leaf/spine with switches of 32 ports: how many servers at most?", "Two tiers of 32-port switches hold 512"),
        (
            "2 tier leaf-spine, 64-port switches, how to split the leaf ports",
            "A non-blocking leaf of 64-port switches splits 32 down and 32 up",
        ),
    ],
)
def test_a_fat_tree_holds_k_squared_over_two_in_two_tiers_and_k_cubed_over_four_in_three(question, lead):
    entry = fat_tree_capacity(question)
    assert entry is not None
    assert entry.text.startswith(lead)
    assert "Al-Fares" in entry.source


@pytest.mark.parametrize(
    "question",
    [
        "what is an all-reduce?",
        "how many switches does a 2-tier fabric for 512 GPUs need?",  # a design's count, not a radix sum
        "how many ports does a QM9700 have",
        "does NCCL use ring or tree all-reduce on 400G InfiniBand?",
    ],
)
def test_a_question_without_the_numbers_of_a_sum_gets_no_calculation(question):
    assert calculation(question) is None
