"""Counts done with the question's own numbers (knowledge.counting), through
knowledge.calculation as every channel asks it."""

from __future__ import annotations

import pytest

from knowledge import calculation


@pytest.mark.parametrize(
    ("question", "lead"),
    [
        ("how many DGX H100 fit in a 40 kW rack at 10.2 kW each", "3 DGX H100"),
        (
            "how many 64-port switches for a non-blocking two tier fabric with 1024 endpoints",
            "48 switches in two tiers",
        ),
        ("how many 64-port switches does a non-blocking fabric for 4096 gpus need", "320 switches in three tiers"),
        ("how many transceivers does 256 node-leaf links with optics on both ends need", "512 transceivers"),
        ("8 nodes x 8 gpus x 400G, total injection bandwidth in Tb/s", "25,600 Gb/s (25.6 Tb/s; 3.2 TB/s)"),
        (
            "if each GPU has a 400G NIC, what's the aggregate bandwidth of 512 GPUs",
            "204,800 Gb/s (204.8 Tb/s; 25.6 TB/s)",
        ),
        ("power of 96 switches at 1.7 kW each", "163,200 W (163.2 kW)"),
        ("what's the bus bandwidth if algbw is 100 GB/s for all-reduce on 16 gpus", "About 187.5 GB/s"),
    ],
)
def test_a_count_asked_with_its_own_numbers_leads_with_the_result(question: str, lead: str) -> None:
    found = calculation(question)
    assert found is not None and found.text.startswith(lead), found.text if found else None


@pytest.mark.parametrize(
    "question",
    [
        "what is a fat tree",
        "how many switches does a DGX SuperPOD have",
        "do transceivers fail often",
        "how many GPUs fit in an NVL72 rack",
    ],
)
def test_a_question_without_the_numbers_of_a_count_gets_no_sum(question: str) -> None:
    assert calculation(question) is None


@pytest.mark.parametrize(
    ("question", "lead"),
    [
        ("all_gather_perf on 16 ranks shows algbw 40 gb/s. busbw?", "About 37.5 GB/s"),
        ("alltoall_perf on 8 gpus says algbw 50 gb/s, what busbw should it print", "About 43.75 GB/s"),
        (
            "A GB300 NVL72 rack gives each of its 72 GPUs an 800 Gb/s ConnectX-8. What is the rack's total scale-out "
            "bandwidth?",
            "57,600 Gb/s (57.6 Tb/s; 7.2 TB/s)",
        ),
    ],
)
def test_each_collective_has_its_own_busbw_factor_and_each_of_n_things_totals(question: str, lead: str) -> None:
    found = calculation(question)
    assert found is not None and found.text.startswith(lead), found.text if found else None


@pytest.mark.parametrize(
    ("question", "total"),
    [
        ("How many GB/s is 8 x 400G NICs?", "3,200 Gb/s (3.2 Tb/s; 400 GB/s)"),
        ("what's the aggregate bandwidth of 64 ports at 800G?", "51,200 Gb/s (51.2 Tb/s; 6.4 TB/s)"),
        ("32 400G uplinks, total bandwidth in Tb/s?", "12,800 Gb/s (12.8 Tb/s; 1.6 TB/s)"),
        ("If each of 128 GPUs has a 400 Gb/s NIC, what's the total injection bandwidth in TB/s?", "6.4 TB/s"),
    ],
)
def test_the_total_rate_of_a_number_of_links_is_counted_in_bits_and_bytes(question: str, total: str) -> None:
    entry = calculation(question)
    assert entry is not None and total in entry.text.split(" = ")[0]


@pytest.mark.parametrize(
    "question",
    [
        "we have 64 servers with 8 x 400G NICs each, how many leaf switches?",  # a cluster to size, not a rate
        "what's the bisection bandwidth of 64 nodes with 8 x 400G each?",  # a cluster-wide figure
    ],
)
def test_links_named_beside_another_question_are_not_added_up(question: str) -> None:
    entry = calculation(question)
    assert entry is None or (entry.id != "calculation-rate-product" and " x:" not in entry.text)


def test_several_kinds_of_part_each_with_its_draw_are_added_up_not_the_first_alone() -> None:
    entry = calculation(
        "If each of 20 switches draws 1,500 W and each of 1,000 transceivers draws 15 W, what is the total power?"
    )
    assert entry is not None and entry.text.startswith("45,000 W")
