"""What the docs name exists: every file or folder of the repository a doc mentions,
every FABRIC_ADVISOR_* variable (a setting of core.settings; tests/test_settings.py
checks the README's table against it), and in knowledge/README.md every source file
with its kinds."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml

from core import settings as settings_module
from core.settings import RASA_SIDE_VARIABLES
from tests.docs import ROOT, doc_files, doc_id

FOLDERS = sorted(path.name for path in ROOT.iterdir() if path.is_dir() and not path.name.startswith("."))
FILE = r"\.(?:py|ya?ml|md|txt|toml|json|cfg|html|js|css|csv|svg|png|in|sh)"
# a path: one of our folders and what follows (`rules/engine.py`, `knowledge/sources/*.yaml`,
# `bench/`), or any folder and a file (`actions/replies.yml`, relative to the doc's
# folder); never part of a URL, a shell variable or a longer path
PATH = re.compile(r"(?<![\w./:$~-])((?:[\w.-]+)/(?:[\w*.-]+/)*(?:[\w*.-]+" + FILE + r"|[\w*.-]*/?))(?![\w/])")
# made at run time by the Makefile and the servers, not kept in the repository
RUN_TIME = ("var/", "bot/models/", ".venv")


def mentioned_paths(text: str) -> set[str]:
    return {match for match in PATH.findall(text) if match.split("/")[0] in FOLDERS or re.search(FILE + "$", match)}


def exists(doc: Path, mention: str) -> bool:
    for base in (doc.parent, ROOT):
        if "*" in mention:
            if any(base.glob(mention.rstrip("/"))):
                return True
        elif (base / mention).exists():
            return True
    return False


def test_paths_are_found_in_a_sentence() -> None:
    found = mentioned_paths(
        "see `rules/rulebook/*.yaml`, bench/, actions/replies.yml, 132/134 and/or"
        " http://127.0.0.1:8000/v1/bom.csv or $PWD/../var/x.db"
    )
    assert found == {"rules/rulebook/*.yaml", "bench/", "actions/replies.yml"}


@pytest.mark.parametrize("doc", doc_files(), ids=doc_id)
def test_every_path_a_doc_mentions_exists(doc: Path) -> None:
    missing = sorted(
        mention
        for mention in mentioned_paths(doc.read_text(encoding="utf-8"))
        if not mention.startswith(RUN_TIME) and not exists(doc, mention)
    )
    assert missing == []


def test_a_missing_path_is_caught(tmp_path: Path) -> None:
    doc = tmp_path / "README.md"
    assert not exists(doc, "rules/no_such_module.py")
    assert exists(doc, "rules/engine.py") and exists(doc, "knowledge/sources/*.yaml")


@pytest.mark.parametrize("doc", doc_files(), ids=doc_id)
def test_every_variable_a_doc_names_is_a_setting(doc: Path) -> None:
    known = set(settings_module.variables()) | set(RASA_SIDE_VARIABLES)
    named = set(re.findall(r"\bFABRIC_ADVISOR_[A-Z0-9_]*[A-Z0-9]\b", doc.read_text(encoding="utf-8")))
    assert named - known == set()


def test_the_knowledge_readme_lists_every_source_file_with_its_kinds() -> None:
    text = (ROOT / "knowledge" / "README.md").read_text(encoding="utf-8")
    rows = dict(re.findall(r"^\| ([\w-]+\.yaml) \| (.+) \|$", text, re.MULTILINE))
    sources = sorted((ROOT / "knowledge" / "sources").glob("*.yaml"))
    assert sorted(rows) == [path.name for path in sources]
    for path in sources:
        kinds = yaml.safe_load(path.read_text(encoding="utf-8"))
        described = set(re.findall(r"[a-z_]+", rows[path.name]))
        assert set(kinds) <= described, (path.name, set(kinds) - described)
