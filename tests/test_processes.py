"""ops.processes: a health check counts only when the port's listener is the process we
started; a taken port is refused before anything starts; a stop takes the whole group
within the grace period."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from ops.processes import PortTaken, ServerFailed, free_port, running, spawn, stop, wait_for

#: our code in another process (make test runs these; make check leaves them out)
pytestmark = pytest.mark.e2e

SERVER = [sys.executable, "-m", "http.server", "--bind", "127.0.0.1"]


def test_a_health_check_answered_by_another_process_does_not_count(tmp_path: Path):
    port = free_port()
    stranger = spawn([*SERVER, str(port)], cwd=tmp_path, env=None, log=tmp_path / "stranger.log")
    ours = spawn(
        [sys.executable, "-c", "import time; time.sleep(60)"], cwd=tmp_path, env=None, log=tmp_path / "ours.log"
    )
    try:
        wait_for(f"http://127.0.0.1:{port}/", 20, stranger, port=port)  # the stranger itself: counts
        with pytest.raises(ServerFailed, match=f"port {port} answers, but not from the process we started"):
            wait_for(f"http://127.0.0.1:{port}/", 20, ours, port=port)
    finally:
        stop(stranger)
        stop(ours)


def test_a_taken_port_is_refused_before_the_server_starts(tmp_path: Path):
    with socket.socket() as holder:
        holder.bind(("127.0.0.1", 0))
        holder.listen()
        port = holder.getsockname()[1]
        started = time.monotonic()
        with pytest.raises(PortTaken, match=f"port {port} .* already in use"), running([*SERVER, str(port)], port=port):
            pass
        assert time.monotonic() - started < 2


def test_a_stop_ends_a_server_that_ignores_sigterm_and_its_children(tmp_path: Path):
    script = (
        "import signal, subprocess, sys, time\n"
        "signal.signal(signal.SIGTERM, signal.SIG_IGN)\n"
        "subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(60)'])\n"
        "time.sleep(60)\n"
    )
    process = spawn([sys.executable, "-c", script], cwd=tmp_path, env=None, log=tmp_path / "stubborn.log")
    time.sleep(1.0)
    started = time.monotonic()
    stop(process, grace=2.0)
    assert time.monotonic() - started < 10
    assert process.poll() is not None
    time.sleep(0.5)
    assert living_in_group(process.pid) == []


def living_in_group(group: int) -> list[int]:
    """Processes of the group that have not exited (zombies wait only to be reaped)."""
    living = []
    for proc in Path("/proc").iterdir():
        if proc.name.isdigit():
            try:
                stat = (proc / "stat").read_text()
            except OSError:
                continue
            fields = stat.rsplit(") ", 1)[1].split()
            if int(fields[2]) == group and fields[0] != "Z":
                living.append(int(proc.name))
    return living


def test_a_child_dies_with_the_process_that_started_it(tmp_path: Path):
    pid_file = tmp_path / "child.pid"
    parent_script = (
        "import sys, time\n"
        "from pathlib import Path\n"
        "from ops.processes import spawn\n"
        f"child = spawn([sys.executable, '-c', 'import time; time.sleep(60)'], cwd=Path('.'), env=None, log=Path({str(tmp_path / 'c.log')!r}))\n"
        f"Path({str(pid_file)!r}).write_text(str(child.pid))\n"
        "time.sleep(60)\n"
    )
    parent = subprocess.Popen([sys.executable, "-c", parent_script], cwd=Path(__file__).parents[1])
    try:
        deadline = time.monotonic() + 20
        while not pid_file.exists() and time.monotonic() < deadline:
            time.sleep(0.1)
        child = int(pid_file.read_text())
        os.kill(child, 0)
    finally:
        parent.send_signal(signal.SIGKILL)
        parent.wait(timeout=10)
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:
        try:
            os.kill(child, 0)
        except ProcessLookupError:
            return
        if Path(f"/proc/{child}/stat").read_text().split(") ")[1][0] == "Z":
            return  # dead, waiting for init to reap it
        time.sleep(0.1)
    raise AssertionError(f"child {child} outlived its parent")


def test_a_child_started_from_a_short_lived_thread_outlives_that_thread(tmp_path: Path):
    """Linux sends the parent-death signal when the forking *thread* ends: a replica the
    supervisor's watch thread restarted must not die when that thread returns."""
    started: list[subprocess.Popen[bytes]] = []
    thread = threading.Thread(
        target=lambda: started.append(
            spawn([sys.executable, "-c", "import time; time.sleep(60)"], cwd=tmp_path, env=None, log=tmp_path / "c.log")
        )
    )
    thread.start()
    thread.join(timeout=20)
    [child] = started
    try:
        time.sleep(1.0)
        assert child.poll() is None, f"the child died with the thread that started it (exit {child.returncode})"
    finally:
        stop(child)


def test_free_ports_are_never_handed_out_twice_and_lie_below_the_ephemeral_range():
    ports = [free_port() for _ in range(200)]
    low, _high = (int(n) for n in Path("/proc/sys/net/ipv4/ip_local_port_range").read_text().split())
    assert len(set(ports)) == len(ports)
    assert all(port < low for port in ports)


def test_a_free_port_is_one_nothing_listens_on(monkeypatch: pytest.MonkeyPatch):
    import ops.processes

    with socket.socket() as holder:
        holder.bind(("127.0.0.1", 0))
        holder.listen()
        taken = holder.getsockname()[1]
        monkeypatch.setattr(ops.processes, "_PORTS", range(taken, taken + 1))
        with pytest.raises(RuntimeError, match="no free TCP port"):
            free_port()
