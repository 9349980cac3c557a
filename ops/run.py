"""`make run`: the action server, Rasa and the API on one machine, started in that
order (each waits for its health check), stopped together on Ctrl-C or SIGTERM; one
that dies is started again, with back-off, unless it keeps dying (ops.supervisor).

Rasa's token and the web chat's session secret come from the environment, else from
var/ (generated there on the first run, ops.chat_secrets); Rasa and the API get both.

The commands are the ones the tests and benchmarks start (bot/launch.py), with the
ports and host from core.settings.
"""

from __future__ import annotations

import sys

from api.server import UVICORN_FLAGS
from bot import launch
from core.settings import settings
from ops import supervisor
from ops.chat_secrets import chat_secrets
from ops.processes import REPO, VENV_BIN
from ops.supervisor import Service

VAR = settings.var_dir.resolve()


def api_command(port: int, host: str) -> list[str]:
    """uvicorn with the bounded request head (api/server.py), taking X-Forwarded-For only
    from the balancers the rate limit trusts (FABRIC_ADVISOR_TRUSTED_PROXIES), never from
    any client."""
    return [
        str(VENV_BIN / "python"),
        "-m",
        "uvicorn",
        "api.app:app",
        "--host",
        host,
        "--port",
        str(port),
        *UVICORN_FLAGS,
        "--proxy-headers",
        "--forwarded-allow-ips",
        settings.trusted_proxies,
    ]


def services(secrets: dict[str, str] | None = None) -> list[Service]:
    host = settings.host
    actions_url = f"http://{host}:{settings.actions_port}"
    secrets = chat_secrets(VAR) if secrets is None else secrets
    return [
        Service(
            "actions",
            launch.actions_command(settings.actions_port),
            REPO,
            settings.actions_port,
            f"{actions_url}/health",
            launch.ACTIONS_START_TIMEOUT,
            env={"SANIC_HOST": host},
            host=host,
        ),
        Service(
            "rasa",
            launch.rasa_command(settings.rasa_port, host=host, cors_origin=settings.public_url),
            launch.BOT,
            settings.rasa_port,
            f"{settings.rasa_url}/status",
            launch.RASA_START_TIMEOUT,
            env={
                **launch.RASA_ENV,
                "ACTION_SERVER_URL": f"{actions_url}/webhook",
                "RASA_TRACKER_DB": str(VAR / "rasa-tracker.db"),
                **secrets,
            },
            host=host,
        ),
        Service(
            "api",
            api_command(settings.api_port, host),
            REPO,
            settings.api_port,
            f"http://{host}:{settings.api_port}/healthz",
            60.0,
            env=secrets,
            host=host,
        ),
    ]


def banner() -> str:
    return (
        "\nFabric Advisor is running:\n"
        f"  web chat        {settings.public_url}/\n"
        f"  API docs        {settings.public_url}/docs\n"
        f"  REST chat       {settings.rasa_url}/webhooks/rest/webhook?token=... (the token: {VAR}/rasa-token)\n"
        f"  Slack webhook   {settings.rasa_url}/webhooks/slack/webhook"
        " (needs SLACK_BOT_TOKEN and SLACK_SIGNING_SECRET)\n"
        f"  logs            {VAR}/*.log, pids in {VAR}/run/\n"
        "Press Ctrl-C to stop."
    )


if __name__ == "__main__":
    sys.exit(supervisor.main(services(), VAR, banner))
