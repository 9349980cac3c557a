"""Print the intent F1 table of `rasa test nlu --cross-validation` runs.

`rasa test nlu --quiet` prints no figures and without `--quiet` only the averages; the
per-intent scores are in intent_report.json in its --out folder. With several reports
(one per draw of the folds, `make nlu-report`), each figure is the mean over the draws,
and each draw's macro F1 is listed, since one draw alone moves it by about +-0.01:

    .venv/bin/python -m bot.nlu_report var/nlu-report/seed-*/intent_report.json
"""

from __future__ import annotations

import json
import statistics
import sys
from pathlib import Path
from typing import Any

AVERAGES = ("macro avg", "weighted avg")
FIGURES = ("precision", "recall", "f1-score", "support")


def _rows(report: dict[str, Any]) -> dict[str, dict[str, float]]:
    return {name: row for name, row in report.items() if isinstance(row, dict) and name != "micro avg"}


def mean_report(reports: list[dict[str, Any]]) -> dict[str, Any]:
    """Each intent's and average's figures, the mean over the reports (one per draw of
    folds); the macro F1 is the mean of the draws' macro F1."""
    names = set.intersection(*(set(_rows(r)) for r in reports))
    merged: dict[str, Any] = {
        name: {key: statistics.fmean(float(_rows(r)[name][key]) for r in reports) for key in FIGURES} for name in names
    }
    if all("accuracy" in r for r in reports):
        merged["accuracy"] = statistics.fmean(float(r["accuracy"]) for r in reports)
    return merged


def report_lines(report: dict[str, Any]) -> list[str]:
    """The table: one row per intent (worst F1 first), then the averages and accuracy."""
    intents = {name: row for name, row in _rows(report).items() if name not in AVERAGES}
    lines = [f"{'intent':<20} {'precision':>9} {'recall':>7} {'F1':>6} {'support':>8}"]
    for name, row in sorted(intents.items(), key=lambda item: item[1]["f1-score"]):
        lines.append(
            f"{name:<20} {row['precision']:>9.2f} {row['recall']:>7.2f} {row['f1-score']:>6.2f} {row['support']:>8.0f}"
        )
    lines.append("-" * 54)
    for name in AVERAGES:
        if name in report:
            row = report[name]
            lines.append(
                f"{name:<20} {row['precision']:>9.2f} {row['recall']:>7.2f} {row['f1-score']:>6.3f} {row['support']:>8.0f}"
            )
    if "accuracy" in report:
        lines.append(f"{'accuracy':<20} {report['accuracy']:>31.2f}")
    return lines


def main(argv: list[str]) -> int:
    paths = [Path(arg) for arg in argv] or [Path("var/nlu-report/intent_report.json")]
    missing = [path for path in paths if not path.exists()]
    if missing:
        print(f"{missing[0]} not found: run `make nlu-report` first", file=sys.stderr)
        return 1
    reports = [json.loads(path.read_text()) for path in paths]
    if len(reports) == 1:
        print(f"Intent classification, cross-validated ({paths[0]}):")
    else:
        draws = ", ".join(f"{r['macro avg']['f1-score']:.3f}" for r in reports)
        print(f"Intent classification, cross-validated, mean of {len(reports)} draws of folds (macro F1 {draws}):")
    for line in report_lines(mean_report(reports)):
        print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
