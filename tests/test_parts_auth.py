"""The cluster's PostgreSQL and Redis trust nobody: PostgreSQL asks every connection,
over TCP and over its Unix socket, for the password (SCRAM-SHA-256), and Redis answers
nothing but NOAUTH until a client authenticates; with the password both work."""

from __future__ import annotations

import socket
from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest

from ops import parts
from ops.supervisor import Supervisor
from tests.shared_parts import PASSWORD, postgres_and_redis

pytestmark = pytest.mark.cluster


@pytest.fixture(scope="module")
def shared(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Supervisor]:
    with postgres_and_redis(tmp_path_factory.mktemp("auth")) as supervisor:
        yield supervisor


def redis_says(port: int, commands: bytes) -> bytes:
    with socket.create_connection(("127.0.0.1", port), timeout=5) as conn:
        conn.sendall(commands)
        return conn.recv(256)


def test_postgres_refuses_connections_without_the_password(shared: Supervisor) -> None:
    port = shared.services["postgres"].port
    socket_dir = Path(shared.services["postgres"].cwd)
    for url in (
        f"postgresql://{parts.POSTGRES_USER}@127.0.0.1:{port}/{parts.DATABASE}",
        f"postgresql://{parts.POSTGRES_USER}:wrong@127.0.0.1:{port}/{parts.DATABASE}",
        f"postgresql://{parts.POSTGRES_USER}@/{parts.DATABASE}?host={socket_dir}&port={port}",
    ):
        with pytest.raises(psycopg.OperationalError, match="password"):
            psycopg.connect(url, connect_timeout=5).close()
    with psycopg.connect(parts.postgres_url(port, PASSWORD), connect_timeout=5) as conn:
        method = conn.execute("SELECT rolpassword FROM pg_authid WHERE rolname = 'postgres'").fetchone()
    assert method is not None and str(method[0]).startswith("SCRAM-SHA-256$")


def test_redis_answers_only_an_authenticated_client(shared: Supervisor) -> None:
    port = shared.services["redis"].port
    assert redis_says(port, b"PING\r\n").startswith(b"-NOAUTH")
    assert redis_says(port, b"AUTH wrong\r\n").startswith(b"-WRONGPASS")
    assert redis_says(port, f"AUTH {PASSWORD}\r\n".encode()) == b"+OK\r\n"
