"""Imports run downhill: every module sits in a layer and imports only its own layer or
lower ones, no cycles between our modules, no imports inside functions except the few
listed with their reason, renderers free of the extractor, and the CLI's `size` and
`recommend` start without spaCy."""

from __future__ import annotations

import ast
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = (
    "advisor",
    "api",
    "bench",
    "bot",
    "cli",
    "core",
    "evaluation",
    "knowledge",
    "minilm",
    "ops",
    "rules",
    "understanding",
)

# The layers, bottom first. A module belongs to the layer of the longest prefix listed
# (`rules.models` is the contract, the rest of `rules` the rules layer) and may import
# its own layer and those below it, never one above. Modules of one layer may import
# each other (the cycle test below keeps that acyclic).
LAYERS: list[tuple[str, tuple[str, ...]]] = [
    # the bottom, importing nothing of ours above it: the contract every part speaks (the
    # workload and the design, rules.models; the service's questions and answers,
    # advisor.models), the process settings (core), the sentence-embedding model (minilm,
    # which Rasa's environment imports too) and how a question's words are read for the
    # knowledge search (understanding.query, which the knowledge layer uses)
    ("contract", ("rules.models", "advisor.models", "core", "minilm", "understanding.query")),
    # hardware facts and the knowledge base; the rules engine and sizing models on them
    ("knowledge and rules", ("knowledge", "rules")),
    # everything that reads language: free text to a partial WorkloadProfile, what a message
    # wants, corrections, follow-ups and the dialogue context
    ("understanding", ("understanding",)),
    # the service: language in, answers out; designs, answers, storage, handoffs, renderers
    ("advisor", ("advisor",)),
    # the entry points: the API, the chatbot's actions, the process supervisor, and the CLI
    # (`serve` starts the API server: cli.main -> api.server)
    ("entry points", ("api", "bot", "ops", "cli")),
    # benchmarks and the blind-set evaluation drive the running system from outside
    # (they start the bot and the cluster)
    ("benchmarks", ("bench", "evaluation")),
]

# Imports inside functions that are there on purpose (never to dodge a cycle).
ALLOWED_FUNCTION_IMPORTS = {
    # each command loads what it needs: `size` skips the rules engine, only `ask` loads spaCy
    "cli/main.py",
    # the sentence embeddings (numpy) at the first search, not whenever the catalogue is read
    "knowledge/search.py",
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


def layer(module: str) -> int:
    """The index in LAYERS of the longest prefix naming `module`."""
    best, length = -1, -1
    for index, (_, prefixes) in enumerate(LAYERS):
        for prefix in prefixes:
            if (module == prefix or module.startswith(prefix + ".")) and len(prefix) > length:
                best, length = index, len(prefix)
    assert best >= 0, f"{module} is in no layer: add it to LAYERS"
    return best


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


def test_every_package_of_ours_is_checked() -> None:
    packages = {path.parent.name for path in ROOT.glob("*/__init__.py")} - {"tests"}
    assert packages == set(PACKAGES)


def upward_imports(name: str, path: Path, known: dict[str, Path]) -> list[str]:
    """The imports of module `name` (at `path`) that climb to a higher layer."""
    return [
        f"{name} ({LAYERS[layer(name)][0]}) -> {target} ({LAYERS[layer(target)][0]})"
        for target in sorted(imported(path, known))
        if layer(target) > layer(name)
    ]


def test_no_module_imports_a_higher_layer() -> None:
    known = modules()
    assert [line for name, path in sorted(known.items()) for line in upward_imports(name, path, known)] == []


def test_the_contract_and_the_settings_import_nothing_of_ours() -> None:
    known = modules()
    bottom = [name for name in known if layer(name) == 0]
    assert {"rules.models", "core.settings"} <= set(bottom)
    for name in bottom:
        assert {target for target in imported(known[name], known) if layer(target) > 0} == set(), name
    assert imported(known["rules.models"], known) == set()  # not even knowledge.catalogue (issue 10)


def test_the_layer_check_catches_the_knowledge_layer_reading_the_advisor(tmp_path: Path) -> None:
    source = tmp_path / "build.py"  # knowledge/build.py as it was before the settings moved to core
    source.write_text("from advisor.settings import settings\nfrom rules.models import Technology\n")
    assert upward_imports("knowledge.build", source, modules()) == [
        "knowledge.build (knowledge and rules) -> advisor.settings (advisor)"
    ]
    assert (layer("rules.models"), layer("rules.engine"), layer("advisor.service"), layer("cli.main")) == (
        0,
        1,
        3,
        4,
    )


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
    assert not [name for name in loaded if name == "spacy" or name.startswith(("understanding.extraction", "spacy."))]


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
        [sys.executable, "-X", "importtime", "-m", "cli.main", *args],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env=env,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr[-2000:]
    assert result.stdout.lstrip().startswith("{")
    heavy = (
        "| spacy",
        " understanding.extraction",
        "| fastapi",
        "| weasyprint",
        "| openpyxl",
    )  # only `ask` and the exports
    spacy = [line for line in result.stderr.splitlines() if line.rstrip().endswith(heavy)]
    assert spacy == []
