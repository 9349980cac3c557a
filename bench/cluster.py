"""Chat capacity and fault tolerance of `make run-cluster` through its balancer (HAProxy
-> two Rasa replicas on PostgreSQL and Redis, each with its action server, and two API
processes), on loopback:

- capacity: 16 sizing conversations at once for 60 s, every conversation's slots checked
  at its end, beside the figures bench/chat.py prints for one Rasa process on SQLite;
- the fault matrix: under 16 conversations at once (and a stream of stored
  recommendations through the API's balancer), one fault at a time: SIGKILL a Rasa
  replica, an action server, an API replica (each started again by the supervisor's
  restart loop, as `make run-cluster` does), and restart PostgreSQL and Redis. For each:
  the turns lost (target: at most 1 %), slots lost, stored recommendations lost (target:
  none), and how long until the killed process answered again (target: 60 s).

The cluster runs on free ports under a temporary directory and is stopped afterwards.
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import tempfile
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import httpx

from bench import chat
from bot import launch
from ops import cluster, parts
from ops.chat_secrets import RASA_TOKEN_VARIABLE
from ops.processes import RASA_BIN, free_port, port_taken
from ops.supervisor import Supervisor

CONVERSATIONS = 16
SECONDS = 60.0
FAULT_LOAD_SECONDS = 45.0
FAULT_AFTER_S = 5.0
BACK_WITHIN_S = 60.0  # the target
WAIT_BACK_S = 300.0  # how long to wait for it, so the next fault starts on a whole cluster
LOCK_PREFIX = "fabricadvisor"  # bot/endpoints-cluster.yml's key_prefix for the lock store
REPLICA_PORT_OFFSETS = (1, 2, 10, 11, 12, 21, 22)  # 10: the balancer's port for the action servers
# (what, the service, kill it or restart it)
FAULTS = (
    ("kill a Rasa replica", "rasa-1", "kill"),
    ("kill an action server", "actions-1", "kill"),
    ("kill an API replica", "api-1", "kill"),
    ("restart PostgreSQL", "postgres", "restart"),
    ("restart Redis", "redis", "restart"),
)


def free_layout(var: Path) -> cluster.Layout:
    """A layout on free loopback ports (replica ports free as well)."""
    base = free_port()
    while any(port_taken(base + offset) for offset in REPLICA_PORT_OFFSETS):
        base = free_port()
    return cluster.Layout("127.0.0.1", free_port(), free_port(), free_port(), free_port(), base, var)


@dataclass
class Stored:
    """Recommendations stored through the API's balancer while a fault runs."""

    ids: list[str] = field(default_factory=list)
    failed: int = 0


def store_recommendations(api: str, until: float, stored: Stored) -> None:
    """POST a recommendation about every 0.2 s until `until` (each a new profile, so each
    is a new row), keeping the ids the API confirmed."""
    n = 0
    with httpx.Client(timeout=30) as client:
        while time.monotonic() < until:
            n += 1
            profile = {"workload": "inference", "gpu_count": 8 * (n % 500 + 1), "gpu_model": "L40S"}
            try:
                response = client.post(f"{api}/v1/recommendations", json=profile)
                if response.status_code == 201:
                    stored.ids.append(response.json()["id"])
                else:
                    stored.failed += 1
            except httpx.HTTPError:
                stored.failed += 1
            time.sleep(0.2)


def lost_recommendations(api: str, ids: list[str]) -> int:
    """How many confirmed ids the API no longer finds (404). A 429 from the API's rate
    limit (the check reads every id from one address) is waited out, not counted: the
    first run of the matrix counted those as lost."""
    lost = 0
    with httpx.Client(timeout=30) as client:
        for rec_id in set(ids):
            response = client.get(f"{api}/v1/recommendations/{rec_id}")
            while response.status_code == 429 or response.status_code >= 500:
                time.sleep(float(response.headers.get("retry-after", "1")))
                response = client.get(f"{api}/v1/recommendations/{rec_id}")
            lost += response.status_code != 200
    return lost


def answers(supervisor: Supervisor, name: str, old_pid: int) -> Callable[[], bool]:
    service = supervisor.services[name]

    def check() -> bool:
        process = supervisor.processes.get(name)
        if process is None or process.pid == old_pid:
            return False
        health = service.health
        if callable(health):
            return health()
        try:
            return httpx.get(health, timeout=2).status_code < 500
        except httpx.HTTPError:
            return False

    return check


# a line Rasa logs once its imports (TensorFlow's among them) are done and the model
# load begins (rasa.core.processor)
RASA_MODEL_LOAD = b"Loading model"


@dataclass
class Phases:
    """Where a killed process's way back went, in seconds from the kill: the supervisor
    started it again (its back-off), Rasa finished importing and began loading the model
    (Rasa only), the process answered its health check."""

    started: float | None = None
    loading: float | None = None
    back: float | None = None

    def text(self) -> str:
        parts = [f"started again after {self.started:.1f} s" if self.started is not None else "not started again"]
        if self.loading is not None:
            parts.append(f"imports done after {self.loading:.1f} s")
        if self.back is not None and self.started is not None:
            parts.append(f"answering after {self.back:.1f} s (start to answer {self.back - self.started:.1f} s)")
        return ", ".join(parts)


def way_back(supervisor: Supervisor, name: str, old_pid: int, killed_at: float, log_from: int) -> Phases:
    """Watch a killed process come back (up to WAIT_BACK_S), noting each phase."""
    phases = Phases()
    check = answers(supervisor, name, old_pid)
    log = supervisor.log_path(name)
    while time.monotonic() - killed_at < WAIT_BACK_S:
        now = time.monotonic() - killed_at
        process = supervisor.processes.get(name)
        if phases.started is None and process is not None and process.pid != old_pid:
            phases.started = now
        if phases.started is not None and phases.loading is None and name.startswith("rasa-"):
            with open(log, "rb") as out:
                out.seek(log_from)
                if RASA_MODEL_LOAD in out.read():
                    phases.loading = now
        if phases.started is not None and check():
            phases.back = time.monotonic() - killed_at
            return phases
        time.sleep(0.1)
    return phases


def redis_keys(port: int, password: str, pattern: str) -> set[bytes]:
    """The keys matching pattern in Redis's db 0 (Rasa's lock store), by its protocol."""
    words = [("AUTH", password), ("KEYS", pattern)]
    request = b"".join(
        f"*{len(w)}\r\n".encode() + b"".join(f"${len(x.encode())}\r\n{x}\r\n".encode() for x in w) for w in words
    )
    with socket.create_connection(("127.0.0.1", port), timeout=5) as conn:
        conn.sendall(request)
        reply = b""
        while True:
            chunk = conn.recv(65536)
            reply += chunk
            lines = reply.split(b"\r\n")
            if len(lines) > 2 and lines[1].startswith(b"*"):
                count = int(lines[1][1:])
                if len(lines) >= 3 + 2 * count:
                    return set(lines[3 : 3 + 2 * count : 2])
            if not chunk:
                return set()


def wait(check: Callable[[], bool], timeout: float) -> float | None:
    started = time.monotonic()
    while time.monotonic() - started < timeout:
        if check():
            return time.monotonic() - started
        time.sleep(0.25)
    return None


def one_fault(supervisor: Supervisor, layout: cluster.Layout, secrets: dict[str, str], name: str, how: str) -> str:
    balancer = f"http://127.0.0.1:{layout.rasa_port}"
    api = f"http://127.0.0.1:{layout.api_port}"
    token = secrets[RASA_TOKEN_VARIABLE]
    results: list[chat.Load] = []
    stored = Stored()
    load = threading.Thread(
        target=lambda: results.append(chat.drive(balancer, CONVERSATIONS, FAULT_LOAD_SECONDS, token))
    )
    writer = threading.Thread(target=store_recommendations, args=(api, time.monotonic() + FAULT_LOAD_SECONDS, stored))
    load.start()
    writer.start()
    time.sleep(FAULT_AFTER_S)
    old_pid = supervisor.processes[name].pid
    phases = None
    kept = ""
    if how == "kill":
        log_from = supervisor.log_path(name).stat().st_size
        os.kill(old_pid, signal.SIGKILL)
        phases = way_back(supervisor, name, old_pid, time.monotonic(), log_from)
        back = phases.back
    else:
        pattern = f"{LOCK_PREFIX}*"
        password = secrets[cluster.REDIS_PASSWORD]
        before = redis_keys(layout.redis_port, password, pattern) if name == "redis" else set()
        started = time.monotonic()
        supervisor.stop(name)
        supervisor.start(name)
        back = time.monotonic() - started
        if name == "redis":  # the conversations' lock keys (leases and counters) it held
            after = redis_keys(layout.redis_port, password, pattern)
            kept = f"{len(before & after)} of {len(before)} conversation lock keys kept through the restart, "
    load.join()
    writer.join()
    [result] = results
    turns = len(result.turn_ms)
    lost = len(result.errors)
    for error in result.errors[:3]:
        print(f"    {name}: {error}", flush=True)
    slots = sum("slots lost" in error for error in result.errors)
    missing = lost_recommendations(api, stored.ids)
    back_text = (
        f"back after {back:.1f} s (target {BACK_WITHIN_S:.0f} s)"
        if back is not None
        else f"NOT back within {WAIT_BACK_S:.0f} s"
    )
    if phases is not None:
        back_text += f" ({phases.text()})"
    return (
        f"{lost} of {turns + lost} turns lost ({100 * lost / max(1, turns + lost):.2f} %, target <= 1 %), "
        f"{slots} conversations with slots lost, {missing} of {len(stored.ids)} stored recommendations lost "
        f"({stored.failed} refused while it was down), {kept}{back_text}; "
        f"load average {os.getloadavg()[0]:.1f} (speed figures on a shared machine are rough)"
    )


def faults(supervisor: Supervisor, layout: cluster.Layout, secrets: dict[str, str]) -> list[str]:
    lines = [f"faults under {CONVERSATIONS} conversations at once, {FAULT_LOAD_SECONDS:.0f} s each:"]
    with supervisor.watching() as failures:
        for what, name, how in FAULTS:
            lines.append(f"  {what} ({name}): {one_fault(supervisor, layout, secrets, name, how)}")
            time.sleep(5)  # the balancer's health checks see the process again
    lines.extend(f"  supervisor: {failure}" for failure in failures)
    return lines


def run(conversations: int = CONVERSATIONS, seconds: float = SECONDS) -> list[str]:
    if not (RASA_BIN / "rasa").exists():
        return ["skipped: no Rasa environment (make rasa-venv)"]
    parts.ensure_installed()
    launch.ensure_model()
    var = Path(tempfile.mkdtemp(prefix="fabric-advisor-bench-"))  # PostgreSQL's account must reach it
    lines: list[str] = []
    try:
        layout = free_layout(var)
        secrets = layout.secrets()
        token = secrets[RASA_TOKEN_VARIABLE]
        started = time.perf_counter()
        supervisor = Supervisor(cluster.services(layout, secrets), var)
        with supervisor.running():
            lines.append(
                f"cluster start (PostgreSQL, Redis, 6 replicas, HAProxy): {time.perf_counter() - started:.1f} s"
            )
            balancer = f"http://127.0.0.1:{layout.rasa_port}"
            chat.drive(balancer, 2, 3.0, token)  # warm-up
            load = chat.drive(balancer, conversations, seconds, token)
            lines.append(f"through HAProxy to 2 Rasa replicas on PostgreSQL + Redis, {seconds:.0f} s:")
            lines.append("  " + load.summary())
            lines.extend(f"    error: {error}" for error in load.errors[:3])
            one = chat.drive(balancer, 1, min(seconds, 20.0), token)
            lines.append("  " + one.summary())
            lines.extend(faults(supervisor, layout, secrets))
    finally:
        shutil.rmtree(var, ignore_errors=True)
    return lines


if __name__ == "__main__":
    for line in run():
        print(line)
