"""The topic map (knowledge/topics.yaml): it loads and is checked as it loads, and the
coverage report (`python -m evaluation topics`) asks its questions through the advisor
and shows a topic nothing answers as uncovered."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
import yaml
from pydantic import ValidationError

from advisor.models import Answer, AskKind, AskResult
from evaluation import __main__ as evaluation_cli
from evaluation import topics as topic_coverage
from knowledge import topics
from rules.models import ProfileDraft

SOURCE = {"title": "NCCL User Guide: Environment Variables", "publisher": "NVIDIA", "url": "https://docs.nvidia.com/x"}


def topic(topic_id: str, *questions: tuple[str, list[list[str]]], group: str = "roce") -> dict[str, object]:
    return {
        "id": topic_id,
        "group": group,
        "title": topic_id.replace("-", " "),
        "asked_in": [SOURCE],
        "answered_by": [SOURCE],
        "questions": [{"question": q, "expect_all": e} for q, e in questions],
    }


PFC = topic("pfc", ("What does PFC do for RoCE?", [["pause"]]), ("What is priority flow control?", [["pause"]]))
# nothing in the knowledge base answers about this made-up product: no reply can hold its name
GHOST = topic(
    "ghost-fabric",
    ("What is the Zyxquor-9 fabric's link budget?", [["zyxquor-9 link budget"]]),
    ("How many ports does a Zyxquor-9 switch have?", [["zyxquor-9 has"]]),
    group="optics",
)


def write_map(tmp_path: Path, *entries: dict[str, object], groups: dict[str, str] | None = None) -> Path:
    path = tmp_path / "topics.yaml"
    groups = groups if groups is not None else {"roce": "RoCE", "optics": "Optics"}
    path.write_text(yaml.safe_dump({"groups": groups, "topics": list(entries)}), encoding="utf-8")
    return path


def test_the_shipped_map_loads_with_sourced_topics_in_every_group() -> None:
    topic_map = topics.load()
    assert 30 <= len(topic_map.topics) <= 150
    for group in topic_map.groups:
        assert topic_map.in_group(group), group
    for entry in topic_map.topics:
        assert entry.asked_in and entry.answered_by
        assert 2 <= len(entry.questions) <= 4


@pytest.mark.parametrize(
    ("broken", "complaint"),
    [
        (lambda: [PFC, PFC], "id repeated"),
        (lambda: [PFC, {**GHOST, "group": "cost"}], "not one of"),
        (lambda: [PFC, {**GHOST, "questions": GHOST["questions"][:1]}], "at least 2"),  # type: ignore[index]
        (lambda: [PFC, {**GHOST, "asked_in": []}], "at least 1"),
        (lambda: [PFC, {**GHOST, "answered_by": [{**SOURCE, "url": "docs.nvidia.com"}]}], "pattern"),
        (lambda: [topic("pfc", ("What does PFC do?", [["pause"]]), ("Why PFC?", [[]]))], "without alternatives"),
        (lambda: [topic("pfc", ("What does PFC do?", [["pause"]]), ("How many?", [["9"]]))], "judge nothing"),
        (
            lambda: [PFC, topic("pfc-again", ("what does  PFC do for RoCE?", [["pause"]]), ("Why?", [["pause"]]))],
            "repeated",
        ),
        (lambda: [PFC, {**GHOST, "latency": 3}], "Extra inputs"),
    ],
)
def test_a_broken_map_fails_to_load_and_says_why(
    tmp_path: Path, broken: Callable[[], list[dict[str, object]]], complaint: str
) -> None:
    path = write_map(tmp_path, *broken())
    with pytest.raises(ValidationError, match=complaint):
        topics.load(path)


def test_a_group_without_topics_fails_to_load(tmp_path: Path) -> None:
    path = write_map(tmp_path, PFC, groups={"roce": "RoCE", "cost": "Cost"})
    with pytest.raises(ValidationError, match="groups without a topic: cost"):
        topics.load(path)


def test_a_topic_the_knowledge_base_answers_is_covered_and_one_it_does_not_is_uncovered(tmp_path: Path) -> None:
    topic_map = topics.load(write_map(tmp_path, PFC, GHOST))
    rows = {row.topic: row for row in topic_coverage.coverage(topic_map)}
    assert rows["pfc"].status == "covered"
    assert rows["ghost-fabric"].status == "uncovered"
    assert all("missing" in v.why for v in rows["ghost-fabric"].verdicts)


def test_the_report_prints_each_topic_each_group_and_the_total(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write_map(tmp_path, PFC, GHOST)
    assert evaluation_cli.main(["topics", "--map", str(path), "--failures"]) == 0
    out = capsys.readouterr().out
    assert "  covered   pfc: 2/2" in out
    assert "  uncovered ghost-fabric: 0/2" in out
    assert "RoCE: 1/1 topics covered, 2/2 questions right (1.000)" in out
    assert "Optics: 0/1 topics covered, 0/2 questions right (0.000)" in out
    assert "topics: 1/2 topics covered, 2/4 questions right (0.500)" in out
    assert "FAIL ghost-fabric#1" in out


def test_an_answer_that_says_it_is_not_sure_does_not_cover_its_topic() -> None:
    """The reply holds the expected words, but the answer hedges: the map counts it as
    not answered (coverage is what the base answers, not what it guesses)."""
    pfc = topics.Topic.model_validate(PFC)

    def hedging(question: str) -> AskResult:
        answer = Answer(text="PFC pauses a priority.", topic="PFC", subject="glossary", source="x", confident=False)
        return AskResult(kind=AskKind.answer, profile=ProfileDraft(), answer=answer, reply="Not sure: PFC pauses.")

    def sure(question: str) -> AskResult:
        answer = Answer(text="PFC pauses a priority.", topic="PFC", subject="glossary", source="x")
        return AskResult(kind=AskKind.answer, profile=ProfileDraft(), answer=answer, reply="PFC pauses a priority.")

    hedged = topic_coverage.judge_topic(pfc, ask=hedging)
    assert hedged.status == "uncovered"
    assert all("not sure" in v.why and not v.answered for v in hedged.verdicts)
    assert topic_coverage.judge_topic(pfc, ask=sure).status == "covered"
