"""Rules engine speed, in process: recommendations per second and p50 latency for a
128-GPU and a 100,000-GPU profile (targets: p50 under 1 ms and under 5 ms), and the
closed-form sizing of five candidate fabrics for 100,000 GPUs (target: under 1 ms in all;
it was a timed test until a loaded CI machine measured 1.013 ms)."""

from __future__ import annotations

import statistics
import time

from rules.engine import recommend
from rules.models import WorkloadProfile
from rules.rulebook import forget_memos
from rules.sizing import allreduce_estimate, size_dragonfly_plus, size_fat_tree, size_rail_optimized

PROFILES = {
    "128 GPUs (H100, 70B training)": WorkloadProfile(
        workload="training", gpu_count=128, gpu_model="H100", model_params_b=70
    ),
    "100,000 GPUs (H100, 1.8T training)": WorkloadProfile(
        workload="training", gpu_count=100_000, gpu_model="H100", model_params_b=1800
    ),
}
TARGET_MS = {"128 GPUs (H100, 70B training)": 1.0, "100,000 GPUs (H100, 1.8T training)": 5.0}
#: five closed-form sizings of 100,000 GPUs together
TARGET_SIZING_MS = 1.0


def _five_sizings() -> None:
    size_fat_tree(100_000, radix=144, link_gbps=800)
    size_rail_optimized(12_500, rails=8, radix=144, link_gbps=800)
    size_dragonfly_plus(100_000, radix=64, link_gbps=400)
    size_fat_tree(90_000, radix=64, link_gbps=400, oversubscription=3.0)
    allreduce_estimate(140 * 10**9, 100_000, 8, 480, 47, 3, 5)


def _sizing_line(rounds: int = 200) -> str:
    _five_sizings()
    started = time.perf_counter()
    for _ in range(rounds):
        _five_sizings()
    per_round = (time.perf_counter() - started) / rounds * 1000
    verdict = "meets" if per_round < TARGET_SIZING_MS else "MISSES"
    return (
        f"five closed-form sizings of 100,000 GPUs (fat-tree, rail, Dragonfly+, 3:1 fat-tree, all-reduce): "
        f"{per_round:.3f} ms in all ({verdict} target < {TARGET_SIZING_MS:g} ms)"
    )


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
    return [*lines, _sizing_line()]
