"""Coverage of the topic map (knowledge/topics.yaml): every sample question asked through
`advisor.service.ask` (the path `POST /v1/ask` and the CLI take) and judged as the
knowledge sets are (one alternative of every `expect_all` group in the reply).

A question counts as answered right when the reply holds every group and does not hedge
(a knowledge answer that says it is not sure, or that the base has nothing on a term, is
no answer: the map measures what the base answers, not what it guesses). A topic is
*covered* when all its sample questions are answered right, *partial* when some are,
*uncovered* when none is. The report prints one line per topic, then per group
and overall: topics covered and questions right.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Literal

from pydantic import BaseModel

from advisor import service
from advisor.models import AskResult
from evaluation.scoring import Verdict, missing_groups
from knowledge.topics import Topic, TopicMap

Status = Literal["covered", "partial", "uncovered"]


class TopicCoverage(BaseModel):
    topic: str
    group: str
    title: str
    verdicts: list[Verdict]

    @property
    def right(self) -> int:
        return sum(v.ok for v in self.verdicts)

    @property
    def status(self) -> Status:
        if self.right == len(self.verdicts):
            return "covered"
        return "partial" if self.right else "uncovered"


def judge_topic(topic: Topic, ask: Callable[[str], AskResult] = service.ask) -> TopicCoverage:
    verdicts = []
    for number, sample in enumerate(topic.questions, start=1):
        result = ask(sample.question)
        reply = result.reply
        missing = missing_groups(reply, sample.expect_all)
        hit = result.answer
        hedged = hit is not None and (not hit.confident or bool(hit.not_covered))
        problems = ["missing " + " / ".join("|".join(g) for g in missing)] if missing else []
        if hedged:
            problems.append("not sure (hedged answer)")
        verdicts.append(
            Verdict(
                id=f"{topic.id}#{number}",
                ok=not problems,
                why="; ".join(problems),
                text=sample.question,
                reply=reply,
                answered=not hedged,
            )
        )
    return TopicCoverage(topic=topic.id, group=topic.group, title=topic.title, verdicts=verdicts)


def coverage(topic_map: TopicMap, ask: Callable[[str], AskResult] = service.ask) -> list[TopicCoverage]:
    """Each topic of the map, judged."""
    return [judge_topic(topic, ask) for topic in topic_map.topics]


def _tally(rows: list[TopicCoverage]) -> str:
    covered = sum(row.status == "covered" for row in rows)
    right = sum(row.right for row in rows)
    asked = sum(len(row.verdicts) for row in rows)
    share = right / asked if asked else 0.0
    return f"{covered}/{len(rows)} topics covered, {right}/{asked} questions right ({share:.3f})"


def report_lines(topic_map: TopicMap, rows: list[TopicCoverage], failures: bool = False) -> list[str]:
    """The report: per topic (grouped), per group, overall; each failure with --failures."""
    lines = []
    for group, title in topic_map.groups.items():
        in_group = [row for row in rows if row.group == group]
        lines.append(f"{title}: {_tally(in_group)}")
        for row in in_group:
            lines.append(f"  {row.status:<9} {row.topic}: {row.right}/{len(row.verdicts)}  {row.title}")
            if failures:
                for v in row.verdicts:
                    if not v.ok:
                        reply = " ".join(v.reply.split())[:300]
                        lines.append(f"    FAIL {v.id}: {v.text!r}\n      why: {v.why}\n      reply: {reply}")
    lines.append(f"topics: {_tally(rows)}")
    return lines
