"""The cluster's PostgreSQL and Redis trust nobody: PostgreSQL asks every connection,
over TCP and over its Unix socket, for the password (SCRAM-SHA-256), and Redis answers
nothing but NOAUTH until a client authenticates; with the password both work. Redis
keeps what it was given through a restart and a crash: a conversation's lease (a ticket
in a sorted set, with its expiry) is still there, expiring when it would have."""

from __future__ import annotations

import socket
from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest

from ops import parts
from ops.processes import port_taken
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


def redis_command(port: int, *words: str) -> bytes:
    """One command after AUTH, in Redis's protocol; its reply line(s), raw."""
    request = b"".join(
        f"*{len(command)}\r\n".encode() + b"".join(f"${len(w.encode())}\r\n{w}\r\n".encode() for w in command)
        for command in (("AUTH", PASSWORD), words)
    )
    with socket.create_connection(("127.0.0.1", port), timeout=5) as conn:
        conn.sendall(request)
        reply = b""
        while reply.count(b"\r\n") < 2 or (reply.split(b"\r\n", 1)[1][:1] == b"$" and reply.count(b"\r\n") < 3):
            chunk = conn.recv(256)
            if not chunk:
                break
            reply += chunk
    assert reply.startswith(b"+OK\r\n"), reply
    return reply.split(b"\r\n", 1)[1]


def test_redis_keeps_a_conversation_lease_through_a_restart_and_a_crash(shared: Supervisor) -> None:
    """What channels/ticket_lock.py writes for a ticket: the conversation's sorted set,
    ticket -> lease end, expiring a minute on. A restart used to empty the store (nothing
    was persisted), so the next turn took a ticket while the first still ran."""
    port = shared.services["redis"].port
    key = "fabricadvisor:lock:rest:survivor"
    assert redis_command(port, "ZADD", key, "1800000000000", "7") == b":1\r\n"
    assert redis_command(port, "PEXPIRE", key, "120000") == b":1\r\n"
    for stop in (shared.stop, shared.kill):  # SIGTERM (a restart), then SIGKILL (a crash)
        stop("redis")
        assert not port_taken(port), "still answering"
        shared.start("redis")
        assert redis_command(port, "ZSCORE", key, "7") == b"$13\r\n1800000000000\r\n", stop.__name__
        assert 0 < int(redis_command(port, "PTTL", key)[1:].strip()) <= 120000, stop.__name__
