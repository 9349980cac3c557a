"""`make run-cluster`'s supervisor (python -m ops.cluster) stops like `make run`'s: a
SIGTERM to its process group stops every process within 10 s, a SIGKILL of the
supervisor leaves none behind (PostgreSQL, running as another account, included), and a
taken port fails the start at once with one line naming it. Stopped while the replicas
start, so no test waits for Rasa to load."""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from bench.cluster import free_layout
from ops import parts
from tests.servers import REPO, VENV_BIN
from tests.test_run import pids, read_until, session_members, start_supervisor

pytestmark = [pytest.mark.rasa, pytest.mark.cluster]


@pytest.fixture
def cluster_env() -> Iterator[tuple[dict[str, str], Path]]:
    parts.ensure_installed()
    var = Path(tempfile.mkdtemp(prefix="fabric-advisor-run-cluster-"))  # reachable by the postgres account
    layout = free_layout(var)
    env = {
        **os.environ,
        "FABRIC_ADVISOR_VAR": str(var),
        "FABRIC_ADVISOR_API_PORT": str(layout.api_port),
        "FABRIC_ADVISOR_RASA_PORT": str(layout.rasa_port),
        "FABRIC_ADVISOR_POSTGRES_PORT": str(layout.postgres_port),
        "FABRIC_ADVISOR_REDIS_PORT": str(layout.redis_port),
        "FABRIC_ADVISOR_REPLICA_BASE_PORT": str(layout.replica_base_port),
    }
    try:
        yield env, var
    finally:
        shutil.rmtree(var, ignore_errors=True)


def started_parts(process: subprocess.Popen[str], var: Path) -> dict[str, int]:
    output = read_until(process, "starting rasa-2", timeout=180)
    assert "postgres is up" in output and "redis is up" in output, output
    time.sleep(2)  # the replicas are starting
    children = pids(var)
    assert {"postgres", "redis", "rasa-1", "rasa-2", "actions-1", "api-1"} <= set(children), children
    return children


def gone_within(children: dict[str, int], seconds: float) -> list[str]:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        left = [name for name, pid in children.items() if session_members(pid)]
        if not left:
            return []
        time.sleep(0.2)
    return left


def test_sigterm_to_the_group_stops_every_cluster_process_within_10s(cluster_env):
    env, var = cluster_env
    process = start_supervisor(env, "ops.cluster")
    try:
        children = started_parts(process, var)
        os.killpg(process.pid, signal.SIGTERM)
        assert gone_within(children, 10) == []
        process.wait(timeout=5)
        assert not list((var / "run").glob("*.pid"))
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait(timeout=10)


def test_a_sigkill_of_the_cluster_supervisor_leaves_no_process_behind(cluster_env):
    env, var = cluster_env
    process = start_supervisor(env, "ops.cluster")
    try:
        children = started_parts(process, var)
    finally:
        os.kill(process.pid, signal.SIGKILL)
        process.wait(timeout=10)
    assert gone_within(children, 10) == []


def test_a_taken_port_fails_the_cluster_start_at_once_naming_it(cluster_env):
    env, var = cluster_env
    port = int(env["FABRIC_ADVISOR_REDIS_PORT"])
    with socket.socket() as stranger:
        stranger.bind(("127.0.0.1", port))
        stranger.listen()
        started = time.monotonic()
        result = subprocess.run(
            [str(VENV_BIN / "python"), "-m", "ops.cluster"],
            cwd=REPO,
            env=env,
            capture_output=True,
            text=True,
            timeout=60,
        )
    assert result.returncode == 1 and time.monotonic() - started < 20
    errors = result.stderr.strip().splitlines()
    assert len(errors) == 1 and f"port {port} (redis)" in errors[0], result.stderr
    assert not (var / "cluster" / "postgres" / "PG_VERSION").exists()  # nothing was started
