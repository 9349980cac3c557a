"""`python -m bench extraction` prints throughput and latency lines."""

from __future__ import annotations

import bench.extraction


def test_bench_reports_questions_per_second_and_p50_latency(monkeypatch):
    monkeypatch.setattr(bench.extraction, "PASSES", 1)
    lines = bench.extraction.run()
    assert all(isinstance(line, str) for line in lines)
    text = "\n".join(lines)
    assert "questions per second" in text and "p50" in text
