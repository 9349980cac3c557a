"""rule-engine's parser tables, built once and kept in var/cache, not at every start.

rule-engine builds its LALR parser (PLY's yacc) when it is imported: about 1 s of CPU
here, a third of the CLI's `recommend` start-up. PLY reads prebuilt tables from the
module `rule_engine.parser.parsetab` when one can be imported and its grammar signature
matches the parser's, and builds them otherwise; rule-engine ships none and writes none.

`install()` (rules/__init__.py) puts a finder on sys.meta_path that serves that module
from the table file kept here; `keep(parser)` (rules/rulebook.py, after its import)
writes the file the first time. The file is named by rule-engine's version, and PLY's
own signature check ignores tables of another grammar, so a stale or foreign file costs
a rebuild, never a wrong parse; an unreadable one is treated as missing.
"""

from __future__ import annotations

import contextlib
import importlib.abc
import importlib.machinery
import importlib.util
import os
import sys
import tempfile
from importlib.machinery import ModuleSpec
from pathlib import Path
from types import ModuleType
from typing import Any

TABLES_MODULE = "rule_engine.parser.parsetab"
CACHE_DIR = Path(__file__).resolve().parents[1] / "var" / "cache"


def tables_file() -> Path:
    """The kept tables of the installed rule-engine."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        installed = version("rule-engine")
    except PackageNotFoundError:
        installed = "unknown"
    return CACHE_DIR / f"rule-engine-{installed}-parsetab.py"


class _TablesLoader(importlib.machinery.SourceFileLoader):
    def exec_module(self, module: ModuleType) -> None:
        try:
            super().exec_module(module)
        except Exception as exc:  # a damaged file: PLY builds the tables as if there were none
            raise ImportError(f"unreadable parser tables {self.path}: {exc}") from exc


class _TablesFinder(importlib.abc.MetaPathFinder):
    def find_spec(self, fullname: str, path: Any = None, target: Any = None) -> ModuleSpec | None:
        if fullname != TABLES_MODULE:
            return None
        kept = tables_file()
        if not kept.is_file():
            return None
        return importlib.util.spec_from_file_location(fullname, kept, loader=_TablesLoader(fullname, str(kept)))


def install() -> None:
    """Serve rule-engine's parser tables from var/cache (before rule_engine is imported)."""
    if not any(isinstance(finder, _TablesFinder) for finder in sys.meta_path):
        sys.meta_path.insert(0, _TablesFinder())


def keep(parser: object) -> None:
    """Write the tables of rule-engine's built parser to var/cache, when none were read
    from there (one more build, once); a read-only checkout just keeps building them."""
    if TABLES_MODULE in sys.modules:
        return
    from rule_engine._vendor.ply import yacc

    target = tables_file()
    with contextlib.suppress(OSError):
        target.parent.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryDirectory(dir=target.parent) as scratch:
            yacc.yacc(module=parser, write_tables=True, outputdir=scratch, errorlog=yacc.NullLogger())
            os.replace(Path(scratch) / "parsetab.py", target)
