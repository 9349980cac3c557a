"""Hostile text cannot stall or break the reading of a message.

Every regular expression the extractor, the knowledge search and the understanding hold
(module constants, and the ones compiled from their YAML data) runs over 100,000-character
adversarial strings: long runs of digits, `1x1x...`, repeated separators, whitespace,
unicode, nested brackets, and each pattern's own words repeated. A linear pattern takes
milliseconds; the 10-second time-out only catches a super-linear one (the quantity pattern
of knowledge/units.py took 16 s on 16,000 digits). Extraction and the service's
understanding are fed the same strings and arbitrary ones (hypothesis) and never raise.
"""

from __future__ import annotations

import dataclasses
import functools
import importlib
import inspect
import logging
import pkgutil
import re
import time
from collections.abc import Iterator
from types import ModuleType

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pydantic import BaseModel

from advisor import service
from advisor.models import MAX_QUESTION_CHARS
from understanding.extraction import extract
from understanding.extraction.extractor import MAX_CHARS, bounded
from understanding.extraction.pipeline import nlp
from understanding.extraction.tokens import split_word

#: the packages whose patterns read what people type
PACKAGES = ("understanding", "knowledge", "advisor")
SIZE = 100_000
#: a linear pattern needs milliseconds for 100,000 characters; only a super-linear one gets near this
TIME_OUT_S = 10.0
#: the whole understanding of a message (the extractor, the knowledge search with its sentence
#: embedding of up to 256 tokens) takes well under a second even for a capped 2,000
#: characters; a loaded 2-core machine can stretch that many times, a super-linear step far more
SERVICE_TIME_OUT_S = 60.0


def _adversarial(size: int = SIZE) -> dict[str, str]:
    def repeat(unit: str) -> str:
        return (unit * (size // len(unit) + 1))[:size]

    return {
        "digits": repeat("1"),
        "1x1x": repeat("1x"),
        "decimal dots": repeat("1."),
        "thousands commas": repeat("1,"),
        "digit dash": repeat("1-"),
        "digits then spaces": "1" + " " * size,
        "spaces then a mark": " " * size + "!",
        "spaced digits": repeat("1 "),
        "spaced dashes": "1" + repeat(" -"),
        "tabs and returns": repeat("1\t\r"),
        "newlines": repeat("\n"),
        "separators": repeat(",/;:"),
        "nested brackets": "(" * (size // 2) + ")" * (size // 2),
        "mixed brackets": repeat("[{(<"),
        "unicode": repeat("é—’ 𝟙"),
        "letters": repeat("x"),
        "letters and digits": repeat("a1"),
        "words": repeat("gb "),
        "hyphens": repeat("a-"),
        "markdown marks": repeat("**a ~~b _"),
        "open bold": repeat("**a "),
        "open strike": repeat("~~a "),
        "open italics": repeat("*a "),
        "open links": repeat("[a]( "),
        "rates": repeat("400G/"),
    }


ADVERSARIAL = _adversarial()


def _modules() -> Iterator[ModuleType]:
    for package in PACKAGES:
        module = importlib.import_module(package)
        yield module
        for info in pkgutil.walk_packages(module.__path__, package + "."):
            if info.name.endswith("__main__") or info.name == "cli.main":
                continue
            yield importlib.import_module(info.name)


def _patterns() -> dict[str, tuple[str, re.Pattern[str]]]:
    """Every compiled pattern our modules hold, by its source: module constants, and what
    the modules' data loaders (cached functions without parameters) return."""
    found: dict[str, tuple[str, re.Pattern[str]]] = {}
    seen: set[int] = set()

    def walk(value: object, where: str, depth: int) -> None:
        if id(value) in seen or depth > 6:
            return
        seen.add(id(value))
        if isinstance(value, re.Pattern):
            if isinstance(value.pattern, str):
                found.setdefault(value.pattern, (where, value))
        elif isinstance(value, dict):
            for key, item in value.items():
                walk(item, f"{where}[{key!r}]", depth + 1)
        elif isinstance(value, list | tuple | set | frozenset):
            for item in value:
                walk(item, where, depth + 1)
        elif isinstance(value, BaseModel) or (dataclasses.is_dataclass(value) and not isinstance(value, type)):
            for key, item in vars(value).items():
                walk(item, f"{where}.{key}", depth + 1)

    for module in list(_modules()):
        for name, value in vars(module).items():
            if isinstance(value, functools._lru_cache_wrapper) and value.__module__ == module.__name__:
                if inspect.signature(value).parameters:
                    continue
                value = value()
            walk(value, f"{module.__name__}.{name}", 0)
    return found


PATTERNS = _patterns()


def _own_words(pattern: str) -> list[str]:
    """The literal phrases of a pattern ("how many", "ports"): repeated, they make it try
    every position, the case that turns a careless `.*` quadratic."""
    plain = re.sub(r"\\[bBdDsSwW]|\\s[*+]", " ", pattern)
    phrases = sorted(set(re.findall(r"[A-Za-z][A-Za-z ]*[A-Za-z]", plain)))
    return phrases[:: max(1, len(phrases) // 12)]  # a dozen, spread over the pattern


def test_the_patterns_are_found() -> None:
    """The walk finds the patterns this file is about (else the test below checks nothing)."""
    where = {place.split("[")[0] for place, _ in PATTERNS.values()}
    assert {"knowledge.units._QUANTITY", "understanding.understand._COUNT", "knowledge.formulas._SIZE"} <= where
    assert any(place.startswith("understanding.query._terms") for place in where)  # from search_terms.yaml
    assert len(PATTERNS) > 50


@pytest.mark.timeout(300, method="thread")
@pytest.mark.parametrize("source", sorted(PATTERNS), ids=lambda s: PATTERNS[s][0][:60])
def test_every_pattern_on_user_text_runs_in_linear_time(source: str) -> None:
    where, pattern = PATTERNS[source]
    texts = dict(ADVERSARIAL)
    for phrase in _own_words(source):
        texts[f"{phrase!r} repeated"] = ((phrase + " ") * (SIZE // (len(phrase) + 1) + 1))[:SIZE]
    slow = {}
    for name, text in texts.items():
        started = time.perf_counter()
        for _ in pattern.finditer(text):
            pass
        elapsed = time.perf_counter() - started
        if elapsed > TIME_OUT_S:
            slow[name] = round(elapsed, 1)
    assert not slow, f"{where} ({source!r}) is super-linear on: {slow}"


def test_one_cap_for_every_channel() -> None:
    """The extractor reads as much as the API accepts, and every channel goes through it."""
    assert MAX_CHARS == MAX_QUESTION_CHARS
    assert bounded("x" * (MAX_CHARS + 5)) == "x" * MAX_CHARS


@pytest.mark.timeout(300, method="thread")
def test_extraction_reads_adversarial_text_without_an_error(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.ERROR)
    for name, text in ADVERSARIAL.items():
        started = time.perf_counter()
        result = extract(text)
        assert time.perf_counter() - started < TIME_OUT_S, name
        assert result.profile is not None
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR], caplog.text[:2000]


def test_a_long_chain_of_counts_does_not_exhaust_the_stack(caplog: pytest.LogCaptureFixture) -> None:
    """`1x1x...` over the whole 2,000 characters was a RecursionError, logged and not understood."""
    caplog.set_level(logging.ERROR)
    chain = "1x" * (MAX_CHARS // 2)
    assert split_word(chain) == [piece for _ in range(MAX_CHARS // 2) for piece in ("1", "x")]
    assert split_word("8x8x400G") == ["8", "x", "8", "x", "400", "G"]
    extract(chain + " for 128 H100s")
    assert not caplog.records


def test_long_words_are_tokenized_as_written() -> None:
    """Long words are read in pieces (spaCy's suffix search is quadratic on one long word),
    and the Doc still holds the text character for character, so spans point at it."""
    text = "We train on " + "(" * 700 + "x" * 150 + ")" * 700 + " 128 H100s,  budget\t$2M " + "-" * 300
    doc = nlp()(text)
    assert doc.text == text
    result = extract("We train on " + "(" * 700 + " 128 H100s")
    assert result.profile.gpu_count == 128
    assert result.profile.gpu_model == "H100"


@pytest.mark.timeout(300, method="thread")
def test_the_chat_understanding_is_bounded_and_never_raises() -> None:
    """The chat's actions call `service.understand_message`; it reads at most MAX_CHARS."""
    for name, text in ADVERSARIAL.items():
        started = time.perf_counter()
        decision, _, _ = service.understand_message(text)
        assert time.perf_counter() - started < SERVICE_TIME_OUT_S, name
        assert decision.want is not None
    _, extraction, _ = service.understand_message("x " * MAX_CHARS + " 128 H100s for training")
    assert extraction.profile.gpu_count is None  # past the cap: not read


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.text(max_size=300))
def test_extraction_never_raises_on_any_string(text: str) -> None:
    extract(text)
    extract(text, expecting="gpu_count", known_model="H100")


PIECES = [*"0123456789xX.,-/ ()[]*_~$kKmMbBgGtT\t\n", "H100", "GB", " gpus", "é", "1x", " how many "]


@settings(max_examples=75, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.sampled_from(PIECES), max_size=80).map("".join))
def test_the_service_understanding_never_raises_on_any_string(text: str) -> None:
    service.understand_message(text)


def test_the_phrase_tokenizers_read_long_words_in_pieces_as_written() -> None:
    """The plain tokenizers of the follow-up, correction and small-talk matchers read a
    long word in pieces too (spaCy's suffix search is quadratic on one), and keep the text."""
    from understanding.extraction.tokens import plain_english

    text = "and " + "(" * 700 + ")" * 700 + " ECN?"
    doc = plain_english().make_doc(text)
    assert doc.text == text and len(doc) > 3
