"""The training job's plan read from a question: tensor- and pipeline-parallel degrees
and whether the model is a mixture of experts (ProfileDraft.tp, pp, moe)."""

from __future__ import annotations

import pytest

from understanding.extraction import extract


@pytest.mark.parametrize(
    ("text", "tp", "pp"),
    [
        ("TP 8, PP 16", 8, 16),
        ("TP=4 PP=2 on 64 GPUs", 4, 2),
        ("tensor parallel 8", 8, None),
        ("tensor parallelism of 2 and pipeline parallelism of 4 stages", 2, 4),
        ("pipeline parallelism of 4 stages", None, 4),
        ("8-way tensor parallelism, 16 pipeline stages", 8, 16),
        ("4-way TP with a 12-stage pipeline", 4, 12),
        ("tensor-parallel degree 4, pipeline-parallel degree 2", 4, 2),
        ("we run tensor parallel 8 inside each node", 8, None),
    ],
)
def test_parallel_degrees_are_read_in_their_usual_phrasings(text: str, tp: int | None, pp: int | None) -> None:
    profile = extract(text).profile
    assert (profile.tp, profile.pp) == (tp, pp)


def test_a_parallel_degree_is_not_also_a_cluster_size() -> None:
    profile = extract("TP 8 PP 16 on 1024 H100s for pretraining").profile
    assert (profile.tp, profile.pp, profile.gpu_count) == (8, 16, 1024)
    assert extract("tensor parallel 8 inside each node, 32 nodes").profile.gpus_per_node is None


def test_a_degree_outside_the_contract_is_not_read() -> None:
    profile = extract("TP 0 and PP 5000 on 128 GPUs").profile
    assert (profile.tp, profile.pp, profile.gpu_count) == (None, None, 128)


@pytest.mark.parametrize(
    ("text", "moe"),
    [
        ("it's a mixture-of-experts model", True),
        ("a Mixture of Experts with 64 experts", True),
        ("training a 1T MoE on 512 GPUs", True),
        ("fine-tuning Mixtral 8x7B", True),
        ("a dense model, 70B", False),
        ("dense transformer, 13B params", False),
        ("it is not an MoE", False),
        ("a 70B model on 64 GPUs", None),
    ],
)
def test_a_mixture_of_experts_or_a_dense_model_is_read(text: str, moe: bool | None) -> None:
    assert extract(text).profile.moe is moe


def test_other_numbers_do_not_become_a_plan() -> None:
    profile = extract("16 nodes x 8 H100, 400G, 8 rails, pretraining a 70B model").profile
    assert (profile.tp, profile.pp, profile.moe) == (None, None, None)
