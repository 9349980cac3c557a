"""The API facing the internet: a client over its rate gets 429 and cannot starve the
others, `/healthz` answers while long questions run, signed links open a
recommendation's files without the key (and nothing else), an unsendable key stops the
start with a reason, and stored recommendations expire. Real uvicorn servers on
127.0.0.1 free ports."""

from __future__ import annotations

import json
import sqlite3
import subprocess
import threading
import time
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import httpx
import pytest

from advisor.designs.recommendations import recommend
from advisor.render import markdown, slack
from advisor.storage import store
from api.app import create_app
from api.config import ApiConfig
from core import links
from core.settings import settings
from rules.models import WorkloadProfile
from tests.servers import API_KEY, REPO, VENV_BIN, Server, api_env, free_port, running, uvicorn_command

#: our code in another process (make test runs these; make check leaves them out)
pytestmark = pytest.mark.e2e

RATE_KEY = "rate-key-0123456789"


@pytest.fixture(scope="module")
def limited_api(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """An API allowing 0.2 requests a second in bursts of 3 (a token every 5 s: the test
    below is done long before one comes back), with a key."""
    env = api_env(tmp_path_factory.mktemp("api-limited"))
    env |= {"FABRIC_ADVISOR_RATE_LIMIT": "0.2", "FABRIC_ADVISOR_RATE_BURST": "3", "FABRIC_ADVISOR_API_KEY": RATE_KEY}
    port = free_port()
    with running(uvicorn_command(port), port=port, health_path="/healthz", env=env) as server:
        yield server


def test_a_client_over_its_rate_gets_429_with_retry_after_and_others_do_not(limited_api: Server) -> None:
    def get(address: str) -> httpx.Response:
        # the test's peer is 127.0.0.1, the trusted balancer: X-Forwarded-For names the client
        return httpx.get(limited_api.url + "/v1/knowledge", headers={"X-Forwarded-For": address}, timeout=30)

    first = [get("203.0.113.5").status_code for _ in range(3)]
    assert first == [401, 401, 401]  # no key: refused, but each counts
    over = get("203.0.113.5")
    assert over.status_code == 429
    assert int(over.headers["retry-after"]) >= 1
    assert "Too many requests" in over.json()["detail"]
    assert get("203.0.113.6").status_code == 401  # another client: its own bucket
    # a spoofed earlier entry does not make a new client: the balancer's last entry counts
    assert get("198.51.100.1, 203.0.113.5").status_code == 429
    for _ in range(5):
        assert httpx.get(limited_api.url + "/healthz", timeout=30).status_code == 200  # never limited


def test_with_a_key_the_client_is_the_key_from_any_address(limited_api: Server) -> None:
    headers = {"X-API-Key": RATE_KEY}
    codes = [
        httpx.get(limited_api.url + "/v1/knowledge", headers={**headers, "X-Forwarded-For": f"192.0.2.{n}"}).status_code
        for n in range(5)
    ]
    assert codes[:3] == [200, 200, 200]
    assert codes[3:] == [429, 429]


def test_healthz_answers_while_long_questions_run(tmp_path: Path) -> None:
    """Ten concurrent 2,000-character questions held /healthz for 9.8 s when they ran on
    the event loop; on the worker threads a health check gets through (time-out 5 s,
    HAProxy's `inter 1s fall 2` would allow 2)."""
    env = api_env(tmp_path / "api-busy")
    port = free_port()
    with running(uvicorn_command(port), port=port, health_path="/healthz", env=env) as server:
        questions = [f"case {n}: " + " ".join(f"{n + i} GPUs, is 400G {i} GB/s?" for i in range(80)) for n in range(8)]
        questions = [q[:2000] for q in questions]
        done: list[int] = []

        def ask(question: str) -> None:
            done.append(httpx.post(server.url + "/v1/ask", json={"question": question}, timeout=300).status_code)

        workers = [threading.Thread(target=ask, args=(q,)) for q in questions]
        for worker in workers:
            worker.start()
        try:
            time.sleep(0.5)
            checks = 0
            while any(w.is_alive() for w in workers) and checks < 20:
                assert httpx.get(server.url + "/healthz", timeout=5).json() == {"status": "ok"}
                checks += 1
                time.sleep(0.1)
        finally:
            for worker in workers:
                worker.join(timeout=300)
        assert done == [200] * len(questions)


def test_a_signed_link_opens_the_files_of_that_recommendation_only(keyed_api: Server) -> None:
    made = httpx.post(
        keyed_api.url + "/v1/recommendations",
        json={"workload": "training", "gpu_count": 64, "gpu_model": "H100"},
        headers={"X-API-Key": API_KEY},
        timeout=60,
    )
    assert made.status_code == 201
    base = f"{keyed_api.url}/v1/recommendations/{made.json()['id']}"
    for name in ("diagram.svg", "report", "bom.csv", ""):
        url = f"{base}/{name}" if name else base
        signed = links.signed(url, key=API_KEY)
        assert signed != url
        assert httpx.get(signed, timeout=60).status_code == 200, name
        assert httpx.get(url, timeout=60).status_code == 401, name  # unsigned: the key is needed
    diagram = links.signed(base + "/diagram.svg", key=API_KEY) or ""
    other_file = diagram.replace("/diagram.svg", "/bom.csv")
    assert httpx.get(other_file, timeout=60).status_code == 401  # a signature is for one path
    tampered = diagram[:-2] + ("AA" if not diagram.endswith("AA") else "BB")
    assert httpx.get(tampered, timeout=60).status_code == 401
    expired = links.signed(base + "/diagram.svg", now=time.time() - 8 * 86_400, key=API_KEY) or ""
    assert httpx.get(expired, timeout=60).status_code == 401
    wrong_key = links.signed(base + "/diagram.svg", key="not-the-key") or ""
    assert httpx.get(wrong_key, timeout=60).status_code == 401
    post = httpx.post(links.signed(keyed_api.url + "/v1/recommendations/x", key=API_KEY) or "", json={})
    assert post.status_code in {401, 405}  # a signature opens GETs only


def test_the_renderers_sign_every_link_when_a_key_is_set(monkeypatch: pytest.MonkeyPatch) -> None:
    rec = recommend(WorkloadProfile(workload="training", gpu_count=64, gpu_model="H100"), save=False)
    rec = rec.model_copy(update={"id": "r_0123456789ab"})
    url = "http://advisor.example/v1/recommendations/r_0123456789ab/diagram.svg"
    monkeypatch.setattr(settings, "api_key", "render-key")
    text = markdown.recommendation_markdown(rec, diagram_url=url)
    blocks = json.dumps(slack.recommendation_blocks(rec, diagram_url=url))
    for path in ("diagram.svg", "report", "bom.csv"):
        assert f"/r_0123456789ab/{path}?expires=" in blocks, path
    signed_diagram = text.split("[Topology diagram](")[1].split(")")[0]
    query = httpx.URL(signed_diagram).params
    assert links.verify("/v1/recommendations/r_0123456789ab/diagram.svg", query["expires"], query["sig"], "render-key")
    monkeypatch.setattr(settings, "api_key", None)
    assert f"[Topology diagram]({url})" in markdown.recommendation_markdown(rec, diagram_url=url)


def test_a_key_no_client_can_send_stops_the_start_with_the_reason() -> None:
    with pytest.raises(ValueError, match="latin-1"):
        create_app(ApiConfig(api_key="ключ-доступа"))
    with pytest.raises(ValueError, match="space"):
        create_app(ApiConfig(api_key=" padded "))
    started = subprocess.run(
        [str(VENV_BIN / "python"), "-c", "import api.app"],
        cwd=REPO,
        env={"PATH": "/usr/bin:/bin", "FABRIC_ADVISOR_API_KEY": "clé-€"},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert started.returncode != 0
    assert "outside latin-1" in started.stderr
    create_app(ApiConfig(api_key="plain-ascii-key_0123"))  # an ordinary key starts


def _old_row(db: Path, rec_id: str, days: float) -> None:
    created = (datetime.now(UTC) - timedelta(days=days)).isoformat(timespec="seconds")
    store.database(db).insert(rec_id, created, json.dumps({"id": rec_id}))


def test_recommendations_older_than_the_retention_are_gone(tmp_path: Path) -> None:
    db = tmp_path / "advisor.db"
    rec = store.save(recommend(WorkloadProfile(workload="training", gpu_count=16), save=False), path=db)
    _old_row(db, "r_00000000old1", settings.retention_days + 1)
    assert store.load(rec.id or "", path=db) is not None
    assert store.database(db).body("r_00000000old1") is not None  # still on disk, but
    assert store.load("r_00000000old1", path=db) is None  # no longer served
    store.purge_expired(path=db)
    with sqlite3.connect(db) as conn:
        ids = {row[0] for row in conn.execute("SELECT id FROM recommendations")}
    assert ids == {rec.id}


def test_the_api_answers_an_expired_recommendation_with_404_and_why(tmp_path: Path) -> None:
    env = api_env(tmp_path / "api-retention")
    _old_row(Path(env["FABRIC_ADVISOR_DB"]), "r_0000000000aa", 91)
    port = free_port()
    with running(uvicorn_command(port), port=port, health_path="/healthz", env=env) as server:
        response = httpx.get(server.url + "/v1/recommendations/r_0000000000aa", timeout=30)
    assert response.status_code == 404
    assert "kept for 90 days" in response.json()["detail"]


def test_a_huge_request_head_is_refused(keyed_api: Server) -> None:
    """uvicorn with httptools read a 32 MB header; h11 with a 16 KiB limit on an incomplete
    head (plus at most one 64 KiB read) drops the connection of a 1 MB one."""
    try:
        status = httpx.get(keyed_api.url + "/healthz", headers={"X-Padding": "a" * 1_000_000}, timeout=30).status_code
    except (httpx.ReadError, httpx.RemoteProtocolError, httpx.WriteError):
        status = None  # the connection was dropped
    assert status in {None, 400, 431}
    assert httpx.get(keyed_api.url + "/healthz", headers={"X-Padding": "a" * 4000}).status_code == 200


def test_no_redirect_echoes_the_host_header(keyed_api: Server) -> None:
    for path in ("/v1/recommendations/", "/static", "/docs/"):
        response = httpx.get(keyed_api.url + path, headers={"Host": "evil.example"}, follow_redirects=False)
        assert "evil.example" not in response.headers.get("location", ""), path
        assert response.status_code not in {301, 302, 307, 308}, path


def test_a_boolean_is_no_count(keyed_api: Server) -> None:
    for field in ("gpu_count", "node_count", "budget_usd", "tp"):
        body = {"workload": "training", "gpu_count": 64, field: True}
        response = httpx.post(
            keyed_api.url + "/v1/recommendations", json=body, headers={"X-API-Key": API_KEY}, timeout=60
        )
        assert response.status_code == 422, field
        assert f"{field} must be a number, not true" in json.dumps(response.json()), field


def test_csv_cells_that_a_spreadsheet_would_run_are_quoted() -> None:
    from advisor.render.bom import _cell

    for text in ("=1+1", "+1", "-1", "@SUM(A1)", "\t=cmd", "\r=cmd"):
        assert _cell(text) == "'" + text
    assert _cell("QM9700") == "QM9700"


def test_markdown_in_what_people_type_is_no_live_link() -> None:
    rec = recommend(WorkloadProfile(workload="training", gpu_count=64, gpu_model="H100"), save=False)
    sly = rec.model_copy(
        update={"profile": rec.profile.model_copy(update={"gpu_model": "[Click](https://evil.example)"})}
    )
    text = markdown.recommendation_markdown(sly)
    assert "[Click](https://evil.example)" not in text
    assert "<https://evil.example|" not in slack.markdown_to_mrkdwn(text)
    assert "[Click](https://evil.example)" in slack.markdown_to_mrkdwn(text)  # shown as typed
    asked = markdown.escape_markdown("is [this](https://evil.example) *ok*?")
    assert "<https://evil.example|" not in slack.markdown_to_mrkdwn(f"**You also asked:** _{asked}_")


def test_the_first_saves_from_many_threads_at_once_find_no_lock(tmp_path: Path) -> None:
    """The API's worker threads open the store together on the first requests (make bench
    saw `database is locked` as 500s before the opening was serialised)."""
    db = tmp_path / "advisor.db"
    recs = [recommend(WorkloadProfile(workload="training", gpu_count=8 * (n + 1)), save=False) for n in range(8)]
    errors: list[Exception] = []

    def save(rec: object) -> None:
        try:
            store.save(rec, path=db)  # type: ignore[arg-type]
        except Exception as exc:  # collected: the assertion below names it
            errors.append(exc)

    threads = [threading.Thread(target=save, args=(rec,)) for rec in recs]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    assert errors == []
    assert all(store.load(store.recommendation_id(rec), path=db) is not None for rec in recs)
