"""The one understanding (understanding.understand via advisor.service): what a message wants,
the same for /v1/ask, the CLI and the chat, and follow-ups answered from the design."""

from __future__ import annotations

import pytest

from advisor import service
from advisor.models import AskKind
from advisor.render import markdown
from understanding.understand import Want, asks_instead_of_answering, clauses, side_question


@pytest.fixture(scope="module")
def design():
    return service.ask("We will train a 70B model on 256 H100s, total budget $12M")


@pytest.mark.parametrize(
    "text",
    [
        "What would the InfiniBand fabric for 16 DGX H100 servers cost?",
        "is the IB premium worth it if the whole cluster is $5M?",
        "recommended MTU for a RoCE fabric?",
        "budget 2M, 16 dgx nodes. what % would an IB fabric be at the guide's numbers",
        "For Meta's 24K-GPU RoCE training cluster, did they rely on DCQCN for congestion control?",
    ],
)
def test_a_question_naming_a_size_or_budget_gets_the_guides_answer(text):
    result = service.ask(text)
    assert result.kind == AskKind.answer and "To size the network" not in result.reply


@pytest.mark.parametrize(
    "text",
    [
        "We will pretrain a 70B model on 128 H100s, what network do we need?",
        "size a network for 64 GPUs for inference",
        "what do you recommend for 32 H200 training a 13B model",
    ],
)
def test_a_request_to_design_is_sized(text):
    assert service.ask(text).kind == AskKind.recommendation


@pytest.mark.parametrize(
    ("text", "asked"),
    [
        (
            "2048 b300 pretraining, ib, and is rail-only worth considering at this size?",
            "is rail-only worth considering at this size?",
        ),
        (
            "Please design the network for 18 GB300 NVL72 racks and explain whether ConnectX-8 at 800G is needed.",
            "explain whether ConnectX-8 at 800G is needed.",
        ),
        (
            "1,024 MI300X for training, Ethernet, plus your view on whether Ultra Ethernet matters yet.",
            "whether Ultra Ethernet matters yet.",
        ),
        (
            "h100 x 128 finetune, ib, and whats the gradient sync time for a 70b model",
            "whats the gradient sync time for a 70b model",
        ),
        ("256 h100 for training, do we need a storage network too", "do we need a storage network too"),
        ("We will train on 10,000 H200 GPUs. Please propose the fabric and estimate its cost.", "estimate its cost."),
        ("h100 8 nodes training, nccl settings too pls", "nccl settings too pls"),
        (
            "We have 2,048 MI300X for training and are considering UEC. What do you advise?",
            "considering UEC. What do you advise?",
        ),
    ],
)
def test_side_questions_asked_as_requests_for_a_view_are_found(text, asked):
    assert side_question(text) == asked


@pytest.mark.parametrize(
    "text",
    [
        "We need to decide whether to buy 256 H100 for training.",
        "We will train a 70B model on 128 H100s. What network do we need?",
        "For 256 H100 training, please give us a design.",
        "setting up an h100 cluster, what fabric?",
    ],
)
def test_the_request_itself_is_not_a_side_question(text):
    assert side_question(text) is None


def test_a_side_question_is_answered_first_while_the_request_still_lacks_a_detail():
    result = service.ask("h200 256 gpus rocev2, what pfc/ecn settings should the switches get too")
    assert result.kind == AskKind.clarification and result.answer is not None
    asked_for = result.reply.index("training, inference, or both")
    assert 0 <= result.reply.find("PFC") < asked_for


def test_a_question_inside_a_sizing_request_is_found_and_answered_beside_the_design():
    text = "training a 34B model on 256 H100s - also is dragonfly worth considering at this size?"
    assert side_question(text) == "is dragonfly worth considering at this size?"
    result = service.ask(text)
    assert result.kind == AskKind.recommendation
    assert "You also asked" in result.reply and "Dragonfly" in result.reply
    assert side_question("We will train a 70B model on 128 H100s. What network do we need?") is None


def test_clauses_split_sentences_and_trailing_questions():
    assert clauses("320 H200 for training 70b. also what about SHARP, do we need it?") == [
        "320 H200 for training 70b.",
        "what about SHARP",
        "do we need it?",
    ]


@pytest.mark.parametrize(
    "question, expected",
    [
        ("price?", "$"),
        ("and as a share of the budget?", "% of the $12,000,000 budget"),
        ("how long would a gradient all-reduce take?", "All-reduce:"),
        ("what mtu do we set", "4,096"),
        ("which switch settings does it need?", "subnet manager"),
        ("which switch settings do we need for it", "no PFC or ECN tuning is needed"),
        ("how many switches is that?", "Switches:"),
        ("why not dragonfly+?", "Dragonfly"),
        ("which management software do we need for the fabric?", "Unified Fabric Manager"),
        ("How many tiers does your design have?", "tiers"),
        ("Which of those two switches does your design use?", "QM9700"),
        ("How many scale-out NICs does that imply, and at what speed?", "compute ports in all"),
        ("and power", "kW"),
        ("what oversubscription is that?", "non-blocking (1:1)"),
        ("is it non-blocking?", "Oversubscription:"),
        ("do we need a separate storage network?", "2 x 400 Gb/s storage ports per server"),
        ("how much bandwidth do we get for checkpoint traffic", "Storage network:"),
        ("and an all-reduce of 20 GB?", "All-reduce of 20 GB:"),
        ("and with SHARP enabled?", "All-reduce with SHARP:"),
    ],
)
def test_follow_ups_are_answered_from_the_design_on_the_table(design, question, expected):
    result = service.ask(question, design.profile, design.recommendation.id)
    assert result.kind == AskKind.design_answer
    assert result.reply.startswith("For the design I recommended (InfiniBand")
    assert expected in result.reply


def test_settings_of_another_fabric_come_from_that_fabrics_design(design):
    result = service.ask(
        "which switch settings would we need if we chose RoCEv2?", design.profile, design.recommendation.id
    )
    assert "RoCEv2" in result.reply and "PFC" in result.reply and "ECN" in result.reply


def test_a_general_question_after_a_design_is_still_a_knowledge_question(design):
    result = service.ask("what is PFC?", design.profile, design.recommendation.id)
    assert result.kind == AskKind.answer


def test_a_new_size_after_a_design_is_a_what_if_not_a_follow_up(design):
    """After a design a bare number is its new GPU count (the chat's `expected_count`, and
    `ask` with a recommendation_id)."""
    decision, _, _ = service.understand_message(
        "and the sync time at 512?", design.profile, design.recommendation, expecting="gpu_count"
    )
    assert decision.want == Want.sizing and "allreduce" in decision.design_topics


def test_a_gpu_named_with_a_change_resizes_the_design_and_one_named_alone_is_asked_about(design):
    changed = service.ask("What if we switched to H200 instead?", design.profile, design.recommendation.id)
    assert changed.kind == AskKind.recommendation and changed.recommendation.profile.gpu_model == "H200"
    asked = service.ask("How many NICs does a DGX H100 have?", design.profile, design.recommendation.id)
    assert asked.kind == AskKind.answer


def test_an_unknown_gpu_is_said_back_with_the_ones_we_know():
    reply = service.ask("Could you design the network for 32 H900 GPUs?").reply
    assert reply.startswith('I have no data for a GPU called "H900" (I know ') and "H100" in reply


def test_answers_lead_with_the_direct_answer_and_its_source():
    reply = service.ask("what is PFC?").reply
    first, second = reply.split("\n\n")[:2]
    assert first.startswith("**PFC (Priority Flow Control)**: ") and second.startswith("_Source: ")


def test_pfc_and_ecn_asked_of_a_plain_ethernet_design_get_the_roce_settings_it_would_need():
    shown = service.ask("64 A100 GPUs training a 13B model, standard ethernet please")
    assert shown.recommendation is not None and shown.recommendation.fabric.technology.startswith("ethernet")
    result = service.ask("What ECN and PFC thresholds would you configure?", shown.profile, shown.recommendation.id)
    assert result.kind == AskKind.design_answer
    assert "runs lossy, without PFC or ECN" in result.reply
    assert "ECN" in result.reply and "priority 3" in result.reply.lower()
    assert "IB MTU" not in result.reply


def test_an_answer_from_an_entry_the_vendor_corrects_shows_the_correction():
    """The guide's wrong claims (DGX H100 on HDR, NDR on Quantum-3) stay in its entries
    as the guide's words; the vendor's correction must travel with every answer from them."""
    result = service.ask("Does the DGX H100 have 8 HDR200 ports, as the guide says?")
    assert result.answer is not None and result.answer.note
    assert "**Note:** " + result.answer.note in result.reply
    assert "400 Gb/s ConnectX-7" in result.reply


@pytest.mark.parametrize(
    "text",
    [
        "how to run all_reduce_perf across 2 nodes",
        "inference needs ib or is ethernet fine",
        "how many h100 did llama 3 405b train on",
        "meta llama3 trained on roce or ib",
    ],
)
def test_questions_without_a_question_mark_or_about_someones_model_are_answered_not_sized(text):
    assert service.ask(text).kind == AskKind.answer


def test_a_request_to_explain_something_beside_the_design_is_answered_from_it():
    result = service.ask(
        "Please recommend a fabric for 2,304 GB200 GPUs (32 NVL72 racks) for training, "
        "and explain the power draw of the network gear."
    )
    assert result.kind == AskKind.recommendation
    assert "**You also asked:** _explain the power draw of the network gear._" in result.reply
    assert "Network power and space:" in result.reply


@pytest.mark.parametrize(
    ("question", "expected"),
    [("cables count?", "Cables:"), ("What would that save?", "Network cost:")],
)
def test_short_follow_ups_about_cables_and_savings_are_answered_from_the_design(design, question, expected):
    result = service.ask(question, design.profile, design.recommendation.id)
    assert result.kind == AskKind.design_answer and expected in result.reply


def test_and_another_gpu_with_the_same_count_resizes_the_design(design):
    result = service.ask("and gb200 same count?", design.profile, design.recommendation.id)
    assert result.kind == AskKind.recommendation and result.recommendation.profile.gpu_model == "GB200"


def test_a_what_if_that_asks_about_savings_is_sized_not_answered_from_the_old_design(design):
    result = service.ask("And if we used 200GbE instead to save money?", design.profile, design.recommendation.id)
    assert result.kind == AskKind.recommendation
    assert result.recommendation.fabric.name != design.recommendation.fabric.name
    assert "Network cost:" in result.reply


@pytest.mark.parametrize(
    ("text", "figure"),
    [
        ("256 gpu h100 pod how many osfp transceivers on the nics", "256 node-leaf"),
        ("How many QM9700 switches does a non-blocking 2-tier fabric for 512 GPUs need?", "16 leaf + 8 spine = 24"),
        ("We will receive 16 DGX H100 systems. How many NICs for the compute fabric?", "128 compute ports"),
        # racks, not servers: the 8 NVL72 systems' racks and the switches' (advisor.answers.verbs)
        ("we're planning 576 GB200 GPUs, how many racks is that?", "8 for the GPU servers (8 rack-scale systems"),
    ],
)
def test_a_count_question_about_a_named_cluster_is_answered_from_a_design_sized_for_it(text, figure):
    result = service.ask(text)
    assert result.kind == AskKind.answer
    assert result.answer is not None and result.answer.topic.startswith("Sized for")
    assert figure in result.reply
    assert "assuming training since the question does not say" in result.reply


def test_a_count_question_that_names_the_workload_gets_the_whole_design():
    # a workload named is a cluster being planned: the design, which has the count
    result = service.ask("for inference on 64 L40S, how many switches would the fabric have?")
    assert result.kind == AskKind.recommendation and "Switches:" in result.reply


@pytest.mark.parametrize(
    "text",
    [
        "how many switches did Meta's 24K-GPU RoCE cluster use?",  # someone else's cluster
        "How many compute ports does one DGX H100 have?",  # one server: no fabric to count
        "What would the InfiniBand fabric for 16 DGX H100 servers cost?",  # the guide's price
    ],
)
def test_a_question_about_another_cluster_one_server_or_a_price_is_not_sized(text):
    result = service.ask(text)
    assert result.answer is None or not result.answer.topic.startswith("Sized for")


def test_a_sum_with_the_questions_numbers_is_not_taken_for_a_sizing_request():
    # "7B" is the model whose gradients are summed, not a cluster to size
    result = service.ask("rough time to allreduce 14 GB of grads (7B params bf16) over 400g per gpu")
    assert result.kind == AskKind.answer
    assert result.reply.startswith("**All-reduce time") and "0.56 s" in result.reply


@pytest.mark.parametrize(
    ("text", "asked"),
    [
        ("20k h100 training, ib vs roce whats cheaper at that scale", "ib vs roce whats cheaper at that scale"),
        ("600 a100s training, older cluster refresh, hdr ib ok? budget tight", "hdr ib ok? budget tight"),
        (
            "Please design the fabric for 36 NVL72 racks of GB300 (training), including optics counts.",
            "including optics counts.",
        ),
        (
            "Propose the fabric for 32 DGX B200 used for training, and tell us how many cables it needs?",
            "tell us how many cables it needs?",
        ),
    ],
)
def test_a_question_listed_after_the_details_is_answered_beside_the_design(text, asked):
    decision, _, _ = service.understand_message(text)
    assert decision.want == Want.sizing and decision.side_question == asked
    result = service.ask(text)
    assert result.kind == AskKind.recommendation and f"_{asked}_" in result.reply


def test_a_choice_between_fabrics_asked_beside_a_request_is_answered_from_the_design():
    reply = service.ask("need a fabric for 256 h100s, training. ib or roce? pls").reply
    side = reply[reply.index("You also asked") :]
    assert "Why not RoCEv2" in side and "cost" in side


@pytest.mark.parametrize(
    "text",
    [
        "what oversubscription should a training backend fabric have",
        "how many gpus did llama 3 405b pretrain on",
        "Is it true Meta ran its 24K-GPU RoCE training fabric without DCQCN?",
    ],
)
def test_a_question_that_names_a_workload_or_someone_elses_cluster_is_answered_not_sized(text):
    assert service.ask(text).kind == AskKind.answer


def test_an_entry_scoring_nearly_as_high_as_the_answer_is_shown_after_it():
    result = service.ask("osfp vs qsfp112")  # two entries on the form factors, near-tied
    assert result.answer is not None and len(result.answer.related) == 1
    related = result.answer.related[0]
    assert related.topic != result.answer.topic
    assert result.reply.index(result.answer.topic) < result.reply.index(f"**Also relevant: {related.topic}**")
    assert related.source in result.reply


def test_an_answer_with_a_clear_winner_shows_no_other_entry():
    result = service.ask("how many ports on a qm9700")
    assert result.answer is not None and result.answer.related == []
    assert "Also relevant" not in result.reply


def test_a_how_to_question_naming_servers_is_answered_from_the_knowledge_base():
    result = service.ask("How do we run an NCCL all-reduce benchmark across two nodes?")
    assert result.answer is not None and not result.answer.topic.startswith("Sized for")


def test_a_computed_answer_shows_the_entry_behind_it():
    # two questions in one: the count from a design, the scalable unit from the entry
    result = service.ask("We are planning 576 GB200 GPUs. How many NVL72 racks is that, and is that one SU?")
    assert result.answer is not None and result.answer.topic.startswith("Sized for")
    assert result.answer.related and "scalable unit" in result.reply.lower()


def test_a_cost_answer_gives_the_cost_per_gpu_too(design):
    reply = service.ask("what's the cost per gpu?", recommendation_id=design.recommendation.id).reply
    assert "per GPU" in reply and "**Network cost:**" in reply


def test_parts_asked_together_are_each_answered(design):
    reply = service.ask("how many NICs and cables does it use?", recommendation_id=design.recommendation.id).reply
    assert "**NICs:**" in reply and "**Cables:**" in reply


def test_a_question_about_someone_elses_cluster_after_a_design_re_sizes_nothing(design):
    result = service.ask(
        "For reference, how large were Meta's Llama 3 training pods?", recommendation_id=design.recommendation.id
    )
    assert result.kind == AskKind.answer


@pytest.mark.parametrize(
    "text",
    [
        "what does NDR mean?",
        "how much would that cost?",
        "wait, which switch is that?",
        "wait, which switch is that",  # the question word opens its clause
        "how much would that cost",
        "why do you need that",
        "Do you need my full name?",
        "NDR?",
    ],
)
def test_a_question_typed_where_a_detail_was_asked_asks_instead_of_answering(text: str) -> None:
    assert asks_instead_of_answering(text)


@pytest.mark.parametrize(
    "text",
    [
        "Jane Doe",
        "Will Smith",  # "will" can open a question; a name written as one does not ask
        "Can Demir",
        "Do Thi Lan",
        "When Labs",
        "my name is Jane",
        "It is Jane",
        "Acme AI Lab",
        "Acme, Inc.",
        "I am with Acme",
        "jane@acme.example",
    ],
)
def test_a_name_or_a_company_is_an_answer_even_when_it_opens_with_a_question_word(text: str) -> None:
    assert not asks_instead_of_answering(text)


def test_an_all_reduce_of_a_named_size_scales_the_designs_own_time_to_that_buffer(design):
    perf = design.recommendation.performance
    result = service.ask("how long would an all-reduce of 14 GB take?", design.profile, design.recommendation.id)
    expected = perf.allreduce_ms * 14 / (perf.message_bytes / 1e9)
    assert result.kind == AskKind.design_answer
    assert f"about {markdown.duration(expected)} on this fabric" in result.reply


@pytest.mark.parametrize(
    ("question", "fabric"),
    [
        ("what if ethernet", "Ethernet"),
        ("and on RoCE?", "RoCEv2"),
        ("does that change with ethernet?", "Ethernet"),
        ("would it be different on RoCE?", "RoCEv2"),
    ],
)
def test_an_elliptical_what_if_on_another_fabric_resizes_the_design(design, question, fabric):
    result = service.ask(question, design.profile, context=design.context)
    assert result.kind == AskKind.recommendation
    assert fabric in result.recommendation.fabric.name and fabric not in design.recommendation.fabric.name


def test_a_question_about_a_setting_on_another_fabric_resizes_nothing(design):
    assert service.ask("does PFC differ on ethernet?", design.profile, context=design.context).kind == AskKind.answer


def test_a_tier_named_alone_after_a_design_is_answered_from_it(design):
    result = service.ask("and the spine?", design.profile, context=design.context)
    assert result.kind == AskKind.design_answer and "Switches:" in result.reply


def test_an_elliptical_link_speed_is_a_what_if_on_the_design():
    b300 = service.ask("512 B300 for training")
    slower = service.ask("and at 400G?", b300.profile, context=b300.context)
    assert slower.kind == AskKind.recommendation and slower.recommendation.fabric.link_gbps == 400


def test_an_all_reduce_latency_asked_beside_a_request_is_the_time_per_all_reduce():
    result = service.ask(
        "Size an InfiniBand fabric for 36 DGX B200 for training, and state the expected all-reduce latency."
    )
    assert result.kind == AskKind.recommendation and "**All-reduce latency:**" in result.reply


def test_a_count_question_asked_where_the_count_is_given_is_a_question():
    # "2 node test ... push??" asks, in the clause that gives the count; no count is asked
    # of a design, so the knowledge base answers it
    result = service.ask(
        "on a 2 node test all_reduce_perf reports busbw higher than what the nics can physically push?? is nccl lying"
    )
    assert result.kind == AskKind.answer
    assert result.answer is not None and not result.answer.topic.startswith("Sized for")


@pytest.mark.parametrize(
    "text", ["ballpark power for a single nvl72 rack", "how much power does one GB200 NVL72 rack draw?"]
)
def test_a_figure_of_one_server_or_rack_is_the_things_own_figure_not_a_cluster_to_size(text):
    result = service.ask(text)
    assert result.kind == AskKind.answer and result.decided_by in ("one_unit_asked", "question", "guide_figure")
    assert "kW" in result.reply


def test_one_rack_for_a_named_workload_is_still_sized():
    assert service.ask("one nvl72 rack for inference").kind == AskKind.recommendation


def test_who_asks():
    decision, _, _ = service.understand_message("whos actually running one")
    assert decision.want != Want.sizing
    assert service.ask("who does the routing in an ib fabric?").kind == AskKind.answer


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ("h100 x 12288 training on roce, need pfc/ecn guidance too", "ECN"),
        (
            "We will train on 128 HGX H200 systems. Please recommend the fabric and the NCCL settings we should start from.",
            "NCCL",
        ),
    ],
)
def test_guidance_or_settings_asked_beside_a_request_are_answered_beside_the_design(text, said):
    result = service.ask(text)
    assert result.kind == AskKind.recommendation
    side = result.reply[result.reply.index("You also asked") :]
    assert said in side


@pytest.mark.parametrize(
    ("follow_up", "said"),
    [
        ("nics per server?", "**NICs:**"),
        ("oversub?", "**Oversubscription:**"),
        ("latency between nodes?", "per switch hop"),
    ],
)
def test_short_design_questions_are_answered_from_the_design(design, follow_up, said):
    result = service.ask(follow_up, design.profile, design.recommendation.id, design.context)
    assert result.kind == AskKind.design_answer and said in result.reply


def test_the_latency_sharp_and_oversubscription_what_if_lines_carry_their_sources(design):
    rec = design.recommendation.id
    latency = service.ask("latency between nodes?", design.profile, rec).reply
    sharp = service.ask("and with SHARP enabled?", design.profile, rec).reply
    ratio = service.ask("what if we did 2:1 at the leaf?", design.profile, rec).reply
    assert "switch hop" in latency and "InfiniBand vs. Ethernet Comparison" in latency
    assert "SHARP" in sharp and "(Source: NVIDIA Scalable Hierarchical Aggregation" in sharp
    assert "At 2:1 at the leaves" in ratio and "SIGCOMM 2024" in ratio


@pytest.mark.parametrize(
    "proposal",
    [
        "what if we did 2:1 at the leaf",
        "could we do 2:1 to save money",
        "Would a 2:1 taper at the leaf layer save much?",
    ],
)
def test_a_ratio_proposed_for_the_leaves_gives_the_design_with_what_the_taper_takes_out(design, proposal):
    """A what-if on the design: the (non-blocking) design again, led by what 2:1 would do,
    counted (spines and leaf-to-spine links halved, leaves and server links kept)."""
    result = service.ask(proposal, design.profile, design.recommendation.id, design.context)
    assert result.kind == AskKind.recommendation and result.decided_by == "what_if_on_design"
    ratio_line = result.reply.index("At 2:1 at the leaves:")
    assert ratio_line < result.reply.index("**Recommendation:")
    assert result.recommendation is not None  # "to save money" may also ask for the cheaper fabric
    spines = result.recommendation.topology.spine_switches
    assert f"about {-(-spines // 2):,} spine switches instead of {spines:,}" in result.reply


def test_a_growth_after_a_design_resizes_it():
    first = service.ask("128 h100 for training")
    grown = service.ask("what about 16 more nodes?", first.profile, first.recommendation.id, first.context)
    assert grown.kind == AskKind.recommendation and grown.recommendation.profile.gpu_count == 256


def test_a_build_stated_with_a_question_beside_it_is_sized_not_answered_from_the_guide():
    # the count is in a statement ("100k h100s, colossus style build."), the questions are
    # beside it: the build is sized (its workload asked for) and the tier question answered
    result = service.ask(
        "100k h100s, colossus style build. 3 tier? what does the top layer even look like at that size"
    )
    assert result.kind == AskKind.clarification and result.profile.gpu_count == 100_000
    assert result.answer is not None and result.reply.index("To size the network I still need") > 0


def test_a_figure_asked_where_the_count_is_given_is_still_the_guides_figure():
    result = service.ask("what does an InfiniBand fabric for 16 DGX H100 cost?")
    assert result.kind == AskKind.answer and result.decided_by == "guide_figure"
