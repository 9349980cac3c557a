"""Rules engine speed, in process: recommendations per second and p50 latency for a
128-GPU and a 100,000-GPU profile (targets: p50 under 1 ms and under 5 ms)."""

from __future__ import annotations

import statistics
import time

from rules.engine import recommend
from rules.models import WorkloadProfile
from rules.rulebook import forget_memos

PROFILES = {
    "128 GPUs (H100, 70B training)": WorkloadProfile(
        workload="training", gpu_count=128, gpu_model="H100", model_params_b=70
    ),
    "100,000 GPUs (H100, 1.8T training)": WorkloadProfile(
        workload="training", gpu_count=100_000, gpu_model="H100", model_params_b=1800
    ),
}
TARGET_MS = {"128 GPUs (H100, 70B training)": 1.0, "100,000 GPUs (H100, 1.8T training)": 5.0}


def _timings(profile: WorkloadProfile, runs: int, cold: bool = False) -> list[float]:
    recommend(profile)  # load the rules, catalogue and cost calibration once
    out = []
    for _ in range(runs):
        if cold:
            forget_memos()
        started = time.perf_counter()
        recommend(profile)
        out.append((time.perf_counter() - started) * 1000)
    return out


def run() -> list[str]:
    lines = []
    for name, profile in PROFILES.items():
        timings = _timings(profile, runs=500)
        p50 = statistics.median(timings)
        target = TARGET_MS[name]
        verdict = "meets" if p50 < target else "MISSES"
        lines.append(
            f"{name}: p50 {p50:.3f} ms, p99 {statistics.quantiles(timings, n=100)[98]:.3f} ms, "
            f"{1000 / statistics.mean(timings):,.0f} recommendations/s ({verdict} target p50 < {target:g} ms)"
        )
        cold = statistics.median(_timings(profile, runs=200, cold=True))
        lines.append(f"{name}, every rule evaluated afresh (no remembered results): p50 {cold:.3f} ms")
    return lines
