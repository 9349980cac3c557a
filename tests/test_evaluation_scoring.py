"""The evaluation's judging rules (evaluation/scoring.py): what counts as a right reply."""

from __future__ import annotations

from evaluation.scoring import is_design, judge_turn, missing_groups, profile_mismatches

DESIGN = (
    "**Recommendation: InfiniBand NDR (400 Gb/s), rail-optimized**\n"
    "- **Switches:** 8 leaf + 3 spine = 11\n- **Network cost:** $200K - $400K"
)


def test_a_group_is_met_by_any_of_its_alternatives_case_insensitively():
    assert missing_groups("About 900 GB/s per GPU", [["900"], ["gb/s", "GBps"]]) == []
    assert missing_groups("About 900 GB/s", [["450"], ["GB/s"]]) == [["450"]]


def test_a_design_names_a_fabric_and_a_switch_count():
    assert is_design(DESIGN)
    assert not is_design("InfiniBand is a lossless fabric.")
    assert not is_design("Switches: none needed")


def test_each_expect_kind_has_its_own_criterion():
    assert judge_turn("recommendation", DESIGN) == ""
    assert judge_turn("recommendation", "How many GPUs will it have?")
    assert judge_turn("ask_missing", "How many GPUs will it have?") == ""
    assert judge_turn("ask_missing", DESIGN)
    assert judge_turn("knowledge", "PFC pauses a priority.", [["pause"]]) == ""
    assert judge_turn("knowledge", "Sorry, I didn't understand that.")
    assert judge_turn("design_answer", "That doesn't change anything I know about the cluster.")
    assert judge_turn("design_answer", "For the design I recommended: $200K - $400K", [["$"]]) == ""
    assert judge_turn("refusal_or_clarify", "I can't size 3,000,000 GPUs.") == ""
    assert judge_turn("refusal_or_clarify", DESIGN)
    assert "unknown expect kind" in judge_turn("banana", "hi")


def test_profile_fields_match_numbers_within_tolerance_and_strings_case_insensitively():
    profile = {"gpu_count": 128, "workload": "training", "gpu_model": "H100", "budget_usd": 5_000_000.0}
    assert profile_mismatches({"gpu_count": 128, "gpu_model": "h100", "budget_usd": 5e6}, profile) == []
    assert profile_mismatches({"gpu_count": 256, "prefer": "rocev2"}, profile) == [
        "gpu_count: expected 256, got 128",
        "prefer: expected 'rocev2', got None",
    ]


def test_a_preference_label_names_a_family_or_the_contracts_value():
    assert profile_mismatches({"prefer": "infiniband"}, {"prefer": "infiniband_ndr"}) == []
    assert profile_mismatches({"prefer": "roce"}, {"prefer": "rocev2"}) == []
    assert profile_mismatches({"prefer": "roce"}, {"prefer": "ethernet"}) == ["prefer: expected 'roce', got 'ethernet'"]
