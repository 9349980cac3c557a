"""Odd input never raises, and always gives a valid profile."""

from __future__ import annotations

import time

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rules.models import ProfileDraft
from understanding.extraction import Extraction, extract

ODD = [
    "",
    " ",
    "\n\n\t",
    "?",
    "....",
    "GPU" * 5000,
    "128 " * 20_000,
    "x" * 300_000,
    "😀 128 H100s 🚀 für Training, ¿qué tal? 日本語 ١٢٨",
    "\x00\x01\x02 64 GPUs \x7f",
    "\ud800 lone surrogate 8 GPUs",
    "$$$ $ $4M$ $$",
    "----- --- - 8 - - GPUs",
    "9" * 400 + " GPUs",
    "1e308 GPUs and 1e309 dollars",
    "NaN GPUs, inf budget",
    "a a a a a dozen dozen dozen",
    "and and and - - - hundred and and",
    "DGX DGX H100 H100 x x x 8 8 8",
]


@pytest.mark.parametrize("text", ODD, ids=range(len(ODD)))
def test_odd_input_does_not_raise(text):
    result = extract(text)
    assert isinstance(result, Extraction)
    ProfileDraft.model_validate(result.profile.model_dump())
    for span in result.spans:
        assert text[span.start : span.end] == span.text


@pytest.mark.parametrize("value", [None, 128, b"64 GPUs", ["64 GPUs"]])
def test_non_strings_are_tolerated(value):
    assert isinstance(extract(value), Extraction)


def test_empty_text_gives_an_empty_profile():
    result = extract("")
    assert result.profile == ProfileDraft() and result.spans == []


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.text(alphabet=st.characters(), max_size=200))
def test_any_text_gives_a_valid_extraction(text):
    result = extract(text)
    ProfileDraft.model_validate(result.profile.model_dump())
    for span in result.spans:
        assert 0 <= span.start <= span.end <= len(text)
        assert text[span.start : span.end] == span.text


WORDS = [
    "8",
    "64",
    "1,024",
    "16k",
    "GPUs",
    "nodes",
    "x",
    "per",
    "node",
    "DGX",
    "H100",
    "each",
    "with",
    "$",
    "4M",
    "budget",
    "70B",
    "training",
    "serving",
    "RoCE",
    "InfiniBand",
    "prefer",
    "not",
    "no",
    "a",
    "dozen",
    "sixty",
    "-",
    "four",
    "racks",
    "of",
    ",",
    ".",
    "?",
    "already",
    "400GbE",
]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(WORDS), max_size=25))
def test_random_domain_word_salad_gives_a_valid_extraction(words):
    text = " ".join(words)
    result = extract(text)
    ProfileDraft.model_validate(result.profile.model_dump())
    for span in result.spans:
        assert text[span.start : span.end] == span.text


@pytest.mark.parametrize(
    "text",
    [
        "sixty-four " * 9000,
        "one two three four " * 5000,
        "a dozen a couple " * 5000,
        "8 x 8 x " * 8000,
        "we prefer we prefer " * 5000,
        "128 GPUs, 8 nodes, budget is tight. " * 3000,
    ],
    ids=["number-words", "unit-words", "groups", "products", "cues", "sentences"],
)
def test_long_repetitive_text_is_read_in_bounded_time(text):
    started = time.perf_counter()
    extract(text)
    assert time.perf_counter() - started < 10  # about 0.5 s on an idle core; text past 20,000 characters is not read
