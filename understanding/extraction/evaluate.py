"""Per-field precision and recall of the extractor on a labelled set of questions.

    python -m understanding.extraction.evaluate [--data PATH] [--min-score 0.95] [--errors]

Each line of the data file is {"text": ..., "expected": {field: value, ...}}; a field
not listed is expected to be absent (None). A prediction is right when it equals the
expected value (numbers within 1e-6 relative). Precision counts every value the
extractor gave, recall every value the text states. Exits 1 when any field scores
below the minimum, so CI can run it.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rules.models import ProfileDraft
from understanding.extraction.extractor import extract

DEFAULT_DATA = Path(__file__).resolve().parents[2] / "tests" / "data" / "extraction_dev.jsonl"
FIELDS = list(ProfileDraft.model_fields)


@dataclass
class FieldScore:
    field: str
    true_positives: int = 0
    false_positives: int = 0
    false_negatives: int = 0
    support: int = 0

    @property
    def precision(self) -> float:
        given = self.true_positives + self.false_positives
        return self.true_positives / given if given else 1.0

    @property
    def recall(self) -> float:
        stated = self.true_positives + self.false_negatives
        return self.true_positives / stated if stated else 1.0


@dataclass
class Mistake:
    text: str
    field: str
    expected: Any
    predicted: Any


@dataclass
class Report:
    examples: int
    scores: dict[str, FieldScore]
    mistakes: list[Mistake] = field(default_factory=list)

    def failing(self, minimum: float) -> list[str]:
        """Fields whose precision or recall is below `minimum`."""
        return [name for name, s in self.scores.items() if min(s.precision, s.recall) < minimum]

    def lines(self) -> list[str]:
        rows = [f"{'field':<18} {'precision':>9} {'recall':>7} {'support':>8}"]
        for name, s in self.scores.items():
            rows.append(f"{name:<18} {s.precision:>9.3f} {s.recall:>7.3f} {s.support:>8}")
        rows.append(f"{self.examples} examples")
        return rows


def load_examples(path: Path) -> list[dict[str, Any]]:
    """The labelled examples of a JSON-lines file (blank lines skipped)."""
    with open(path, encoding="utf-8") as handle:
        return [json.loads(line) for line in handle if line.strip()]


def same(expected: Any, predicted: Any) -> bool:
    if expected is None or predicted is None:
        return expected is predicted
    if isinstance(expected, bool) or isinstance(predicted, bool):
        return expected is predicted
    if isinstance(expected, int | float) and isinstance(predicted, int | float):
        return math.isclose(expected, predicted, rel_tol=1e-6)
    return str(expected) == str(predicted)


def evaluate(path: Path = DEFAULT_DATA) -> Report:
    """Score the extractor on every example of `path`."""
    examples = load_examples(path)
    scores = {name: FieldScore(name) for name in FIELDS}
    mistakes: list[Mistake] = []
    for example in examples:
        expected = example.get("expected", {})
        unknown = set(expected) - set(FIELDS)
        if unknown:
            raise ValueError(f"unknown fields {sorted(unknown)} in example {example['text']!r}")
        profile = extract(example["text"]).profile.model_dump(mode="json")
        for name in FIELDS:
            want, got = expected.get(name), profile.get(name)
            score = scores[name]
            if want is not None:
                score.support += 1
            if same(want, got):
                if want is not None:
                    score.true_positives += 1
                continue
            mistakes.append(Mistake(example["text"], name, want, got))
            if got is not None:
                score.false_positives += 1
            if want is not None:
                score.false_negatives += 1
    return Report(examples=len(examples), scores=scores, mistakes=mistakes)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA, help="JSON-lines file of labelled questions")
    parser.add_argument("--min-score", type=float, default=0.95, help="lowest precision/recall that passes")
    parser.add_argument("--errors", action="store_true", help="also print every wrong field")
    args = parser.parse_args(argv)
    report = evaluate(args.data)
    for line in report.lines():
        print(line)
    if args.errors:
        for m in report.mistakes:
            print(f"- {m.field}: expected {m.expected!r}, got {m.predicted!r} | {m.text}")
    failing = report.failing(args.min_score)
    if failing:
        print(f"below {args.min_score}: {', '.join(failing)}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
