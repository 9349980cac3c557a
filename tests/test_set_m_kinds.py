"""Kinds of message set M's first run missed (docs/evaluation.md, "Set M"), each pinned with
phrasings of our own: a why-question names a workload as its subject, not as a change; the
design asked by its electrical load, its number of layers and in-network reduction; two
letters typed the wrong way round; a per-server correction after a size given in GPUs; a
negative or impossible count, or an unknown GPU, after a design; a question set aside
from the design; the time a transfer takes at a link's rate (advisor.service through
/v1/ask's own path)."""

from __future__ import annotations

import pytest

from advisor import service
from advisor.models import AskKind
from knowledge import formulas
from tests.service_chat import chain
from understanding.extraction.extractor import extract
from understanding.extraction.typos import unswapped
from understanding.understand import design_topics


def test_why_question_naming_a_workload_is_answered_not_resized() -> None:
    *_, why = chain(
        "512 H100 for training", "what does ECMP stand for?", "and why does it struggle with AI training traffic?"
    )
    assert why.kind == AskKind.answer
    assert why.recommendation is None


@pytest.mark.parametrize(
    ("text", "topic"),
    [
        ("What is the electrical load of the network gear?", "power"),
        ("is that a two- or three-layer design?", "topology"),
        ("is SHARP available on this design?", "allreduce"),
        ("would in-network reduction be available with this design?", "allreduce"),
        ("total transcievers?", "cables"),
    ],
)
def test_design_asked_in_other_words_names_its_topic(text: str, topic: str) -> None:
    assert topic in design_topics(text)


@pytest.mark.parametrize(
    ("typed", "meant"),
    [("total transcievers?", "total transceivers?"), ("how many swtiches", "how many switches")],
)
def test_swapped_letters_are_put_back_into_domain_words(typed: str, meant: str) -> None:
    assert unswapped(typed) == meant


@pytest.mark.parametrize("text", ["book a table for two", "the laces came untied", "Cables and tables"])
def test_everyday_words_are_not_corrected(text: str) -> None:
    assert unswapped(text) == text


def test_per_server_correction_keeps_a_size_given_in_gpus() -> None:
    _, fixed = chain(
        "We are sizing 1,520 L40S GPUs, eight per server, for inference.",
        "the chassis are the 4-GPU version, not eight",
    )
    assert fixed.recommendation is not None
    profile = fixed.recommendation.profile
    assert (profile.gpu_count, profile.node_count, profile.gpus_per_node) == (1520, 380, 4)


def test_per_server_correction_keeps_a_size_given_in_servers() -> None:
    _, fixed = chain("32 nodes of 8 h100 for training", "oops, 4 GPUs per node, not 8")
    assert fixed.recommendation is not None
    assert (fixed.recommendation.profile.node_count, fixed.recommendation.profile.gpu_count) == (32, 128)


@pytest.mark.parametrize("text", ["minus 32 gpus", "-32 gpus", "negative 8 GPUs"])
def test_negative_count_is_refused_not_read_as_positive(text: str) -> None:
    found = extract(text)
    assert found.profile.gpu_count is None
    assert [span.field for span in found.rejected] == ["gpu_count"]


@pytest.mark.parametrize(
    "follow_up",
    ["ok and what about minus 32 gpus", "and for 25 million GB200 GPUs?", "now do 48 of the nvidia t900 gpus"],
)
def test_unusable_size_or_gpu_after_a_design_keeps_the_design_and_asks(follow_up: str) -> None:
    first, after = chain("inference: 52 hgx h100", follow_up)
    assert after.kind == AskKind.design_answer
    assert after.recommendation is not None and first.recommendation is not None
    assert after.recommendation.id == first.recommendation.id
    assert "can't size" in after.reply or "no data for a GPU" in after.reply
    assert after.reply.rstrip().endswith("?")


def test_negative_count_alone_is_refused_and_asked_for() -> None:
    result = service.ask("network for -8 GPUs")
    assert result.kind == AskKind.clarification
    assert "can't size" in result.reply


def test_everyday_question_set_aside_in_a_conversation_is_out_of_scope() -> None:
    *_, aside = chain("l40s inference, 136 gpus", "unrelated: where does the word okay come from")
    assert aside.kind == AskKind.out_of_scope


def test_networking_question_set_aside_is_still_answered() -> None:
    *_, aside = chain("l40s inference, 136 gpus", "by the way, what is resilient roce?")
    assert aside.kind == AskKind.answer


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ("Ignoring latency, how long does it take to push 1 GB across a single 400 Gb/s link?", "20 ms"),
        ("how long to send 10 GB over a 100 Gb/s link", "0.8 s"),
    ],
)
def test_transfer_time_at_a_link_rate_is_computed(text: str, said: str) -> None:
    entry = formulas.calculation(text)
    assert entry is not None and entry.id == "calculation-transfer-time"
    assert said in entry.text


def test_allreduce_time_is_not_taken_for_a_plain_transfer() -> None:
    entry = formulas.calculation("how long does an allreduce of 4 GB take at 100 GB/s busbw")
    assert entry is not None and entry.id == "calculation-allreduce-time"


@pytest.mark.parametrize(
    ("text", "total"),
    [
        ("1000 links, 2 optics each at $900 plus $100 of fibre per link, total?", "$1,900,000"),
        ("200 racks, each with 2 pdus at $2k and $500 of cabling, how much in total?", "$900,000"),
    ],
)
def test_units_of_several_priced_parts_are_totalled(text: str, total: str) -> None:
    entry = formulas.calculation(text)
    assert entry is not None and entry.id == "calculation-per-unit-bill"
    assert entry.text.startswith(total)


@pytest.mark.parametrize("text", ["After whom is the sandwich named?", "who invented the crossword puzzle?"])
def test_everyday_question_the_base_matches_loosely_is_out_of_scope(text: str) -> None:
    assert service.ask(text).kind == AskKind.out_of_scope


@pytest.mark.parametrize(
    "text", ["What do dragonfly larvae eat in a garden pond?", "how do i measure my ring size at home"]
)
def test_name_that_is_an_everyday_word_alone_is_out_of_scope(text: str) -> None:
    assert service.ask(text).kind == AskKind.out_of_scope


@pytest.mark.parametrize("text", ["what is a dragonfly topology?", "how does a ring all-reduce work?"])
def test_name_that_is_an_everyday_word_beside_the_domain_is_answered(text: str) -> None:
    assert service.ask(text).kind == AskKind.answer


def test_adapters_counted_over_all_racks_are_the_designs_nics() -> None:
    *_, asked = chain("32 GB200 NVL72 racks for training", "And the total number of network adapters across all racks?")
    assert asked.kind == AskKind.design_answer
    assert "NICs" in asked.reply


@pytest.mark.parametrize("text", ["Thank you, that concludes my questions.", "thanks, no further questions"])
def test_closing_a_list_of_questions_is_a_goodbye(text: str) -> None:
    assert service.ask(text).kind == AskKind.small_talk


def test_per_server_correction_keeps_a_size_given_in_systems() -> None:
    _, fixed = chain("pretraining a 70B model on 16 DGX H100", "oops, 4 GPUs per node, not 8")
    assert fixed.recommendation is not None
    assert (fixed.recommendation.profile.node_count, fixed.recommendation.profile.gpu_count) == (16, 64)


@pytest.mark.parametrize(
    "text", ["2 m server to leaf at 400g, what cable", "which optics for a 30 m server to leaf run?"]
)
def test_a_distance_read_as_a_huge_count_does_not_stop_a_question(text: str) -> None:
    assert service.ask(text).kind == AskKind.answer
    *_, asked = chain("inference: 52 hgx h100", text)
    assert "can't size" not in asked.reply
