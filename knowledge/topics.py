"""The topic map: what customers and sales engineers ask about GPU-cluster networking,
grouped, each topic with the published sources that show people ask it (vendor FAQs,
forum and issue threads, the reference architectures' sections) and where the answer is
published, and 2-4 sample questions judged like tests/data/*_knowledge.jsonl
(`expect_all`: groups of alternatives, one of each group must be in the reply).

`knowledge/topics.yaml` is checked as it loads: a topic in an undeclared group, a
repeated id or question, a topic without a source or with fewer than two sample
questions, or an empty `expect_all` group fails with the topic named.
`python -m evaluation topics` asks every sample question and reports coverage per topic
and group (evaluation/topics.py).

>>> topic_map = load()
>>> 30 <= len(topic_map.topics) <= 150
True
>>> topic_map.groups["nccl"]
'NCCL and collective performance'
"""

from __future__ import annotations

from pathlib import Path
from typing import Self

import yaml
from pydantic import BaseModel, ConfigDict, Field, model_validator

from knowledge.schemas import ID_PATTERN

#: the map shipped with the knowledge base
DEFAULT = Path(__file__).resolve().parent / "topics.yaml"


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Source(_Strict):
    """A published page: who publishes it and where it is."""

    title: str = Field(min_length=1)
    publisher: str = Field(min_length=1)
    url: str = Field(pattern=r"^https?://\S+$")


class SampleQuestion(_Strict):
    """A question of the topic, and what a right answer must contain."""

    question: str = Field(min_length=3)
    #: groups of alternatives; the reply must contain one alternative of every group
    expect_all: list[list[str]] = Field(min_length=1)

    @model_validator(mode="after")
    def _groups_judge_something(self) -> Self:
        if any(not group for group in self.expect_all):
            raise ValueError(f"{self.question!r}: an expect_all group without alternatives")
        # "%", "W" or "9" is in almost every reply: an alternative that short judges nothing
        weak = [alt for group in self.expect_all for alt in group if len(alt.strip()) < 2]
        if weak:
            raise ValueError(f"{self.question!r}: alternatives shorter than 2 characters judge nothing: {weak}")
        return self


class Topic(_Strict):
    id: str = Field(pattern=ID_PATTERN)
    group: str
    title: str = Field(min_length=1)
    #: where people ask it: vendor FAQs, forum and issue threads, RA sections
    asked_in: list[Source] = Field(min_length=1)
    #: where the answer is published
    answered_by: list[Source] = Field(min_length=1)
    questions: list[SampleQuestion] = Field(min_length=2, max_length=4)


class TopicMap(_Strict):
    #: group key -> its title, in report order
    groups: dict[str, str] = Field(min_length=1)
    topics: list[Topic] = Field(min_length=1)

    @model_validator(mode="after")
    def _consistent(self) -> Self:
        problems = []
        seen_ids: set[str] = set()
        seen_questions: set[str] = set()
        for topic in self.topics:
            if topic.group not in self.groups:
                problems.append(f"topic {topic.id}: group {topic.group!r} is not one of {sorted(self.groups)}")
            if topic.id in seen_ids:
                problems.append(f"topic {topic.id}: id repeated")
            seen_ids.add(topic.id)
            for sample in topic.questions:
                key = " ".join(sample.question.lower().split())
                if key in seen_questions:
                    problems.append(f"topic {topic.id}: question {sample.question!r} repeated")
                seen_questions.add(key)
        empty = [group for group in self.groups if not any(t.group == group for t in self.topics)]
        if empty:
            problems.append(f"groups without a topic: {', '.join(empty)}")
        if problems:
            raise ValueError("; ".join(problems))
        return self

    def in_group(self, group: str) -> list[Topic]:
        return [topic for topic in self.topics if topic.group == group]


def load(path: Path = DEFAULT) -> TopicMap:
    """The topic map at `path`, validated (pydantic.ValidationError names what is wrong)."""
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    if isinstance(data, dict):  # keys starting with "_" only hold YAML anchors (shared sources)
        data = {key: value for key, value in data.items() if not str(key).startswith("_")}
    return TopicMap.model_validate(data)
