"""The database is rebuilt only when a source changed, atomically, and read through
read-only connections; `python -m knowledge` builds and searches it."""

from __future__ import annotations

import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

import knowledge
from core.settings import settings
from knowledge import sources, store
from knowledge.__main__ import main

REPO = Path(__file__).resolve().parents[1]


@pytest.fixture
def source_copy(tmp_path) -> Path:
    copy = tmp_path / "sources"
    shutil.copytree(sources.SOURCES_DIR, copy)
    return copy


def test_build_then_skip_when_nothing_changed(tmp_path, source_copy):
    db = tmp_path / "kb.db"
    first = knowledge.build(db, sources_dir=source_copy)
    assert first.rebuilt and first.entries == len(sources.load(source_copy)) and db.exists()
    second = knowledge.build(db, sources_dir=source_copy)
    assert not second.rebuilt and second.entries == first.entries


@pytest.mark.slow  # the search after the rebuild embeds every entry again
def test_rebuilt_when_a_source_changed(tmp_path, source_copy):
    db = tmp_path / "kb.db"
    knowledge.build(db, sources_dir=source_copy)
    assert knowledge.search("zettabyte", db_path=db) == []
    with (source_copy / "glossary.yaml").open("a") as f:
        f.write(
            "\n  - id: glossary-zettabyte\n    title: Zettabyte\n    term: zettabyte\n"
            "    text: A very large amount of data.\n    source: Test fixture\n"
        )
    result = knowledge.build(db, sources_dir=source_copy)
    assert result.rebuilt
    # the same thread's cached connection notices the new file
    assert [e.id for e in knowledge.search("zettabyte", db_path=db)] == ["glossary-zettabyte"]


def test_force_rebuilds(tmp_path, source_copy):
    db = tmp_path / "kb.db"
    knowledge.build(db, sources_dir=source_copy)
    assert knowledge.build(db, force=True, sources_dir=source_copy).rebuilt


def test_build_leaves_no_temporary_files(tmp_path, source_copy):
    db = tmp_path / "out" / "kb.db"
    knowledge.build(db, sources_dir=source_copy)
    assert sorted(p.name for p in db.parent.iterdir()) == ["kb.db"]


def test_broken_source_keeps_the_old_database(tmp_path, source_copy):
    db = tmp_path / "kb.db"
    knowledge.build(db, sources_dir=source_copy)
    (source_copy / "faq.yaml").write_text("faq:\n  - {id: broken}\n")
    with pytest.raises(sources.SourceError):
        knowledge.build(db, sources_dir=source_copy)
    assert knowledge.search("how many ports does each server need", db_path=db)[0].id == "faq-ports-per-server"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["kb.db", "sources"]


def test_database_has_a_table_per_kind_and_an_fts_index(tmp_path, source_copy):
    db = tmp_path / "kb.db"
    knowledge.build(db, sources_dir=source_copy)
    conn = sqlite3.connect(db)
    tables = {r[0] for r in conn.execute("select name from sqlite_master where type = 'table'")}
    assert {
        "technologies",
        "generations",
        "roce",
        "topologies",
        "figures",
        "faq",
        "ports",
        "glossary",
        "hardware_switches",
        "hardware_nics",
        "hardware_servers",
        "links",
        "cost",
        "entries",
        "entries_fts",
        "meta",
    } <= tables
    assert "porter" in conn.execute("select sql from sqlite_master where name = 'entries_fts'").fetchone()[0]
    assert conn.execute("select value from meta where key = 'fingerprint'").fetchone()[0] == sources.fingerprint(
        source_copy
    )
    assert conn.execute("select count(*) from technologies").fetchone()[0] == 6
    conn.close()


def test_read_connections_are_read_only(tmp_path, source_copy):
    db = tmp_path / "kb.db"
    knowledge.build(db, sources_dir=source_copy)
    with pytest.raises(sqlite3.OperationalError, match="readonly"):
        store.connection(db).execute("create table scratch (a)")


def test_search_builds_the_default_database_when_missing(tmp_path, monkeypatch):
    db = tmp_path / "var" / "knowledge.db"
    monkeypatch.setattr(settings, "kb_path", db)  # $FABRIC_ADVISOR_KB, read once per process
    assert knowledge.default_db_path() == db
    assert knowledge.search("what is SHARP")[0].id == "glossary-sharp"
    assert db.exists()


def test_cli_build_and_search(tmp_path, capsys):
    db = str(tmp_path / "kb.db")
    assert main(["build", "--db", db]) == 0
    assert "built" in capsys.readouterr().out
    assert main(["build", "--db", db]) == 0
    assert "up to date" in capsys.readouterr().out
    assert main(["search", "what", "is", "PFC", "--db", db]) == 0
    out = capsys.readouterr().out
    assert "PFC" in out and "Source: " in out
    assert main(["subject", "nonsense", "--db", db]) == 2


def test_python_dash_m_knowledge_runs(tmp_path):
    db = tmp_path / "kb.db"
    done = subprocess.run(
        [sys.executable, "-m", "knowledge", "build", "--db", str(db)],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert db.exists()
