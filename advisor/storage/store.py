"""Stored recommendations, so a sales engineer can share one by its id.

The id is a hash of the recommendation's content: the same profile under the same
rules gets the same id, and storing it again changes nothing.

Where they are kept:
- by default an embedded SQLite file (`FABRIC_ADVISOR_DB`, var/advisor.db), for one
  machine;
- in PostgreSQL when `FABRIC_ADVISOR_DATABASE_URL` is set
  (`postgresql://user:password@host:5432/fabric_advisor`), so every API process and
  action server of a replicated deployment serves what any of them stored.

Recommendations are kept FABRIC_ADVISOR_RETENTION_DAYS (90 by default): one older than
that reads as missing, and each process deletes the expired ones on a write, at most
once an hour (storing a recommendation again restarts its time).

A store that cannot be reached raises `StoreUnavailable`, which says which store and
why; the API answers it with 503 and the chat with an apology, and the next call tries
again (a new connection once the database is back, nothing to restart).
"""

from __future__ import annotations

import hashlib
import sqlite3
import threading
import time
from datetime import UTC, datetime, timedelta
from functools import cache
from pathlib import Path
from typing import Protocol
from urllib.parse import urlsplit

from core.settings import settings
from rules.models import Recommendation

_lock = threading.Lock()
CONNECT_TIMEOUT_S = 3
#: how long a write waits for another process's (or a replaced connection's) lock
BUSY_TIMEOUT_S = 30
#: one thread at a time opens a store: the API's worker threads ask for it at once on the
#: first requests, and two connections creating the table together found it locked
_opening = threading.Lock()
POOL_SIZE = 4
#: how often a process deletes expired recommendations (on a write, at most this often)
PURGE_EVERY_S = 3600.0
_last_purge: dict[int, float] = {}


#: "This looks wrong" reports: the design's id, the reason, and the versions of the data
#: the design was made from (so the report stays readable after the data changed).
FEEDBACK_TABLE = (
    "CREATE TABLE IF NOT EXISTS feedback (id SERIAL PRIMARY KEY, recommendation_id TEXT NOT NULL, "
    "created_at TEXT NOT NULL, reason TEXT NOT NULL, versions TEXT NOT NULL)"
)


#: "Talk to an engineer" requests (advisor/handoffs/handoff.py): the reference the person is given,
#: the design and conversation they came from, their contact details and message, what
#: they had told the advisor (the chat's summary), and what each destination answered
#: (JSON, filled in once they were tried).
HANDOFF_TABLE = (
    "CREATE TABLE IF NOT EXISTS handoffs (reference TEXT PRIMARY KEY, created_at TEXT NOT NULL, "
    "recommendation_id TEXT, conversation_id TEXT, name TEXT NOT NULL, email TEXT NOT NULL, "
    "company TEXT NOT NULL, message TEXT NOT NULL, details TEXT, deliveries TEXT NOT NULL)"
)
HANDOFF_COLUMNS = (
    "reference, created_at, recommendation_id, conversation_id, name, email, company, message, details, deliveries"
)


class StoreUnavailable(RuntimeError):
    """The store of recommendations cannot be reached (the message says which and why)."""


class Store(Protocol):
    def insert(self, rec_id: str, created_at: str, document: str) -> None: ...

    def body(self, rec_id: str, since: str = "") -> str | None: ...

    def purge(self, before: str) -> int: ...

    def insert_feedback(self, rec_id: str, created_at: str, reason: str, versions: str) -> int: ...

    def insert_handoff(self, row: tuple[str | None, ...]) -> None: ...

    def record_deliveries(self, reference: str, deliveries: str) -> None: ...


class SqliteStore:
    """One SQLite file (WAL), shared by the threads of one process."""

    def __init__(self, path: Path) -> None:
        path = path.resolve()
        path.parent.mkdir(parents=True, exist_ok=True)
        conn = sqlite3.connect(path, check_same_thread=False, isolation_level=None, timeout=BUSY_TIMEOUT_S)
        # the standard library's sqlite3, not sqlite-utils: its import (numpy with it) would
        # cost the CLI's `recommend` a fifth of its start-up for one CREATE TABLE
        self.db = conn
        self.db.execute("PRAGMA journal_mode=WAL")
        self.db.execute("PRAGMA synchronous=NORMAL")
        self.db.execute(
            "CREATE TABLE IF NOT EXISTS [recommendations] ([id] TEXT PRIMARY KEY, [created_at] TEXT, [body] TEXT)"
        )

    def insert(self, rec_id: str, created_at: str, document: str) -> None:
        with _lock:
            self.db.execute(
                "INSERT INTO recommendations (id, created_at, body) VALUES (?, ?, ?) "
                "ON CONFLICT (id) DO UPDATE SET created_at = excluded.created_at",
                [rec_id, created_at, document],
            )

    def body(self, rec_id: str, since: str = "") -> str | None:
        row = self.db.execute(
            "SELECT body FROM recommendations WHERE id = ? AND created_at >= ?", [rec_id, since]
        ).fetchone()
        return str(row[0]) if row else None

    def purge(self, before: str) -> int:
        with _lock:
            return self.db.execute("DELETE FROM recommendations WHERE created_at < ?", [before]).rowcount

    def insert_feedback(self, rec_id: str, created_at: str, reason: str, versions: str) -> int:
        with _lock:
            self.db.execute(FEEDBACK_TABLE.replace("SERIAL", "INTEGER"))
            cursor = self.db.execute(
                "INSERT INTO feedback (recommendation_id, created_at, reason, versions) VALUES (?, ?, ?, ?)",
                [rec_id, created_at, reason, versions],
            )
            return int(cursor.lastrowid or 0)

    def insert_handoff(self, row: tuple[str | None, ...]) -> None:
        """row: the values of HANDOFF_COLUMNS, in order."""
        with _lock:
            self.db.execute(HANDOFF_TABLE)
            self.db.execute(f"INSERT INTO handoffs ({HANDOFF_COLUMNS}) VALUES ({', '.join('?' * len(row))})", list(row))

    def record_deliveries(self, reference: str, deliveries: str) -> None:
        with _lock:
            self.db.execute("UPDATE handoffs SET deliveries = ? WHERE reference = ?", [deliveries, reference])


class PostgresStore:
    """A table in PostgreSQL, reached through a small pool of connections that are
    checked before use, so a restarted server is found again without a restart of ours."""

    def __init__(self, url: str) -> None:
        # here, not at the top: psycopg loads only where PostgreSQL is configured, so the
        # CLI's `recommend` on the SQLite file starts without it
        import psycopg
        import psycopg_pool

        self._errors = (psycopg.OperationalError, psycopg_pool.PoolTimeout)
        self.url = url
        self.where = _without_password(url)
        self.pool = psycopg_pool.ConnectionPool(
            url,
            min_size=0,
            max_size=POOL_SIZE,
            kwargs={"connect_timeout": CONNECT_TIMEOUT_S, "autocommit": True},
            check=psycopg_pool.ConnectionPool.check_connection,
            timeout=CONNECT_TIMEOUT_S + 1,
            open=True,
        )
        self._ready = False

    def _run(self, sql: str, params: tuple[str | None, ...]) -> tuple[str, ...] | None:
        try:
            with self.pool.connection() as conn:
                if not self._ready:
                    conn.execute(
                        "CREATE TABLE IF NOT EXISTS recommendations "
                        "(id TEXT PRIMARY KEY, created_at TEXT NOT NULL, body TEXT NOT NULL)"
                    )
                    self._ready = True
                cursor = conn.execute(sql, params)
                return cursor.fetchone() if cursor.description else None
        except self._errors as exc:
            reason = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
            raise StoreUnavailable(
                f"the recommendation store (PostgreSQL at {self.where}) is unreachable: {reason}"
            ) from exc

    def insert(self, rec_id: str, created_at: str, document: str) -> None:
        self._run(
            "INSERT INTO recommendations (id, created_at, body) VALUES (%s, %s, %s) "
            "ON CONFLICT (id) DO UPDATE SET created_at = excluded.created_at",
            (rec_id, created_at, document),
        )

    def body(self, rec_id: str, since: str = "") -> str | None:
        row = self._run("SELECT body FROM recommendations WHERE id = %s AND created_at >= %s", (rec_id, since))
        return str(row[0]) if row else None

    def purge(self, before: str) -> int:
        self._run("DELETE FROM recommendations WHERE created_at < %s", (before,))
        return -1  # (the count is not read back here)

    def insert_feedback(self, rec_id: str, created_at: str, reason: str, versions: str) -> int:
        self._run(FEEDBACK_TABLE, ())
        row = self._run(
            "INSERT INTO feedback (recommendation_id, created_at, reason, versions) VALUES (%s, %s, %s, %s) "
            "RETURNING id",
            (rec_id, created_at, reason, versions),
        )
        return int(row[0]) if row else 0

    def insert_handoff(self, row: tuple[str | None, ...]) -> None:
        self._run(HANDOFF_TABLE, ())
        self._run(f"INSERT INTO handoffs ({HANDOFF_COLUMNS}) VALUES ({', '.join(['%s'] * len(row))})", row)

    def record_deliveries(self, reference: str, deliveries: str) -> None:
        self._run("UPDATE handoffs SET deliveries = %s WHERE reference = %s", (deliveries, reference))


def _without_password(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.hostname}:{parts.port or 5432}{parts.path}"


@cache
def _postgres(url: str) -> PostgresStore:
    return PostgresStore(url)


@cache
def _sqlite(path: Path, identity: tuple[int, int]) -> SqliteStore:
    """One connection per database file (`identity` is its device and inode)."""
    return SqliteStore(path)


def _store(where: str) -> Store:
    """PostgreSQL for a URL; else the SQLite file, its connection reopened when the file
    was replaced or removed (a cached connection would keep writing to the old file, and
    the ids it hands out would 404 elsewhere)."""
    with _opening:
        if where.startswith(("postgresql://", "postgres://")):
            return _postgres(where)
        path = Path(where).resolve()
        if not path.exists():
            path.parent.mkdir(parents=True, exist_ok=True)
            sqlite3.connect(path).close()
        stat = path.stat()
        return _sqlite(path, (stat.st_dev, stat.st_ino))


def database(path: Path | None = None) -> Store:
    """The store: path's SQLite file when given, else FABRIC_ADVISOR_DATABASE_URL's
    PostgreSQL when set, else FABRIC_ADVISOR_DB's SQLite file."""
    if path is not None:
        return _store(str(path))
    return _store(settings.database_url or str(settings.db_path))


#: Left out of the id: the same design quoted again on another day is the same quote
#: (the store keeps the first issue date).
NOT_IN_ID: dict[str, object] = {"id": True, "quote": {"issued": True, "valid_until": True}}


def recommendation_id(rec: Recommendation) -> str:
    return _content_id(rec.model_dump_json(exclude=NOT_IN_ID))  # type: ignore[arg-type]


def _content_id(body_without_id: str) -> str:
    return "r_" + hashlib.sha256(body_without_id.encode()).hexdigest()[:12]


def _timestamp(moment: datetime) -> str:
    """The stored form of a time: ISO 8601 in UTC, so that text order is time order."""
    return moment.astimezone(UTC).isoformat(timespec="seconds")


def kept_since(now: datetime | None = None) -> str:
    """The oldest creation time still kept (FABRIC_ADVISOR_RETENTION_DAYS before now)."""
    return _timestamp((now or datetime.now(UTC)) - timedelta(days=settings.retention_days))


def purge_expired(path: Path | None = None, now: datetime | None = None) -> int:
    """Delete the recommendations older than the retention period; how many went (-1: not counted)."""
    return database(path).purge(kept_since(now))


def save(rec: Recommendation, path: Path | None = None) -> Recommendation:
    """Store rec and return it with its id set; a design stored before comes back as it
    was stored (its quote's first issue date)."""
    rec_id = recommendation_id(rec)
    stored = rec.model_copy(update={"id": rec_id})
    document = stored.model_dump_json()
    store = database(path)
    # a second save of the same design restarts its retention clock and keeps its first body
    store.insert(rec_id, _timestamp(datetime.now(UTC)), document)
    if time.monotonic() - _last_purge.get(id(store), -PURGE_EVERY_S) >= PURGE_EVERY_S:
        _last_purge[id(store)] = time.monotonic()
        store.purge(kept_since())
    if rec.quote is not None:  # the quote's first issue date
        kept = store.body(rec_id)
        if kept is not None and kept != document:
            return Recommendation.model_validate_json(kept)
    return stored


def save_feedback(rec: Recommendation, reason: str, path: Path | None = None) -> tuple[int, str]:
    """File a "this looks wrong" report against a stored design; its id and time."""
    created_at = datetime.now(UTC).isoformat(timespec="seconds")
    versions = rec.versions.model_dump_json() if rec.versions else "{}"
    return database(path).insert_feedback(rec.id or "", created_at, reason, versions), created_at


def load(rec_id: str, path: Path | None = None) -> Recommendation | None:
    """The stored recommendation, or None when there is none or it is past the retention period."""
    body = database(path).body(rec_id, since=kept_since())
    return Recommendation.model_validate_json(body) if body else None
