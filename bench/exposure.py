"""Hostile input and load on every channel's entry (issue 23), loopback only.

1. 100,000-character adversarial strings (digit runs, `1x1x...`, separators, spaces,
   unicode, brackets) through each entry a message takes: the extractor, the chat's
   understanding (`service.understand_message`, what the action server calls) and
   POST /v1/ask on a real uvicorn (which refuses the body: over 64 KiB, so 413; the same
   strings cut to the API's 2,000 characters are answered). Target: under 1 s each.
2. /healthz latency (p50, p95, max) while 50 long /v1/ask questions run at once, on one
   uvicorn worker. Target: under 100 ms. The load is bounded: 50 requests, one each.
"""

from __future__ import annotations

import statistics
import tempfile
import threading
import time
from pathlib import Path

import httpx

from advisor import service
from api.server import UVICORN_FLAGS
from ops.processes import VENV_BIN, free_port, running
from understanding.extraction import extract
from understanding.extraction.extractor import MAX_CHARS

SIZE = 100_000
TARGET_S = 1.0
HEALTH_TARGET_MS = 100.0
LONG_QUESTIONS = 50


def _adversarial() -> dict[str, str]:
    def repeat(unit: str) -> str:
        return (unit * (SIZE // len(unit) + 1))[:SIZE]

    return {
        "digits": repeat("1"),
        "1x1x...": repeat("1x"),
        "1.1.1...": repeat("1."),
        "spaces": "1" + " " * (SIZE - 1),
        "separators": repeat(",/;:"),
        "brackets": "(" * (SIZE // 2) + ")" * (SIZE // 2),
        "unicode": repeat("é—’ 𝟙"),
        "how many...": repeat("how many "),
        "markdown": repeat("**a [b]( ~~c "),
    }


def _timed(call: object, *args: object) -> float:
    started = time.perf_counter()
    call(*args)  # type: ignore[operator]
    return time.perf_counter() - started


def run() -> list[str]:
    lines: list[str] = []
    service.warm_up()
    texts = _adversarial()
    worst: dict[str, float] = {}
    for name, text in texts.items():
        worst[name] = max(_timed(extract, text), _timed(service.understand_message, text))
    slowest = max(worst, key=worst.__getitem__)
    lines.append(
        f"100k-character adversarial input, extractor and chat understanding: slowest {slowest!r} "
        f"{worst[slowest] * 1000:.0f} ms; " + ", ".join(f"{n} {s * 1000:.0f}" for n, s in worst.items()) + " ms"
    )
    lines.append(f"  target < {TARGET_S:g} s each: {'met' if max(worst.values()) < TARGET_S else 'NOT met'}")

    with tempfile.TemporaryDirectory(prefix="bench-exposure-") as tmp:
        env = {
            "FABRIC_ADVISOR_DB": str(Path(tmp) / "advisor.db"),
            "FABRIC_ADVISOR_API_KEY": "",
            "FABRIC_ADVISOR_RATE_LIMIT": "0",  # one client sends everything: measure the work, not the limit
        }
        port = free_port()
        command = [str(VENV_BIN / "python"), "-m", "uvicorn", "api.app:app", "--host", "127.0.0.1"]
        command += ["--port", str(port), *UVICORN_FLAGS]
        with running(command, port=port, health_path="/healthz", env=env) as server:
            lines += _api_inputs(server.url, texts)
            lines += _health_under_load(server.url)
    return lines


def _api_inputs(url: str, texts: dict[str, str]) -> list[str]:
    full: dict[str, tuple[int, float]] = {}
    capped: dict[str, tuple[int, float]] = {}
    with httpx.Client(base_url=url, timeout=120) as client:
        for name, text in texts.items():
            started = time.perf_counter()
            code = client.post("/v1/ask", json={"question": text}).status_code
            full[name] = (code, time.perf_counter() - started)
            started = time.perf_counter()
            code = client.post("/v1/ask", json={"question": text[:MAX_CHARS]}).status_code
            capped[name] = (code, time.perf_counter() - started)
    slowest = max(max(s for _, s in full.values()), max(s for _, s in capped.values()))
    codes = sorted({c for c, _ in full.values()})
    return [
        f"POST /v1/ask with them: {codes} (the body is over 64 KiB) in at most "
        f"{max(s for _, s in full.values()) * 1000:.0f} ms",
        "POST /v1/ask with them cut to 2,000 characters: "
        + ", ".join(f"{n} {c} {s * 1000:.0f} ms" for n, (c, s) in capped.items()),
        f"  target < {TARGET_S:g} s each: {'met' if slowest < TARGET_S else 'NOT met'}",
    ]


def _health_under_load(url: str) -> list[str]:
    questions = [
        (f"cluster {n}: " + " ".join(f"{n + i} H100 GPUs for training, is 400G {i} GB/s?" for i in range(60)))[
            :MAX_CHARS
        ]
        for n in range(LONG_QUESTIONS)
    ]
    codes: list[int] = []

    def ask(question: str) -> None:
        with httpx.Client(base_url=url, timeout=600) as client:
            try:
                codes.append(client.post("/v1/ask", json={"question": question}).status_code)
            except httpx.HTTPError:  # counted, not printed: the figure is the health check's
                codes.append(0)

    workers = [threading.Thread(target=ask, args=(q,)) for q in questions]
    started = time.perf_counter()
    for worker in workers:
        worker.start()
    latencies: list[float] = []
    with httpx.Client(base_url=url, timeout=30) as client:
        time.sleep(0.2)
        deadline = time.perf_counter() + 300
        while any(w.is_alive() for w in workers) and time.perf_counter() < deadline:
            one = time.perf_counter()
            client.get("/healthz")
            latencies.append((time.perf_counter() - one) * 1000)
            time.sleep(0.05)
    for worker in workers:
        worker.join(timeout=600)
    busy_s = time.perf_counter() - started
    if not latencies:
        return ["/healthz under load: the questions were done before the first check"]
    latencies.sort()
    p50 = statistics.median(latencies)
    p95 = latencies[int(len(latencies) * 0.95)]
    return [
        f"/healthz while {LONG_QUESTIONS} long /v1/ask run ({busy_s:.1f} s; answers {sorted(set(codes))}, "
        f"0 = timed out): "
        f"{len(latencies)} checks, p50 {p50:.1f} ms, p95 {p95:.1f} ms, max {latencies[-1]:.1f} ms",
        f"  target < {HEALTH_TARGET_MS:g} ms: {'met' if p95 < HEALTH_TARGET_MS else 'NOT met'} (p95)",
    ]


if __name__ == "__main__":
    for line in run():
        print(line)
