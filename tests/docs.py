"""The project's documentation as the tests/test_docs_*.py modules read it: which files
are docs, their code, and the Makefile's targets."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def doc_files() -> list[Path]:
    """What a user or a newcomer reads: the README, each folder's README and docs/
    (maintainers/ holds the team's process notes, not product documentation)."""
    return [
        ROOT / "README.md",
        *sorted(ROOT.glob("*/README.md")),
        *sorted(ROOT.glob("understanding/*/README.md")),
        *sorted((ROOT / "docs").glob("*.md")),
    ]


def doc_id(path: Path) -> str:
    return str(path.relative_to(ROOT))


def code_blocks(text: str) -> list[str]:
    """The contents of the fenced code blocks."""
    return re.findall(r"^```[^\n]*\n(.*?)^```", text, re.MULTILINE | re.DOTALL)


def code_spans(text: str) -> list[str]:
    """Inline `code` and every line of the fenced code blocks."""
    outside = re.sub(r"^```[^\n]*\n.*?^```", "", text, flags=re.MULTILINE | re.DOTALL)
    lines = [line for block in code_blocks(text) for line in block.splitlines()]
    return re.findall(r"`([^`\n]+)`", outside) + lines


def make_targets() -> set[str]:
    """The targets the Makefile defines (explicit rules; not variables, not patterns)."""
    targets: set[str] = set()
    for line in (ROOT / "Makefile").read_text(encoding="utf-8").splitlines():
        rule = re.match(r"^([A-Za-z0-9_.$()/ -]+?)\s*:(?![=:])", line)
        if rule and not line.startswith("\t"):
            targets.update(name for name in rule.group(1).split() if "$" not in name and "%" not in name)
    return targets


def make_commands(text: str) -> list[str]:
    """The targets of every `make ...` command a doc shows (`make -j2 nlu-report` names
    nlu-report), in code only: prose's "make sure" is not a command."""
    found = []
    for span in code_spans(text):
        for match in re.finditer(r"(?:^|[;&|(]\s*)\s*make((?:\s+-\S+)*)((?:\s+[a-z][\w-]*)+)", span):
            found.extend(match.group(2).split()[:1])
    return found
