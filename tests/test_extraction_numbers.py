"""Numbers: how they are read, and the numbers that are not GPU or server counts."""

from __future__ import annotations

import pytest

from understanding.extraction import extract
from understanding.extraction.numerals import NumberReader
from understanding.extraction.resources import load
from understanding.extraction.tokens import split_word


@pytest.fixture(scope="module")
def reader() -> NumberReader:
    return NumberReader(load("numbers"))


@pytest.mark.parametrize(
    ("words", "value"),
    [
        ("1,024", 1024),
        ("2.5 mm", 2.5e6),
        ("16 k", 16_000),
        ("70 - billion", 70e9),
        ("sixty - four", 64),
        ("thirty two", 32),
        ("three thousand", 3000),
        ("twelve hundred", 1200),
        ("a hundred and twenty - eight", 128),
        ("two hundred and fifty - six", 256),
        ("a dozen", 12),
        ("half a dozen", 6),
        ("a couple", 2),
        ("a single", 1),
        ("half a million", 500_000),
        ("nine hundred grand", 900_000),
        ("1.8 trillion", 1.8e12),
    ],
)
def test_number_phrases_are_read(reader, words, value):
    assert reader.read(words.split()).value == pytest.approx(value)


@pytest.mark.parametrize("words", ["four and eight", "hundred", "thousand", "a grand", "half", "twenty thirty"])
def test_word_runs_that_are_not_one_number_are_refused(reader, words):
    assert reader.read(words.split()) is None


@pytest.mark.parametrize(
    ("word", "pieces"),
    [
        ("8xH100", ["8", "x", "H100"]),
        ("2k+", ["2", "k", "+"]),
        ("400GbE", ["400", "GbE"]),
        ("~$30M", ["~", "$", "30", "M"]),
        ("70B.", ["70", "B", "."]),
        ("L40S.", ["L40S", "."]),
        ("1,024", ["1,024"]),
        ("2nd", ["2nd"]),
        ("H100s", ["H100s"]),
        ("e.g.", ["e.g."]),
    ],
)
def test_numbers_glued_to_units_are_split(word, pieces):
    assert split_word(word) == pieces


@pytest.mark.parametrize(
    "text",
    [
        "We already run 400GbE.",
        "How many 400G ports does a QM9700 have?",
        "We want a 70B model.",
        "Our budget is $4M.",
        "In 2025 we will expand the fabric.",
        "We use 8 rails and 64-port switches.",
        "We have 16 TB of NVMe per node.",
        "RoCE loses 20% of throughput.",
        "a 3-tier fat tree with radix 64",
        "Each node has 2 x 100GbE for storage.",
        "We pretrain on 15 trillion tokens.",
        "10k requests per second",
        "H100 80GB",
        "4 SU SuperPOD",
    ],
)
def test_numbers_that_are_not_gpu_counts_stay_out(text):
    found = extract(text).profile
    assert found.gpu_count is None and found.node_count is None and found.gpus_per_node is None


@pytest.mark.parametrize("text", ["0 GPUs", "5 million GPUs", "2.5 GPUs", "100 GPUs per node"])
def test_counts_outside_the_contract_are_dropped_not_raised(text):
    found = extract(text).profile
    assert found.gpu_count is None and found.gpus_per_node is None


def test_a_value_over_the_limit_does_not_hide_the_rest():
    found = extract("10 million GPUs for training with a 70B model").profile
    assert found.gpu_count is None
    assert found.workload == "training" and found.model_params_b == 70
