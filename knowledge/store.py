"""Where the knowledge database lives, and cheap read-only connections to it.

FastAPI runs sync endpoints in a thread pool and the action server serves many
conversations, so every thread gets its own read-only connection, opened once and
reused. When `build()` renames a new database into place the file's inode changes, and
the next read in each thread reopens it.
"""

from __future__ import annotations

import sqlite3
import threading
from pathlib import Path
from typing import TYPE_CHECKING

from knowledge.build import build, resolve_db_path

if TYPE_CHECKING:  # imported by the first connection: `recommend` reads the catalogue, not this database
    import sqlite_utils

_local = threading.local()
_build_lock = threading.Lock()


def connection(db_path: str | Path | None = None) -> sqlite_utils.Database:
    """This thread's read-only connection to the database, built first if missing (the
    default database is a build output: a fresh clone or a new `$FABRIC_ADVISOR_KB`
    gets one on first use)."""
    path = resolve_db_path(db_path).resolve()
    if not path.exists():
        with _build_lock:
            if not path.exists():
                build(path)
    stat = path.stat()
    identity = (stat.st_dev, stat.st_ino)
    cache: dict[Path, tuple[tuple[int, int], sqlite_utils.Database]] = _local.__dict__.setdefault("dbs", {})
    cached = cache.get(path)
    if cached and cached[0] == identity:
        return cached[1]
    if cached:
        cached[1].close()
    import sqlite_utils

    conn = sqlite3.connect(f"{path.as_uri()}?mode=ro", uri=True, check_same_thread=False)
    db = sqlite_utils.Database(conn, recursive_triggers=False, execute_plugins=False)
    cache[path] = (identity, db)
    return db
