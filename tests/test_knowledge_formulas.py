"""Sums done with the question's own numbers (knowledge.formulas): the reply leads with
the result, then the formula and its source."""

import pytest

from knowledge import calculation, formulas
from knowledge.formulas import allreduce_time, fat_tree_capacity


@pytest.mark.parametrize(
    "question, lead",
    [
        ("all-reduce of a 1 GB buffer across 8 GPUs at a busbw of 100 GB/s, how long?", "About 17.5 ms"),
        ("rough time to allreduce 14 GB of grads over 400g per gpu", "About 0.56 s (560 ms)"),
        ("how long is one all-reduce of a 7B model's bf16 gradients over 400 Gb/s links?", "About 0.56 s"),
        ("allreduce time for 70B params in fp32 at 800G", "About 5.6 s"),
        ("all-reduce 512 MB across 2 GPUs at 50 GB/s", "About 10.2 ms"),
    ],
)
def test_an_allreduce_time_is_size_times_two_n_minus_one_over_n_over_bandwidth(question, lead):
    entry = allreduce_time(question)
    assert entry is not None
    assert entry.text.startswith(lead)
    assert "nccl-tests" in entry.source


@pytest.mark.parametrize(
    "question, lead",
    [
        ("with 128 port switches how many gpus can 2 tiers hold", "Two tiers of 128-port switches hold 8,192 hosts"),
        ("max GPUs in a 3-tier fat tree of 64-port switches?", "Three tiers of 64-port switches hold 65,536 hosts"),
        ("leaf/spine with switches of 32 ports: how many servers at most?", "Two tiers of 32-port switches hold 512"),
        (
            "2 tier leaf-spine, 64-port switches, how to split the leaf ports",
            "A non-blocking leaf of 64-port switches splits 32 down and 32 up",
        ),
    ],
)
def test_a_fat_tree_holds_k_squared_over_two_in_two_tiers_and_k_cubed_over_four_in_three(question, lead):
    entry = fat_tree_capacity(question)
    assert entry is not None
    assert entry.text.startswith(lead)
    assert "Al-Fares" in entry.source


@pytest.mark.parametrize(
    "question",
    [
        "what is an all-reduce?",
        "how many switches does a 2-tier fabric for 512 GPUs need?",  # a design's count, not a radix sum
        "how many ports does a QM9700 have",
        "does NCCL use ring or tree all-reduce on 400G InfiniBand?",
    ],
)
def test_a_question_without_the_numbers_of_a_sum_gets_no_calculation(question):
    assert calculation(question) is None


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        ("64 port leaf, 48 down 16 up, whats the ratio", "3:1:"),
        ("leaf w/ 64 ports, 40 to servers 24 up to spine, ratio?", "1.67:1 (5:3)"),
        ("we have 48 downlinks and 16 uplinks per leaf", "3:1:"),
        ("32 down and 32 up on each leaf", "non-blocking"),
    ],
)
def test_a_leafs_oversubscription_is_its_ports_down_over_its_ports_up(question, expected):
    found = calculation(question)
    assert found is not None and found.title == "Leaf oversubscription from its port split"
    assert found.text.startswith(expected) or expected in found.text


def test_bus_bandwidth_is_algorithm_bandwidth_times_2_n_minus_1_over_n():
    found = calculation("all_reduce_perf shows an algbw of 50 GB/s on 16 ranks, what busbw is that?")
    assert found is not None and "93.75 GB/s" in found.text


def test_ring_traffic_per_gpu_for_n_ranks_is_given_without_a_buffer():
    found = calculation("ring all-reduce with 8 ranks, how much does each GPU send?")
    assert found is not None and "7/4 = 1.75" in found.text


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        ("Will Llama 3.1 405B in BF16 fit on one server of 8 x H100 80 GB?", "810 GB"),
        ("and fp8? (405b)", "405 GB"),
        ("70B in fp32", "280 GB"),
    ],
)
def test_model_weights_are_parameters_times_the_bytes_of_their_precision(question, expected):
    found = calculation(question)
    assert found is not None and found.text.startswith(f"About {expected} of weights")


def test_weights_larger_than_the_gpus_named_are_said_not_to_fit():
    found = calculation("Will Llama 3.1 405B in BF16 fit on one server of 8 x H100 80 GB?")
    assert found is not None and "8 x 80 GB = 640 GB: it does not fit" in found.text


def test_a_model_size_written_in_words_gives_its_gradients_at_a_precision():
    hit = calculation(
        "How many bytes of gradients must be all-reduced per step for a 7-billion-parameter model trained in BF16?"
    )
    assert hit is not None and "one per parameter too: about 14 GB" in hit.text


@pytest.mark.parametrize(
    "question, expected",
    [
        # the bus bandwidth given, the algorithm bandwidth and the time asked
        (
            "busbw of 180 GB/s at 8 GB on 64 GPUs, what algbw and how long?",
            ["About 91.43 GB/s of algorithm", "87.5 ms"],
        ),
        # the algorithm bandwidth given, the bus bandwidth asked
        ("we see an algbw of 50 GB/s on 16 ranks; what busbw is that?", ["About 93.75 GB/s"]),
    ],
)
def test_either_nccl_tests_bandwidth_is_found_from_the_other(question, expected):
    text = calculation(question).text
    assert all(part in text for part in expected)


def test_nccl_tests_rates_and_buffers_in_lower_case_are_bytes():
    """nccl-tests reports GB/s; "busbw is 45 gb/s" is not 45 gigabits, and "a 16 gb allreduce" is a buffer."""
    assert calculation("busbw is 45 gb/s on 64 gpus, how long does a 16 gb allreduce take").text.startswith(
        "About 0.7 s"
    )
    assert "7.75 GB of a 4 GB buffer" in calculation("ring all-reduce of a 4 gb buffer over 32 gpus, bytes sent?").text
    # a link's speed in lower case is no buffer
    assert "2 GB x" in calculation("allreduce over 400gb links of 2 GB on 16 gpus at 400 Gb/s").text


def test_each_gpus_gradient_is_the_models_over_its_tensor_and_pipeline_degrees():
    text = calculation("tp 8, pp 4 on a 70b model in bf16: how many bytes of gradient per gpu?").text
    assert "each GPU all-reduces about 4.375 GB" in text


@pytest.mark.parametrize(
    "question, lead",
    [
        ("2:1 at the leaf on a 64 port switch, how many down vs up?", "43 ports down and 21 up"),
        ("3:1 oversubscription with 128-port switches, how do I split the ports", "96 ports down and 32 up"),
    ],
)
def test_a_leaf_splits_its_ports_by_the_oversubscription_asked(question, lead):
    assert calculation(question).text.startswith(lead)


@pytest.mark.parametrize(
    ("question", "total"),
    [
        ("If 512 transceivers each draw 17 W, what is their total power?", "8,704 W (8.704 kW)"),
        ("a box with 4 nics at 800g each = how much bandwidth per node", "3,200 Gb/s (3.2 Tb/s; 400 GB/s)"),
        ("48 leaves, each with 16 uplinks: how many cables in all?", "768 uplinks"),
    ],
)
def test_a_total_of_things_that_each_draw_or_carry_the_same_is_their_product(question: str, total: str) -> None:
    entry = formulas.calculation(question)
    assert entry is not None and entry.text.startswith(total)


def test_a_count_of_things_each_with_something_is_no_sum_unless_a_total_is_asked() -> None:
    assert formulas.product_total("we have 32 nodes with 8 gpus each") is None


@pytest.mark.parametrize(
    ("question", "received"),
    [("an all-gather of 4 GB total output on 32 GPUs: how much does each GPU receive?", "3.875 GB")],
)
def test_an_all_gather_moves_n_minus_one_over_n_of_the_buffer_to_each_gpu(question: str, received: str) -> None:
    entry = formulas.calculation(question)
    assert entry is not None and received in entry.text and "31/32" in entry.text


def test_a_long_transfer_is_told_in_hours_and_a_petabyte_is_read_as_a_size() -> None:
    entry = calculation("how many hours is 1 PB at 100 GB/s?")
    assert entry is not None and entry.text.startswith("About 10,000 s (2.78 hours)")
    assert "1,000,000 GB" in entry.text and "e+" not in entry.text
