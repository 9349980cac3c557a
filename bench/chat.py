"""Chat capacity through Rasa's REST channel, with the real action server.

Each simulated sales engineer holds a 4-turn sizing conversation (a workload, then a
size, then two what-ifs) and starts a new one when it ends, for a fixed time, with 1, 8
and 16 of them at once. Every conversation's final slots are read back from Rasa's
tracker and compared with what was said, so a lost or mixed-up slot counts as an error
(and so does any HTTP error or a missing reply).

Targets (issue 24): a chat turn's p95 <= 50 ms with one conversation and <= 500 ms
with 16 at once, printed beside the figures, not asserted. A turn is Rasa's work plus
the action server's, where the advisor service decides the message once (the slot
filling and the reply share the decision, bot/actions/respond.py).
"""

from __future__ import annotations

import statistics
import tempfile
import threading
import time
import uuid
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import httpx

from bot import launch
from ops.processes import RASA_BIN

LEVELS = (1, 8, 16)
SECONDS_PER_LEVEL = 20.0
TARGET_P95_MS = {1: 50.0, 16: 500.0}

# (message, slots the tracker must hold after it)
SCRIPT: tuple[tuple[str, dict[str, object]], ...] = (
    ("We train a 70B model.", {"workload": "training", "model_params_b": 70}),
    ("on 128 H100s", {"gpu_count": 128, "gpu_model": "H100"}),
    ("what about 256 GPUs?", {"gpu_count": 256}),
    ("what if we double it?", {"gpu_count": 512}),
)
FINAL_SLOTS = {key: value for _, slots in SCRIPT for key, value in slots.items()}


def percentile(values: Sequence[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(p / 100 * (len(ordered) - 1)))]


@dataclass
class Load:
    """What a run of conversations measured."""

    concurrency: int
    seconds: float
    turn_ms: list[float] = field(default_factory=list)
    conversations: int = 0
    errors: list[str] = field(default_factory=list)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    @property
    def turns_per_second(self) -> float:
        return len(self.turn_ms) / self.seconds if self.seconds else 0.0

    def summary(self) -> str:
        if not self.turn_ms:
            return f"{self.concurrency:>2} at once: no turn answered ({len(self.errors)} errors)"
        line = (
            f"{self.concurrency:>2} at once: {self.turns_per_second:5.1f} turns/s, "
            f"p50 {statistics.median(self.turn_ms):4.0f} ms, p95 {percentile(self.turn_ms, 95):4.0f} ms, "
            f"{self.conversations} conversations, {len(self.errors)} errors"
        )
        target = TARGET_P95_MS.get(self.concurrency)
        if not target:
            return line
        verdict = "meets" if percentile(self.turn_ms, 95) <= target else "MISSES"
        return line + f" ({verdict} target p95 <= {target:.0f} ms)"

    def add(self, turn_ms: list[float], error: str | None) -> None:
        with self._lock:
            self.turn_ms.extend(turn_ms)
            self.conversations += 1
            if error:
                self.errors.append(error)


def converse(client: httpx.Client, urls: Sequence[str], sender: str, first: int = 0) -> tuple[list[float], str | None]:
    """One scripted conversation, turn n sent to urls[(first + n) % len(urls)]: the turn
    times, and what went wrong (None when nothing). The client carries the Rasa token
    (`params={"token": ...}`); the REST channel keeps the conversation as `rest:SENDER`."""
    times: list[float] = []
    try:
        for n, (text, _) in enumerate(SCRIPT):
            url = urls[(first + n) % len(urls)]
            started = time.perf_counter()
            response = client.post(f"{url}/webhooks/rest/webhook", json={"sender": sender, "message": text})
            times.append((time.perf_counter() - started) * 1000)
            response.raise_for_status()
            if not any(message.get("text") for message in response.json()):
                return times, f"{sender}: no reply to {text!r}"
        tracker = client.get(f"{urls[first % len(urls)]}/conversations/rest:{sender}/tracker")
        tracker.raise_for_status()
        slots = tracker.json()["slots"]
        lost = {key: (value, slots.get(key)) for key, value in FINAL_SLOTS.items() if slots.get(key) != value}
        return times, f"{sender}: slots lost or wrong (expected, held): {lost}" if lost else None
    except (httpx.HTTPError, ValueError, KeyError) as exc:
        return times, f"{sender}: {type(exc).__name__}: {exc}"


def drive(base_url: str | Sequence[str], concurrency: int, seconds: float, token: str = "") -> Load:
    """concurrency conversations at a time against base_url for about `seconds` (each
    conversation under way when time is up is finished). Given several URLs, each turn
    goes to the next one, so every conversation alternates between replicas. token: the
    Rasa token (the REST channel and the tracker need it)."""
    urls = [base_url] if isinstance(base_url, str) else list(base_url)
    load = Load(concurrency, seconds)
    deadline = time.monotonic() + seconds
    counter = iter(range(1 << 62))
    counter_lock = threading.Lock()

    def worker() -> None:
        with httpx.Client(timeout=60, params={"token": token} if token else None) as client:
            while time.monotonic() < deadline:
                with counter_lock:
                    n = next(counter)
                times, error = converse(client, urls, f"load-{uuid.uuid4().hex[:12]}", first=n)
                load.add(times, error)

    started = time.monotonic()
    threads = [threading.Thread(target=worker, daemon=True) for _ in range(concurrency)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    load.seconds = time.monotonic() - started
    return load


def run(levels: Sequence[int] = LEVELS, seconds: float = SECONDS_PER_LEVEL) -> list[str]:
    if not (RASA_BIN / "rasa").exists():
        return ["skipped: no Rasa environment (make rasa-venv)"]
    started = time.perf_counter()
    lines: list[str] = []
    with tempfile.TemporaryDirectory(prefix="bench-chat-") as workdir, launch.chat_stack(Path(workdir)) as stack:
        lines.append(f"stack start (model check, action server, Rasa): {time.perf_counter() - started:.1f} s")
        drive(stack.rasa.url, 2, 3.0, stack.token)  # warm-up
        lines.append(f"one Rasa process, {len(SCRIPT)}-turn sizing conversations, {seconds:.0f} s per level:")
        for level in levels:
            load = drive(stack.rasa.url, level, seconds, stack.token)
            lines.append("  " + load.summary())
            lines.extend(f"    error: {error}" for error in load.errors[:3])
    return lines


if __name__ == "__main__":
    for line in run():
        print(line)
