"""The examples in the docstrings run: every module of ours with a `>>>` line is doctested
(bot/channels runs in Rasa's environment and has none)."""

from __future__ import annotations

import doctest
import importlib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("advisor", "api", "bot", "understanding", "knowledge", "rules")


def modules_with_examples() -> list[str]:
    names = []
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            if "channels" in path.parts or ">>>" not in path.read_text(encoding="utf-8"):
                continue
            names.append(".".join(path.relative_to(ROOT).with_suffix("").parts).removesuffix(".__init__"))
    return names


def test_some_modules_have_examples() -> None:
    assert len(modules_with_examples()) >= 5


@pytest.mark.parametrize("name", modules_with_examples())
def test_docstring_examples_run(name: str) -> None:
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert result.attempted > 0, f"{name}: no example ran"
    assert result.failed == 0, f"{name}: {result.failed} of {result.attempted} examples failed"
