"""`make run`'s supervisor: starts the three servers, says where they are, and stops
them all on Ctrl-C."""

from __future__ import annotations

import os
import signal
import subprocess
import time

import httpx
import pytest

from tests.servers import REPO, VENV_BIN, free_port

pytestmark = pytest.mark.rasa


def test_run_starts_every_service_then_stops_them_all_on_ctrl_c(tmp_path):
    from bot import launch

    launch.ensure_model()
    ports = {name: free_port() for name in ("API", "RASA", "ACTIONS")}
    env = {
        **os.environ,
        **{f"FABRIC_ADVISOR_{name}_PORT": str(port) for name, port in ports.items()},
        "FABRIC_ADVISOR_VAR": str(tmp_path),
        "FABRIC_ADVISOR_DB": str(tmp_path / "advisor.db"),
    }
    process = subprocess.Popen(
        [str(VENV_BIN / "python"), "-m", "ops.run"],
        cwd=REPO,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,
    )
    lines: list[str] = []
    try:
        deadline = time.monotonic() + 240
        while time.monotonic() < deadline:
            line = process.stdout.readline()
            if not line:
                break
            lines.append(line)
            if line.startswith("Press Ctrl-C"):
                break
        output = "".join(lines)
        assert "Fabric Advisor is running" in output, output
        assert f"http://127.0.0.1:{ports['API']}/" in output
        assert httpx.get(f"http://127.0.0.1:{ports['API']}/healthz").json() == {"status": "ok"}
        reply = httpx.post(
            f"http://127.0.0.1:{ports['RASA']}/webhooks/rest/webhook",
            json={"sender": "run-test", "message": "what is PFC?"},
            timeout=30,
        ).json()
        assert any("PFC" in message.get("text", "") for message in reply)
    finally:
        os.killpg(process.pid, signal.SIGINT)
        process.wait(timeout=60)
    for port in ports.values():
        with pytest.raises(httpx.HTTPError):
            httpx.get(f"http://127.0.0.1:{port}/", timeout=2)
