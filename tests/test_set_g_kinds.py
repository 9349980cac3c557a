"""The kinds of miss set G's first run showed (docs/evaluation.md, "Set G"), each pinned by
cases of the kind, not by the set's own sentences: a time of day or a capacity asked is no
count, a count with a pronoun or a group as its unit, a size added without a unit, one
fabric put in place of another, everyday errands, a benchmark run's size, and the parts of a
new design a request names."""

from __future__ import annotations

import pytest

from advisor import service
from advisor.models import AskKind
from understanding.extraction.extractor import extract


@pytest.mark.parametrize(
    "text", ["can you get me a cab to the station tonight at eight?", "book a table for tomorrow at 7pm please"]
)
def test_a_time_of_day_is_no_count_even_where_a_bare_number_answers_one(text):
    assert extract(text, expecting="gpu_count").profile.gpu_count is None


@pytest.mark.parametrize(
    "text", ["does a 70b fit on a single node?", "would llama 405b fit in one server", "will it fit on 8 gpus"]
)
def test_a_capacity_asked_is_no_size(text):
    found = extract(text, expecting="gpu_count").profile
    assert found.node_count is None and found.gpu_count is None


@pytest.mark.parametrize(
    ("text", "nodes"),
    [("4 racks w/ 8 dgx h100 each, training", 32), ("we got 3 racks w/2 hgx b200 each", 6)],
)
def test_racks_with_servers_each_written_with_a_slash_w(text, nodes):
    assert extract(text).profile.node_count == nodes


@pytest.mark.parametrize(
    ("text", "gpus"),
    [("two full DGX B200 scalable units for training", 512), ("one DGX H100 SU please", 256)],
)
def test_scalable_units_named_after_their_system(text, gpus):
    assert extract(text).profile.gpu_count == gpus


def test_a_count_of_them_opening_a_message_is_the_gpus_the_conversation_named():
    assert extract("512 of those, for inference").profile.gpu_count == 512
    assert extract("we have 16 servers, 8 of them with H100").profile.gpu_count is None
    assert extract("2 of those for training").profile.gpu_count is None  # units, not GPUs


@pytest.mark.parametrize(
    ("text", "count", "unit"),
    [
        ("then we add another 512", 512, "gpus"),
        ("adding another pod of 32 servers next year", 32, "servers"),
        ("if we add a third identical block of 16 nodes?", 16, "nodes"),
    ],
)
def test_a_size_added_without_more(text, count, unit):
    added = extract(text).size_added
    assert added is not None and added.count == count and added.unit in (unit, "nodes")


@pytest.mark.parametrize(
    ("text", "prefer"),
    [("and with roce in place of ib?", "rocev2"), ("infiniband rather than ethernet for this one", "infiniband")],
)
def test_one_fabric_in_place_of_another_is_the_first(text, prefer):
    found = extract(text).profile
    assert found.prefer == prefer and not found.existing_ethernet


@pytest.mark.parametrize(
    "text",
    [
        "could you suggest a few good movies for the weekend?",
        "pls fill in my expense claims for last month",
        "whats my horoscope today",
        "my fern's leaves are turning brown, too much water?",
    ],
)
def test_everyday_errands_are_declined(text):
    assert service.ask(text).kind == AskKind.out_of_scope


def test_a_benchmark_runs_size_asked_about_is_answered_not_sized():
    result = service.ask("4 node h200 all_reduce_perf run, what busbw should each nic reach")
    assert result.kind == AskKind.answer and result.decided_by == "guide_figure"


def test_a_fabric_asked_for_serving_is_honoured():
    result = service.ask("32 h100 servers for inference on rocev2")
    assert result.recommendation is not None and result.recommendation.fabric.technology.startswith("rocev2")


def test_a_served_model_that_fits_one_server_says_so():
    result = service.ask("64 h200 for inference, 405B model")
    assert "fit in the 1,128 GB of one server's GPUs" in result.reply


def test_the_storage_a_new_request_names_is_answered_beside_its_design():
    result = service.ask("64 b200 for training, plus the storage network")
    assert result.kind == AskKind.recommendation and "**Storage network:**" in result.reply


def test_leaves_counted_for_a_named_cluster_come_from_a_design_sized_for_it():
    result = service.ask("how many leaves for 1024 gpus?")
    assert result.kind == AskKind.answer and result.answer is not None and result.answer.topic.startswith("Sized for")


def test_a_ring_all_reduces_traffic_per_gpu_in_gb_when_the_buffer_is_named():
    result = service.ask("ring allreduce, 4 GB of gradients over 8 GPUs: how much does every GPU send?")
    assert result.kind == AskKind.answer and "7 GB of a 4 GB buffer" in result.reply


def test_a_fat_trees_size_when_every_switch_has_its_ports_named():
    result = service.ask("largest 2 tier nonblocking fat tree when each switch has 64 ports?")
    assert "2,048 hosts" in result.reply


def test_transceivers_counted_by_their_form_factor_for_a_named_cluster():
    result = service.ask("256 gpus on ndr, how many osfps on the switch side?")
    assert result.kind == AskKind.answer and "128 x LinkX 800G twin-port OSFP" in result.reply


def test_two_of_those_after_an_answer_on_scalable_units_counts_scalable_units():
    unit = service.ask("what is a scalable unit in a DGX SuperPOD?")
    result = service.ask("ok, three of those with DGX H100 for training then", unit.profile, context=unit.context)
    assert result.kind == AskKind.recommendation and result.profile.gpu_count == 768


def test_n_of_them_after_questions_about_nvl72_racks_counts_racks():
    """An NVL72 is a rack: "4 of them" after an answer on the GB200 NVL72, or after a
    question about its racks, is four racks (288 GPUs)."""
    first = service.ask("how many gpus in a gb200 nvl72")
    racks = service.ask("what connects the racks", first.profile, context=first.context)
    result = service.ask("size it for 4 of them, training", racks.profile, context=racks.context)
    assert result.kind == AskKind.recommendation and result.profile.gpu_count == 288


def test_a_stated_figure_asked_to_be_checked_is_answered_not_sized():
    result = service.ask("A reseller told us one DGX B200 has 16 GPUs. Is that correct?")
    assert result.kind == AskKind.answer
