"""The replicated deployment under faults, on real parts: `make run-cluster`'s processes
(ops/cluster.py: PostgreSQL, Redis, two action servers, two Rasa replicas, two API
processes, HAProxy) on free loopback ports under a temporary directory, shared by the
module's tests and stopped after them, also on failure.

Turns that alternate between the Rasa replicas keep every slot; a recommendation
stored through one API process is served by the other; a Slack retry delivered to the
other replica is not answered twice; PostgreSQL or Redis down gives a clear error and
comes back without a restart of ours; an action server killed with calls in flight
costs no turn and no slot (the balancer retries each call on the other); a Rasa replica
killed under load is started again by the supervisor within 60 s while the balancer
sends its turns to the other, losing at most 1 % of the turns and no slot. The cluster's Rasa token (generated into its
var/ like `make run-cluster`'s) goes with every call to Rasa.
"""

from __future__ import annotations

import os
import shutil
import signal
import tempfile
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import suppress
from pathlib import Path

import httpx
import pytest

from bench import chat
from bench.cluster import free_layout
from bot import launch
from ops import cluster, parts
from ops.chat_secrets import RASA_TOKEN_VARIABLE, chat_secrets
from ops.supervisor import Supervisor
from tests.test_slack_events import SIGNING_SECRET, TOKEN, SlackStub, event_body, new_ids, signed_headers

pytestmark = [pytest.mark.rasa, pytest.mark.cluster]

RECOVERY_S = 30.0


class Cluster:
    def __init__(self, supervisor: Supervisor, layout: cluster.Layout) -> None:
        self.supervisor = supervisor
        self.layout = layout
        self.rasa = f"http://127.0.0.1:{layout.rasa_port}"
        self.api = f"http://127.0.0.1:{layout.api_port}"
        self.token = chat_secrets(layout.var_dir)[RASA_TOKEN_VARIABLE]

    def turn(self, url: str, sender: str, text: str) -> httpx.Response:
        return httpx.post(
            f"{url}/webhooks/rest/webhook",
            json={"sender": sender, "message": text},
            params={"token": self.token},
            timeout=60,
        )

    def chat_works(self, url: str) -> Callable[[], bool]:
        def check() -> bool:
            try:
                response = self.turn(url, f"probe-{uuid.uuid4().hex[:8]}", "what is PFC?")
                return response.status_code == 200 and any("PFC" in m.get("text", "") for m in response.json())
            except httpx.HTTPError:
                return False

        return check


@pytest.fixture(scope="module")
def slack() -> Iterator[SlackStub]:
    with SlackStub() as stub:
        yield stub


@pytest.fixture(scope="module")
def running(slack: SlackStub) -> Iterator[Cluster]:
    parts.ensure_installed()
    launch.ensure_model()
    # not under pytest's temporary directory: pytest keeps it private to root (0700),
    # and PostgreSQL runs as the postgres account
    var = Path(tempfile.mkdtemp(prefix="fabric-advisor-cluster-"))
    layout = free_layout(var)
    services = cluster.services(layout)
    slack_env = {"SLACK_BOT_TOKEN": TOKEN, "SLACK_SIGNING_SECRET": SIGNING_SECRET, "SLACK_API_URL": slack.api_url}
    for service in services:
        if service.name.startswith("rasa-"):
            service.env.update(slack_env)
    supervisor = Supervisor(services, var)
    try:
        with supervisor.running():
            yield Cluster(supervisor, layout)
    finally:
        shutil.rmtree(var, ignore_errors=True)


def until(check: Callable[[], bool], timeout: float = RECOVERY_S) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if check():
            return True
        time.sleep(0.5)
    return False


def test_turns_alternating_between_the_rasa_replicas_keep_every_slot(running: Cluster):
    with httpx.Client(timeout=60, params={"token": running.token}) as client:
        for first in (0, 1):
            times, error = chat.converse(client, running.layout.rasa_replicas, f"alt-{uuid.uuid4().hex[:8]}", first)
            assert error is None, error
            assert len(times) == len(chat.SCRIPT)


def test_a_recommendation_stored_through_one_api_process_is_served_by_the_other(running: Cluster):
    one, other = running.layout.api_replicas
    profile = {"workload": "inference", "gpu_count": 48, "gpu_model": "L40S", "gpus_per_node": 4}
    stored = httpx.post(f"{one}/v1/recommendations", json=profile, timeout=30)
    assert stored.status_code == 201, stored.text
    fetched = httpx.get(f"{other}/v1/recommendations/{stored.json()['id']}", timeout=30)
    assert fetched.status_code == 200 and fetched.json() == stored.json()


def test_a_slack_retry_delivered_to_the_other_replica_is_not_answered_twice(running: Cluster, slack: SlackStub):
    channel, user = new_ids()
    body = event_body("what is PFC?", channel, user)
    first, second = running.layout.rasa_replicas
    answered = httpx.post(f"{first}/webhooks/slack/webhook", content=body, headers=signed_headers(body), timeout=30)
    assert answered.status_code == 200
    retry = {**signed_headers(body), "X-Slack-Retry-Num": "1", "X-Slack-Retry-Reason": "http_timeout"}
    again = httpx.post(f"{second}/webhooks/slack/webhook", content=body, headers=retry, timeout=30)
    assert again.status_code == 200 and again.headers.get("X-Slack-No-Retry") == "1"
    posts = slack.wait_for_posts(channel, 1)
    time.sleep(3)
    assert len(slack.posts_to(channel)) == len(posts) == 1


def test_postgres_down_gives_a_clear_error_and_recovers_without_a_restart(running: Cluster):
    profile = {"workload": "training", "gpu_count": 72, "gpu_model": "H200"}  # not stored before
    running.supervisor.stop("postgres")
    try:
        refused = httpx.post(f"{running.api}/v1/recommendations", json=profile, timeout=30)
        assert refused.status_code == 503
        assert "PostgreSQL" in refused.json()["detail"] and "unreachable" in refused.json()["detail"]
        down = running.turn(running.rasa, f"pg-{uuid.uuid4().hex[:8]}", "what is PFC?")
        assert down.status_code >= 500
    finally:
        running.supervisor.start("postgres")
    assert until(lambda: httpx.post(f"{running.api}/v1/recommendations", json=profile, timeout=30).status_code == 201)
    assert until(running.chat_works(running.rasa))


def test_redis_down_gives_a_clear_error_and_recovers_without_a_restart(running: Cluster, slack: SlackStub):
    running.supervisor.stop("redis")
    channel, user = new_ids()
    body = event_body("what is PFC?", channel, user)
    try:
        refused = httpx.post(
            f"{running.rasa}/webhooks/slack/webhook", content=body, headers=signed_headers(body), timeout=30
        )
        assert refused.status_code == 503 and "Redis" in refused.text
        down = running.turn(running.rasa, f"redis-{uuid.uuid4().hex[:8]}", "what is PFC?")
        assert down.status_code >= 500
    finally:
        running.supervisor.start("redis")
    assert until(running.chat_works(running.rasa))
    retried = httpx.post(
        f"{running.rasa}/webhooks/slack/webhook", content=body, headers=signed_headers(body), timeout=30
    )
    assert retried.status_code == 200
    assert len(slack.wait_for_posts(channel, 1)) == 1


@pytest.mark.slow
def test_sixteen_conversations_through_the_balancer_lose_no_slot(running: Cluster):
    load = chat.drive(running.rasa, 16, 15.0, running.token)
    assert not load.errors, load.errors[:3]
    assert load.conversations >= 16


def waiting_calls(port: int) -> int:
    """Connections to a local port with a request its process has not read (/proc/net/tcp:
    established sockets whose receive queue holds more than a health check's ~100 bytes)."""
    waiting = 0
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        with suppress(FileNotFoundError), open(table) as rows:
            for row in list(rows)[1:]:
                fields = row.split()
                if int(fields[1].rsplit(":", 1)[1], 16) == port and fields[3] == "01":
                    waiting += int(fields[4].split(":")[1], 16) > 1024
    return waiting


def test_an_action_server_killed_with_calls_in_flight_costs_no_turn_and_no_slot(running: Cluster):
    """actions-1 is frozen (SIGSTOP) under four conversations until a call of Rasa's
    waits unread on it, then killed (SIGKILL): the balancer has sent those calls and gets
    no answer, and retries each on actions-2. It can only when the whole call is in its
    buffer: Rasa's calls carry the conversation's tracker (33 KB after four turns), past
    HAProxy's default 16 KB, so each such call died with the server, its turn answered
    without the action and its slot unset. Deflated calls (COMPRESS_ACTION_SERVER_REQUEST)
    and a 32 KB buffer (ops.parts.BUFSIZE) fix it."""
    supervisor = running.supervisor
    port = running.layout.replica_port(cluster.ACTIONS, 1)
    health = f"http://127.0.0.1:{port}/health"

    def healthy() -> bool:
        try:
            return httpx.get(health, timeout=5).status_code == 200
        except httpx.HTTPError:
            return False

    assert until(healthy, timeout=60)
    results: list[chat.Load] = []
    with supervisor.watching() as failures:
        load = threading.Thread(target=lambda: results.append(chat.drive(running.rasa, 4, 20.0, running.token)))
        load.start()
        time.sleep(4)
        frozen = supervisor.processes["actions-1"].pid
        os.kill(frozen, signal.SIGSTOP)
        # three calls, so that some carry a longer conversation (past 16 KB undeflated)
        until(lambda: waiting_calls(port) >= 3, timeout=15)
        in_flight = waiting_calls(port)
        os.kill(frozen, signal.SIGKILL)
        load.join(timeout=120)

        def back() -> bool:
            process = supervisor.processes.get("actions-1")
            return process is not None and process.pid != frozen and healthy()

        restarted = until(back, timeout=90)  # the next test finds a whole cluster
    assert not failures, failures
    assert in_flight, "no call reached the frozen action server"
    [result] = results
    print(f"{in_flight} calls in flight on the killed action server; {result.summary()}")
    assert len(result.turn_ms) >= 20, result.summary()
    assert not result.errors, (result.summary(), result.errors[:3])
    assert restarted, supervisor.log_path("actions-1").read_text(errors="replace")[-2000:]


def test_a_rasa_replica_killed_under_load_is_back_within_60s_losing_under_1_percent_of_turns(running: Cluster):
    """Last: kills rasa-1 with SIGKILL (a crash) while four conversations run through the
    balancer; the supervisor's restart loop (what `make run-cluster` runs) brings it back."""
    supervisor = running.supervisor
    replica = running.layout.rasa_replicas[0]
    results: list[chat.Load] = []
    with supervisor.watching() as failures:
        load = threading.Thread(target=lambda: results.append(chat.drive(running.rasa, 4, 40.0, running.token)))
        load.start()
        time.sleep(5)
        killed = supervisor.processes["rasa-1"].pid
        os.kill(killed, signal.SIGKILL)
        killed_at = time.monotonic()

        def back() -> bool:
            """Back as the balancer sees it: a new process whose health check answers."""
            process = supervisor.processes.get("rasa-1")
            if process is None or process.pid == killed:
                return False
            try:
                return httpx.get(f"{replica}/", timeout=5).status_code == 200
            except httpx.HTTPError:
                return False

        until(back, timeout=180)  # past the target too, so a failure says how late it was
        back_after = time.monotonic() - killed_at
        load.join(timeout=180)
    log = supervisor.log_path("rasa-1").read_text(errors="replace")[-3000:]
    assert not failures, failures
    assert supervisor.restarts.get("rasa-1") == 1, (supervisor.restarts, log)
    [result] = results
    turns = len(result.turn_ms)
    assert turns >= 20, result.summary()
    assert not [error for error in result.errors if "slots lost" in error], result.errors
    assert len(result.errors) <= 0.01 * turns, (result.summary(), result.errors[:3])
    assert back_after <= 60, f"rasa-1 back only {back_after:.0f} s after the kill ({result.summary()}):\n{log}"
    # the restarted replica takes a turn itself, straight, not through the balancer (it
    # once died with the watch thread that restarted it: ops/processes.py's spawner)
    assert until(running.chat_works(replica), timeout=60), log
