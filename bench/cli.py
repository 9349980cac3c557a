"""The CLI's start-up: the time from starting `fabric-advisor recommend` to the design's
first line on its standard output (the figure a person waits for; the issue's target is
under 0.5 s) and to the end of its output (its exit), the wall time of `--help`, `size` and `recommend` in a
fresh process (median of a few runs), and which heavy packages each loaded (spaCy,
FastAPI, WeasyPrint and openpyxl must not be: only `ask` needs the extractor, only the
exports the others; networkx, numpy and sqlite-utils are listed when they are).

Measured as a person's second and later runs are: with Python's bytecode caches
(PYTHONDONTWRITEBYTECODE, set in some CI and sandbox shells, is dropped for the runs) and
rule-engine's parser tables in var/cache, both written by one untimed warm-up run. On a
machine other jobs load the wall times are high; the line says the load average and the
run's CPU time (user + sys), which the load inflates far less.
"""

from __future__ import annotations

import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

RUNS = 3
FIRST_LINE_TARGET_S = 0.5
HEAVY = ("spacy", "fastapi", "weasyprint", "openpyxl", "rich.markdown", "networkx", "numpy", "sqlite_utils")
FIRST_LINE = ["recommend", "--workload", "training", "--gpus", "128", "--gpu-model", "H100"]
COMMANDS = {
    "--help": ["--help"],
    "size": ["size", "--nodes", "127", "--rail-optimized", "--json"],
    "recommend": ["recommend", "--workload", "training", "--gpus", "128", "--json"],
}


def first_line(args: list[str], env: dict[str, str]) -> tuple[float, float, str, float]:
    """Seconds from starting the CLI to its first non-blank line of output and to the end
    of its output, the first line, and the CPU seconds (user + sys) the run took."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    first: tuple[float, str] | None = None
    with subprocess.Popen(
        [sys.executable, "-m", "cli.main", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        env=env,
    ) as process:
        assert process.stdout is not None
        for line in process.stdout:
            if first is None and line.strip():
                first = time.perf_counter() - started, line.strip()
    if first is None:
        raise RuntimeError(f"fabric-advisor {' '.join(args)} printed nothing")
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime
    return first[0], time.perf_counter() - started, first[1], cpu


def start_up(args: list[str], env: dict[str, str]) -> tuple[float, list[str]]:
    """Seconds one run of the CLI takes, and the heavy packages it imported."""
    started = time.perf_counter()
    result = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "cli.main", *args],
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
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        first_line(FIRST_LINE, env)  # the warm-up: bytecode caches and parser tables written
        timed = [first_line(FIRST_LINE, env) for _ in range(RUNS)]
        seconds = statistics.median(first for first, _, _, _ in timed)
        whole = statistics.median(last for _, last, _, _ in timed)
        cpu = statistics.median(used for *_, used in timed)
        verdict = "within" if seconds < FIRST_LINE_TARGET_S else "OVER"
        lines.append(
            f"fabric-advisor recommend: {seconds:.2f} s to the design's first line ({timed[0][2][:60]!r}), "
            f"{whole:.2f} s to its exit ({cpu:.2f} s CPU), median of {RUNS} (target: first line under {FIRST_LINE_TARGET_S} s, "
            f"{verdict}; load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPU(s))"
        )
        for name, args in COMMANDS.items():
            runs = [start_up(args, env) for _ in range(RUNS)]
            seconds = statistics.median(elapsed for elapsed, _ in runs)
            heavy = sorted({name for _, loaded in runs for name in loaded})
            note = f" (imported {', '.join(heavy)}!)" if heavy else ""
            lines.append(f"fabric-advisor {name}: {seconds:.2f} s start to exit, median of {RUNS}{note}")
    return lines
