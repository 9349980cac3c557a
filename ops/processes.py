"""Start a server process, wait until its health URL answers, and always stop it
(its log is shown when it failed).

One helper serves uvicorn, Rasa and the action server alike, so `make run`, the
end-to-end tests and the benchmarks start and stop servers the same way.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import httpx

REPO = Path(__file__).resolve().parents[1]
VENV_BIN = REPO / ".venv" / "bin"
RASA_BIN = REPO / ".venv-rasa" / "bin"


def free_port() -> int:
    """A TCP port nobody listens on right now (the OS picks it)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@dataclass
class Server:
    """A running server: its base URL, process and log file."""

    url: str
    port: int
    process: subprocess.Popen
    log_path: Path

    def log(self) -> str:
        return self.log_path.read_text(errors="replace")


class ServerFailed(RuntimeError):
    pass


def wait_for(url: str, timeout: float, process: subprocess.Popen | None = None, log: Path | None = None) -> None:
    """Poll url until it answers with a non-5xx status, or fail with the server's log."""
    deadline = time.monotonic() + timeout
    last_error = ""
    while time.monotonic() < deadline:
        if process is not None and process.poll() is not None:
            tail = log.read_text(errors="replace")[-4000:] if log else ""
            raise ServerFailed(f"server exited with {process.returncode} before {url} answered:\n{tail}")
        try:
            response = httpx.get(url, timeout=2.0)
            if response.status_code < 500:
                return
            last_error = f"HTTP {response.status_code}"
        except httpx.HTTPError as exc:
            last_error = str(exc)
        time.sleep(0.2)
    tail = log.read_text(errors="replace")[-4000:] if log else ""
    raise ServerFailed(f"{url} did not answer within {timeout:.0f}s ({last_error}):\n{tail}")


def stop(process: subprocess.Popen, grace: float = 10.0) -> None:
    """SIGTERM the process group, then SIGKILL what is left after the grace period."""
    if process.poll() is not None:
        return
    try:
        os.killpg(process.pid, signal.SIGTERM)
        process.wait(timeout=grace)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        process.wait(timeout=5)
    except ProcessLookupError:
        pass


@contextmanager
def running(
    command: Sequence[str],
    *,
    port: int,
    health_path: str = "/",
    env: dict[str, str] | None = None,
    cwd: Path = REPO,
    timeout: float = 60.0,
) -> Iterator[Server]:
    """Run command (which must listen on 127.0.0.1:port) until the block ends."""
    log_file = tempfile.NamedTemporaryFile(prefix="server-", suffix=".log", delete=False)
    log_path = Path(log_file.name)
    process = subprocess.Popen(
        list(command),
        cwd=cwd,
        env={**os.environ, **(env or {})},
        stdout=log_file,
        stderr=subprocess.STDOUT,
        stdin=subprocess.DEVNULL,
        start_new_session=True,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        wait_for(url + health_path, timeout, process, log_path)
        yield Server(url=url, port=port, process=process, log_path=log_path)
    finally:
        stop(process)
        log_file.close()
