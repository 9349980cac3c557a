"""What is not the advisor's to do is declined, not answered with whatever entry its common
words match ("book me a table" found the RoCE GID table, "order me a pizza" out-of-order
packet placement): an errand (understanding/extraction/data/cues.yaml `errand`), or a
message naming nothing of GPU clusters with nothing earlier to lean on (`domain`). The
same decision on /v1/ask, the CLI and the chat (advisor.service.decide)."""

from __future__ import annotations

import pytest

from advisor import service
from advisor.models import AskKind
from advisor.render import markdown


@pytest.mark.parametrize(
    "text",
    [
        "can you book me a table at a restaurant tonight",
        "write me a haiku about switches",  # domain words do not make a poem advice
        "what's the bitcoin price today",
        "order me a pizza",
        "whats the weather in paris",
        "Could you draft a press release for our product launch?",
        "translate this into German: good morning",
        "tell me a joke",
        "who won the football game last night",
        "how tall is mount everest",
    ],
)
def test_errands_and_questions_outside_the_domain_are_declined(text: str) -> None:
    result = service.ask(text)
    assert result.kind == AskKind.out_of_scope
    assert result.reply == markdown.OUT_OF_SCOPE and result.answer is None and result.recommendation is None
    assert result.decided_by in {"errand", "out_of_domain"}


@pytest.mark.parametrize(
    "text",
    [
        "what fabric softener works best on wool sweaters",
        "my nintendo switch won't connect to the tv, help",
        "what cluster of stars is Orion's belt in",
        "how many tiers should my wedding cake have",
        "help me plan a network of friends for my startup",
    ],
)
def test_one_everyday_word_the_domain_shares_is_no_sign_of_the_domain(text: str) -> None:
    """ "fabric", "switch", "cluster", "tiers" and "network" are the domain's words too, and
    the knowledge base matches on them (the star cluster got the network's share of a
    cluster's cost): one alone, beside words no entry uses, is their everyday sense."""
    result = service.ask(text)
    assert result.kind == AskKind.out_of_scope, result.reply[:200]
    assert result.decided_by == "out_of_domain"


@pytest.mark.parametrize(
    "text",
    [
        "how many switches per rack?",  # two shared words: the domain's sense
        "explain rail optimized designs",  # one shared word, nothing unfamiliar beside it
        "is 2:1 oversub fine for training or nah",
        "can u size a fabric for us",  # asks for a design
    ],
)
def test_the_domain_sense_of_shared_words_is_still_answered(text: str) -> None:
    assert service.ask(text).kind != AskKind.out_of_scope


@pytest.mark.parametrize(
    "text",
    [
        "what does non-blocking mean in a fat tree",
        "what does rail optimized mean",
        "tomahawk 5 capacity?",  # a switch chip: the knowledge base knows it closely
        "what is ibdiagnet for",
        "Why is decode memory-bandwidth bound while prefill is compute bound?",
        "how does pfc work",
        "sr4 vs dr4",
    ],
)
def test_questions_of_the_domain_are_answered_even_without_its_common_words(text: str) -> None:
    assert service.ask(text).kind == AskKind.answer


def test_a_short_follow_up_with_no_word_of_the_domain_leans_on_the_last_answer() -> None:
    first = service.ask("what is ultra ethernet")
    follow = service.ask("is the spec actually finished?", context=first.context)
    assert follow.kind == AskKind.answer and "ultra ethernet" in follow.reply.lower()
    assert service.ask("any news?", context=first.context).kind != AskKind.out_of_scope


def test_an_errand_after_a_design_is_declined_and_the_design_stays_on_the_table() -> None:
    design = service.ask("256 h100 for training")
    declined = service.ask("tell me a joke", profile=design.profile, context=design.context)
    assert declined.kind == AskKind.out_of_scope
    price = service.ask("price?", profile=declined.profile, context=declined.context)
    assert price.kind == AskKind.design_answer and "256 H100" in price.reply


def test_small_talk_is_not_declined() -> None:
    assert service.ask("hello").kind != AskKind.out_of_scope


def test_a_brief_with_details_is_sized_whatever_else_it_says() -> None:
    assert service.ask("order 64 H100 for inference, what network?").kind == AskKind.recommendation


@pytest.mark.parametrize(
    "text",
    [
        "all_reduce_perf -b -e -f flags mean what",  # a tool written as code
        "when does leaf-spine stop being enough and i need a 3rd layer",
    ],
)
def test_names_written_as_code_and_hyphenated_terms_are_of_the_domain(text: str) -> None:
    assert service.ask(text).kind != AskKind.out_of_scope


@pytest.mark.parametrize(
    "text",
    [
        "ib vs roce for a 70b finetune on a handful of nodes, does it even matter",
        "cant i just run tcp over 100g ethernet for training n skip all the rdma stuff",
    ],
)
def test_a_question_naming_a_model_or_workload_but_no_count_is_answered_not_sized(text: str) -> None:
    result = service.ask(text)
    assert result.kind == AskKind.answer and result.decided_by == "question_without_a_count"


def test_a_message_with_nothing_of_the_domain_is_declined_in_the_middle_of_a_conversation() -> None:
    """After a design, "what paint should I use for my garage door" is not a follow-up to
    lean on the design with: no word of the domain, words no entry uses, no figure."""
    first = service.ask("We will pretrain a 70B model on 128 H100s. What network do we need?")
    assert first.recommendation is not None
    off = service.ask(
        "what paint should I use for my garage door", first.profile, first.recommendation.id, first.context
    )
    assert off.kind == AskKind.out_of_scope and off.decided_by == "out_of_domain_in_conversation"
    # a resize or a correction in plain words still leans on it
    grown = service.ask("we might double it next year", first.profile, first.recommendation.id, first.context)
    assert grown.kind == AskKind.recommendation and grown.profile.gpu_count == 256


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        ("thanks", "you_are_welcome"),
        ("hello there", "greet"),
        ("Thank you, that is all.", "goodbye"),
        ("ok bye", "goodbye"),
        ("that's it, thanks!", "goodbye"),
    ],
)
def test_small_talk_through_the_api_is_answered_in_kind_not_asked_for_a_cluster(text: str, kind: str) -> None:
    """/v1/ask used to answer "thanks" with "To size the network I still need ...", and
    "Thank you, that is all." after a SHARP answer with more of SHARP."""
    from advisor.render.labels import labels

    result = service.ask(text)
    assert (result.kind, result.decided_by) == (AskKind.small_talk, "small_talk")
    assert result.reply == labels().small_talk[kind] and result.recommendation is None


def test_small_talk_keeps_the_conversation_it_ends() -> None:
    first = service.ask("what is SHARP?")
    thanks = service.ask("thanks, that's all", context=first.context)
    assert thanks.kind == AskKind.small_talk and thanks.context == first.context


def test_every_kind_of_small_talk_has_its_reply() -> None:
    from advisor.render.labels import labels
    from understanding.small_talk import _words

    assert set(labels().small_talk) == set(_words().kinds)
