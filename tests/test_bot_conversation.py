"""The chat bot end to end: real Rasa (its env) and the real action server (our env),
talking over the REST channel; replies and the slots in the tracker are checked.

One stack serves the whole module (Rasa takes ~25 s to start); each test talks in its
own conversation (sender id). The model is trained first when the bot's data changed.
"""

from __future__ import annotations

import uuid

import httpx
import pytest

from advisor import service
from api.routers.chat_session import issue
from bot import launch
from ops.processes import RASA_BIN

pytestmark = [
    pytest.mark.rasa,
    pytest.mark.skipif(not (RASA_BIN / "rasa").exists(), reason="no Rasa environment (make rasa-venv)"),
]


@pytest.fixture(scope="module")
def stack(tmp_path_factory):
    with launch.chat_stack(tmp_path_factory.mktemp("chat")) as running:
        yield running


class Chat:
    """One conversation over the REST channel."""

    def __init__(self, stack: launch.ChatStack) -> None:
        self.stack = stack
        self.sender = f"test-{uuid.uuid4().hex[:8]}"

    def say(self, text: str) -> str:
        response = httpx.post(
            self.stack.webhook, json={"sender": self.sender, "message": text}, params=self.stack.auth, timeout=30
        )
        response.raise_for_status()
        return "\n\n".join(m["text"] for m in response.json() if m.get("text"))

    def messages(self, text: str) -> list[dict]:
        response = httpx.post(
            self.stack.webhook, json={"sender": self.sender, "message": text}, params=self.stack.auth, timeout=30
        )
        response.raise_for_status()
        return response.json()

    def tracker(self) -> dict:
        response = httpx.get(self.stack.tracker_url(self.sender), params=self.stack.auth, timeout=30)
        response.raise_for_status()
        return response.json()

    def slots(self) -> dict:
        return self.tracker()["slots"]


@pytest.fixture
def chat(stack) -> Chat:
    return Chat(stack)


def test_details_given_over_several_turns_are_kept(chat):
    reply = chat.say("We train a 70B model.")
    assert "How many GPUs" in reply
    assert chat.slots()["requested_slot"] == "gpu_count"

    reply = chat.say("on 128 H100s")
    assert "**Recommendation:" in reply
    for part in ("Fabric:", "Topology:", "Ports per server:", "Switches:", "Network cost:", "All-reduce:", "Why"):
        assert part in reply
    assert "GPU Server Networking" in reply  # reasons carry their sources, the guide by its title
    slots = chat.slots()
    assert slots["workload"] == "training"
    assert slots["model_params_b"] == 70
    assert slots["gpu_count"] == 128
    assert slots["gpu_model"] == "H100"
    assert slots["recommendation_id"].startswith("r_")
    assert slots["requested_slot"] is None


def test_form_asks_one_question_at_a_time_with_buttons(chat):
    messages = chat.messages("I need a network recommendation for our cluster")
    asked = [m for m in messages if m.get("buttons")]
    assert len(asked) == 1 and "What will the cluster run" in asked[0]["text"]
    assert [b["title"] for b in asked[0]["buttons"]] == ["Training", "Inference", "Both"]

    reply = chat.say(asked[0]["buttons"][1]["payload"])  # "Inference"
    assert "How many GPUs" in reply
    assert chat.slots()["workload"] == "inference"


def test_a_typed_choice_counts_and_an_unusable_answer_is_asked_again(chat):
    chat.say("help me size the network for our GPU cluster")
    reply = chat.say("both")  # typed, the title of a button
    assert "How many GPUs" in reply
    assert chat.slots()["workload"] == "mixed"
    reply = chat.say("lots")
    assert "lots" in reply and "I need a whole number" in reply and "8 nodes of 8 H100" in reply
    assert chat.slots()["requested_slot"] == "gpu_count"

    reply = chat.say("8 nodes of 8 H100")
    assert "**Recommendation:" in reply
    slots = chat.slots()
    assert slots["node_count"] == 8 and slots["gpus_per_node"] == 8


def test_what_if_recomputes_and_says_what_changed(chat):
    chat.say("We will pretrain a 70B model on 128 H100s, what network do we need?")
    first = chat.slots()["recommendation_id"]

    reply = chat.say("what about 256 GPUs?")
    assert "What changed" in reply
    assert "128 -> 256" in reply
    slots = chat.slots()
    assert slots["gpu_count"] == 256
    assert slots["workload"] == "training" and slots["model_params_b"] == 70
    assert slots["recommendation_id"] not in (None, first)


def test_a_relative_what_if_scales_the_size_on_the_table(chat):
    chat.say("We will pretrain a 70B model on 16 nodes of 8 H100s, what network do we need?")
    reply = chat.say("what if we double it?")
    assert "What changed" in reply and "128 -> 256" in reply
    slots = chat.slots()
    assert (slots["gpu_count"], slots["node_count"], slots["gpus_per_node"]) == (256, 32, 8)
    reply = chat.say("and with half as many nodes?")
    assert "256 -> 128" in reply
    assert chat.slots()["node_count"] == 16


def test_a_budget_for_the_network_alone_fills_its_own_slot_and_picks_the_fabric(chat):
    reply = chat.say("We will pretrain a 70B model on 128 H100s and have $350k for the network.")
    assert "**Recommendation: RoCEv2" in reply and "network budget" in reply
    slots = chat.slots()
    assert slots["network_budget_usd"] == 350_000 and slots["budget_usd"] is None


def test_a_stated_parallelism_plan_fills_its_slots_and_a_plan_too_large_is_explained(chat):
    reply = chat.say("We pretrain a 405B mixture-of-experts model on 1024 H100s with TP 8, PP 16.")
    assert "**Recommendation:" in reply and "TP 8 x PP 16" in reply
    slots = chat.slots()
    assert (slots["tp"], slots["pp"], slots["moe"]) == (8, 16, True)
    reply = chat.say("and with PP 4?")
    assert "What changed" in reply and "TP 8 x PP 16 x DP 8 -> TP 8 x PP 4 x DP 32" in reply
    assert chat.slots()["pp"] == 4
    reply = chat.say("what about PP 256?")
    assert "Traceback" not in reply
    assert "2048 GPUs per model replica" in reply and "lower" in reply


def test_a_bare_number_answers_the_gpu_question_and_later_corrects_it(chat):
    chat.say("We train a 70B model.")
    reply = chat.say("128")
    assert "**Recommendation:" in reply
    assert chat.slots()["gpu_count"] == 128

    reply = chat.say("sorry, I meant 256")
    assert "What changed" in reply and "128 -> 256" in reply
    assert chat.slots()["gpu_count"] == 256


def test_a_server_shape_given_after_the_total_keeps_the_total(chat):
    chat.say("we're training on 32 GPUs")
    chat.say("8 per node")
    slots = chat.slots()
    assert slots["gpu_count"] == 32 and slots["gpus_per_node"] == 8
    assert slots["profile_complete"] is True


def test_a_hypothetical_budget_squeeze_is_a_what_if(chat):
    chat.say("We will pretrain a 70B model on 32 H100s, what network do we need?")
    reply = chat.say("what if the budget is tight?")
    assert "doesn't change anything" not in reply
    assert chat.slots()["cost_sensitive"] is True


def test_why_lists_the_fired_rules_with_sources(chat):
    chat.say("We will pretrain a 70B model on 128 H100s, what network do we need?")
    reply = chat.say("why?")
    assert reply.startswith("**Why ")
    assert "Source:" in reply
    assert "`" in reply  # rule ids


def test_follow_up_questions_are_about_the_design_on_the_table(chat):
    chat.say("We will pretrain a 70B model on 128 H100s, what network do we need?")
    reply = chat.say("how many switches is that?")
    assert reply.startswith("For the design I recommended") and "Switches:" in reply
    reply = chat.say("why not RoCE?")
    assert reply.startswith("**Why not RoCEv2")


def test_compare_shows_the_candidates_side_by_side(chat):
    chat.say("We will pretrain a 70B model on 128 H100s, what network do we need?")
    reply = chat.say("compare the options")
    assert "Fabrics compared" in reply
    assert "(recommended)" in reply and "RoCE" in reply


def test_a_knowledge_question_is_answered_with_its_source(chat):
    reply = chat.say("what is PFC?")
    assert "Priority Flow Control" in reply
    assert "Source:" in reply


def test_a_question_mid_form_is_answered_and_the_form_goes_on(chat):
    chat.say("recommend a fabric for my cluster")
    reply = chat.say("what is PFC?")
    assert "Priority Flow Control" in reply
    assert "What will the cluster run" in reply
    assert chat.tracker()["active_loop"].get("name") == "sizing_form"


def test_fallback_offers_examples_of_what_it_can_do(chat):
    reply = chat.say("qwzx blorp frumble")
    assert "didn't understand" in reply
    assert "talk to an engineer" in reply and "what is PFC?" in reply


def test_what_can_you_do_and_a_bare_ok_get_the_list_without_an_apology(chat):
    reply = chat.say("what can you do?")
    assert reply.startswith("I can:") and "what is PFC?" in reply
    reply = chat.say("ok")
    assert "didn't understand" not in reply and "I can:" in reply


def test_out_of_scope_is_declined_politely(chat):
    reply = chat.say("what's the weather like tomorrow?")
    assert "outside what I can help with" in reply


def test_talk_to_an_engineer_asks_for_contact_details_and_says_nobody_was_notified_without_destinations(chat):
    chat.say("We will pretrain a 70B model on 128 H100s, what network do we need?")
    assert "network engineer" in chat.say("I want to talk to an engineer")
    assert "your name" in chat.say("yes please")
    assert "email" in chat.say("Jane Doe")
    assert "company" in chat.say("jane@acme.example")
    assert "discuss" in chat.say("Acme AI Lab")
    reply = chat.say("nothing")
    assert "but no destination is configured, so nobody has been notified yet" in reply
    assert chat.slots()["recommendation_id"] in reply


def test_restart_forgets_the_conversation(chat):
    chat.say("We train a 70B model.")
    assert "Starting over" in chat.say("start over")
    assert chat.slots()["workload"] is None


def test_no_traceback_reaches_the_chat_for_an_impossible_profile(chat):
    reply = chat.say("we train on 100 GPUs in 16 nodes")
    assert "Traceback" not in reply
    assert "don't add up" in reply


def test_a_restart_of_rasa_loses_no_conversation(stack):
    chat = Chat(stack)
    chat.say("We train a 70B model.")
    stack.restart_rasa()
    assert chat.slots()["workload"] == "training"
    reply = chat.say("on 128 H100s")
    assert "**Recommendation:" in reply
    slots = chat.slots()
    assert slots["model_params_b"] == 70 and slots["gpu_count"] == 128


def test_the_web_widget_gets_the_recommendation_over_socketio(stack):
    """The socket.io channel (the web widget's): markdown text plus the recommendation as
    JSON in one bot_uttered payload. Driven from our env (DESIGN.md, known traps)."""
    import asyncio

    import socketio

    async def converse() -> list[dict]:
        received: list[dict] = []
        client = socketio.AsyncClient()
        client.on("bot_uttered", lambda data: received.append(data))
        await client.connect(stack.rasa.url, socketio_path="/socket.io", transports=["websocket"])
        try:
            session = issue(stack.secrets["FABRIC_ADVISOR_SESSION_SECRET"])  # what POST /v1/chat/sessions gives
            await client.emit("session_request", {"session_id": session})
            await client.emit(
                "user_uttered",
                {
                    "session_id": session,
                    "message": "We will pretrain a 70B model on 128 H100s, what network do we need?",
                },
            )
            for _ in range(150):
                if any("recommendation" in m for m in received):
                    break
                await asyncio.sleep(0.1)
        finally:
            await client.disconnect()
        return received

    received = asyncio.run(converse())
    payloads = [m for m in received if "recommendation" in m]
    assert payloads, received
    rec = payloads[0]["recommendation"]
    assert rec["id"].startswith("r_") and rec["profile"]["gpu_count"] == 128
    assert payloads[0]["diagram_url"].endswith(f"/v1/recommendations/{rec['id']}/diagram.svg")
    # the card carries the summary: the widget is not sent the same text twice
    assert not any("**Recommendation:" in (m.get("text") or "") for m in received)


# --- issue 14: the chat follows the conversation, with the advisor's one understanding ---


def test_a_question_phrased_in_unexpected_words_gets_the_right_entry(chat):
    reply = chat.say("how fast do the GPUs inside one server talk to each other?")
    assert "NVLink" in reply and "900 GB/s" in reply
    reply = chat.say("why is AI training traffic so different from normal data-centre traffic?")
    assert "all-reduce" in reply.lower() or "east-west" in reply.lower()


def test_a_question_naming_a_size_asks_for_the_guides_figure_not_a_design(chat):
    reply = chat.say("What would the InfiniBand fabric for 16 DGX H100 servers cost?")
    assert "$200K" in reply and "To size the network" not in reply and "How many GPUs" not in reply


def test_follow_ups_are_answered_from_the_design_on_the_table(chat):
    chat.say("We will train a 70B model on 256 H100s, total budget $12M")
    rec_id = chat.slots()["recommendation_id"]
    cost = chat.say("what's that going to cost us?")
    assert "For the design I recommended" in cost and "$" in cost
    share = chat.say("and as a share of the budget?")
    assert "%" in share and "$12,000,000" in share
    sync = chat.say("how long does one gradient sync take on it?")
    assert "All-reduce" in sync and " ms" in sync
    settings = chat.say("which switch settings does it need?")
    assert "subnet manager" in settings.lower() and "MTU" in settings
    assert chat.slots()["recommendation_id"] == rec_id  # nothing was re-sized


def test_terse_and_lossless_follow_ups_are_answered_from_the_design_whatever_the_intent(chat):
    """Rasa may take "cables/optics count?" for a comparison; the design still answers it,
    and PFC/ECN asked of a plain Ethernet design get what RoCEv2 on it would need."""
    chat.say("64 A100 GPUs training a 13B model, standard ethernet please")
    optics = chat.say("cables/optics count?")
    assert optics.startswith("For the design I recommended") and "optic" in optics.lower()
    lossless = chat.say("What ECN and PFC thresholds would you configure?")
    assert "without PFC or ECN" in lossless and "priority 3" in lossless


def test_a_question_beside_an_incomplete_request_is_answered_before_the_ask_in_chat_too(chat):
    reply = chat.say("our 16 dgx h100 nodes: do we need a separate storage network?")
    assert 0 <= reply.lower().find("storage") < reply.index("training, inference, or both")


def test_a_question_inside_a_sizing_request_is_answered_beside_the_design(chat):
    reply = chat.say("We're training a 400B model on 8,192 H100s - is Dragonfly+ worth considering at this size?")
    assert "**Recommendation:" in reply
    assert "You also asked" in reply and "Dragonfly" in reply


@pytest.mark.parametrize(
    ("first", "second", "gpus"),
    [
        # a correction after a refused size is read as the GPU count
        ("size a training network for 3,000,000 GPUs", "sorry, I meant 3000", 3000),
        # the form asked what the cluster runs; "256, training" gives the GPU count too
        ("need a network for some h100s", "256, training", 256),
    ],
)
def test_a_bare_count_in_the_next_message_completes_the_request(chat, first, second, gpus):
    assert "**Recommendation:" not in chat.say(first)
    assert "**Recommendation:" in chat.say(second)
    assert chat.slots()["gpu_count"] == gpus


def test_the_chat_and_the_api_read_a_serving_request_the_same_way(chat):
    text = "we want to host model serving on 40 servers with 8 L40S each"
    from_api = service.ask(text)
    chat.say(text)
    assert chat.slots()["workload"] == from_api.profile.workload == "inference"


def test_rack_what_ifs_and_a_new_gpu_resize_a_rack_scale_design(chat):
    assert "**Recommendation:" in chat.say("We are planning 4 GB200 NVL72 racks for training.")
    assert "1,152 GB200 GPUs" in chat.say("what if 16 racks")
    reply = chat.say("What if we switched to GB300 NVL72 instead?")
    assert "**Recommendation:" in reply and "GB300" in reply
    assert chat.slots()["gpu_model"] == "GB300"


def test_an_unknown_gpu_is_said_back_and_its_count_kept(chat):
    reply = chat.say("Could you design the network for 32 H900 GPUs?")
    assert 'I have no data for a GPU called "H900"' in reply
    assert chat.slots()["gpu_count"] == 32


def test_follow_ups_on_parts_per_gpu_cost_and_parallelism_are_answered_not_re_sized(chat):
    assert "**Recommendation:" in chat.say("design a network for 1024 h100 for training")
    rec_id = chat.slots()["recommendation_id"]
    cost = chat.say("and the cost per gpu?")
    assert "per GPU" in cost
    parts = chat.say("how many NICs and cables does it use?")
    assert "**NICs:**" in parts and "**Cables:**" in parts
    parallelism = chat.say("would tensor parallelism across nodes be a good idea?")
    assert "Fabrics compared" not in parallelism and "tensor" in parallelism.lower()
    other = chat.say("for reference, how big were Meta's Llama 3 training pods?")
    assert "What changed" not in other
    assert chat.slots()["recommendation_id"] == rec_id and chat.slots()["gpu_count"] == 1024


def test_such_racks_after_a_rack_scale_system_counts_its_racks(chat):
    chat.say("one GB200 NVL72 rack for training")
    assert "576 GB200 GPUs" in chat.say("now size the scale-out fabric for eight such racks")


def test_a_correction_replaces_the_value_named_and_keeps_the_rest(chat):
    assert "**Recommendation:" in chat.say("pretraining a 70B model on 16 DGX H100")
    reply = chat.say("oops, 4 GPUs per node, not 8")
    assert "What changed" in reply and "16 x 8 GPUs -> 16 x 4 GPUs" in reply
    slots = chat.slots()
    assert (slots["node_count"], slots["gpus_per_node"], slots["model_params_b"]) == (16, 4, 70)

    reply = chat.say("sorry, 128 not 64")
    assert "**GPUs:** 64 -> 128" in reply
    assert chat.slots()["gpu_count"] == 128


def test_a_follow_up_after_a_knowledge_answer_leans_on_it(chat):
    chat.say("what is ultra ethernet?")
    reply = chat.say("is the spec actually finished?")
    assert "Ultra Ethernet" in reply or "UEC" in reply
    assert chat.slots()["dialogue_context"]["question"].startswith("is the spec actually finished?")


def test_the_chat_answers_a_follow_up_the_classifier_took_for_details_or_capabilities(chat):
    """ "and to a leaf 40m away" reads like details to the classifier and "what should i
    check first" like "what can you do?": both lean on the last answer, as on /v1/ask."""
    chat.say("which cable between a gpu server and the leaf in the same rack at 400g")
    reply = chat.say("and to a leaf 40m away")
    assert "To size the network" not in reply and "SR4" in reply
    chat.say("all_reduce_perf across 2 ndr nodes gives me 20 gb/s busbw, is that bad")
    assert "size a cluster's network" not in chat.say("what should i check first")
    assert "size a cluster's network" in chat.say("what can you do?")
