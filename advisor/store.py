"""Stored recommendations, so a sales engineer can share one by its id.

The id is a hash of the recommendation's content: the same profile under the same
rules gets the same id, and storing it again changes nothing.
"""

from __future__ import annotations

import hashlib
import sqlite3
import threading
from datetime import UTC, datetime
from functools import cache
from pathlib import Path

import sqlite_utils

from advisor.settings import settings
from rules.models import Recommendation

_lock = threading.Lock()


@cache
def _db(path: Path, identity: tuple[int, int]) -> sqlite_utils.Database:
    """One connection per database file (`identity` is its device and inode)."""
    conn = sqlite3.connect(path, check_same_thread=False, isolation_level=None)
    db = sqlite_utils.Database(conn)
    db.execute("PRAGMA journal_mode=WAL")
    db.execute("PRAGMA synchronous=NORMAL")
    db.table("recommendations").create({"id": str, "created_at": str, "body": str}, pk="id", if_not_exists=True)
    return db


def database(path: Path | None = None) -> sqlite_utils.Database:
    """The store's connection, reopened when the file was replaced or removed (a cached
    connection would keep writing to the old file, and its ids would 404 elsewhere)."""
    resolved = Path(path or settings.db_path).resolve()
    if not resolved.exists():
        resolved.parent.mkdir(parents=True, exist_ok=True)
        sqlite3.connect(resolved).close()
    stat = resolved.stat()
    return _db(resolved, (stat.st_dev, stat.st_ino))


def recommendation_id(rec: Recommendation) -> str:
    return _content_id(rec.model_dump_json(exclude={"id"}))


def _content_id(body_without_id: str) -> str:
    return "r_" + hashlib.sha256(body_without_id.encode()).hexdigest()[:12]


def save(rec: Recommendation, path: Path | None = None) -> Recommendation:
    """Store rec and return it with its id set."""
    body = rec.model_dump_json(exclude={"id"})
    rec_id = _content_id(body)
    stored = rec.model_copy(update={"id": rec_id})
    document = f'{{"id":"{rec_id}",{body[1:]}' if body != "{}" else f'{{"id":"{rec_id}"}}'
    with _lock:
        database(path).execute(
            "INSERT OR IGNORE INTO recommendations (id, created_at, body) VALUES (?, ?, ?)",
            [rec_id, datetime.now(UTC).isoformat(timespec="seconds"), document],
        )
    return stored


def load(rec_id: str, path: Path | None = None) -> Recommendation | None:
    row = database(path).execute("SELECT body FROM recommendations WHERE id = ?", [rec_id]).fetchone()
    return Recommendation.model_validate_json(row[0]) if row else None
