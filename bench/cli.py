"""The CLI's start-up: the time from starting `fabric-advisor recommend` to the design's
first line on its standard output (the figure a person waits for; the issue's target is
under 0.5 s), the wall time of `--help`, `size` and `recommend` in a fresh process
(median of a few runs), and whether each loaded spaCy, FastAPI, WeasyPrint or openpyxl
(none must: only `ask` needs the extractor, only the exports the others)."""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

RUNS = 3
FIRST_LINE_TARGET_S = 0.5
HEAVY = ("spacy", "fastapi", "weasyprint", "openpyxl")
FIRST_LINE = ["recommend", "--workload", "training", "--gpus", "128", "--gpu-model", "H100"]
COMMANDS = {
    "--help": ["--help"],
    "size": ["size", "--nodes", "127", "--rail-optimized", "--json"],
    "recommend": ["recommend", "--workload", "training", "--gpus", "128", "--json"],
}


def first_line(args: list[str], env: dict[str, str]) -> tuple[float, str]:
    """Seconds from starting the CLI to its first non-blank line of output, and the line."""
    started = time.perf_counter()
    with subprocess.Popen(
        [sys.executable, "-m", "advisor.cli", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        env=env,
    ) as process:
        assert process.stdout is not None
        for line in process.stdout:
            if line.strip():
                elapsed = time.perf_counter() - started
                process.stdout.read()
                return elapsed, line.strip()
    raise RuntimeError(f"fabric-advisor {' '.join(args)} printed nothing")


def start_up(args: list[str], env: dict[str, str]) -> tuple[float, list[str]]:
    """Seconds one run of the CLI takes, and the heavy packages it imported."""
    started = time.perf_counter()
    result = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "advisor.cli", *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        check=True,
    )
    elapsed = time.perf_counter() - started
    loaded = {line.rsplit("|", 1)[-1].strip() for line in result.stderr.splitlines()}
    return elapsed, [name for name in HEAVY if name in loaded]


def run() -> list[str]:
    lines = []
    with tempfile.TemporaryDirectory(prefix="bench-cli-") as scratch:
        env = {**os.environ, "FABRIC_ADVISOR_DB": str(Path(scratch) / "advisor.db"), "COLUMNS": "100"}
        firsts = [first_line(FIRST_LINE, env) for _ in range(RUNS)]
        seconds = statistics.median(elapsed for elapsed, _ in firsts)
        verdict = "within" if seconds < FIRST_LINE_TARGET_S else "OVER"
        lines.append(
            f"fabric-advisor recommend: {seconds:.2f} s to the design's first line ({firsts[0][1][:60]!r}), "
            f"median of {RUNS}; {verdict} the {FIRST_LINE_TARGET_S} s target"
        )
        for name, args in COMMANDS.items():
            runs = [start_up(args, env) for _ in range(RUNS)]
            seconds = statistics.median(elapsed for elapsed, _ in runs)
            heavy = sorted({name for _, loaded in runs for name in loaded})
            note = f" (imported {', '.join(heavy)}!)" if heavy else ""
            lines.append(f"fabric-advisor {name}: {seconds:.2f} s start to exit, median of {RUNS}{note}")
    return lines
