"""Follow-ups that lean on the design before the one on the table, and changes said as
swaps, growth factors and "the same cluster on X": kinds found by writing new phrasings
before a blind set was read (advisor.service through /v1/ask's own path)."""

from __future__ import annotations

import pytest

from advisor.models import AskKind
from tests.service_chat import chain
from understanding.extraction.extractor import extract


@pytest.mark.parametrize("asked", ["what changes", "what's different now", "what did that change"])
def test_what_changed_is_the_design_against_the_one_it_replaced(asked: str) -> None:
    _, grown, changes = chain("sizing 256 H100s, training a 70b", "we may expand by another 256 next year", asked)
    assert grown.recommendation.profile.gpu_count == 512
    assert changes.kind == AskKind.design_answer and "**What changed**" in changes.reply
    assert "256 -> 512" in changes.reply


def test_what_changed_survives_a_question_in_between_and_says_so_when_nothing_did() -> None:
    *_, between, changes = chain("128 h100 for training", "swap the h100s for b200s", "what is PFC?", "what changed")
    assert between.kind == AskKind.answer
    assert "H100 -> B200" in changes.reply
    _, asked = chain("128 h100 for training", "what changed")
    assert "nothing yet" in asked.reply


@pytest.mark.parametrize(
    ("text", "model"),
    [
        ("swap the h100s for b200s", "B200"),
        ("replace H100 with B200", "B200"),
        ("upgrade from h100 to b300", "B300"),
        ("what if we replaced the H100 GPUs with H200s", "H200"),
    ],
)
def test_a_swap_names_the_gpu_meant_after_the_one_replaced(text: str, model: str) -> None:
    assert extract(text).profile.gpu_model == model


def test_comparing_two_gpus_is_no_swap() -> None:
    assert extract("compare h100 to b200 for training").profile.gpu_model == "H100"


def test_a_swap_on_the_table_resizes_with_the_new_gpu_and_same_count_reads_it_back() -> None:
    _, swapped, same = chain("128 h100 for training", "swap the h100s for b200s", "same count")
    assert swapped.recommendation.profile.gpu_model == "B200" and swapped.recommendation.profile.gpu_count == 128
    assert same.kind == AskKind.design_answer and "128 GPUs" in same.reply


@pytest.mark.parametrize(
    ("text", "factor", "added"),
    [
        ("plan is to grow that 4x over 2 years", 4.0, None),
        ("we will scale the cluster by 3x", 3.0, None),
        ("expand it by a factor of 2", 2.0, None),
        ("we may expand by another 256 next year", None, 256),
        ("grow it by a further 64 nodes", None, 64),
    ],
)
def test_growth_said_as_a_factor_or_an_amount_is_read(text: str, factor: float | None, added: int | None) -> None:
    found = extract(text)
    assert found.size_factor == factor
    assert (found.size_added.count if found.size_added else None) == added


@pytest.mark.parametrize(
    "text",
    [
        "Could you show the same cluster on RoCE?",
        "what would the same cluster look like on RoCE?",
        "price the whole build with RoCE",
    ],
)
def test_the_same_cluster_on_another_fabric_is_a_what_if(text: str) -> None:
    _, what_if = chain("Training cluster: 40 HGX H100 servers.", text)
    assert what_if.kind == AskKind.recommendation and what_if.decided_by == "what_if_on_design"
    assert what_if.recommendation.fabric.technology.value == "rocev2"


def test_a_question_about_pfc_on_roce_is_no_what_if() -> None:
    assert extract("what does pfc look like on roce?").profile.prefer is None


def test_a_tier_of_switches_named_as_a_layer_is_asked_of_the_design() -> None:
    _, spine = chain("128 h100 for training", "what does the spine layer look like")
    assert spine.kind == AskKind.design_answer and "spine" in spine.reply


def test_a_bare_number_after_servers_were_counted_is_servers() -> None:
    *_, bare, again = chain("8 h100 servers training", "ok and 16 servers?", "32?", "and 64")
    assert bare.recommendation.profile.node_count == 32 and bare.recommendation.profile.gpu_count == 256
    assert again.recommendation.profile.node_count == 64


def test_a_bare_number_after_gpus_were_counted_is_gpus() -> None:
    _, bare = chain("128 h100 for training", "and 512?")
    assert bare.recommendation.profile.gpu_count == 512


@pytest.mark.parametrize(
    ("text", "gpus"),
    [("hmm make it 20 nodes more", 320), ("actually make it double", 320), ("make that triple", 480)],
)
def test_growth_said_with_a_correction_word_grows_rather_than_replaces(text: str, gpus: int) -> None:
    _, grown = chain("160 b200 gpus training", text)
    assert grown.recommendation.profile.gpu_count == gpus


def test_make_it_double_rail_is_no_growth() -> None:
    assert extract("make it double-rail").size_factor is None


@pytest.mark.parametrize("text", ["Can you size InfiniBand for 256 B200?", "what's the network for 4 SUs of B300?"])
def test_a_request_to_size_without_a_workload_asks_for_it(text: str) -> None:
    (asked,) = chain(text)
    assert asked.kind == AskKind.clarification and "training, inference" in asked.reply


def test_a_fabric_told_as_a_command_is_kept_while_details_are_missing() -> None:
    _, told = chain("Can you size InfiniBand for 256 B200?", "use xdr")
    assert told.kind == AskKind.clarification and told.profile.prefer.value == "infiniband_xdr"


@pytest.mark.parametrize(
    ("text", "prefer"),
    [
        ("training on 256 B200 with infiniband xdr", "infiniband_xdr"),
        ("128 h100 with roce for training", "rocev2"),
        ("compare 128 h100 with ethernet vs infiniband", None),
    ],
)
def test_gpus_with_a_fabric_state_it_unless_two_are_compared(text: str, prefer: str | None) -> None:
    found = extract(text).profile.prefer
    assert (found.value if found else None) == prefer


@pytest.mark.parametrize(
    ("text", "gbps"),
    [
        ("and 400G?", 400),
        ("ok, 800G then?", 800),
        ("400G and 800G?", None),
        ("is 400G enough for 10 DGX B200?", None),
    ],
)
def test_a_speed_put_to_the_design_opens_the_message(text: str, gbps: int | None) -> None:
    assert extract(text).profile.link_gbps == gbps


def test_switches_counted_by_their_model_name_are_the_designs() -> None:
    _, counted = chain("256 B300 for training", "how many q3400s?")
    assert counted.kind == AskKind.design_answer and "Switches:" in counted.reply


def test_the_bisection_and_the_out_of_band_network_are_the_designs() -> None:
    _, bisection, oob = chain(
        "need a network for 10 nvl72 racks of gb200, training a 1T MoE",
        "what's the bisection bandwidth",
        "what about the out of band?",
    )
    assert "Bisection bandwidth:** 144.0 Tb/s" in bisection.reply
    assert oob.kind == AskKind.design_answer and "SN2201" in oob.reply


@pytest.mark.parametrize(
    ("text", "factor"),
    [("budget allows 50% more gpus", 1.5), ("a 25 percent bigger cluster", 1.25), ("grow it by 20%", 1.2)],
)
def test_growth_by_a_share_is_a_factor(text: str, factor: float) -> None:
    assert extract(text).size_factor == factor


def test_a_share_of_something_else_is_no_growth() -> None:
    assert extract("80% more bandwidth").size_factor is None
    assert extract("we use 50% of the budget for gpus").size_factor is None


def test_nvl72_racks_grown_by_a_share_say_racks() -> None:
    *_, grown = chain("2 nvl72 gb200, inference", "and if we train on it?", "budget allows 50% more gpus")
    assert grown.recommendation.profile.gpu_count == 216
    assert "**NVL72 racks:** 2 x 72 GPUs -> 3 x 72 GPUs" in grown.reply


@pytest.mark.parametrize(
    ("text", "factor", "added"),
    [
        ("phase two doubles the racks, what then", 2.0, None),
        ("we're planning to grow it by half again in 2027", 1.5, None),
        ("Assume a further 512 GPUs arrive in the second year.", None, 512),
    ],
)
def test_phases_years_and_further_gpus_grow_the_design_not_name_its_size(text, factor, added) -> None:
    found = extract(text, expecting="gpu_count")
    assert found.profile.gpu_count is None
    assert found.size_factor == factor
    assert (found.size_added.count if found.size_added else None) == added


@pytest.mark.parametrize("text", ["Please convert 5 miles to kilometres.", "tomahawk 5 is 102.4t right"])
def test_a_measure_or_a_product_generation_is_no_bare_count(text: str) -> None:
    found = extract(text, expecting="gpu_count").profile
    assert found.gpu_count is None and found.model_params_b is None


def test_another_gpu_model_without_a_shape_takes_its_own_servers() -> None:
    _, racks = chain("We have 18 HGX B200 servers for training.", "Please show the equivalent with GB200 NVL72 racks.")
    assert racks.recommendation.profile.gpu_count == 144 and racks.recommendation.profile.node_count == 2
    _, kept = chain("24 l40s servers with 4 gpus each, inference", "make that h100")
    assert kept.recommendation.profile.gpus_per_node == 4  # 4 H100 PCIe a server still fits


def test_a_shape_said_as_n_gpu_boxes_corrects_the_servers() -> None:
    _, fixed = chain("96 l40s, 4 per box, inference", "fyi they're 8-gpu boxes actually")
    assert (fixed.recommendation.profile.node_count, fixed.recommendation.profile.gpus_per_node) == (12, 8)


@pytest.mark.parametrize(
    ("text", "prefer"),
    [("swap ib for roce, same size", "rocev2"), ("How does that compare with a RoCE design in cost?", "rocev2")],
)
def test_a_fabric_swapped_or_compared_is_read(text: str, prefer: str) -> None:
    assert extract(text).profile.prefer.value == prefer


def test_a_form_factor_between_count_and_gpu_is_skipped() -> None:
    found = extract("inference: 40 2u l40s boxes, 4 cards apiece").profile
    assert (found.node_count, found.gpus_per_node, found.gpu_count) == (40, 4, 160)


def test_nvlink_switch_trays_are_said_to_be_outside_the_switch_count() -> None:
    _, asked = chain("16 gb200 racks training", "are the nvlink switch trays in that switch count")
    assert "NVLink switch trays:** not in that count" in asked.reply


def test_setting_up_the_nvswitch_fabric_is_a_question_not_a_request_to_size() -> None:
    (asked,) = chain(
        "Which NVIDIA software service must be running on an HGX system to set up the NVSwitch fabric before the "
        "GPUs can use NVLink?"
    )
    assert asked.kind == AskKind.answer
