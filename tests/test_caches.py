"""The caches that stay are correct: the per-rule memo survives a list-valued fact, and a
remembered recommendation's id is found after the database file is replaced."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from advisor import service
from advisor.designs import recommendations
from core.settings import settings
from rules import rulebook
from rules.models import WorkloadProfile

PROFILE = WorkloadProfile(workload="training", gpu_count=64, gpu_model="H100")


def test_a_rule_over_a_list_valued_fact_fires_without_crashing() -> None:
    vocab = rulebook.Vocabulary.model_validate(
        {
            "stages": {"fabric": {"facts": {"gpu_models": {"type": "array", "about": "GPU models named"}}}},
            "decisions": {},
        }
    )
    rule = rulebook.Rule.load(
        {"id": "names-h100", "priority": 1, "when": '"H100" in gpu_models', "because": "x", "source": "test"},
        "fabric",
        vocab,
    )
    assert rule.fires({"gpu_models": ["H100", "B200"]}) is True
    assert rule.fires({"gpu_models": ["H100", "B200"]}) is True
    assert rule.fires({"gpu_models": ["A100"]}) is False


def test_a_fact_missing_at_run_time_names_the_rule() -> None:
    rule = rulebook.rules_by_stage()["fabric"][0]
    with pytest.raises(RuntimeError, match=rf"rule {rule.id}: condition names unknown fact"):
        rule.fires({})


def rows(db: Path, rec_id: str) -> int:
    with sqlite3.connect(db) as conn:
        return conn.execute("select count(*) from recommendations where id = ?", [rec_id]).fetchone()[0]


def replace(db: Path) -> None:
    for suffix in ("", "-wal", "-shm"):
        Path(f"{db}{suffix}").unlink(missing_ok=True)


def test_a_remembered_recommendation_is_stored_again_after_the_file_is_replaced(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    db = tmp_path / "advisor.db"
    monkeypatch.setattr(settings, "db_path", db)
    first = recommendations.recommend(PROFILE)
    assert first.id and rows(db, first.id) == 1
    replace(db)
    again = recommendations.recommend(PROFILE)  # from the memo
    assert again.id == first.id
    assert rows(db, first.id) == 1
    assert recommendations.get_recommendation(first.id) == again


def test_a_remembered_chat_answer_is_stored_again_after_the_file_is_replaced(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    db = tmp_path / "advisor.db"
    monkeypatch.setattr(settings, "db_path", db)
    question = "we will train a 70B model on 64 H100s"
    first = service.ask(question).recommendation
    assert first is not None and first.id
    replace(db)
    again = service.ask(question).recommendation
    assert again is not None and again.id == first.id
    assert rows(db, first.id) == 1


def test_the_design_is_handed_on_before_it_is_quoted_and_stored(monkeypatch: pytest.MonkeyPatch) -> None:
    """The CLI prints a design's first line from `on_design`: the engine's design, before
    the quote (its alternative switches designed too) and the store."""
    order: list[object] = []
    saved = recommendations.store.save
    monkeypatch.setattr(recommendations.store, "save", lambda rec: order.append("stored") or saved(rec))
    rec = recommendations.recommend(PROFILE, on_design=lambda designed: order.append(designed))
    [designed, stored] = order
    assert stored == "stored" and isinstance(designed, type(rec)) and designed.quote is None
    assert rec.quote is not None and designed.profile == rec.profile
