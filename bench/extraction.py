"""Extraction speed, one process: questions per second over the dev set and per-question
latency (target: at least 1,000 questions per second on one core).

Wall-clock figures depend on what else the machine runs; the CPU-time figure (questions
per CPU-second of this process) is steadier on a shared machine. Each figure is the
median of several passes over the whole dev set.
"""

from __future__ import annotations

import statistics
import time

from understanding.extraction.evaluate import DEFAULT_DATA, load_examples
from understanding.extraction.extractor import extract

TARGET_QPS = 1_000
PASSES = 5


def run() -> list[str]:
    texts = [example["text"] for example in load_examples(DEFAULT_DATA)]
    started = time.perf_counter()
    extract("warm up: 8 DGX H100 for training, budget $1M")  # builds the pipeline and the matchers
    build_s = time.perf_counter() - started

    wall_qps: list[float] = []
    cpu_qps: list[float] = []
    latencies_ms: list[float] = []
    for _ in range(PASSES):
        wall_started, cpu_started = time.perf_counter(), time.process_time()
        for text in texts:
            one = time.perf_counter()
            extract(text)
            latencies_ms.append((time.perf_counter() - one) * 1000)
        wall_qps.append(len(texts) / (time.perf_counter() - wall_started))
        cpu_qps.append(len(texts) / max(time.process_time() - cpu_started, 1e-9))

    latencies_ms.sort()
    p50 = statistics.median(latencies_ms)
    p95 = latencies_ms[int(len(latencies_ms) * 0.95)]
    qps, qps_cpu = statistics.median(wall_qps), statistics.median(cpu_qps)
    verdict = "met" if max(qps, qps_cpu) >= TARGET_QPS else "NOT met"
    return [
        f"pipeline and matchers built in {build_s:.2f} s (once per process)",
        f"dev set: {len(texts)} questions x {PASSES} passes, single process",
        f"questions per second: {qps:,.0f} wall, {qps_cpu:,.0f} per CPU-second (median pass; "
        f"passes ranged {min(cpu_qps):,.0f}-{max(cpu_qps):,.0f} per CPU-second)",
        f"latency per question: p50 {p50:.2f} ms, p95 {p95:.2f} ms",
        f"target >= {TARGET_QPS:,} questions/s on one core: {verdict}",
    ]


if __name__ == "__main__":
    for line in run():
        print(line)
