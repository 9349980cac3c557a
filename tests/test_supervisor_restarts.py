"""ops.supervisor's restart loop, on real processes (small HTTP servers): a service that
dies is started again after its back-off while the others run on untouched; one that
keeps dying is a crash loop, which stops the stack; `make run`'s supervisor says so
and exits 1."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import httpx
import pytest

from ops.processes import free_port
from ops.supervisor import CrashLoop, RestartPolicy, Service, Supervisor
from tests.servers import REPO, VENV_BIN

#: our code in another process (make test runs these; make check leaves them out)
pytestmark = pytest.mark.e2e

QUICK = RestartPolicy(max_deaths=3, window_s=60.0, first_delay_s=0.2, max_delay_s=1.0)


def http_server(name: str, tmp_path: Path) -> Service:
    port = free_port()
    command = [sys.executable, "-m", "http.server", "--bind", "127.0.0.1", str(port)]
    return Service(name, command, tmp_path, port, f"http://127.0.0.1:{port}/", 20.0)


def answers(url: str) -> bool:
    try:
        return httpx.get(url, timeout=2).status_code < 500
    except httpx.HTTPError:
        return False


def test_a_killed_service_is_started_again_and_the_others_run_on(tmp_path: Path) -> None:
    one, other = http_server("one", tmp_path), http_server("other", tmp_path)
    supervisor = Supervisor([one, other], tmp_path, QUICK)
    with supervisor.running(), supervisor.watching(interval=0.1) as failures:
        killed, untouched = supervisor.processes["one"].pid, supervisor.processes["other"].pid
        os.kill(killed, signal.SIGKILL)  # a crash, not a stop the supervisor asked for
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and not (
            supervisor.restarts.get("one") and answers(str(one.health)) and "one" in supervisor.processes
        ):
            time.sleep(0.1)
        assert supervisor.restarts == {"one": 1} and not failures
        assert supervisor.processes["one"].pid != killed and answers(str(one.health))
        assert int(supervisor.pid_path("one").read_text()) == supervisor.processes["one"].pid
        assert supervisor.processes["other"].pid == untouched and supervisor.processes["other"].poll() is None


def test_a_service_that_keeps_dying_is_a_crash_loop(tmp_path: Path) -> None:
    steady = http_server("steady", tmp_path)
    port = free_port()
    # listens long enough to pass its health check, then dies: every start
    flaky = Service(
        "flaky",
        [
            sys.executable,
            "-c",
            f"import socket, time; s = socket.create_server(('127.0.0.1', {port})); time.sleep(1.5); raise SystemExit(3)",
        ],
        tmp_path,
        port,
        lambda: True,
        20.0,
    )
    supervisor = Supervisor([steady, flaky], tmp_path, QUICK)
    with supervisor.running():
        deadline = time.monotonic() + 60
        with pytest.raises(CrashLoop, match=r"flaky died 3 times within 60 s \(last exit 3\)"):
            while time.monotonic() < deadline:
                supervisor.tend()
                time.sleep(0.1)
        assert supervisor.restarts == {"flaky": 2}


def test_make_runs_supervisor_stops_everything_on_a_crash_loop_naming_it(tmp_path: Path) -> None:
    script = tmp_path / "stack.py"
    port_a, port_b = free_port(), free_port()
    script.write_text(
        textwrap.dedent(
            f"""
            import sys
            from pathlib import Path
            from ops import supervisor
            from ops.supervisor import Service
            here = Path({str(tmp_path)!r})
            dies = [sys.executable, "-c", "import socket, time; s = socket.create_server(('127.0.0.1', {port_b})); time.sleep(1); raise SystemExit(4)"]
            sys.exit(supervisor.main([
                Service("web", [sys.executable, "-m", "http.server", "--bind", "127.0.0.1", "{port_a}"], here, {port_a}, "http://127.0.0.1:{port_a}/"),
                Service("dies", dies, here, {port_b}, lambda: True),
            ], here, lambda: "up"))
            """
        )
    )
    env = {**os.environ, "FABRIC_ADVISOR_CRASH_LOOP_RESTARTS": "2", "FABRIC_ADVISOR_CRASH_LOOP_SECONDS": "60"}
    result = subprocess.run(
        [str(VENV_BIN / "python"), str(script)], cwd=REPO, env=env, capture_output=True, text=True, timeout=120
    )
    assert result.returncode == 1, result.stdout + result.stderr
    assert "dies stopped (exit 4); starting it again" in result.stdout
    assert "crash loop: dies died 2 times within 60 s" in result.stderr
    assert not answers(f"http://127.0.0.1:{port_a}/") and not list((tmp_path / "run").glob("*.pid"))
