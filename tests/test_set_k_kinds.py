"""Kinds of message set K's first run missed (docs/evaluation.md, "Set K"), each pinned with
phrasings of our own: tag questions, trouble on a running cluster, numbers that count
something else, short questions about the design, growth said as a count that rises,
scalable units counted both ways, the fabric said first, and sums over a list of parts
(advisor.service through /v1/ask's own path)."""

from __future__ import annotations

import pytest

from advisor import service
from advisor.models import AskKind
from tests.service_chat import chain
from understanding.extraction.extractor import extract
from understanding.understand import design_topics, side_question


@pytest.mark.parametrize(
    "text",
    ["spectrum-x is just ethernet with extras, right", "an h100 pcie card has nvlink to every gpu in the box, correct"],
)
def test_a_statement_closed_by_a_tag_asks_to_be_confirmed(text: str) -> None:
    result = service.ask(text)
    assert result.kind == AskKind.answer, result.decided_by


@pytest.mark.parametrize(
    "text",
    [
        "our 512 gpu job hangs every night after a link flaps, how do we find the culprit",
        "we run 2,048 gpus and the scheduler keeps placing jobs across spines, how do we stop it",
    ],
)
def test_trouble_on_a_running_cluster_is_a_question_not_a_sizing(text: str) -> None:
    result = service.ask(text)
    assert result.kind == AskKind.answer and result.decided_by == "trouble_on_running_cluster"


def test_a_sizing_request_that_names_trouble_is_still_sized() -> None:
    result = service.ask("512 h100 for training, and what keeps a flapping link from killing jobs?")
    assert result.kind == AskKind.recommendation


def test_a_number_that_counts_something_else_resizes_nothing() -> None:
    _, asked, resized = chain("256 h100 training", "how many cups of flour go in one loaf", "512 instead")
    assert asked.kind == AskKind.out_of_scope and asked.profile.gpu_count == 256
    assert resized.profile.gpu_count == 512


@pytest.mark.parametrize("text", ["nice one, bye", "Thank you; that will do for now.", "good one, cheers"])
def test_a_long_or_friendly_goodbye_is_small_talk_and_keeps_the_design(text: str) -> None:
    _, bye = chain("128 h100 for training", text)
    assert bye.kind == AskKind.small_talk and bye.profile.gpu_count == 128


def test_a_bed_sheet_is_no_spreadsheet_and_a_sheet_of_the_design_is() -> None:
    assert "bom" not in design_topics("How should I fold a fitted sheet?")
    assert service.ask("How should I fold a fitted sheet?").kind == AskKind.out_of_scope
    assert "bom" in design_topics("can I get the parts as a sheet")


def test_an_unknown_everyday_question_of_two_words_is_declined() -> None:
    assert service.ask("what separates a hare from a rabbit").kind == AskKind.out_of_scope


@pytest.mark.parametrize(("asked", "expected"), [("hosts?", "**Servers:**"), ("machines?", "**Servers:**")])
def test_the_servers_named_alone_are_asked_of_the_design(asked: str, expected: str) -> None:
    _, answer = chain("32 hgx h200 for training", asked)
    assert answer.kind == AskKind.design_answer and expected in answer.reply


@pytest.mark.parametrize("asked", ["downlinks per leaf?", "spare spine ports?", "how many uplinks on each leaf"])
def test_a_switchs_ports_by_what_they_do_are_counted_from_the_design(asked: str) -> None:
    _, answer = chain("512 h100 for training", asked)
    assert answer.kind == AskKind.design_answer
    assert "uplinks to the spines" in answer.reply and "each spine uses" in answer.reply


def test_nvlink_switch_trays_are_counted_over_all_the_racks() -> None:
    _, answer = chain("10 gb200 nvl72 racks for training", "how many nvlink switch trays in total?")
    assert "9 per rack (90 across the 10 racks)" in answer.reply


@pytest.mark.parametrize(
    ("first", "grown", "field", "value"),
    [
        ("40 hgx h100 servers for training", "later the node count climbs to 64", "node_count", 64),
        ("512 b200 for training", "next year the gpu count goes up to 2048", "gpu_count", 2048),
    ],
)
def test_a_count_that_rises_to_a_value_is_the_new_size(first: str, grown: str, field: str, value: int) -> None:
    _, result = chain(first, grown)
    assert getattr(result.profile, field) == value


@pytest.mark.parametrize(
    ("text", "gpus"),
    [
        ("two scalable units of 32 DGX H100 systems each for training", 512),
        ("h100, 3 scalable units (32 nodes per su), training", 768),
        ("one gb200 nvl72 pod of 8 racks for inference", 576),
    ],
)
def test_scalable_units_and_pods_are_counted_with_their_size(text: str, gpus: int) -> None:
    assert extract(text).profile.gpu_count == gpus


def test_a_fabric_said_first_is_the_fabric_wanted() -> None:
    assert str(extract("spectrum-x for 512 b200, training").profile.prefer) == "rocev2"  # Spectrum-X is RoCE


@pytest.mark.parametrize("asked", ["what would roce look like here", "same design but with spectrum-x"])
def test_a_fabric_tried_on_the_design_is_a_what_if(asked: str) -> None:
    _, result = chain("1024 h100 for training", asked)
    assert result.kind == AskKind.recommendation and result.decided_by == "what_if_on_design"
    assert result.recommendation.fabric.technology != "infiniband"


def test_room_for_a_multiple_later_grows_the_design() -> None:
    _, result = chain("512 h200 training", "budget for 3x in two years")
    assert result.profile.gpu_count == 1536


def test_gpus_per_server_said_as_each_after_the_servers() -> None:
    profile = extract("16 nodes w 4 each, l40s inference").profile
    assert (profile.node_count, profile.gpus_per_node) == (16, 4)


@pytest.mark.parametrize(
    ("asked", "topic"),
    [("bandwidth per gpu?", "scale_up"), ("does nvlink matter here", "scale_up"), ("capex on switches?", "cost")],
)
def test_short_questions_about_the_design_name_its_topic(asked: str, topic: str) -> None:
    assert topic in design_topics(asked)


def test_planning_the_interconnect_for_a_cluster_asks_for_a_design() -> None:
    result = service.ask("we need help choosing the fabric for a new training cluster")
    assert result.kind == AskKind.clarification


@pytest.mark.parametrize(
    ("text", "side"),
    [
        ("128 h200 for inference, storage network too", "storage network too"),
        ("512 b200 for training; please address adaptive routing", "address adaptive routing"),
        ("64 h100 for training, latency is critical", "latency is critical"),
    ],
)
def test_a_topic_raised_beside_the_request_is_its_side_question(text: str, side: str) -> None:
    assert side in (side_question(text) or "")


def test_a_list_of_parts_each_thing_has_is_added_up_before_the_total() -> None:
    reply = service.ask(
        "For 64 nodes, each with 4 compute ports, 2 storage ports and 1 BMC port, how many cables in total?"
    ).reply
    assert "64 x 7 = 448" in reply


def test_links_spread_over_the_spines_are_divided_among_them() -> None:
    reply = service.ask(
        "16 leaves each with 16 uplinks spread over 8 spines: how many cables, and how many per spine?"
    ).reply
    assert "256" in reply and "32 on each" in reply


def test_a_ring_all_reduce_says_its_steps() -> None:
    assert "2(n-1) = 14 communication steps" in service.ask("ring all-reduce over 8 ranks, how many steps?").reply


def test_a_leaf_split_reads_the_radix_from_port_leaves() -> None:
    assert "43 ports down and 21 up" in service.ask("2:1 on 64 port leaves, how do we split up and down?").reply


def test_additional_units_a_plan_brings_grow_the_design() -> None:
    _, grown = chain("10 gb200 nvl72 racks for training", "phase two brings 6 additional racks")
    assert grown.profile.gpu_count == 16 * 72
