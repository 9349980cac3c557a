"""The answering actions: recommend, what-if, why, compare, knowledge, fallback, handoff,
restart. The advisor service is a fake here (tests/test_actions_fakes.py): these tests
pin what the actions do with its results, per channel, and that errors never reach the
chat as a traceback."""

from __future__ import annotations

import asyncio

import pytest
from rasa_sdk.executor import CollectingDispatcher

from tests.test_actions_fakes import (  # noqa: F401 (fresh_turns: autouse)
    FakeService,
    customs,
    fresh_turns,
    install_service_stubs,
    slot_event,
    slots_of,
    texts,
    tracker,
)

install_service_stubs()

from advisor import service  # noqa: E402
from advisor.models import Answer  # noqa: E402
from advisor.render import markdown  # noqa: E402
from advisor.render.labels import labels  # noqa: E402
from bot.actions import conversation, knowledge, recommend  # noqa: E402
from rules.models import WorkloadProfile  # noqa: E402

TRAINING_128 = {"workload": "training", "gpu_count": 128, "gpu_model": "H100", "model_params_b": 70.0}


@pytest.fixture
def fake(monkeypatch) -> FakeService:
    fake = FakeService()
    for name in ("recommend", "get_recommendation", "answer"):
        monkeypatch.setattr(service, name, getattr(fake, name), raising=False)
    return fake


def run(action, t):
    dispatcher = CollectingDispatcher()
    events = asyncio.run(action.run(dispatcher, t, {}))
    return events, dispatcher


def reply(dispatcher) -> str:
    return "\n\n".join(texts(dispatcher))


def shown(fake: FakeService, slots: dict) -> str:
    """Store a recommendation for slots, as if the bot had shown it (the bot resolves the
    profile against the named server first); returns its id."""
    return fake.recommend(service.complete_profile(WorkloadProfile(**slots))).id


# ----------------------------------------------------------------------- recommend


def test_recommend_sends_the_summary_and_remembers_the_id(fake):
    events, dispatcher = run(recommend.ActionRecommend(), tracker(slots=TRAINING_128))
    text = reply(dispatcher)
    for part in (
        "**Recommendation:",
        "Fabric:",
        "Topology:",
        "Ports per server:",
        "Switches:",
        "Network cost:",
        "All-reduce:",
        "Why",
        "GPU Server Networking",  # the guide by its title (advisor.render.wording), never "Seed guide"
    ):
        assert part in text
    rec_id = slots_of(events)["recommendation_id"]
    assert rec_id in fake.stored and f"/v1/recommendations/{rec_id}/diagram.svg" in text
    assert customs(dispatcher) == []  # the REST channel gets markdown only


def test_the_web_widget_also_gets_the_recommendation_as_json(fake):
    events, dispatcher = run(recommend.ActionRecommend(), tracker(slots=TRAINING_128, channel="socketio"))
    [custom] = customs(dispatcher)
    payload = custom["data"]  # Rasa's socket.io channel emits custom["data"] as the event payload
    rec_id = slots_of(events)["recommendation_id"]
    assert payload["recommendation"]["id"] == rec_id
    assert payload["recommendation"]["fabric"]["technology"] == "infiniband_ndr"
    assert payload["diagram_url"].endswith(f"/v1/recommendations/{rec_id}/diagram.svg")
    assert "**Recommendation:" not in reply(dispatcher)  # the card carries the summary, once


def test_slack_gets_block_kit_blocks(fake):
    _, dispatcher = run(recommend.ActionRecommend(), tracker(slots=TRAINING_128, channel="slack"))
    [payload] = customs(dispatcher)
    assert payload["blocks"] and isinstance(payload["blocks"], list)
    assert "*Recommendation:" in payload["text"] and "**" not in payload["text"]  # mrkdwn notification text
    [next_steps] = texts(dispatcher)  # the blocks carry the summary; only the next steps follow
    assert next_steps.startswith("Next:")


def test_a_design_is_followed_by_quick_replies_for_the_next_steps(fake):
    _, dispatcher = run(recommend.ActionRecommend(), tracker(slots=TRAINING_128, channel="socketio"))
    [buttons] = [m["buttons"] for m in dispatcher.messages if m.get("buttons")]
    assert [b["title"] for b in buttons] == ["Download BOM", "Printable report", "Compare", "Why"]
    assert all(b["payload"] and not b["payload"].startswith("/") for b in buttons)  # words, read as typed


def test_slack_gets_mrkdwn_not_markdown(fake):
    fake.answers["what is PFC?"] = Answer(
        text="Pauses a priority.", topic="PFC", subject="glossary", source="Seed guide"
    )
    _, dispatcher = run(
        knowledge.ActionAnswerKnowledge(), tracker(text="what is PFC?", intent="ask_knowledge", channel="slack")
    )
    [text] = texts(dispatcher)
    assert text.startswith("*PFC*") and "**" not in text


def test_recommend_without_the_gpu_count_asks_for_it(fake):
    events, dispatcher = run(recommend.ActionRecommend(), tracker(slots={"workload": "training"}))
    assert events == [] and [call for call in fake.calls if call[0] == "recommend"] == []
    assert "How many GPUs" in reply(dispatcher)


def test_an_impossible_profile_is_explained_not_raised(fake):
    slots = {"workload": "training", "gpu_count": 100, "node_count": 16}
    events, dispatcher = run(recommend.ActionRecommend(), tracker(slots=slots))
    assert events == []
    [text] = texts(dispatcher)
    assert "don't add up" in text and "16 nodes" in text and "Traceback" not in text
    assert "node_count" not in text and "gpu_count" not in text  # said in the customer's words


def test_a_failing_service_gives_a_polite_reply(fake, monkeypatch):
    def broken(profile, save=True):
        raise RuntimeError("database is locked")

    monkeypatch.setattr(service, "recommend", broken)
    events, dispatcher = run(recommend.ActionRecommend(), tracker(slots=TRAINING_128))
    assert events == []
    [text] = texts(dispatcher)
    assert "went wrong on my side" in text and "database" not in text


# ------------------------------------------------------------------------- what-if


def test_what_if_says_what_changed(fake):
    old = shown(fake, TRAINING_128)
    slots = {**TRAINING_128, "gpu_count": 256, "recommendation_id": old}
    events, dispatcher = run(
        recommend.ActionWhatIf(), tracker(slots=slots, text="what about 256 GPUs?", intent="what_if")
    )
    text = reply(dispatcher)
    assert "What changed" in text and "128 -> 256" in text
    assert slots_of(events)["recommendation_id"] not in (None, old)


def test_what_if_that_changes_nothing_says_so(fake):
    old = shown(fake, TRAINING_128)
    events, dispatcher = run(recommend.ActionWhatIf(), tracker(slots={**TRAINING_128, "recommendation_id": old}))
    assert events == []
    assert "doesn't change anything" in reply(dispatcher)


def test_what_if_before_enough_is_known_asks_for_it(fake):
    events, dispatcher = run(recommend.ActionWhatIf(), tracker(slots={"gpu_model": "B200"}, intent="what_if"))
    assert events == []
    assert "What will the cluster run" in reply(dispatcher)


# ---------------------------------------------------------------------- why/compare


def test_why_lists_every_fired_rule_of_the_shown_recommendation(fake):
    rec_id = shown(fake, TRAINING_128)
    events, dispatcher = run(recommend.ActionExplain(), tracker(slots={**TRAINING_128, "recommendation_id": rec_id}))
    text = reply(dispatcher)
    assert events == []
    assert "`training-16plus-infiniband`" in text and "`rail-optimized-64plus`" in text
    assert text.count("Source:") == 2


def test_why_not_an_alternative_leads_with_what_that_alternative_would_mean(fake):
    rec_id = shown(fake, TRAINING_128)
    t = tracker(slots={**TRAINING_128, "recommendation_id": rec_id}, intent="explain", text="why not RoCE?")
    text = reply(run(recommend.ActionExplain(), t)[1])
    assert text.startswith("**Why not RoCEv2 over 400GbE?** cheaper, needs PFC/ECN tuning")
    assert "90% of InfiniBand training throughput" in text and "`training-16plus-infiniband`" in text


def test_why_without_a_recommendation_says_what_to_do(fake):
    _, dispatcher = run(recommend.ActionExplain(), tracker(intent="explain", text="why?"))
    assert "haven't recommended anything yet" in reply(dispatcher)


def test_compare_puts_the_candidates_side_by_side(fake):
    rec_id = shown(fake, TRAINING_128)
    _, dispatcher = run(recommend.ActionCompare(), tracker(slots={**TRAINING_128, "recommendation_id": rec_id}))
    text = reply(dispatcher)
    assert "(recommended)" in text and "RoCEv2 over 400GbE" in text


def test_compare_without_a_cluster_answers_the_general_question(fake):
    fake.answers["IB vs RoCE?"] = Answer(
        text="IB is lossless...", topic="IB vs RoCE", subject="comparison", source="Seed guide, 'Comparison'"
    )
    _, dispatcher = run(recommend.ActionCompare(), tracker(text="IB vs RoCE?", intent="compare"))
    assert "IB is lossless" in reply(dispatcher) and "GPU Server Networking" in reply(dispatcher)


# ------------------------------------------------------------------------ knowledge


def test_a_knowledge_question_gets_the_answer_with_its_source(fake):
    fake.answers["what is PFC?"] = Answer(
        text="Priority Flow Control pauses...",
        topic="PFC",
        subject="glossary",
        source="Seed guide, 'Priority Flow Control (PFC)'",
    )
    events, dispatcher = run(knowledge.ActionAnswerKnowledge(), tracker(text="what is PFC?", intent="ask_knowledge"))
    # what the answer was about is remembered, for a follow-up that leans on it ("and ECN?")
    assert [e["name"] for e in events] == ["dialogue_context"]
    remembered = events[0]["value"]
    assert (remembered["question"], remembered["topic"], remembered["about"]) == ("what is PFC?", "PFC", "knowledge")
    text = reply(dispatcher)
    assert "Priority Flow Control pauses" in text and 'Source: "GPU Server Networking' in text


def test_an_unknown_question_says_what_can_be_answered(fake):
    _, dispatcher = run(
        knowledge.ActionAnswerKnowledge(), tracker(text="what is the ZXQ-9000 fabric?", intent="ask_knowledge")
    )
    assert "don't have a sourced answer" in reply(dispatcher)


def test_a_question_carrying_a_complete_sizing_is_answered_with_a_recommendation(fake):
    t = tracker(
        slots=TRAINING_128,
        text="how many ports for 128 H100s for training?",
        intent="ask_knowledge",
        events_after_user=[slot_event("gpu_count", 128), slot_event("workload", "training")],
    )
    events, dispatcher = run(knowledge.ActionAnswerKnowledge(), t)
    assert "**Recommendation:" in reply(dispatcher)
    assert "recommendation_id" in slots_of(events)
    assert [c for c in fake.calls if c[0] == "answer"] == []


def test_a_question_about_a_figure_of_the_shown_design_is_answered_from_it(fake):
    rec_id = shown(fake, TRAINING_128)
    t = tracker(
        slots={**TRAINING_128, "recommendation_id": rec_id}, text="how many switches is that?", intent="ask_knowledge"
    )
    _, dispatcher = run(knowledge.ActionAnswerKnowledge(), t)
    text = reply(dispatcher)
    assert text.startswith("For the design I recommended") and "**Switches:**" in text
    assert [c for c in fake.calls if c[0] == "answer"] == []


def test_the_same_question_without_a_design_goes_to_the_knowledge_base(fake):
    run(knowledge.ActionAnswerKnowledge(), tracker(text="how many switches is that?", intent="ask_knowledge"))
    assert [c[0] for c in fake.calls] == ["answer"]


# ----------------------------------------------------------------- conversation


def test_fallback_lists_what_the_advisor_can_do(fake):
    events, dispatcher = run(conversation.ActionFallback(), tracker(text="qwzx blorp", intent="nlu_fallback"))
    assert events == []
    text = reply(dispatcher)
    assert "didn't understand" in text and "talk to an engineer" in text and "what is PFC?" in text


def test_what_can_you_do_gets_the_list_without_an_apology(fake):
    events, dispatcher = run(conversation.ActionCapabilities(), tracker(text="what can you do?", intent="capabilities"))
    text = reply(dispatcher)
    assert events == [] and text.startswith("I can:")
    assert "didn't understand" not in text and "what is PFC?" in text


def test_an_ok_with_nothing_pending_is_acknowledged_not_misunderstood(fake):
    _, dispatcher = run(conversation.ActionFallback(), tracker(text="ok", intent="affirm"))
    text = reply(dispatcher)
    assert text.startswith("All right. I can:") and "didn't understand" not in text


def test_fallback_keeps_details_it_was_given(fake):
    t = tracker(
        slots={"gpu_count": 64},
        text="64 gpus hmm",
        intent="nlu_fallback",
        events_after_user=[slot_event("gpu_count", 64)],
    )
    _, dispatcher = run(conversation.ActionFallback(), t)
    assert "What will the cluster run" in reply(dispatcher)  # asks for the rest, drops nothing


def test_out_of_scope_without_details_says_so_politely(fake):
    events, dispatcher = run(
        conversation.ActionOutOfScope(), tracker(text="what's the weather?", intent="out_of_scope")
    )
    assert events == []
    assert "outside what I can help with" in reply(dispatcher)


@pytest.mark.parametrize("intent", ["ask_question", "nlu_fallback", "greet"])
def test_an_errand_is_declined_whichever_intent_rasa_gave_it(fake, intent):
    actions = {
        "ask_question": knowledge.ActionAnswerKnowledge(),
        "nlu_fallback": conversation.ActionFallback(),
        "greet": conversation.ActionGreet(),
    }
    events, dispatcher = run(actions[intent], tracker(text="can you order me a pizza to the office", intent=intent))
    assert events == []
    assert reply(dispatcher) == markdown.OUT_OF_SCOPE


def test_a_brief_classified_out_of_scope_is_still_sized(fake):
    t = tracker(
        slots=TRAINING_128,
        text="(a long e-mail about 128 H100s for training)",
        intent="out_of_scope",
        events_after_user=[slot_event("gpu_count", 128)],
    )
    events, dispatcher = run(conversation.ActionOutOfScope(), t)
    assert "outside what I can help" not in reply(dispatcher)
    assert any(e.get("name") == "recommendation_id" for e in events)


def test_handoff_passes_on_what_is_known_and_says_nobody_was_notified_without_destinations(fake, tmp_path, monkeypatch):
    from bot.actions import handoff
    from core.settings import settings

    monkeypatch.setattr(settings, "db_path", tmp_path / "advisor.db")
    rec_id = shown(fake, TRAINING_128)
    contact = {"contact_name": "Jane Doe", "contact_email": "jane@acme.example", "contact_company": "Acme AI Lab"}
    slots = {**TRAINING_128, **contact, "handoff_message": "a quote", "recommendation_id": rec_id}
    _, dispatcher = run(handoff.ActionHandoff(), tracker(slots=slots))
    text = reply(dispatcher)
    assert "no destination is configured, so nobody has been notified yet" in text
    assert "will get in touch" not in text
    assert "GPU count 128" in text and rec_id in text


def test_restart_says_so_and_restarts():
    events, dispatcher = run(conversation.ActionRestart(), tracker(text="start over", intent="restart"))
    assert [e["event"] for e in events] == ["restart"]
    assert "Starting over" in reply(dispatcher)


@pytest.mark.parametrize(
    ("text", "opens"),
    [
        ("gm", "greet"),
        ("ok thx", "you_are_welcome"),
        ("cool, thanks a lot!", "you_are_welcome"),
        ("thx, bye", "goodbye"),
        ("Thank you, that is all.", "goodbye"),
    ],
)
def test_small_talk_the_classifier_did_not_place_is_answered_in_kind(fake, text, opens):
    """ "gm", "ok thx" heard as a fallback: told by their words (understanding/small_talk.yml),
    answered as a greeting, a thanks or a goodbye, not with "I didn't understand"."""
    _, dispatcher = run(conversation.ActionFallback(), tracker(text=text, intent="nlu_fallback"))
    assert reply(dispatcher) == labels().small_talk[opens]


def test_words_beside_small_talk_that_ask_something_are_no_small_talk(fake):
    _, dispatcher = run(conversation.ActionFallback(), tracker(text="thx qwzx blorp", intent="nlu_fallback"))
    assert "didn't understand" in reply(dispatcher)


def test_words_naming_nothing_of_the_domain_get_the_fallback_and_an_errand_the_refusal(fake):
    _, dispatcher = run(conversation.ActionFallback(), tracker(text="qwzx blorp frumble", intent="nlu_fallback"))
    assert "didn't understand" in reply(dispatcher) and "I can:" in reply(dispatcher)
    _, dispatcher = run(conversation.ActionFallback(), tracker(text="order me a pizza", intent="nlu_fallback"))
    assert reply(dispatcher) == markdown.OUT_OF_SCOPE
