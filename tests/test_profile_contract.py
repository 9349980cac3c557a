"""The WorkloadProfile contract: sizes resolve from what is given, and a bad value fails
with a message that names the field and what is allowed."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from rules.models import ProfileDraft, WorkloadProfile
from rules.servers import resolve


def error_text(**fields) -> str:
    with pytest.raises(ValidationError) as caught:
        WorkloadProfile(**fields)
    return str(caught.value)


@pytest.mark.parametrize(
    "fields, field, allowed",
    [
        ({"workload": "training", "gpu_count": 0}, "gpu_count", "greater than or equal to 1"),
        ({"workload": "training", "gpu_count": -8}, "gpu_count", "greater than or equal to 1"),
        ({"workload": "training", "gpu_count": 1_000_001}, "gpu_count", "less than or equal to 1000000"),
        ({"workload": "training", "node_count": 0}, "node_count", "greater than or equal to 1"),
        ({"workload": "training", "gpu_count": 8, "gpus_per_node": 0}, "gpus_per_node", "greater than or equal to 1"),
        ({"workload": "dancing", "gpu_count": 8}, "workload", "'training', 'inference' or 'mixed'"),
        ({"workload": "training", "gpu_count": 8, "model_params_b": 0}, "model_params_b", "greater than 0"),
        ({"workload": "training", "gpu_count": 8, "budget_usd": -5}, "budget_usd", "greater than 0"),
    ],
)
def test_out_of_range_values_name_the_field_and_the_allowed_range(fields, field, allowed):
    message = error_text(**fields)
    assert field in message
    assert allowed in message


def test_a_gpu_count_that_is_not_nodes_times_gpus_per_node_is_refused():
    message = error_text(workload="training", gpu_count=100, node_count=10, gpus_per_node=8)
    assert "gpu_count" in message and "10 x 8 = 80" in message


def test_more_than_a_million_gpus_through_nodes_is_refused():
    message = error_text(workload="training", node_count=200_000, gpus_per_node=8)
    assert "gpu_count" in message and "1,000,000" in message


def test_a_size_is_required():
    assert "gpu_count" in error_text(workload="training")


def test_gpus_per_node_defaults_to_the_servers():
    # the server's default comes from the catalogue, so rules.servers.resolve applies it
    # (the contract itself no longer reads the knowledge base)
    assert resolve(WorkloadProfile(workload="training", gpu_count=128, gpu_model="H100")).node_count == 16
    assert resolve(WorkloadProfile(workload="training", gpu_count=128)).gpus_per_node == 8  # no model: 8
    assert resolve(WorkloadProfile(workload="training", node_count=4, gpu_model="H100")).gpu_count == 32
    assert resolve(WorkloadProfile(workload="training", gpu_count=144, gpu_model="GB200")).node_count == 2


def test_the_contract_alone_leaves_the_server_default_to_the_rules():
    profile = WorkloadProfile(workload="training", gpu_count=128, gpu_model="H100")
    assert not profile.resolved and profile.node_count is None


def test_a_cluster_smaller_than_one_server_is_one_partly_filled_server():
    profile = resolve(WorkloadProfile(workload="training", gpu_count=4, gpu_model="H100"))
    assert (profile.node_count, profile.gpus_per_node) == (1, 4)


def test_a_resolved_profile_validates_again_unchanged():
    profile = resolve(WorkloadProfile(workload="training", gpu_count=12, gpu_model="H100"))
    assert WorkloadProfile.model_validate_json(profile.model_dump_json()) == profile


def test_a_new_size_replaces_the_old_one_when_drafts_merge():
    earlier = ProfileDraft(workload="training", gpu_count=128, node_count=16, gpus_per_node=8, gpu_model="H100")
    merged = earlier.merged(ProfileDraft(gpu_count=256))
    assert (merged.gpu_count, merged.node_count, merged.gpus_per_node) == (256, None, 8)
    assert merged.gpu_model == "H100" and merged.workload == "training"


def test_a_draft_says_what_is_missing_to_size_the_cluster():
    assert ProfileDraft().missing() == ["workload", "gpu_count"]
    assert ProfileDraft(node_count=4).missing() == ["workload"]


def test_a_new_server_shape_keeps_the_total_and_drops_the_node_count():
    earlier = ProfileDraft(workload="training", gpu_count=64, node_count=16, gpus_per_node=4)
    merged = earlier.merged(ProfileDraft(gpus_per_node=8))
    assert (merged.gpu_count, merged.node_count, merged.gpus_per_node) == (64, None, 8)
    nodes_only = ProfileDraft(node_count=16).merged(ProfileDraft(gpus_per_node=4))
    assert (nodes_only.gpu_count, nodes_only.node_count, nodes_only.gpus_per_node) == (None, 16, 4)


def test_a_scaled_draft_keeps_the_server_shape_and_at_least_one_server():
    assert ProfileDraft(gpu_count=128, gpus_per_node=8).scaled(2).model_dump(exclude_none=True) == {
        "gpu_count": 256,
        "gpus_per_node": 8,
        "node_count": 32,
    }
    assert ProfileDraft(node_count=3).scaled(0.5).node_count == 2  # rounds, half to even
    assert ProfileDraft(node_count=1, gpus_per_node=8).scaled(0.5).gpu_count == 8
    assert ProfileDraft(gpu_count=12).scaled(3).gpu_count == 36
    assert ProfileDraft(workload="training").scaled(2) == ProfileDraft(workload="training")
