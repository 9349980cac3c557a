"""A person takes a value back ("sorry, 256 not 128", "oops, 4 GPUs per node, not 8"):
the value named is replaced, the rest of what earlier turns said is kept, and the reply
leads with what changed. Through the extractor and through `ask`, the path the REST API,
the CLI and (for its slots) the chat take."""

from __future__ import annotations

import pytest

from advisor import service
from rules.models import ProfileDraft
from understanding import corrections
from understanding.extraction import extract

SIXTEEN_DGX = ProfileDraft(workload="training", gpu_count=128, node_count=16, gpus_per_node=8, gpu_model="H100")


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("sorry, 256 not 128", {"gpu_count": 256, "gpus_per_node": 8}),
        ("not 128 but 512", {"gpu_count": 512, "gpus_per_node": 8}),
        ("sorry, 256 instead of 128", {"gpu_count": 256}),
        ("256 GPUs, not 128", {"gpu_count": 256, "gpus_per_node": 8}),
        ("oops, 4 GPUs per node, not 8", {"node_count": 16, "gpus_per_node": 4}),
        ("it's not 8 GPUs each, it's 4", {"node_count": 16, "gpus_per_node": 4}),
        ("sorry, 32 nodes not 16", {"node_count": 32, "gpus_per_node": 8}),
    ],
)
def test_a_value_taken_back_is_replaced_and_the_rest_kept(text: str, expected: dict) -> None:
    merged = extract(text, known_model="H100").applied_to(SIXTEEN_DGX)
    values = merged.model_dump(exclude_none=True)
    assert {name: values.get(name) for name in expected} == expected
    assert merged.workload == "training" and merged.gpu_model == "H100"


def test_a_corrected_model_size_is_held_in_billions() -> None:
    earlier = SIXTEEN_DGX.model_copy(update={"model_params_b": 405.0})
    for text in ("70B not 405B", "sorry, a 70B model, not 405B"):
        assert extract(text).applied_to(earlier).model_params_b == 70


def test_a_number_taken_back_that_nothing_had_changes_nothing_it_did_not_state() -> None:
    merged = extract("sorry, 300 not 200").applied_to(SIXTEEN_DGX)
    assert merged == SIXTEEN_DGX


def test_not_followed_by_a_share_is_no_correction() -> None:
    assert extract("we need 16 nodes, not 100% sure about the model").correction is None


def test_ask_after_a_design_sizes_the_corrected_cluster_and_says_what_changed() -> None:
    first = service.ask("pretraining a 70B model on 16 DGX H100")
    assert first.recommendation is not None
    second = service.ask(
        "oops, 4 GPUs per node, not 8", profile=first.profile, recommendation_id=first.recommendation.id
    )
    assert second.kind == "recommendation" and second.recommendation is not None
    sized = second.recommendation.profile
    assert (sized.node_count, sized.gpus_per_node, sized.gpu_count) == (16, 4, 64)
    assert second.reply.startswith("Changed: GPUs 128 -> 64, GPUs per server 8 -> 4.")
    assert "**What changed**" in second.reply
    assert "16 x 8 GPUs -> 16 x 4 GPUs" in second.reply

    third = service.ask("sorry, 256 not 128", profile=first.profile, recommendation_id=first.recommendation.id)
    assert third.recommendation is not None and third.recommendation.profile.gpu_count == 256
    assert "- **GPUs:** 128 -> 256" in third.reply


def test_a_count_the_design_showed_but_no_one_stated_can_be_taken_back() -> None:
    shown = ProfileDraft(workload="training", node_count=16, gpus_per_node=4, gpu_model="H100")  # 64 GPUs
    merged = extract("sorry, 128 not 64").applied_to(shown)
    assert (merged.gpu_count, merged.gpus_per_node) == (128, 4)


@pytest.mark.parametrize(
    ("text", "sized"),
    [
        ("Oops, I meant 128 nodes, not 128 GPUs.", (128, 8, 1024)),
        ("sorry, 128 servers not 128 gpus", (128, 8, 1024)),
        ("Apologies, that should be 16 GPUs, not 16 nodes.", (2, 8, 16)),
        ("16 GPUs, not 16 servers", (2, 8, 16)),
        ("I meant 16 gpus not 16 nodes", (2, 8, 16)),
    ],
)
def test_a_unit_corrected_keeps_the_number_and_works_the_other_count_out_again(
    text: str, sized: tuple[int, int, int]
) -> None:
    """ "64 nodes, not 64 GPUs": the number stays, its unit changes; the count it was taken
    for is worked out again from the server shape, not kept beside the new one (which
    made the two disagree and the design wait for a fix)."""
    merged = corrections.revise(text, SIXTEEN_DGX, expecting="gpu_count", shown=True).merged
    profile = service.complete_profile(merged)  # raised when the two counts disagreed
    assert (profile.node_count, profile.gpus_per_node, profile.gpu_count) == sized
    assert merged.workload == "training" and merged.gpu_model == "H100"


def test_a_number_two_fields_held_is_taken_back_from_the_field_the_text_restates() -> None:
    """64 GPUs of 8 a server are 8 servers: "the servers have 4 GPUs each, not 8" takes back
    the 8 GPUs a server (the field it gives a new value of), not the 8 servers."""
    earlier = ProfileDraft(workload="inference", gpu_count=64, gpus_per_node=8, gpu_model="H100")
    merged = corrections.revise(
        "Apologies, the servers have 4 GPUs each, not 8.", earlier, expecting="gpu_count", shown=True
    ).merged
    profile = service.complete_profile(merged)
    assert (profile.gpu_count, profile.gpus_per_node, profile.node_count) == (64, 4, 16)
