"""Imports run downhill: no cycles between our modules, no imports inside functions
except the few listed with their reason, renderers free of the extractor, and the CLI's
`size` and `recommend` start without spaCy."""

from __future__ import annotations

import ast
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("advisor", "api", "bot", "extraction", "knowledge", "rules")

# Imports inside functions that are there on purpose (never to dodge a cycle).
ALLOWED_FUNCTION_IMPORTS = {
    # each command loads what it needs: `size` skips the rules engine, only `ask` loads spaCy
    "advisor/cli.py",
    # issue 10 moves the catalogue read out of the contract
    "rules/models.py",
}


def modules() -> dict[str, Path]:
    found = {}
    for package in PACKAGES:
        for path in (ROOT / package).rglob("*.py"):
            if "channels" in path.parts:  # runs inside Rasa's environment, imports nothing of ours
                continue
            name = ".".join(path.relative_to(ROOT).with_suffix("").parts).removesuffix(".__init__")
            found[name] = path
    return found


def imported(path: Path, known: dict[str, Path]) -> set[str]:
    """Our modules `path` imports, anywhere in the file."""
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            for alias in node.names:  # `from knowledge import sources` imports the submodule
                submodule = f"{node.module}.{alias.name}"
                names.add(submodule if submodule in known else node.module)
        elif isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
    ours = set()
    for name in names:
        while name not in known and "." in name:
            name = name.rsplit(".", 1)[0]
        if name in known:
            ours.add(name)
    return ours


def test_no_import_cycles_between_our_modules() -> None:
    known = modules()
    graph = {name: imported(path, known) - {name} for name, path in known.items()}
    state: dict[str, int] = {}

    def visit(name: str, trail: list[str]) -> None:
        state[name] = 1
        for target in sorted(graph[name]):
            if state.get(target) == 1:
                cycle = [*trail[trail.index(target) :], target] if target in trail else [name, target]
                pytest.fail("import cycle: " + " -> ".join(cycle))
            if target not in state:
                visit(target, [*trail, target])
        state[name] = 2

    for name in sorted(graph):
        if name not in state:
            visit(name, [name])


def test_imports_inside_functions_only_where_listed() -> None:
    found = set()
    for path in modules().values():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                inner = [n for n in ast.walk(node) if isinstance(n, ast.Import | ast.ImportFrom)]
                if any(imported_module(n) in PACKAGES for n in inner):
                    found.add(str(path.relative_to(ROOT)))
    assert found <= ALLOWED_FUNCTION_IMPORTS


def imported_module(node: ast.Import | ast.ImportFrom) -> str:
    name = node.module or "" if isinstance(node, ast.ImportFrom) else node.names[0].name
    return name.split(".")[0]


def python(code: str) -> str:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, env=env, timeout=120
    )
    assert result.returncode == 0, result.stderr
    return result.stdout


def test_renderers_import_neither_the_extractor_nor_spacy() -> None:
    loaded = python(
        "import sys; import advisor.render.markdown, advisor.render.slack, advisor.render.svg, "
        "advisor.render.terminal; print(' '.join(sys.modules))"
    ).split()
    assert not [name for name in loaded if name == "spacy" or name.startswith(("extraction", "spacy."))]


@pytest.mark.parametrize(
    "args",
    [
        ["size", "--nodes", "127", "--rail-optimized", "--json"],
        ["recommend", "--workload", "training", "--gpus", "128", "--json"],
    ],
    ids=["size", "recommend"],
)
def test_cli_size_and_recommend_start_without_spacy(args: list[str], tmp_path: Path) -> None:
    env = {**os.environ, "FABRIC_ADVISOR_DB": str(tmp_path / "advisor.db")}
    result = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "advisor.cli", *args],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env=env,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr[-2000:]
    assert result.stdout.lstrip().startswith("{")
    spacy = [line for line in result.stderr.splitlines() if line.rstrip().endswith(("| spacy", "| extraction"))]
    assert spacy == []
