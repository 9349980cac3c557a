"""Real PostgreSQL, Redis and HAProxy for tests, on free 127.0.0.1 ports under a
temporary directory, installed from Debian when missing (ops.parts) and stopped when
the fixture ends, also on failure (and with the test run, should it be killed)."""

from __future__ import annotations

import secrets
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from ops import parts
from ops.processes import free_port
from ops.supervisor import Supervisor

#: the parts' password for this test run (PostgreSQL and Redis both require one)
PASSWORD = secrets.token_hex(16)


@contextmanager
def postgres_and_redis(workdir: Path) -> Iterator[Supervisor]:
    """A Supervisor running `postgres` and `redis` (stop and start them by name)."""
    parts.ensure_installed()
    with pg_data_dir() as pg_data:
        supervisor = Supervisor(
            [parts.postgres(pg_data, free_port(), PASSWORD), parts.redis(workdir / "redis", free_port(), PASSWORD)],
            workdir,
        )
        with supervisor.running():
            yield supervisor


@contextmanager
def pg_data_dir() -> Iterator[Path]:
    """A directory the postgres account can reach: pytest keeps its own temporary
    directories private to root (0700), so PostgreSQL's data lives beside them in /tmp."""
    path = Path(tempfile.mkdtemp(prefix="fabric-advisor-pg-"))
    try:
        yield path / "data"
    finally:
        shutil.rmtree(path, ignore_errors=True)
