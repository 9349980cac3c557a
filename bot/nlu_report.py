"""Print the intent F1 table of a `rasa test nlu --cross-validation` run.

`rasa test nlu --quiet` prints no figures and without `--quiet` only the averages; the
per-intent scores are in intent_report.json in its --out folder. `make nlu-report`:

    .venv/bin/python -m bot.nlu_report var/nlu-report/intent_report.json
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

AVERAGES = ("macro avg", "weighted avg")


def report_lines(report: dict) -> list[str]:
    """The table: one row per intent (worst F1 first), then the averages and accuracy."""
    intents = {
        name: row
        for name, row in report.items()
        if isinstance(row, dict) and name not in AVERAGES and name != "micro avg"
    }
    lines = [f"{'intent':<20} {'precision':>9} {'recall':>7} {'F1':>6} {'support':>8}"]
    for name, row in sorted(intents.items(), key=lambda item: item[1]["f1-score"]):
        lines.append(
            f"{name:<20} {row['precision']:>9.2f} {row['recall']:>7.2f} {row['f1-score']:>6.2f} {row['support']:>8}"
        )
    lines.append("-" * 54)
    for name in AVERAGES:
        if name in report:
            row = report[name]
            lines.append(
                f"{name:<20} {row['precision']:>9.2f} {row['recall']:>7.2f} {row['f1-score']:>6.2f} {row['support']:>8}"
            )
    if "accuracy" in report:
        lines.append(f"{'accuracy':<20} {report['accuracy']:>31.2f}")
    return lines


def main(argv: list[str]) -> int:
    path = Path(argv[0] if argv else "var/nlu-report/intent_report.json")
    if not path.exists():
        print(f"{path} not found: run `rasa test nlu --cross-validation --out {path.parent}` first", file=sys.stderr)
        return 1
    print(f"Intent classification, cross-validated ({path}):")
    for line in report_lines(json.loads(path.read_text())):
        print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
