"""Spans: every value points at the text that gave it."""

from __future__ import annotations

import pytest

from understanding.extraction import extract


def spans_of(text: str) -> dict[str, list[str]]:
    found: dict[str, list[str]] = {}
    for span in extract(text).spans:
        found.setdefault(span.field, []).append(span.text)
    return found


def test_span_offsets_slice_the_original_text():
    text = "We will pretrain a 70B model on  128 H100s.\nBudget: $4M, we already run 400GbE; we'd like RoCE."
    result = extract(text)
    assert result.spans
    for span in result.spans:
        assert text[span.start : span.end] == span.text
    fields = {span.field for span in result.spans}
    assert fields == set(result.profile.model_dump(exclude_none=True))


def test_each_field_points_at_its_phrase():
    found = spans_of("We will pretrain a 70B model on 128 H100s. Budget: $4M. We prefer InfiniBand, budget is tight.")
    assert found["workload"] == ["pretrain"]
    assert found["model_params_b"] == ["70B model"]
    assert found["gpu_count"] == ["128 H100s"]
    assert found["gpu_model"] == ["H100s"]
    assert found["budget_usd"] == ["$4M"]
    assert found["prefer"] == ["InfiniBand"]
    assert found["cost_sensitive"] == ["budget is tight"]


def test_a_derived_value_points_at_every_phrase_it_came_from():
    found = spans_of("We have 16 nodes and 8 GPUs per node.")
    assert found["node_count"] == ["16 nodes"]
    assert found["gpus_per_node"] == ["8 GPUs per node"]
    assert found["gpu_count"] == ["16 nodes", "8 GPUs per node"]


def test_mixed_workload_points_at_both_cues():
    assert spans_of("We fine-tune by day and serve at night.")["workload"] == ["fine-tune", "serve"]


def test_system_spans_name_the_system():
    found = spans_of("Two DGX H200 systems, please.")
    assert found["gpu_count"] == ["Two DGX H200"]
    assert found["gpus_per_node"] == ["DGX H200"]


@pytest.mark.parametrize("text", ["sixty-four GPUs", "  64 GPUs  ", "GPUs: 64", "\t64\u00a0GPUs"])
def test_spans_survive_odd_spacing(text):
    result = extract(text)
    assert result.profile.gpu_count == 64
    (span,) = result.spans_for("gpu_count")
    assert text[span.start : span.end] == span.text
