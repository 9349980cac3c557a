"""Building the knowledge database from the YAML sources.

    >>> import knowledge
    >>> knowledge.build("var/knowledge.db")            # doctest: +SKIP
    BuildResult(path=PosixPath('var/knowledge.db'), rebuilt=True, entries=123)

The database holds one table per kind of entry (`faq`, `glossary`, `hardware_servers`,
...), an `entries` table with every entry's common fields and an FTS5 index over it
(`entries_fts`, porter stemming, bm25 with the title weighted highest), and a `meta`
table with the fingerprint of the sources it was built from.

It is a build output: `build()` does nothing when the fingerprint matches, and writes a
new database into a temporary file next to the target and renames it into place, so a
reader never sees half a database.
"""

from __future__ import annotations

import json
import os
import sqlite3
import tempfile
from collections import defaultdict
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from core.settings import settings
from knowledge import sources

#: bm25 weights of the indexed columns, in index order: title, text, aliases, questions
#: (the paraphrases of the questions an entry answers, written as customers ask them).
FTS_COLUMNS = ("title", "text", "aliases", "questions")
FTS_WEIGHTS = (8.0, 1.0, 4.0, 4.0)


class BuildResult(BaseModel):
    """What `build()` did."""

    path: Path
    rebuilt: bool
    entries: int


def default_db_path() -> Path:
    """`$FABRIC_ADVISOR_KB` when set, else `<repo>/var/knowledge.db` (core.settings)."""
    return settings.kb_path


def resolve_db_path(db_path: str | Path | None = None) -> Path:
    return Path(db_path) if db_path is not None else default_db_path()


def build(
    db_path: str | Path | None = None,
    force: bool = False,
    sources_dir: str | Path | None = None,
) -> BuildResult:
    """Build the database at `db_path` (default: `$FABRIC_ADVISOR_KB` or `var/knowledge.db`).

    Skipped, with `rebuilt=False`, when the database was built from the same sources;
    `force=True` rebuilds anyway. `sources_dir` reads another copy of the sources.
    """
    path = resolve_db_path(db_path)
    digest = sources.fingerprint(sources_dir)
    if not force:
        meta = read_meta(path)
        if meta.get("fingerprint") == digest:
            return BuildResult(path=path, rebuilt=False, entries=int(meta.get("entries", 0)))
    records = sources.load(sources_dir, cached=False)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp_name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    os.close(fd)
    tmp = Path(tmp_name)
    try:
        _write(tmp, records, digest)
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    return BuildResult(path=path, rebuilt=True, entries=len(records))


def read_meta(path: str | Path) -> dict[str, str]:
    """The `meta` table of an existing database; empty when missing or unreadable."""
    path = Path(path)
    if not path.is_file():
        return {}
    try:
        conn = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)
        try:
            return dict(conn.execute("select key, value from meta").fetchall())
        finally:
            conn.close()
    except sqlite3.Error:
        return {}


def _write(path: Path, records: list[sources.Record], digest: str) -> None:
    import sqlite_utils  # here: a command that only reads the catalogue never loads it (nor numpy with it)

    db = sqlite_utils.Database(path, recreate=True)
    try:
        by_kind: dict[str, list[dict[str, Any]]] = defaultdict(list)
        for record in records:
            by_kind[record.kind].append(record.data)
        for kind, rows in by_kind.items():
            db.table(kind).insert_all(rows, pk="id", alter=True)

        db.table("entries").insert_all(
            (
                {
                    "id": r.id,
                    "subject": r.subject,
                    "kind": r.kind,
                    "title": r.data["title"],
                    "text": r.data["text"],
                    "source": r.data["source"],
                    "aliases": " | ".join(r.data["aliases"]),
                    "questions": " | ".join(str(q) for q in r.data.get("questions") or []),
                    "note": r.data["note"],
                    "data": json.dumps(r.data, ensure_ascii=False),
                }
                for r in records
            ),
            pk="id",
        )
        db.table("entries").create_index(["subject"])
        db.table("entries").enable_fts(list(FTS_COLUMNS), tokenize="porter")
        weights = ", ".join(str(w) for w in FTS_WEIGHTS)
        db.execute("insert into entries_fts(entries_fts, rank) values ('rank', ?)", [f"bm25({weights})"])

        db.table("meta").insert_all(
            [
                {"key": "fingerprint", "value": digest},
                {"key": "schema_version", "value": sources.SCHEMA_VERSION},
                {"key": "entries", "value": str(len(records))},
                {"key": "built_at", "value": datetime.now(UTC).isoformat(timespec="seconds")},
            ],
            pk="key",
        )
        db.conn.commit()
    finally:
        db.close()
