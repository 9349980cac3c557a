"""Start a server process, wait until its health check passes, and always stop it
(its log is shown when it failed).

One helper serves uvicorn, Rasa, the action server, PostgreSQL, Redis and HAProxy
alike, so `make run`, `make run-cluster`, the end-to-end tests and the benchmarks start
and stop servers the same way:

- every child runs in a session of its own (a Ctrl-C in the terminal reaches only the
  supervisor, which stops the children in order) and dies with the process that
  started it (Linux's parent-death signal), so a SIGKILL of the supervisor, or of a
  test run, leaves nothing behind. Linux sends that signal when the *thread* that forked
  the child ends, not the process, so every child is forked by one long-lived thread of
  ours (`_Spawner`): a replica restarted from a short-lived thread (the supervisor's
  watch loop in a test) would otherwise die the moment that thread returned;
- a port someone else listens on fails the start at once, naming the port, and a
  health check counts only when the listener is the process we started.
"""

from __future__ import annotations

import ctypes
import os
import pwd
import random
import signal
import socket
import subprocess
import tempfile
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import Future
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from pathlib import Path
from queue import SimpleQueue
from typing import IO, Any

import httpx

REPO = Path(__file__).resolve().parents[1]
VENV_BIN = REPO / ".venv" / "bin"
RASA_BIN = REPO / ".venv-rasa" / "bin"

PR_SET_PDEATHSIG = 1  # linux/prctl.h
STOP_GRACE = 5.0  # SIGTERM, then SIGKILL: the whole stop stays well within 10 s


#: below Linux's default ephemeral range (32768-60999), so no outgoing connection's local
#: port (a test's HTTP client, a database connection) can land on a port we handed out
_PORTS = range(20000, 32768)
_handed_out: set[int] = set()
_handed_out_lock = threading.Lock()


def free_port() -> int:
    """A TCP port nobody listens on right now and that this process has not handed out before.

    Asking the OS for port 0 was racy: the port it picks lies in the ephemeral range, so a
    client connection could take it before our server bound it, and the OS may pick the
    same port twice when nothing is bound to it between two calls (two servers of one test
    then collide). A random port below that range, never given twice, avoids both."""
    rng = random.SystemRandom()
    with _handed_out_lock:
        for _ in range(1000):
            port = rng.choice(_PORTS)
            if port not in _handed_out and not port_taken(port):
                _handed_out.add(port)
                return port
    raise RuntimeError(f"no free TCP port in {_PORTS.start}-{_PORTS.stop - 1} after 1000 tries")


def port_taken(port: int, host: str = "127.0.0.1") -> bool:
    """True when something already listens on host:port (so our server could not)."""
    with socket.socket() as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            s.bind((host, port))
        except OSError:
            return True
    return False


def listener_sessions(port: int) -> set[int]:
    """Session ids of the processes listening on TCP port (from /proc; empty off Linux).

    Each server we start leads a session of its own, so a listener whose session is our
    process's pid is ours (or a child of ours), and any other is a stranger's."""
    inodes: set[str] = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            lines = Path(table).read_text().splitlines()[1:]
        except OSError:
            continue
        for line in lines:
            fields = line.split()
            if fields[3] == "0A" and int(fields[1].rsplit(":", 1)[1], 16) == port:  # 0A: LISTEN
                inodes.add(fields[9])
    sessions: set[int] = set()
    if not inodes:
        return sessions
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit():
            continue
        try:
            for fd in (proc / "fd").iterdir():
                link = os.readlink(fd)
                if link.startswith("socket:[") and link[8:-1] in inodes:
                    sessions.add(os.getsid(int(proc.name)))
                    break
        except OSError:
            continue
    return sessions


def child_setup(user: str | None = None) -> Callable[[], None]:
    """A preexec_fn: run as user (when we are root), and die with the parent."""
    parent = os.getpid()
    account = pwd.getpwnam(user) if user and os.geteuid() == 0 else None
    libc = ctypes.CDLL(None, use_errno=True)

    def setup() -> None:
        if account is not None:
            os.setgid(account.pw_gid)
            os.initgroups(account.pw_name, account.pw_gid)
            os.setuid(account.pw_uid)
        # after the uid change, which clears the parent-death signal
        libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
        if os.getppid() != parent:  # the parent died before prctl
            os.kill(os.getpid(), signal.SIGKILL)

    return setup


class _Spawner:
    """One daemon thread, alive as long as the process, that forks every child: the
    parent-death signal follows the forking thread (see the module's docstring)."""

    def __init__(self) -> None:
        self._jobs: SimpleQueue[tuple[Callable[[], Any], Future[Any]]] = SimpleQueue()
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()

    def run(self, job: Callable[[], Any]) -> Any:
        with self._lock:
            if self._thread is None:
                self._thread = threading.Thread(target=self._serve, name="process-spawner", daemon=True)
                self._thread.start()
        result: Future[Any] = Future()
        self._jobs.put((job, result))
        return result.result()

    def _serve(self) -> None:
        while True:
            job, result = self._jobs.get()
            try:
                result.set_result(job())
            except BaseException as exc:  # handed to the caller, who raises it
                result.set_exception(exc)


_SPAWNER = _Spawner()


#: what every server we start runs with unless told otherwise: one BLAS thread. The
#: knowledge search embeds each question (minilm.embedding, numpy): small matrix products
#: for which a second BLAS thread only contends for the cores. On the busy 2-core machine
#: of issue 24 a search took 678 ms with OpenBLAS's default threads and 30 ms with one
#: (Rasa has run with one since docs/embeddings.md).
SERVER_ENV = {"OPENBLAS_NUM_THREADS": "1"}


def adopt_server_env() -> None:
    """Run this process as the servers run (SERVER_ENV, unless the environment says
    otherwise): for in-process measurements and tests of what a server does. It must
    run before numpy is first imported, which reads the thread count once."""
    for name, value in SERVER_ENV.items():
        os.environ.setdefault(name, value)


def spawn(
    command: Sequence[str],
    *,
    cwd: Path,
    env: dict[str, str] | None,
    log: Path | int,
    user: str | None = None,
) -> subprocess.Popen[bytes]:
    """command in a session of its own, dying with us, its output appended to log."""
    out: IO[bytes] | int = open(log, "ab") if isinstance(log, Path) else log  # noqa: SIM115 (the child holds it)
    setup = child_setup(user)
    try:
        process: subprocess.Popen[bytes] = _SPAWNER.run(
            lambda: subprocess.Popen(
                list(command),
                cwd=cwd,
                env={**SERVER_ENV, **os.environ, **(env or {})},
                stdout=out,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
                start_new_session=True,
                preexec_fn=setup,
            )
        )
        return process
    finally:
        if not isinstance(out, int):
            out.close()


@dataclass
class Server:
    """A running server: its base URL, process and log file."""

    url: str
    port: int
    process: subprocess.Popen[bytes]
    log_path: Path

    def log(self) -> str:
        return self.log_path.read_text(errors="replace")


class ServerFailed(RuntimeError):
    pass


class PortTaken(ServerFailed):
    """Someone else listens on a port one of our servers needs."""

    def __init__(self, name: str, port: int, host: str = "127.0.0.1") -> None:
        super().__init__(f"port {port} ({name}) on {host} is already in use: stop what listens there or pick another")
        self.port = port


def http_ok(url: str) -> Callable[[], bool]:
    """A health check: url answers with a status under 500."""

    def check() -> bool:
        try:
            return httpx.get(url, timeout=2.0).status_code < 500
        except httpx.HTTPError:
            return False

    return check


def wait_for(
    url_or_check: str | Callable[[], bool],
    timeout: float,
    process: subprocess.Popen[bytes] | None = None,
    log: Path | None = None,
    port: int | None = None,
) -> None:
    """Wait until the health check passes, or fail with the server's log. With process and
    port, a pass counts only while the port's listener is that process's session."""
    check = http_ok(url_or_check) if isinstance(url_or_check, str) else url_or_check
    what = url_or_check if isinstance(url_or_check, str) else f"port {port}"
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process is not None and process.poll() is not None:
            tail = log.read_text(errors="replace")[-4000:] if log else ""
            raise ServerFailed(f"server exited with {process.returncode} before {what} answered:\n{tail}")
        if check():
            if process is None or port is None:
                return
            sessions = listener_sessions(port)
            if process.pid in sessions:
                return
            if sessions:
                raise ServerFailed(f"port {port} answers, but not from the process we started ({what})")
        time.sleep(0.2)
    tail = log.read_text(errors="replace")[-4000:] if log else ""
    raise ServerFailed(f"{what} did not answer within {timeout:.0f}s:\n{tail}")


def stop(process: subprocess.Popen[bytes], grace: float = STOP_GRACE, sig: int = signal.SIGTERM) -> None:
    """SIGTERM (or sig) the process group, then SIGKILL what is left after the grace period."""
    stop_all([process], grace, [sig])


def stop_all(
    processes: Sequence[subprocess.Popen[bytes]], grace: float = STOP_GRACE, signals: Sequence[int] = ()
) -> None:
    """SIGTERM (or the process's own entry in signals) every process group at once, then
    SIGKILL those still there after grace seconds."""
    for n, process in enumerate(processes):
        _signal_group(process, signals[n] if n < len(signals) else signal.SIGTERM)
    deadline = time.monotonic() + grace
    for process in processes:
        with suppress(subprocess.TimeoutExpired):
            process.wait(timeout=max(0.0, deadline - time.monotonic()))
    for process in processes:
        _signal_group(process, signal.SIGKILL)  # what a leader leaves behind goes too
        with suppress(subprocess.TimeoutExpired):
            process.wait(timeout=3)


def _signal_group(process: subprocess.Popen[bytes], sig: int) -> None:
    with suppress(ProcessLookupError, PermissionError):
        os.killpg(process.pid, sig)


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
    if port_taken(port):
        raise PortTaken(Path(command[0]).name, port)
    handle, name = tempfile.mkstemp(prefix="server-", suffix=".log")
    log_path = Path(name)
    try:
        process = spawn(command, cwd=cwd, env=env, log=handle)
    finally:
        os.close(handle)
    url = f"http://127.0.0.1:{port}"
    try:
        wait_for(url + health_path, timeout, process, log_path, port=port)
        yield Server(url=url, port=port, process=process, log_path=log_path)
    finally:
        stop(process)
