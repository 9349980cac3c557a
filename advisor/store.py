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
def _db(path: Path) -> sqlite_utils.Database:
    path.parent.mkdir(parents=True, exist_ok=True)
    conn = sqlite3.connect(path, check_same_thread=False, isolation_level=None)
    db = sqlite_utils.Database(conn)
    db.execute("PRAGMA journal_mode=WAL")
    db.execute("PRAGMA synchronous=NORMAL")
    db["recommendations"].create(
        {"id": str, "created_at": str, "body": str}, pk="id", if_not_exists=True
    )
    return db


def database(path: Path | None = None) -> sqlite_utils.Database:
    return _db(Path(path or settings.db_path).resolve())


def recommendation_id(rec: Recommendation) -> str:
    body = rec.model_dump_json(exclude={"id"})
    return "r_" + hashlib.sha256(body.encode()).hexdigest()[:12]


def save(rec: Recommendation, path: Path | None = None) -> Recommendation:
    """Store rec and return it with its id set."""
    stored = rec.model_copy(update={"id": recommendation_id(rec)})
    with _lock:
        database(path).execute(
            "INSERT OR IGNORE INTO recommendations (id, created_at, body) VALUES (?, ?, ?)",
            [stored.id, datetime.now(UTC).isoformat(timespec="seconds"), stored.model_dump_json()],
        )
    return stored


def load(rec_id: str, path: Path | None = None) -> Recommendation | None:
    row = database(path).execute(
        "SELECT body FROM recommendations WHERE id = ?", [rec_id]
    ).fetchone()
    return Recommendation.model_validate_json(row[0]) if row else None
