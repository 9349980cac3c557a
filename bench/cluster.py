"""Chat capacity of `make run-cluster` through its balancer (HAProxy -> two Rasa replicas
on PostgreSQL and Redis, each with its action server): 16 sizing conversations at once
for 60 s on loopback, every conversation's slots checked at its end, beside the figures
bench/chat.py prints for one Rasa process on SQLite.

The cluster runs on free ports under a temporary directory and is stopped afterwards.
"""

from __future__ import annotations

import shutil
import tempfile
import time
from pathlib import Path

from bench import chat
from bot import launch
from ops import cluster, parts
from ops.processes import RASA_BIN, free_port, port_taken
from ops.supervisor import Supervisor

CONVERSATIONS = 16
SECONDS = 60.0
REPLICA_PORT_OFFSETS = (1, 2, 11, 12, 21, 22)


def free_layout(var: Path) -> cluster.Layout:
    """A layout on free loopback ports (replica ports free as well)."""
    base = free_port()
    while any(port_taken(base + offset) for offset in REPLICA_PORT_OFFSETS):
        base = free_port()
    return cluster.Layout("127.0.0.1", free_port(), free_port(), free_port(), free_port(), base, var)


def run(conversations: int = CONVERSATIONS, seconds: float = SECONDS) -> list[str]:
    if not (RASA_BIN / "rasa").exists():
        return ["skipped: no Rasa environment (make rasa-venv)"]
    parts.ensure_installed()
    launch.ensure_model()
    var = Path(tempfile.mkdtemp(prefix="fabric-advisor-bench-"))  # PostgreSQL's account must reach it
    lines: list[str] = []
    try:
        layout = free_layout(var)
        started = time.perf_counter()
        with Supervisor(cluster.services(layout), var).running():
            lines.append(
                f"cluster start (PostgreSQL, Redis, 6 replicas, HAProxy): {time.perf_counter() - started:.1f} s"
            )
            balancer = f"http://127.0.0.1:{layout.rasa_port}"
            chat.drive(balancer, 2, 3.0)  # warm-up
            load = chat.drive(balancer, conversations, seconds)
            lines.append(f"through HAProxy to 2 Rasa replicas on PostgreSQL + Redis, {seconds:.0f} s:")
            lines.append("  " + load.summary())
            lines.extend(f"    error: {error}" for error in load.errors[:3])
            one = chat.drive(balancer, 1, min(seconds, 20.0))
            lines.append("  " + one.summary())
    finally:
        shutil.rmtree(var, ignore_errors=True)
    return lines


if __name__ == "__main__":
    for line in run():
        print(line)
