"""rule-engine's parser tables kept in var/cache (rules/parse_tables.py): the next start
reads them instead of building the LALR parser, and parses rules the same."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from rules import parse_tables

PROBE = (
    "import sys, rule_engine, rules.rulebook\n"
    "print('rule_engine.parser.parsetab' in sys.modules)\n"
    "print(rule_engine.Rule('gpus > 8 and fabric in [\"ib\", \"roce\"]').matches({'gpus': 16, 'fabric': 'roce'}))"
)


def run_probe(cache: Path) -> list[str]:
    code = f"import rules.parse_tables as p, pathlib; p.CACHE_DIR = pathlib.Path({str(cache)!r})\n{PROBE}"
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, env={**os.environ}
    )
    assert result.returncode == 0, result.stderr[-2000:]
    return result.stdout.split()


def test_the_second_start_reads_the_kept_tables_and_parses_the_same(tmp_path):
    assert run_probe(tmp_path) == ["False", "True"]  # built, then kept
    kept = list(tmp_path.glob("rule-engine-*-parsetab.py"))
    assert len(kept) == 1 and "_lr_action" in kept[0].read_text(encoding="utf-8")
    assert run_probe(tmp_path) == ["True", "True"]  # read, not built


def test_a_damaged_table_file_is_rebuilt_not_fatal(tmp_path):
    run_probe(tmp_path)
    (kept,) = tmp_path.glob("rule-engine-*-parsetab.py")
    kept.write_text("this is not python(", encoding="utf-8")
    assert run_probe(tmp_path)[1] == "True"


def test_the_finder_answers_only_for_rule_engines_tables():
    finder = parse_tables._TablesFinder()
    assert finder.find_spec("json") is None and finder.find_spec("rules.rulebook") is None
