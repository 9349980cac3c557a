"""`make run-cluster`: the replicated deployment on one machine, on real shared parts.

    PostgreSQL   Rasa's tracker store, and the stored recommendations (password auth)
    Redis        Rasa's lock store, and Slack event de-duplication (password auth)
    rasa-1/2     Rasa replicas (bot/endpoints-cluster.yml), calling the action servers
                 through the balancer
    actions-1/2  action servers (stateless: recommendations go to PostgreSQL)
    api-1/2      API processes (stateless likewise)
    balancer     HAProxy on the usual ports: API and web chat on 8000, Rasa on 5005, and
                 the action servers on replica_base_port + 10 (5055 in deploy/)

PostgreSQL, Redis and HAProxy are Debian's packages (installed when missing, ops.parts),
with their data and configuration under var/cluster/. Every process is started, kept
in var/run/NAME.pid and stopped like `make run`'s (ops.supervisor). To spread the same
processes over machines, see deploy/ (one container image, docker-compose.yml): the
environment variables below are the only wiring between them.

The secrets (Rasa's token, the session secret, the PostgreSQL and Redis passwords) are
generated into var/ and var/cluster/ (0600) on the first run, unless the environment
gives the first two; a dead replica is started again by the supervisor while HAProxy
routes around it (ops.supervisor).
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path

from bot import launch
from core.settings import settings
from ops import parts, supervisor
from ops.chat_secrets import chat_secrets, generated
from ops.parts import Frontend
from ops.processes import REPO, PortTaken
from ops.run import api_command
from ops.supervisor import Service

REPLICAS = 2
RASA, ACTIONS, API = 0, 1, 2  # replica port = replica_base_port + 10 * part + n
# a Rasa replica that dies mid-turn leaves its conversation's lock ticket in Redis; the
# other replica waits for it to expire before taking the retried turn (Rasa's default: 60 s)
TICKET_LOCK_LIFETIME_S = 15
COMPRESS_ACTIONS = "COMPRESS_ACTION_SERVER_REQUEST"  # Rasa's own setting (rasa.core.constants)
POSTGRES_PASSWORD = "POSTGRES_PASSWORD"
REDIS_PASSWORD = "REDIS_PASSWORD"


@dataclass(frozen=True)
class Layout:
    """Where everything listens; replica n of a part is numbered from 1."""

    host: str
    api_port: int
    rasa_port: int
    postgres_port: int
    redis_port: int
    replica_base_port: int
    var_dir: Path

    def replica_port(self, part: int, n: int) -> int:
        return self.replica_base_port + 10 * part + n

    def secrets(self) -> dict[str, str]:
        """Rasa's token, the session secret and the two passwords (generated on first use)."""
        data = self.var_dir / "cluster"
        return {
            **chat_secrets(self.var_dir),
            POSTGRES_PASSWORD: generated(data / "postgres-password"),
            REDIS_PASSWORD: generated(data / "redis-password"),
        }

    @property
    def rasa_replicas(self) -> list[str]:
        return [f"http://{self.host}:{self.replica_port(RASA, n)}" for n in range(1, REPLICAS + 1)]

    @property
    def actions_port(self) -> int:
        """The balancer's port for the action servers (replica_port(ACTIONS, 0))."""
        return self.replica_port(ACTIONS, 0)

    @property
    def actions_replicas(self) -> list[str]:
        return [f"http://{self.host}:{self.replica_port(ACTIONS, n)}" for n in range(1, REPLICAS + 1)]

    @property
    def api_replicas(self) -> list[str]:
        return [f"http://{self.host}:{self.replica_port(API, n)}" for n in range(1, REPLICAS + 1)]


def layout() -> Layout:
    return Layout(
        host=settings.host,
        api_port=settings.api_port,
        rasa_port=settings.rasa_port,
        postgres_port=settings.postgres_port,
        redis_port=settings.redis_port,
        replica_base_port=settings.replica_base_port,
        var_dir=settings.var_dir.resolve(),
    )


def services(where: Layout, secrets: dict[str, str] | None = None) -> list[Service]:
    """Every process of the cluster, in the order they start: PostgreSQL and Redis, then
    the replicas all at once (Rasa copes with replicas creating its tables together, and
    waits for PostgreSQL; none needs another to start), then the balancer. secrets:
    `where.secrets()` unless given."""
    data = where.var_dir / "cluster"
    public_url = f"http://{where.host}:{where.api_port}"
    given = where.secrets() if secrets is None else secrets
    pg_password, redis_password = given[POSTGRES_PASSWORD], given[REDIS_PASSWORD]
    secrets = {name: value for name, value in given.items() if name not in (POSTGRES_PASSWORD, REDIS_PASSWORD)}
    database_url = parts.postgres_url(where.postgres_port, pg_password, where.host)
    redis_url = parts.redis_url(where.redis_port, redis_password, where.host)  # db 0: Rasa's locks
    shared_env = {"FABRIC_ADVISOR_DATABASE_URL": database_url, "FABRIC_ADVISOR_PUBLIC_URL": public_url}
    result = [
        parts.postgres(data / "postgres", where.postgres_port, pg_password),
        parts.redis(data / "redis", where.redis_port, redis_password),
    ]
    for n in range(1, REPLICAS + 1):
        port = where.replica_port(ACTIONS, n)
        result.append(
            Service(
                f"actions-{n}",
                launch.actions_command(port),
                REPO,
                port,
                f"http://{where.host}:{port}/health",
                launch.ACTIONS_START_TIMEOUT,
                env={**shared_env, "SANIC_HOST": where.host},
                host=where.host,
                group="replicas",
            )
        )
    for n in range(1, REPLICAS + 1):
        port = where.replica_port(RASA, n)
        result.append(
            Service(
                f"rasa-{n}",
                launch.rasa_command(port, host=where.host, endpoints="endpoints-cluster.yml", cors_origin=public_url),
                launch.BOT,
                port,
                f"http://{where.host}:{port}/status",
                launch.RASA_START_TIMEOUT,
                env={
                    **launch.RASA_ENV,
                    # through the balancer: a dead action server costs no turn (HAProxy
                    # sends the call to the other one)
                    "ACTION_SERVER_URL": f"http://{where.host}:{where.actions_port}/webhook",
                    # deflated, so the call fits in the balancer's buffer, which it must to
                    # be retried on the other action server (ops.parts.BUFSIZE)
                    COMPRESS_ACTIONS: "True",
                    "RASA_DB_HOST": where.host,
                    "RASA_DB_PORT": str(where.postgres_port),
                    "RASA_DB_NAME": parts.DATABASE,
                    "RASA_DB_USER": parts.POSTGRES_USER,
                    "RASA_DB_PASSWORD": pg_password,
                    "RASA_REDIS_HOST": where.host,
                    "RASA_REDIS_PORT": str(where.redis_port),
                    "RASA_REDIS_PASSWORD": redis_password,
                    "FABRIC_ADVISOR_REDIS_URL": redis_url,
                    "TICKET_LOCK_LIFETIME": str(TICKET_LOCK_LIFETIME_S),
                    **secrets,
                },
                host=where.host,
                group="replicas",
            )
        )
    for n in range(1, REPLICAS + 1):
        port = where.replica_port(API, n)
        result.append(
            Service(
                f"api-{n}",
                api_command(port, where.host),
                REPO,
                port,
                f"http://{where.host}:{port}/healthz",
                60.0,
                env={**shared_env, **secrets, "FABRIC_ADVISOR_API_PORT": str(where.api_port)},
                host=where.host,
                group="replicas",
            )
        )
    frontends = [
        Frontend("api", where.api_port, [url.split("//")[1] for url in where.api_replicas], "/healthz"),
        Frontend("actions", where.actions_port, [url.split("//")[1] for url in where.actions_replicas], "/health"),
        Frontend("rasa", where.rasa_port, [url.split("//")[1] for url in where.rasa_replicas], "/", "/socket.io"),
    ]
    result.append(parts.haproxy(data / "balancer", frontends, where.host))
    return result


# what the internet may reach of Rasa: the widget's socket.io and the channels' webhooks
# (Slack's; the REST channel needs the Rasa token), never Rasa's HTTP API
RASA_PUBLIC_PATHS = ("/socket.io", "/webhooks/")


def compose_frontends() -> list[Frontend]:
    """The balancer of deploy/docker-compose.yml: the same frontends, replicas by service
    name, Rasa's limited to its channels' paths."""
    return [
        Frontend("api", 8000, [f"api-{n}:8000" for n in range(1, REPLICAS + 1)], "/healthz"),
        Frontend("actions", 5055, [f"actions-{n}:5055" for n in range(1, REPLICAS + 1)], "/health"),
        Frontend(
            "rasa", 5005, [f"rasa-{n}:5005" for n in range(1, REPLICAS + 1)], "/", "/socket.io", RASA_PUBLIC_PATHS
        ),
    ]


def banner(where: Layout) -> str:
    lines = [
        "",
        "Fabric Advisor cluster is running:",
        f"  web chat, API   http://{where.host}:{where.api_port}/  (balancer)",
        f"  Rasa            http://{where.host}:{where.rasa_port}/  (balancer; REST chat at /webhooks/rest/webhook"
        f"?token=..., the token in {where.var_dir}/rasa-token)",
    ]
    lines += [f"  rasa-{n}          {url}" for n, url in enumerate(where.rasa_replicas, 1)]
    lines += [
        f"  actions-{n}       http://{where.host}:{where.replica_port(ACTIONS, n)}" for n in range(1, REPLICAS + 1)
    ]
    lines += [f"  api-{n}           {url}" for n, url in enumerate(where.api_replicas, 1)]
    lines += [
        f"  PostgreSQL      postgresql://{parts.POSTGRES_USER}@{where.host}:{where.postgres_port}/{parts.DATABASE}"
        f" (password in {where.var_dir}/cluster/postgres-password)",
        f"  Redis           redis://{where.host}:{where.redis_port} (password in {where.var_dir}/cluster/redis-password)",
        f"  logs            {where.var_dir}/*.log, pids in {where.var_dir}/run/",
        "Press Ctrl-C to stop.",
    ]
    return "\n".join(lines)


def main(argv: list[str]) -> int:
    if argv == ["deploy-config"]:  # deploy/haproxy.cfg, written from the same frontends
        sys.stdout.write(parts.haproxy_config(compose_frontends(), host="*"))
        return 0
    where = layout()
    processes = services(where)
    try:  # a taken port fails at once, before any install or training
        supervisor.Supervisor(processes, where.var_dir).check_ports()
    except PortTaken as exc:
        print(f"could not start: {exc}", file=sys.stderr)
        return 1
    parts.ensure_installed()
    launch.ensure_model()
    return supervisor.main(processes, where.var_dir, lambda: banner(where))


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
