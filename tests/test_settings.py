"""One settings object for every environment variable, documented in the README."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from core import settings as settings_module
from core.settings import RASA_SIDE_VARIABLES, Settings

README = Path(__file__).resolve().parents[1] / "README.md"


def readme_variables() -> set[str]:
    text = README.read_text(encoding="utf-8")
    table = text[text.index("### Settings (environment variables)") :]
    table = table[: table.index("\n## ")]
    return set(re.findall(r"^\| `([A-Z][A-Z0-9_]+)` \|", table, re.MULTILINE))


def test_the_readme_table_lists_exactly_the_variables_the_settings_read() -> None:
    assert readme_variables() == set(settings_module.variables()) | set(RASA_SIDE_VARIABLES)


def test_every_setting_says_what_it_is_for() -> None:
    assert all(settings_module.variables().values())


def test_settings_come_from_the_environment_and_blank_means_default(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FABRIC_ADVISOR_API_PORT", "9000")
    monkeypatch.setenv("FABRIC_ADVISOR_KB", "/tmp/kb.db")
    monkeypatch.setenv("FABRIC_ADVISOR_API_KEY", "")
    loaded = Settings()
    assert loaded.api_port == 9000
    assert loaded.kb_path == Path("/tmp/kb.db")
    assert loaded.api_key is None
    assert loaded.public_url == "http://127.0.0.1:9000"


def test_a_malformed_setting_names_the_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FABRIC_ADVISOR_API_PORT", "eighty")
    with pytest.raises(ValueError, match="FABRIC_ADVISOR_API_PORT"):
        Settings()


def test_no_module_reads_the_environment_but_the_settings() -> None:
    root = README.parent
    readers = {
        str(path.relative_to(root))
        for package in ("advisor", "api", "bot/actions", "core", "understanding", "knowledge", "rules")
        for path in (root / package).rglob("*.py")
        if re.search(r"os\.environ\.get|os\.getenv|os\.environ\[", path.read_text(encoding="utf-8"))
    }
    assert readers == set()
