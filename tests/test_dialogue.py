"""A follow-up that leans on the last answer ("and ECN?", "is the spec finished?") is read
with what it leaves out, from the context the last answer handed back; through the REST
API the client carries that context, so the API keeps no conversation state."""

from __future__ import annotations

import httpx
import pytest

import knowledge
from advisor import service
from advisor.models import DialogueContext
from understanding import context as dialogue_context
from understanding import dialogue


@pytest.mark.parametrize(
    ("last", "follow_up", "expected_topic_word"),
    [
        ("what is ultra ethernet?", "is the spec actually finished?", "Ultra Ethernet"),
        ("what is PFC?", "and ECN?", "ECN"),
        ("how does InfiniBand handle multi-tenancy?", "and if the cluster were RoCE/Ethernet instead?", "RoCE"),
        ("what is rail-optimized topology?", "why is it better?", "Rail-optimized"),
    ],
)
def test_a_follow_up_is_answered_about_what_the_last_question_was_about(
    last: str, follow_up: str, expected_topic_word: str
) -> None:
    first = service.ask(last)
    second = service.ask(follow_up, context=first.context)
    assert second.answer is not None
    assert expected_topic_word.lower() in second.answer.topic.lower()


def test_a_question_that_stands_alone_is_searched_as_it_is() -> None:
    context = DialogueContext(question="what is ultra ethernet?")
    assert dialogue.resolve("What ECN thresholds does NVIDIA set on Spectrum switches for RoCE?", context).endswith(
        "RoCE?"
    )
    assert dialogue.resolve("what is PFC?", context) == "what is PFC?"


def test_without_a_context_a_follow_up_is_searched_alone() -> None:
    assert dialogue.resolve("is it finished?", None) == "is it finished?"
    assert dialogue.resolve("is it finished?", DialogueContext()) == "is it finished?"


def test_the_api_hands_back_a_context_that_carries_a_follow_up(client: httpx.Client) -> None:
    first = client.post("/v1/ask", json={"question": "what is ultra ethernet?"}).json()
    assert first["context"]["question"] == "what is ultra ethernet?"
    # "is it ...?" names nothing: alone it is searched as it stands, with the context it asks of Ultra Ethernet
    alone = client.post("/v1/ask", json={"question": "is it actually finished?"}).json()
    leaning = client.post("/v1/ask", json={"question": "is it actually finished?", "context": first["context"]}).json()
    assert "ultra ethernet" in leaning["answer"]["topic"].lower() or "uec" in leaning["answer"]["topic"].lower()
    # alone it names nothing of the domain: out of scope, or at least not the Ultra Ethernet entry
    assert alone["answer"] is None or leaning["answer"]["topic"] != alone["answer"]["topic"]


def test_a_context_a_client_made_up_is_refused_when_it_is_not_the_shape(client: httpx.Client) -> None:
    response = client.post("/v1/ask", json={"question": "and ECN?", "context": {"question": "x", "secret": 1}})
    assert response.status_code == 422


def test_an_entry_that_does_not_name_what_the_question_asks_about_is_offered_as_not_sure() -> None:
    gid_entry = knowledge.search("RoCE GID table show_gids", limit=1)[0]
    assert "ndr" not in f"{gid_entry.title} {gid_entry.text}".lower()
    assert not service.confident("which switch family is used for ndr?", gid_entry)
    assert service.confident("how do I list the RoCE GID table?", gid_entry)


def test_a_reply_that_is_not_sure_says_so_and_still_shows_the_closest_entry() -> None:
    result = service.ask("which switch family is used for ndr?")
    assert result.answer is not None
    if not result.answer.confident:  # the base may gain an NDR switch-family entry; then it answers
        assert result.reply.startswith("I'm not sure") and result.answer.topic in result.reply
    else:
        assert "quantum" in result.reply.lower()


def test_an_answer_naming_what_was_asked_is_given_as_the_answer() -> None:
    result = service.ask("what is PFC?")
    assert result.answer is not None and result.answer.confident
    assert not result.reply.startswith("I'm not sure")


@pytest.mark.parametrize(
    ("last", "topic", "follow_up", "expected", "left_out"),
    [
        # it says what it asks: only the last subject's names are added, not its other words
        (
            "and busbw vs algbw? (benchmark allreduce nodes Tree all-reduce NCCL's double binary tree)",
            "Tree all-reduce and NCCL's double binary tree",
            "which env var shows what transport it picked",
            "(nccl)",
            "binary",
        ),
        (
            "what does the sm do? (infiniband subnet manager)",
            "Subnet manager (InfiniBand)",
            "which software runs it on large fabrics",
            "(sm infiniband)",
            "subnet",
        ),
    ],
)
def test_a_follow_up_that_says_what_it_asks_leans_on_the_last_subject_only(
    last: str, topic: str, follow_up: str, expected: str, left_out: str
) -> None:
    """The last question's words outweighed the follow-up's own in the search ("which env
    var ..." found the tree all-reduce entry again); its subject (names, the question's and
    the answer's title's) is all it needs."""
    context = DialogueContext(question=last, topic=topic)
    looked_up = dialogue_context.resolve(follow_up, context)
    assert looked_up.endswith(expected) and left_out not in looked_up.lower()


def test_a_follow_up_with_its_own_subject_and_question_leans_on_the_last_subject_only() -> None:
    """ "and for the ib devices?" after an NCCL answer: NCCL is the setting it is asked in."""
    context = DialogueContext(question="nccl grabs the wrong interface for bootstrap, which env var", topic="")
    assert dialogue_context.resolve("and for the ib devices?", context) == "and for the ib devices? (nccl)"


def test_the_context_keeps_only_the_names_a_follow_up_was_given_so_words_do_not_pile_up() -> None:
    first = service.ask("What is Priority Flow Control, and why does RoCE rely on it?")
    second = service.ask("Does InfiniBand need it as well?", context=first.context)
    assert second.context.question.startswith("Does InfiniBand need it as well?")
    assert "rely" not in second.context.question and "control" not in second.context.question.lower()


def test_a_bare_question_that_names_nothing_leans_on_the_last_answer() -> None:
    first = service.ask("what did xai build colossus on")
    second = service.ask("how many gpus", context=first.context)
    assert "100,000" in second.reply


def test_a_company_named_alone_swaps_for_the_last_one() -> None:
    first = service.ask("what did xai build colossus on")
    second = service.ask("and alibaba?", context=first.context)
    assert second.answer is not None and "alibaba" in second.answer.topic.lower()


def test_an_own_subject_leads_over_the_names_the_last_answer_lent_it() -> None:
    first = service.ask("What is Priority Flow Control, and why does RoCE rely on it?")
    second = service.ask("And what does DCQCN add on top?", context=first.context)
    assert second.answer is not None and "DCQCN" in second.answer.topic


def test_a_setting_named_in_the_last_title_is_not_carried_as_the_subject() -> None:
    """ "NCCL_SOCKET_IFNAME" answered one question about NCCL; "and for the ib devices?"
    asks about NCCL, and finds the setting for the IB devices."""
    first = service.ask("nccl grabs the wrong interface for bootstrap, which env var")
    second = service.ask("and for the ib devices?", context=first.context)
    assert second.answer is not None and "NCCL_IB_HCA" in second.answer.topic


def test_that_after_a_named_subject_leans_on_the_subject_not_the_last_title() -> None:
    """ "port count on that box?" after "which switch does that" after "and xdr?": the IB
    generations entry's title names HDR and NDR as well, siblings of XDR that kept the
    follow-ups on that entry."""
    first = service.ask("whats the actual difference between ndr and hdr")
    second = service.ask("and xdr?", context=first.context)
    third = service.ask("which switch does that", context=second.context)
    fourth = service.ask("port count on that box?", context=third.context)
    assert "X800" in third.reply
    assert "Q3400" in fourth.reply and "144" in fourth.reply


def test_a_run_named_by_its_length_follows_a_cabling_answer() -> None:
    first = service.ask("which cable between a gpu server and the leaf in the same rack at 400g")
    second = service.ask("spine is in another hall, like 600m", context=first.context)
    assert second.kind.value == "answer" and "FR4" in second.reply
