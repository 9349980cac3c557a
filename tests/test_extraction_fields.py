"""Each detail the extractor reads, in the ways customers write it."""

from __future__ import annotations

import pytest

from rules.models import ProfileDraft
from understanding.extraction import extract


def profile(text: str) -> dict:
    return extract(text).profile.model_dump(exclude_none=True, mode="json")


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("We will pretrain a 70B model", "training"),
        ("LoRA fine-tuning of Llama", "training"),
        ("distributed training across nodes", "training"),
        ("continued pre-training on our data", "training"),
        ("real-time inference for a chatbot", "inference"),
        ("batch inference overnight", "inference"),
        ("serving Llama 3 with vLLM", "inference"),
        ("deploying Llama 3.1 8B for customer support chat", "inference"),
        ("we expect 200 requests per second", "inference"),
        ("we train by day and serve at night", "mixed"),
        ("mixed workload on one cluster", "mixed"),
        ("both training and inference", "mixed"),
        ("we only do inference, no training", "inference"),
        # the use a cluster leaves is not its workload
        ("384 A100 that we are repurposing from training to inference", "inference"),
        ("moving the nodes from inference over to training", "training"),
        ("not for training - strictly serving", "inference"),
        ("we serve a fine-tuned 8B model", "inference"),  # a trained model is served, not trained
        ("mixed-precision training", "training"),
    ],
)
def test_workload_is_read_from_its_cue_words(text, expected):
    assert profile(text).get("workload") == expected


@pytest.mark.parametrize(
    "text",
    ["How many spine switches serve 32 nodes?", "What is the time to train on RoCE?", "What is PFC?"],
)
def test_words_that_only_look_like_workload_cues_give_no_workload(text):
    assert "workload" not in profile(text)


@pytest.mark.parametrize(
    ("text", "gpus"),
    [
        ("a cluster of 1,024 GPUs", 1024),
        ("16k GPUs for a frontier model", 16_000),
        ("1k B200s", 1000),
        ("1.5k H100 GPUs", 1500),
        ("sixty-four A100s", 64),
        ("three thousand GPUs", 3000),
        ("two hundred and fifty-six GPUs", 256),
        ("a dozen GPUs", 12),
        ("~512 GPUs", 512),
        ("2,000+ GPUs", 2000),
        ("128x H100", 128),
        ("a 1,024-GPU cluster", 1024),
        ("GPU count: 512", 512),
        ("between 128 and 256 GPUs", 256),  # sized for the larger
    ],
)
def test_gpu_count_from_digits_suffixes_and_words(text, gpus):
    assert profile(text)["gpu_count"] == gpus


@pytest.mark.parametrize(
    ("text", "nodes", "per_node", "gpus"),
    [
        ("8 nodes x 8 GPUs", 8, 8, 64),
        ("12 servers with 4 GPUs each", 12, 4, 48),
        ("16 nodes of 8 GPUs", 16, 8, 128),
        ("256 GPUs across 32 nodes", 32, 8, 256),
        ("32 hosts, 8 GPUs/host", 32, 8, 256),
        ("40 8-GPU servers", 40, 8, 320),
        ("16 x 8 H100", 16, 8, 128),
        ("each server has 8 GPUs and we have 20 of those servers", 20, 8, 160),
        ("16 nodes with 128 GPUs total", 16, 8, 128),  # 128 is too many for one server
        ("256 GPUs, 8 per node", 32, 8, 256),
        ("10 racks, 4 servers per rack, 8 GPUs per server", 40, 8, 320),
    ],
)
def test_node_and_per_node_counts_multiply_into_gpu_count(text, nodes, per_node, gpus):
    found = profile(text)
    assert (found.get("node_count"), found.get("gpus_per_node"), found.get("gpu_count")) == (nodes, per_node, gpus)


def test_nodes_alone_give_node_count_only():
    assert profile("32 servers") == {"node_count": 32}


@pytest.mark.parametrize(
    ("text", "nodes", "per_node", "gpus", "model"),
    [
        ("2 DGX H200", 2, 8, 16, "H200"),
        ("16 DGX H100s", 16, 8, 128, "H100"),
        ("a dozen DGX B200 systems", 12, 8, 96, "B200"),
        ("DGX H100 x 32", 32, 8, 256, "H100"),
        ("a 16-node DGX H100 cluster", 16, 8, 128, "H100"),
        ("4 HGX B200 servers", 4, 8, 32, "B200"),
        ("two GB200 NVL72 racks", 36, 4, 144, "GB200"),  # a rack is 18 compute trays of 4 GPUs
    ],
)
def test_systems_give_nodes_and_gpus_from_the_catalogue(text, nodes, per_node, gpus, model):
    found = profile(text)
    assert (found["node_count"], found["gpus_per_node"], found["gpu_count"], found["gpu_model"]) == (
        nodes,
        per_node,
        gpus,
        model,
    )


def test_a_system_named_without_a_count_gives_only_its_gpu_model():
    assert profile("How many ports per server does a DGX H100 need?") == {"gpu_model": "H100"}


@pytest.mark.parametrize(
    ("text", "model"),
    [
        ("128 H100s", "H100"),
        ("40 L40S", "L40S"),  # not the plural of L40
        ("40 L40 GPUs", "L40"),
        ("256 AMD Instinct MI300X accelerators", "MI300X"),
        ("64 NVIDIA H100 SXM5 GPUs", "H100"),
        ("48 RTX 6000 Ada GPUs", "RTX 6000 Ada"),
        ("32 GH200 superchips", "GH200"),
        ("we run 128 MI250X today and will move to 256 MI300X", "MI300X"),  # the model of the count used
    ],
)
def test_gpu_model_is_the_canonical_name(text, model):
    assert profile(text)["gpu_model"] == model


def test_l4_needs_gpu_context_because_it_is_also_layer_4():
    assert "gpu_model" not in profile("Do we need an L4 load balancer in front?")
    assert profile("24 L4 GPUs for video")["gpu_model"] == "L4"


@pytest.mark.parametrize(
    ("text", "billions"),
    [
        ("a 70B model", 70),
        ("serving a 405b model", 405),
        ("7B", 7),
        ("175 billion parameters", 175),
        ("a 70-billion-parameter model", 70),
        ("1.8 trillion parameters", 1800),
        ("Our model will be 1.8 trillion", 1800),
        ("a 100M parameter model", 0.1),
        ("Llama-3.1-70B", 70),
        ("Mistral 7B and Llama 70B", 70),  # the largest model
    ],
)
def test_model_size_is_in_billions_of_parameters(text, billions):
    assert profile(text)["model_params_b"] == pytest.approx(billions)


@pytest.mark.parametrize(
    "text",
    ["with 128 port switches (51.2T at 400g) how many gpus can 2 tiers hold", "a 25.6T switch for 64 gpus"],
)
def test_a_switch_capacity_in_terabits_is_no_model_size(text):
    assert "model_params_b" not in profile(text)


@pytest.mark.parametrize(
    ("text", "dollars"),
    [
        ("budget $4M", 4_000_000),
        ("4 million dollars", 4_000_000),
        ("$500k", 500_000),
        ("2.5 million USD", 2_500_000),
        ("a budget of 800 thousand dollars", 800_000),
        ("$1.2MM capex", 1_200_000),
        ("budget is roughly 6 mil", 6_000_000),
        ("$12,000,000", 12_000_000),
        ("about half a million dollars", 500_000),
        ("Our budget for the entire build is 12 million.", 12_000_000),
    ],
)
def test_budget_in_dollars(text, dollars):
    assert profile(text)["budget_usd"] == pytest.approx(dollars)


@pytest.mark.parametrize("text", ["we have around €3M", "We could spend up to 2 million euros.", "budget £500k"])
def test_amounts_in_other_currencies_are_not_read_as_dollars(text):
    assert "budget_usd" not in profile(text)


@pytest.mark.parametrize(
    ("text", "sensitive"),
    [
        ("budget is tight", True),
        ("cost matters more than speed", True),
        ("we're on a shoestring budget", True),
        ("what's the cheapest option?", True),
        ("we need to keep costs down", True),
        ("we're very cost-sensitive", True),
        ("money is no object", False),
        ("cost is not a concern", False),
        ("budget isn't really an issue", False),
        ("performance matters more than cost", False),
        ("best performance regardless of cost", False),
        ("price doesn't matter", False),
        ("we're leaning Ethernet for cost reasons", True),
        ("the client wants cheap inference networking", True),
    ],
)
def test_cost_sensitivity_and_its_opposite(text, sensitive):
    assert profile(text)["cost_sensitive"] is sensitive


def test_asking_about_cost_is_not_cost_sensitivity():
    assert "cost_sensitive" not in profile("Is RoCE cheaper than InfiniBand?")


@pytest.mark.parametrize(
    ("text", "existing"),
    [
        ("we already run 400GbE", True),
        ("our existing network is all Ethernet", True),
        ("we have Arista spines in production today", True),
        ("we're currently on 25GbE", True),
        ("Current network: Arista 7050 100G.", True),
        ("it's a greenfield site", False),
        ("we don't have any Ethernet fabric yet", False),
    ],
)
def test_existing_ethernet(text, existing):
    assert profile(text)["existing_ethernet"] is existing


@pytest.mark.parametrize(
    "text", ["Can we use RoCE for training?", "We are an InfiniBand shop.", "Should we buy 400GbE?"]
)
def test_questions_about_ethernet_do_not_claim_it_is_installed(text):
    assert "existing_ethernet" not in profile(text)


@pytest.mark.parametrize(
    ("text", "fabric"),
    [
        ("we'd like to use RoCE", "rocev2"),
        ("we prefer InfiniBand", "infiniband"),
        ("it must be Ethernet", "ethernet"),
        ("we're leaning towards NDR", "infiniband_ndr"),
        ("we want 800G XDR InfiniBand", "infiniband_xdr"),
        ("our preference is HDR InfiniBand", "infiniband_hdr"),
        ("IB is a must", "infiniband"),
        ("RoCE preferred", "rocev2"),
        ("Ethernet is non-negotiable", "ethernet"),
        ("we'd rather go with Ethernet and RoCEv2", "rocev2"),  # the more specific fabric
        ("we would rather use InfiniBand over RoCE", "infiniband"),
        ("64 GPUs, Ethernet only", "ethernet"),
        ("fabric: InfiniBand NDR", "infiniband_ndr"),
        ("We need InfiniBand. 128 nodes.", "infiniband"),
        # the fabric a request asks to be sized, terse or polite
        ("Please size an InfiniBand fabric for 768 H200 GPUs", "infiniband"),
        ("Could you size a RoCEv2 fabric for 128 MI300X GPUs?", "rocev2"),
        ("What InfiniBand layout would you recommend for 12 DGX B200?", "infiniband"),
        ("2048 b300 pretraining, ib, and is rail-only worth it?", "infiniband"),
        ("gb200 16 racks training ib", "infiniband"),
        ("h200 256 gpus rocev2, what pfc settings?", "rocev2"),
        ("40 servers of 8 h100, training. eth preferred", "ethernet"),
        # what they have is not what they ask for
        ("We want to extend our existing Ethernet estate with 256 B200. Please propose a RoCE design.", "rocev2"),
        ("640 h200 mixed workloads, we're cost sensitive, roce ok", "rocev2"),
        ("4096 h100 training, spectrum-x ethernet, whats the bom", "rocev2"),
        ("What would the InfiniBand scale-out fabric look like?", "infiniband"),
        # the work or the GPUs on a fabric
        ("h100 x 12288 training on roce, need pfc/ecn guidance too", "rocev2"),
        ("1024 H100 over RoCE for training", "rocev2"),
    ],
)
def test_stated_fabric_preference(text, fabric):
    assert profile(text)["prefer"] == fabric


@pytest.mark.parametrize(
    "text",
    [
        "We don't want InfiniBand.",
        "Should we use InfiniBand or RoCE?",
        "Do I need InfiniBand for my GPU cluster?",
        "Is InfiniBand required for training?",
        "What would InfiniBand NDR cost?",
        "I have 8 GPUs in one server, do I need InfiniBand?",
        # fabrics listed side by side are options, not a choice
        "256 h100 training, infiniband or ethernet?",
        "compare ib, roce and ethernet for 256 h100 training",
        "Can you tell me whether 256 h100 training needs ib?",
    ],
)
def test_questions_and_refusals_are_not_preferences(text):
    assert "prefer" not in profile(text)


@pytest.mark.parametrize(
    "text, expecting, field, value",
    [
        ("128", "gpu_count", "gpu_count", 128),
        ("we have about 200", "gpu_count", "gpu_count", 200),
        ("sixteen", "node_count", "node_count", 16),
        ("what about 1024?", "gpu_count", "gpu_count", 1024),
    ],
)
def test_a_bare_number_answers_the_count_the_conversation_asked_for(text, expecting, field, value):
    assert getattr(extract(text, expecting=expecting).profile, field) == value
    assert extract(text).profile.model_dump(exclude_none=True) == {}  # asked for nothing, it says nothing


@pytest.mark.parametrize("text", ["0", "5000000", "70B", "$500k", "between 64 and 128"])
def test_a_reply_that_is_not_one_usable_count_gives_no_count(text):
    profile = extract(text, expecting="gpu_count").profile
    assert profile.gpu_count is None or (text == "between 64 and 128" and profile.gpu_count == 128)


def test_a_hypothetical_states_a_flag_and_a_bare_question_does_not():
    assert extract("what if the budget is tight?").profile.cost_sensitive is True
    assert extract("Budget tight? Not really, performance first.").profile.cost_sensitive is False


def test_a_size_out_of_range_is_reported_as_rejected_not_used():
    result = extract("training on 0 GPUs, 100 GPUs per node")
    assert result.profile.gpu_count is None and result.profile.gpus_per_node is None
    assert [(r.field, r.text) for r in result.rejected] == [
        ("gpu_count", "0 GPUs"),
        ("gpus_per_node", "100 GPUs per node"),
    ]
    assert extract("128 GPUs").rejected == []


@pytest.mark.parametrize(
    ("text", "factor"),
    [
        ("what if we double it?", 2),
        ("What if we doubled the cluster?", 2),
        ("twice as many GPUs", 2),
        ("what if the GPU count doubled?", 2),
        ("what if we triple the number of servers", 3),
        ("we will quadruple capacity", 4),
        ("3x the GPUs", 3),
        ("what if it was 4x bigger?", 4),
        ("a 10-fold scale-up", 10),
        ("half as many nodes", 0.5),
        ("what about half the size?", 0.5),
        ("halve it", 0.5),
        ("what would 4x that cost", 4),
        ("what would 4 times that cost", 4),
        ("twice that", 2),
        ("what if 4x as many", 4),
    ],
)
def test_a_relative_size_is_read_as_a_factor(text, factor):
    result = extract(text, expecting="gpu_count")
    assert result.size_factor == factor
    assert result.profile.gpu_count is None  # "3x" is not three GPUs
    assert [span.field for span in result.spans] == ["size_factor"]


@pytest.mark.parametrize(
    "text",
    [
        "What if we doubled to 512 GPUs?",  # the size itself is stated
        "Half our 256 GPUs will do training and the other half inference.",
        "half the GPUs serve inference",  # a share, not a new size
        "double the budget",
        "we need double the bandwidth",
        "half a dozen DGX H100s",
    ],
)
def test_a_share_a_stated_size_or_another_quantity_is_no_size_factor(text):
    assert extract(text).size_factor is None


def test_a_factor_scales_the_earlier_size_in_whole_servers():
    earlier = ProfileDraft(workload="training", gpu_count=128, node_count=16, gpus_per_node=8, gpu_model="H100")
    doubled = extract("what if we double it?").applied_to(earlier)
    assert (doubled.gpu_count, doubled.node_count, doubled.gpus_per_node) == (256, 32, 8)
    assert doubled.workload == "training" and doubled.gpu_model == "H100"
    halved = extract("and with half as many nodes, cost first?").applied_to(earlier)
    assert (halved.gpu_count, halved.node_count, halved.cost_sensitive) == (64, 8, True)
    # a stated size wins over the factor; too large a change is left out
    assert extract("what if we doubled to 512 GPUs?").applied_to(earlier).gpu_count == 512
    assert extract("1000x the GPUs").applied_to(ProfileDraft(gpu_count=100_000)).gpu_count == 100_000


@pytest.mark.parametrize(
    ("text", "count"),
    [("mi300x 512 training", 512), ("b200 1024, inference", 1024)],
)
def test_a_bare_count_right_after_the_model_is_the_gpu_count(text, count):
    assert profile(text)["gpu_count"] == count


@pytest.mark.parametrize("text", ["H100 80GB for training", "h100 2024 purchase"])
def test_a_number_after_the_model_that_says_nothing_of_use_is_no_count(text):
    assert "gpu_count" not in profile(text)


def test_a_gpu_model_we_have_no_data_for_is_reported_and_its_count_kept():
    result = extract("Could you design the network for 32 H900 GPUs?")
    assert result.profile.gpu_count == 32 and result.profile.gpu_model is None
    assert [(span.field, span.text) for span in result.rejected] == [("gpu_model", "H900")]
    assert extract("128 H100 GPUs").rejected == []


def test_nvl72_racks_of_a_named_gpu_are_that_gpus_racks():
    found = profile("We are considering 24 NVL72 racks of GB300 for training.")
    assert (found["gpu_model"], found["gpu_count"]) == ("GB300", 1728)
    assert profile("8 nvl72 racks for training")["gpu_model"] == "GB200"  # no GPU named: GB200 NVL72


@pytest.mark.parametrize(
    ("text", "fabric"),
    [
        ("2k gb200 for inference, we run arista so eth would be nice", "ethernet"),
        ("we got 5 nodes x 8 h100 for training a 13b, what ib switch", "infiniband"),
        ("4k h100 training cluster, roce w/ spectrum-x. how many tiers?", "rocev2"),
        ("3072 h100 llm pretraining. copy meta's pod design? roce", "rocev2"),
        ("48 l40s inference, cheapest possible eth", "ethernet"),
    ],
)
def test_a_fabric_stated_tersely_is_the_customers_preference(text, fabric):
    assert profile(text)["prefer"] == fabric


def test_fabrics_compared_in_a_request_are_options_not_a_preference():
    assert "prefer" not in profile("20k h100 training, ib vs roce whats cheaper at that scale")


@pytest.mark.parametrize(
    ("text", "field", "value"),
    [
        ("64 h100 for finetuning llama 70b, keep it cheap", "cost_sensitive", True),
        ("1536 gpus h100 trainign, ib", "workload", "training"),
        ("10 nodes of 8x b200 for post-training. existing dell/arista eth fabric", "existing_ethernet", True),
        ("size the network for 3 scalable units of DGX H100 (32 systems per unit) for training", "gpu_count", 768),
        ("serving at 10k QPS on 64 L40S", "workload", "inference"),
    ],
)
def test_terse_and_formal_forms_of_a_detail_are_read(text, field, value):
    assert profile(text)[field] == value


@pytest.mark.parametrize(
    ("text", "nodes", "gpus"),
    [
        ("4 scalable units of DGX H100 for training", 128, 1024),  # 32 per SU (H100 RA)
        ("a 4-SU DGX H100 SuperPOD for training", 128, 1024),
        ("2 SUs of DGX B200", 64, 512),  # 32 per SU (B200 RA)
        ("we have 2 SUs of DGX A100", 40, 320),  # 20 per SU (A100 RA)
        ("DGX GB200 x 2 scalable units", 288, 1152),  # 8 racks of 18 trays per SU (GB200 RA)
    ],
)
def test_scalable_units_of_a_system_without_a_count_take_the_reference_architectures_su(text, nodes, gpus):
    found = profile(text)
    assert (found["node_count"], found["gpu_count"]) == (nodes, gpus)


def test_pods_of_a_system_without_a_count_are_not_taken_for_scalable_units():
    assert "gpu_count" not in profile("4 pods of DGX H100 for training")


def test_rdma_queue_pairs_are_no_queries_per_second():
    assert "workload" not in profile("nccl env to spread a connection over more QPs for better ecmp")


@pytest.mark.parametrize("text", ["how big were Meta's Llama 3 training pods?", "is GPT 4 trained on infiniband"])
def test_a_models_version_number_is_no_gpu_count(text):
    found = extract(text, expecting="gpu_count").profile
    assert found.gpu_count is None and found.node_count is None


def test_such_racks_of_a_rack_scale_system_are_counted_as_its_racks():
    found = extract("size the scale-out fabric for eight such racks", known_model="GB200").profile
    assert (found.node_count, found.gpu_count) == (8, 576)


@pytest.mark.parametrize(
    ("text", "count", "unit"),
    [
        ("What if we added two more racks and used all four for training?", 2, "racks"),
        ("add 16 more nodes", 16, "nodes"),
        ("what if we add another 64 GPUs", 64, "gpus"),
        ("we're adding 4 more DGX systems next quarter", 4, "nodes"),
        ("what about 16 more nodes?", 16, "nodes"),
    ],
)
def test_a_growth_is_read_as_a_count_added_in_its_unit_and_no_bare_number_is_a_count(text, count, unit):
    result = extract(text, expecting="gpu_count")
    assert result.size_added is not None and (result.size_added.count, result.size_added.unit) == (count, unit)
    assert result.profile.gpu_count is None and result.profile.node_count is None  # "all four" is no GPU count


def test_racks_added_to_rack_scale_systems_grow_the_cluster_by_whole_racks():
    earlier = extract("two GB300 NVL72 racks for inference").profile
    grown = extract("what if we added two more racks?").applied_to(earlier)
    assert (earlier.gpu_count, grown.gpu_count) == (144, 288)


def test_servers_added_without_a_stated_server_shape_use_the_models_server():
    earlier = extract("128 h100 for training").profile
    assert extract("what about 16 more nodes?").applied_to(earlier).gpu_count == 256


def test_a_count_added_without_more_is_the_size_itself():
    result = extract("We want to add 256 H100 GPUs for inference and reuse Ethernet.")
    assert result.size_added is None and result.profile.gpu_count == 256
