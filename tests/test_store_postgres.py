"""Stored recommendations on PostgreSQL (FABRIC_ADVISOR_DATABASE_URL): what one process
stores, another serves; while the database is down a call says so, and it recovers
when the database is back, without a restart of ours."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from advisor.designs.quote import quoted
from advisor.storage import store
from ops import parts
from rules import engine
from rules.models import WorkloadProfile
from tests.shared_parts import PASSWORD, postgres_and_redis

pytestmark = pytest.mark.cluster


@pytest.fixture(scope="module")
def shared(tmp_path_factory):
    with postgres_and_redis(tmp_path_factory.mktemp("parts")) as supervisor:
        yield supervisor


def url(shared) -> str:
    return parts.postgres_url(shared.services["postgres"].port, PASSWORD)


def recommendation(gpus: int):
    return engine.recommend(WorkloadProfile(workload="training", gpu_count=gpus, gpu_model="H100"))


def test_a_recommendation_stored_by_one_process_is_served_by_another(shared):
    one, other = store.PostgresStore(url(shared)), store.PostgresStore(url(shared))  # two pools: two processes
    rec = recommendation(128)
    body = rec.model_dump_json(exclude={"id"})
    rec_id = store._content_id(body)
    one.insert(rec_id, "2026-01-01T00:00:00+00:00", body)
    one.insert(rec_id, "2026-01-01T00:00:00+00:00", body)  # again: nothing changes
    assert other.body(rec_id) == body
    assert other.body("r_000000000000") is None


def test_the_store_follows_the_database_url_setting(shared, tmp_path):
    script = (
        "from advisor import service\nfrom advisor.storage import store\n"
        "from rules.models import WorkloadProfile\n"
        "rec = service.recommend(WorkloadProfile(workload='training', gpu_count=256, gpu_model='H100'))\n"
        "print(type(store.database()).__name__, rec.id)\n"
    )
    env = {**os.environ, "FABRIC_ADVISOR_DATABASE_URL": url(shared), "FABRIC_ADVISOR_DB": str(tmp_path / "unused.db")}
    result = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    kind, rec_id = result.stdout.split()
    assert kind == "PostgresStore" and not (tmp_path / "unused.db").exists()
    assert store.PostgresStore(url(shared)).body(rec_id) is not None


def test_a_database_restart_gives_a_clear_error_then_recovers(shared):
    db = store.PostgresStore(url(shared))
    rec = recommendation(64)
    body = rec.model_dump_json(exclude={"id"})
    rec_id = store._content_id(body)
    db.insert(rec_id, "2026-01-01T00:00:00+00:00", body)
    shared.stop("postgres")
    with pytest.raises(store.StoreUnavailable, match=r"PostgreSQL at 127\.0\.0\.1:\d+/fabric_advisor\) is unreachable"):
        db.body(rec_id)
    shared.start("postgres")
    assert db.body(rec_id) == body  # the same pool, a new connection


def test_feedback_is_filed_in_postgresql_with_the_designs_versions(shared):
    postgres = store.PostgresStore(url(shared))
    rec = quoted(recommendation(64)).model_copy(update={"id": "r_feedback0001"})
    assert rec.versions is not None
    first = postgres.insert_feedback(
        rec.id, "2026-01-01T00:00:00+00:00", "spines look low", rec.versions.model_dump_json()
    )
    second = postgres.insert_feedback(rec.id, "2026-01-01T00:00:01+00:00", "and the cost", "{}")
    assert second == first + 1
    row = postgres._run("SELECT reason, versions FROM feedback WHERE id = %s", (str(first),))
    assert row is not None and row[0] == "spines look low" and rec.versions.rulebook in row[1]


def test_a_handoff_is_recorded_in_postgresql_with_what_each_destination_answered(shared):
    postgres = store.PostgresStore(url(shared))
    row = (
        "H-0000PG01",
        "2026-01-01T00:00:00+00:00",
        None,
        "web-1",
        "Jane",
        "jane@acme.example",
        "Acme",
        "",
        None,
        "[]",
    )
    postgres.insert_handoff(row)
    postgres.record_deliveries("H-0000PG01", '[{"destination": "email", "reached": false}]')
    kept = postgres._run(
        "SELECT conversation_id, email, deliveries FROM handoffs WHERE reference = %s", ("H-0000PG01",)
    )
    assert kept is not None and kept[0] == "web-1" and kept[1] == "jane@acme.example" and '"reached": false' in kept[2]
