"""Chat-turn latency through Rasa's REST channel, with the real action server.

A recommendation turn is one user message that carries a whole sizing ("We will
pretrain a 70B model on 128 H100s..."), in a new conversation: Rasa classifies it,
the action server fills the slots from it, the form finds nothing missing, and
action_recommend answers with the summary. Target: p95 under 200 ms on this machine.
"""

from __future__ import annotations

import statistics
import tempfile
import time
import uuid
from pathlib import Path

import httpx

from advisor.processes import RASA_BIN
from bot import launch

TURNS = 50
WARMUP = 5
MESSAGE = "We will pretrain a 70B model on 128 H100s, what network do we need?"
WHAT_IF = "what about 256 GPUs?"


def percentile(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(p / 100 * (len(ordered) - 1)))]


def timed_turn(client: httpx.Client, url: str, sender: str, text: str) -> tuple[float, list[dict]]:
    started = time.perf_counter()
    response = client.post(url, json={"sender": sender, "message": text})
    elapsed = (time.perf_counter() - started) * 1000
    response.raise_for_status()
    return elapsed, response.json()


def run() -> list[str]:
    if not (RASA_BIN / "rasa").exists():
        return ["skipped: no Rasa environment (make rasa-venv)"]
    started = time.perf_counter()
    with (
        tempfile.TemporaryDirectory(prefix="bench-chat-") as workdir,
        launch.chat_stack(Path(workdir)) as stack,
        httpx.Client(timeout=30) as client,
    ):
        startup = time.perf_counter() - started
        for _ in range(WARMUP):
            timed_turn(client, stack.webhook, uuid.uuid4().hex, MESSAGE)
        recommend_ms, what_if_ms = [], []
        for _ in range(TURNS):
            sender = uuid.uuid4().hex
            elapsed, messages = timed_turn(client, stack.webhook, sender, MESSAGE)
            if not any("**Recommendation:" in (m.get("text") or "") for m in messages):
                raise RuntimeError(f"no recommendation in the reply: {messages}")
            recommend_ms.append(elapsed)
            elapsed, _ = timed_turn(client, stack.webhook, sender, WHAT_IF)
            what_if_ms.append(elapsed)
    lines = [f"stack start (model check, action server, Rasa): {startup:.1f} s"]
    for name, values in (("recommendation turn", recommend_ms), ("what-if turn", what_if_ms)):
        lines.append(
            f"{name} via REST, {len(values)} turns: p50 {statistics.median(values):.0f} ms, "
            f"p95 {percentile(values, 95):.0f} ms (target p95 < 200 ms)"
        )
    return lines


if __name__ == "__main__":
    for line in run():
        print(line)
