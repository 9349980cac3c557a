"""The CLI's start-up: wall time of `fabric-advisor --help`, `size` and `recommend` in
a fresh process (median of a few runs), and whether each loaded spaCy (it must not:
only `ask` needs the extractor)."""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

RUNS = 3
COMMANDS = {
    "--help": ["--help"],
    "size": ["size", "--nodes", "127", "--rail-optimized", "--json"],
    "recommend": ["recommend", "--workload", "training", "--gpus", "128", "--json"],
}


def start_up(args: list[str], env: dict[str, str]) -> tuple[float, bool]:
    """Seconds one run of the CLI takes, and whether it imported spaCy."""
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
    return elapsed, any(line.rstrip().endswith("| spacy") for line in result.stderr.splitlines())


def run() -> list[str]:
    lines = []
    with tempfile.TemporaryDirectory(prefix="bench-cli-") as scratch:
        env = {**os.environ, "FABRIC_ADVISOR_DB": str(Path(scratch) / "advisor.db")}
        for name, args in COMMANDS.items():
            runs = [start_up(args, env) for _ in range(RUNS)]
            seconds = statistics.median(elapsed for elapsed, _ in runs)
            spacy = " (imported spaCy!)" if any(loaded for _, loaded in runs) else ""
            lines.append(f"fabric-advisor {name}: {seconds:.2f} s start to exit, median of {RUNS}{spacy}")
    return lines
