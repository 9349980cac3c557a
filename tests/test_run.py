"""`make run`'s supervisor: starts the three servers, says where they are, keeps their
pids in var/run, generates Rasa's token and the session secret into var/ (0600), starts
a server again when it dies, and stops them all on SIGTERM to its process group within 10 s; a
SIGKILL of the supervisor takes its children with it; a taken port fails the start at
once, naming it."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import time
from pathlib import Path

import httpx
import pytest

from tests.servers import REPO, VENV_BIN, free_port

pytestmark = pytest.mark.rasa


def run_env(tmp_path: Path) -> tuple[dict[str, str], dict[str, int]]:
    ports = {name: free_port() for name in ("API", "RASA", "ACTIONS")}
    env = {
        **os.environ,
        **{f"FABRIC_ADVISOR_{name}_PORT": str(port) for name, port in ports.items()},
        "FABRIC_ADVISOR_VAR": str(tmp_path),
        "FABRIC_ADVISOR_DB": str(tmp_path / "advisor.db"),
    }
    return env, ports


def start_supervisor(env: dict[str, str], module: str = "ops.run") -> subprocess.Popen[str]:
    """`make run`'s supervisor (or `make run-cluster`'s, module ops.cluster) in a session of
    its own, so a test can signal its whole process group as a process manager would."""
    return subprocess.Popen(
        [str(VENV_BIN / "python"), "-m", module],
        cwd=REPO,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,
    )


def read_until(process: subprocess.Popen[str], prefix: str, timeout: float = 240) -> str:
    lines: list[str] = []
    deadline = time.monotonic() + timeout
    assert process.stdout is not None
    while time.monotonic() < deadline:
        line = process.stdout.readline()
        if not line:
            break
        lines.append(line)
        if line.startswith(prefix):
            break
    return "".join(lines)


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # a zombie has exited already
    return Path(f"/proc/{pid}/stat").read_text().split(") ")[1][0] != "Z"


def session_members(session: int) -> list[int]:
    members = []
    for proc in Path("/proc").iterdir():
        if proc.name.isdigit():
            try:
                if os.getsid(int(proc.name)) == session and alive(int(proc.name)):
                    members.append(int(proc.name))
            except (ProcessLookupError, FileNotFoundError):
                continue
    return members


def answers(url: str) -> bool:
    try:
        return httpx.get(url, timeout=2).status_code < 500
    except httpx.HTTPError:
        return False


def pids(tmp_path: Path) -> dict[str, int]:
    return {path.stem: int(path.read_text()) for path in (tmp_path / "run").glob("*.pid")}


def test_run_starts_every_service_then_sigterm_to_its_group_stops_them_all_within_10s(tmp_path):
    from bot import launch

    launch.ensure_model()
    env, ports = run_env(tmp_path)
    process = start_supervisor(env)
    try:
        output = read_until(process, "Press Ctrl-C")
        assert "Fabric Advisor is running" in output, output
        assert f"http://127.0.0.1:{ports['API']}/" in output
        assert httpx.get(f"http://127.0.0.1:{ports['API']}/healthz").json() == {"status": "ok"}
        token_file = tmp_path / "rasa-token"  # generated, readable by its owner only
        assert token_file.stat().st_mode & 0o077 == 0 and (tmp_path / "session-secret").stat().st_mode & 0o077 == 0
        webhook = f"http://127.0.0.1:{ports['RASA']}/webhooks/rest/webhook"
        turn = {"sender": "run-test", "message": "what is PFC?"}
        assert httpx.post(webhook, json=turn, timeout=30).status_code == 401
        reply = httpx.post(webhook, json=turn, params={"token": token_file.read_text().strip()}, timeout=30).json()
        assert any("PFC" in message.get("text", "") for message in reply)
        session = httpx.post(f"http://127.0.0.1:{ports['API']}/v1/chat/sessions", timeout=30)
        assert session.status_code == 201 and "." in session.json()["session_id"]
        children = pids(tmp_path)
        assert set(children) == {"actions", "rasa", "api"}

        # one that dies is started again (and answers again); the others run on
        os.kill(children["actions"], signal.SIGKILL)
        deadline = time.monotonic() + 90
        while time.monotonic() < deadline and pids(tmp_path).get("actions") in (None, children["actions"]):
            time.sleep(0.5)
        assert pids(tmp_path).get("actions") not in (None, children["actions"])
        health = f"http://127.0.0.1:{ports['ACTIONS']}/health"
        while time.monotonic() < deadline and not answers(health):
            time.sleep(0.5)
        assert answers(health) and process.poll() is None
        assert pids(tmp_path)["rasa"] == children["rasa"] and pids(tmp_path)["api"] == children["api"]
        children = pids(tmp_path)
        started = time.monotonic()
        os.killpg(process.pid, signal.SIGTERM)
        process.wait(timeout=10)
        for pid in children.values():  # each leads a session of its own
            while session_members(pid) and time.monotonic() - started < 10:
                time.sleep(0.2)
            assert not session_members(pid), f"{pid} still running 10 s after SIGTERM"
        assert not list((tmp_path / "run").glob("*.pid"))
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait(timeout=10)
    for port in ports.values():
        with pytest.raises(httpx.HTTPError):
            httpx.get(f"http://127.0.0.1:{port}/", timeout=2)


def test_a_sigkill_of_the_supervisor_leaves_no_process_behind(tmp_path):
    env, ports = run_env(tmp_path)
    process = start_supervisor(env)
    try:
        read_until(process, "starting rasa", timeout=120)  # the action server is up, Rasa starting
        time.sleep(2)
        children = pids(tmp_path)
        assert {"actions", "rasa"} <= set(children)
        assert all(alive(pid) for pid in children.values())
    finally:
        os.kill(process.pid, signal.SIGKILL)
        process.wait(timeout=10)
    deadline = time.monotonic() + 10
    while any(session_members(pid) for pid in children.values()) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert not any(session_members(pid) for pid in children.values())
    with pytest.raises(httpx.HTTPError):
        httpx.get(f"http://127.0.0.1:{ports['ACTIONS']}/health", timeout=2)


def test_a_port_already_taken_fails_the_start_at_once_naming_it(tmp_path):
    env, ports = run_env(tmp_path)
    with socket.socket() as stranger:  # a stale server holding the action server's port
        stranger.bind(("127.0.0.1", ports["ACTIONS"]))
        stranger.listen()
        started = time.monotonic()
        result = subprocess.run(
            [str(VENV_BIN / "python"), "-m", "ops.run"], cwd=REPO, env=env, capture_output=True, text=True, timeout=60
        )
    assert result.returncode == 1
    assert time.monotonic() - started < 15  # imports only; nothing waited for
    errors = result.stderr.strip().splitlines()
    assert len(errors) == 1 and f"port {ports['ACTIONS']} (actions)" in errors[0], result.stderr
    assert not list((tmp_path / "run").glob("*.pid"))
