"""What a message wants is read from spaCy patterns in understanding/extraction/data/cues.yaml, matched
in the extraction pipeline's one run over the message (understanding/extraction/cues.py): adding a
phrasing is adding a pattern entry, and a malformed file stops the pipeline's build with
the group, the entry and what is wrong."""

from __future__ import annotations

import shutil
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

from understanding import understand
from understanding.extraction import cues, extractor, matching, pipeline, resources
from understanding.extraction.cues import CuesFileError, check_cues
from understanding.extraction.extractor import cues_of
from understanding.extraction.resources import load


def _clear() -> None:
    for cached in (load, cues.cue_set, pipeline.nlp, extractor._run, matching.rule_set):
        cached.cache_clear()


@pytest.fixture
def data_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A copy of understanding/extraction/data the pipeline is rebuilt from; the real one is rebuilt after."""
    for source in resources.DATA_DIR.glob("*.yaml"):
        shutil.copy(source, tmp_path / source.name)
    monkeypatch.setattr(resources, "DATA_DIR", tmp_path)
    _clear()
    yield tmp_path
    monkeypatch.undo()
    _clear()


def _edit(data_dir: Path, change: Callable[[dict[str, Any]], None]) -> None:
    path = data_dir / "cues.yaml"
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    change(data)
    path.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")


def test_a_new_phrasing_is_one_pattern_entry(data_dir: Path) -> None:
    asked = "what's the damage?"
    assert understand.design_topics(asked) == []
    _edit(data_dir, lambda data: data["design"]["cost"].append("what 's the damage"))
    _clear()
    assert understand.design_topics(asked) == ["cost"]
    assert understand.design_topics("What's the DAMAGE") == ["cost"]  # lower case, any spacing


def _error(data_dir: Path, change: Callable[[dict[str, Any]], None]) -> str:
    _edit(data_dir, change)
    _clear()
    with pytest.raises(CuesFileError) as caught:
        pipeline.nlp()
    return str(caught.value)


def test_an_unknown_macro_stops_the_build_naming_the_entry(data_dir: Path) -> None:
    message = _error(data_dir, lambda data: data["design"]["cost"].insert(0, "PRICEY deal"))
    assert message.startswith("cues.yaml: design.cost #1 (PRICEY deal): unknown macro 'PRICEY'")


def test_a_token_attribute_spacy_does_not_know_stops_the_build(data_dir: Path) -> None:
    message = _error(data_dir, lambda data: data["cues"]["knowledge"].insert(0, [{"LOWR": "what"}]))
    assert message.startswith("cues.yaml: knowledge #1 ([{'LOWR': 'what'}]):") and "LOWR" in message


def test_a_misspelt_option_stops_the_build_naming_the_entry(data_dir: Path) -> None:
    shipped = len(resources.load("cues")["cues"]["sizing"])  # the entry appended is the next one
    message = _error(data_dir, lambda data: data["cues"]["sizing"].append({"pattern": "size", "at": "middle"}))
    assert message == f"cues.yaml: cues.sizing.{shipped}.at: Input should be 'start' or 'end'"


def test_a_missing_group_stops_the_build(data_dir: Path) -> None:
    message = _error(data_dir, lambda data: data["cues"].pop("deictic"))
    assert message == "cues.yaml: cues: missing group(s) deictic"


def test_the_shipped_file_is_token_patterns_and_phrases_not_regexes() -> None:
    text = (resources.DATA_DIR / "cues.yaml").read_text(encoding="utf-8")
    assert "REGEX" not in text and "\\s" not in text and "(?" not in text
    compiled = check_cues(load("cues"))
    phrases = [cue for cue in compiled.patterns if cue.phrases]
    assert len(compiled.patterns) > 150 and len(phrases) > 80  # most are plain phrase lists
    assert not (Path(understand.__file__).parent / "cues.yaml").exists()


def test_the_cues_come_from_the_extraction_run_over_the_message() -> None:
    text = "We train a 70B model on 128 H100s, which network do you recommend? Is Dragonfly+ worth it?"
    extractor.extract(text)
    before = extractor._run.cache_info()
    assert understand.asks_for_design(text) and understand.is_question(text)
    assert understand.side_question(text) == "Is Dragonfly+ worth it?"
    assert understand.design_topics(text) == ["why_not"]
    after = extractor._run.cache_info()
    assert after.misses == before.misses and after.hits > before.hits  # no second tokenization


@pytest.mark.parametrize(
    ("text", "label", "found"),
    [
        # `at: end`: "recommend?" closes the message, "recommend a fabric" is another cue
        ("what would you recommend?", "sizing", True),
        ("switches?", "design:switches", True),
        ("switches for the storage network", "design:switches", False),
        # `at: start`: a question word opening the text, not one inside it
        ("Is 400G enough", "knowledge", True),
        ("the design is fine", "knowledge", False),
        # never inside a hyphenated compound or a longer word
        ("all-reduce time", "design:allreduce", True),
        ("a cost-effective build", "design:cost", False),
        ("doesn't matter", "knowledge", False),
        # `not_followed_by`
        ("which network for our 64 GPUs", "sizing", True),
        ("which network for the storage", "sizing", False),
        ("which network for in-band management", "sizing", False),
        # `followed_by`: the side question starts at the cue, and a word must follow it
        ("and explain whether ConnectX-8 is needed", "side", True),
        ("whether to", "side", False),
        # a capitalised name and what it did, not a passive
        ("is it true Meta ran its fabric without DCQCN?", "reported", True),
        ("128 B300 GPUs used for training", "reported", False),
        ("was GPT-4 trained on InfiniBand?", "reported", True),
        ("Llama-3 405B was trained on 16K H100s", "reported", True),  # `starts_with: [llama, ...]`
        ("the model was trained on 16K H100s", "reported", False),
        ("xAI's 100k-GPU Colossus cluster", "reported", True),
        ("What's the cluster", "reported", False),
        # a fabric entity's words are still words ("infiniband fabric" is one entity)
        ("an infiniband fabric for our cluster", "sizing", True),
        ("ib vs. roce whats cheaper", "design:why_not", True),
        # setting something up is no setting; a "set up" of a thing that is no cluster is no design
        ("we are setting up a new cluster", "design:settings", False),
        ("what pfc setting on the switches", "design:settings", True),
        ("How do I set up a ConnectX NIC for lossless RoCE?", "sizing", False),
        ("Which network do Slurm and SSH traffic use?", "sizing", False),
        ("which network do we need", "sizing", True),
        # a path between endpoints, not a place to count
        ("how many switches does their traffic cross?", "path", True),
        ("how many hops between two hosts", "path", True),
        ("how many switches do we need", "path", False),
    ],
)
def test_each_pattern_shape_matches_as_written(text: str, label: str, found: bool) -> None:
    assert cues_of(text).has(label) is found


def test_a_clause_is_asked_by_its_offsets() -> None:
    text = "128 H100 for training, how many switches?"
    found = cues_of(text)
    clause = text.index("how")
    assert found.topics(clause, len(text)) == ["switches"] and found.topics(0, clause) == []
    assert found.has("knowledge", clause, len(text))  # "how" opens the clause
    assert found.first("knowledge", 0, len(text)) == clause
