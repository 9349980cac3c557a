"""Kinds of message set L's first run missed (docs/evaluation.md, "Set L"), each pinned with
phrasings of our own: counts in dozens and "N of them", a model's count that is a node
count, servers holding N each, scalable units sized in a second clause, a fabric's
variant asked politely, a name ending a sentence, future additions and shares of the size,
the design asked by layer, model, per-GPU bandwidth, power and trays, unknown questions,
laughter around a thanks, sums with a share on top or over two kinds of part, a leaf's
split at two speeds, and side questions after a dash or named as a topology
(advisor.service through /v1/ask's own path)."""

from __future__ import annotations

import pytest

from advisor import service
from advisor.models import AskKind
from advisor.render import markdown
from knowledge import formulas
from tests.service_chat import chain
from understanding.extraction.extractor import extract
from understanding.understand import design_topics


def sized(text: str) -> dict[str, object]:
    result = service.ask(text)
    assert result.recommendation is not None, result.reply
    return result.recommendation.profile.model_dump(exclude_none=True)


@pytest.mark.parametrize(
    ("text", "gpus"),
    [
        ("a half-dozen gb200 nvl72 racks for training", 432),
        ("half a dozen dgx h200 for inference", 48),
        ("two dozen hgx b200 servers, training", 192),
    ],
)
def test_dozens_count(text: str, gpus: int) -> None:
    assert sized(text)["gpu_count"] == gpus


def test_n_of_them_after_a_rack_scale_system_counts_racks() -> None:
    assert sized("gb200 nvl72, 12 of them, inference")["gpu_count"] == 864


@pytest.mark.parametrize(("text", "nodes"), [("h200: 24 nodes, training", 24), ("H100: 64, training", 8)])
def test_a_count_after_the_model_and_a_colon_counts_what_follows_it(text: str, nodes: int) -> None:
    assert sized(text)["node_count"] == nodes


def test_servers_holding_n_each() -> None:
    profile = sized("h100s: six servers carrying four each, inference")
    assert (profile["node_count"], profile["gpus_per_node"], profile["gpu_count"]) == (6, 4, 24)


@pytest.mark.parametrize(
    ("text", "gpus"),
    [
        ("We run 3 SUs; each SU has 16 DGX H200 systems. Training.", 384),
        ("two pods - every pod with 20 HGX B200 servers, for training", 320),
        ("four scalable units of 16 H100 servers each, training", 512),
    ],
)
def test_scalable_units_sized_in_their_own_clause_or_by_a_gpu_named_server(text: str, gpus: int) -> None:
    assert sized(text)["gpu_count"] == gpus


@pytest.mark.parametrize(
    ("ask", "fabric"),
    [
        ("Can you show the Ethernet version?", "Ethernet"),
        ("could you price the infiniband option?", "InfiniBand"),
        ("Please work out an alternative built on Spectrum-X.", "RoCE"),
    ],
)
def test_a_fabric_variant_asked_politely_is_designed(ask: str, fabric: str) -> None:
    _, variant = chain("512 h200 for inference", ask)
    assert variant.kind == AskKind.recommendation and variant.recommendation is not None
    assert fabric in variant.recommendation.fabric.name


def test_a_hyphenated_name_ending_a_sentence_is_still_the_name() -> None:
    assert extract("We would like Spectrum-X.").profile.prefer == "rocev2"


@pytest.mark.parametrize(
    ("first", "then", "gpus"),
    [
        ("we are looking at 10 gb300 nvl72 racks for training", "next year we will add 6 racks", 1152),
        ("we are planning 64 hgx h100 systems for training", "later on we'd double the system count", 1024),
        ("a training cluster of 4,096 b200 gpus", "and at a quarter of the size?", 1024),
    ],
)
def test_future_additions_and_shares_resize_the_design_on_the_table(first: str, then: str, gpus: int) -> None:
    _, after = chain(first, then)
    assert after.recommendation is not None and after.recommendation.profile.gpu_count == gpus


def test_wanting_to_add_gpus_in_an_opening_is_the_size_itself() -> None:
    assert sized("we want to add 256 h100 gpus for training")["gpu_count"] == 256


@pytest.mark.parametrize(
    ("question", "topic"),
    [
        ("how do the switches split across the tiers?", "switches"),
        ("what are the leaves, which part", "switches"),
        ("per gpu network speed then", "nics"),
        ("infiniband generation?", "nics"),
        ("how much will the fabric draw, in kilowatts?", "power"),
        ("and versus the earlier design?", "changes"),
    ],
)
def test_the_design_asked_by_layer_model_bandwidth_power_or_against_the_last(question: str, topic: str) -> None:
    assert topic in design_topics(question)


def test_compute_trays_of_an_nvl72_design_are_counted_over_all_racks() -> None:
    _, trays = chain("12 gb300 nvl72 racks for training", "compute trays in total?")
    assert trays.kind == AskKind.design_answer and "216 across the 12 racks" in trays.reply


@pytest.mark.parametrize(
    "question", ["how do I get chewing gum out of my hair", "what is the plural of octopus in latin"]
)
def test_an_everyday_question_the_base_knows_nothing_of_is_out_of_scope_alone_and_mid_design(question: str) -> None:
    assert service.ask(question).kind == AskKind.out_of_scope
    _, asked = chain("256 h100 for training", question)
    assert asked.kind == AskKind.out_of_scope and asked.profile.gpu_count == 256


@pytest.mark.parametrize("text", ["haha ok, thanks", "alright. ty", "lol cheers"])
def test_laughter_or_assent_around_a_thanks_is_small_talk(text: str) -> None:
    assert service.ask(text).kind == AskKind.small_talk


def test_a_share_added_on_top_of_a_priced_total() -> None:
    entry = formulas.product_total("32 leaves at 25k each plus 15% support, total?")
    assert entry is not None and entry.text.startswith("920,000:")


def test_power_of_two_kinds_of_part_is_added_up() -> None:
    entry = formulas.product_total("If 10 switches draw 2,000 W each and 500 optics draw 12 W each, total power?")
    assert entry is not None and entry.text.startswith("26,000 W (26 kW)")


def test_a_leaf_split_at_two_port_speeds_is_a_bandwidth_ratio() -> None:
    entry = formulas.oversubscription_ratio("leaf with 32x200g down and 4x800g up, oversubscription?")
    assert entry is not None and entry.text.startswith("2:1")


def test_cables_are_totalled_over_the_tiers() -> None:
    result = service.ask("64 h100 servers for training")
    assert result.recommendation is not None and "1,024 in all" in result.reply


def test_a_fabric_against_a_generation_after_a_dash_is_answered_from_the_design() -> None:
    result = service.ask("8 gb200 nvl72 for training - spectrum-x or xdr?")
    assert result.kind == AskKind.recommendation and "Why not" in result.reply


def test_a_topology_asked_beside_the_request_is_answered() -> None:
    result = service.ask("Please size a training fabric for 1,024 H200 GPUs using a fat-tree layout.")
    extra = result.reply.split("You also asked", 1)
    assert len(extra) == 2 and "Topology" in extra[1]


def test_a_failover_plan_asked_beside_the_request_is_answered_with_failover() -> None:
    result = service.ask("16 hgx h100 for training, plus a failover plan")
    assert result.recommendation is not None
    extra = result.reply.replace(markdown.recommendation_markdown(result.recommendation), "")
    assert "A leaf fails" in extra and "failover" in extra
