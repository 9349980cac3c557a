"""The API bench's floor lines: the time the target leaves for the work is computed
from the run's own figures (bench/api.py)."""

from __future__ import annotations

from bench.api import DISTINCT_PROFILES, HEALTHZ, Figures, _floor_lines


def _figures(rps: float) -> Figures:
    return Figures(requests=int(rps * 5), errors=0, seconds=5.0, rps=rps, p50_ms=1.0, p99_ms=2.0, tool="wrk")


def test_work_per_request_is_the_time_beyond_the_floor_apps_post():
    baseline, floor_get, floor_post, real = _figures(5000), _figures(5000), _figures(4000), _figures(500)
    lines = _floor_lines(
        [(HEALTHZ, floor_get), (DISTINCT_PROFILES, floor_post)],
        baseline,
        [(HEALTHZ, baseline), (DISTINCT_PROFILES, real)],
    )
    # the floor's POST takes 250 us a request
    assert "0.80 x its own GET" in lines[0]
    assert "beyond the floor's POST, 250 us" in lines[1]
    # the real endpoint at 500 req/s takes 2,000 us, 1,750 us beyond the floor
    assert lines[2].endswith("(distinct profiles): 1,750 us")
