"""`make run`: start the action server, Rasa and the API together, wait until each
answers its health check, print where to reach them, and stop them all on Ctrl-C
(or when any one of them dies, so a half-running service never lingers).

The commands are the ones the tests and benchmarks start (bot/launch.py), with the
ports and host from advisor.settings.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from advisor.settings import settings
from bot import launch
from ops.processes import REPO, VENV_BIN, ServerFailed, stop, wait_for

VAR = settings.var_dir.resolve()


@dataclass
class Service:
    name: str
    command: list[str]
    cwd: Path
    env: dict[str, str]
    health_url: str
    timeout: float


def services() -> list[Service]:
    host = settings.host
    actions_url = f"http://{host}:{settings.actions_port}"
    return [
        Service(
            "action server",
            launch.actions_command(settings.actions_port),
            REPO,
            {"SANIC_HOST": host},
            f"{actions_url}/health",
            launch.ACTIONS_START_TIMEOUT,
        ),
        Service(
            "rasa",
            launch.rasa_command(settings.rasa_port, host=host),
            launch.BOT,
            {
                **launch.RASA_ENV,
                "ACTION_SERVER_URL": f"{actions_url}/webhook",
                "RASA_TRACKER_DB": str(VAR / "rasa-tracker.db"),
            },
            f"{settings.rasa_url}/status",
            launch.RASA_START_TIMEOUT,
        ),
        Service(
            "api",
            [
                str(VENV_BIN / "python"),
                "-m",
                "uvicorn",
                "api.app:app",
                "--host",
                host,
                "--port",
                str(settings.api_port),
            ],
            REPO,
            {},
            f"http://{host}:{settings.api_port}/healthz",
            60.0,
        ),
    ]


def start(service: Service) -> subprocess.Popen:
    VAR.mkdir(parents=True, exist_ok=True)
    log = open(VAR / f"{service.name.replace(' ', '-')}.log", "ab")
    return subprocess.Popen(
        service.command,
        cwd=service.cwd,
        env={**os.environ, **service.env},
        stdout=log,
        stderr=subprocess.STDOUT,
        stdin=subprocess.DEVNULL,
        start_new_session=True,
    )


def main() -> int:
    running: list[tuple[Service, subprocess.Popen]] = []

    def shutdown(*_: object) -> None:
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, shutdown)
    try:
        for service in services():
            print(f"starting {service.name} ...", flush=True)
            process = start(service)
            running.append((service, process))
            log = VAR / f"{service.name.replace(' ', '-')}.log"
            wait_for(service.health_url, service.timeout, process, log)
            print(f"  {service.name} is up ({service.health_url})", flush=True)
        print(
            "\nFabric Advisor is running:\n"
            f"  web chat        {settings.public_url}/\n"
            f"  API docs        {settings.public_url}/docs\n"
            f"  REST chat       {settings.rasa_url}/webhooks/rest/webhook\n"
            f"  Slack webhook   {settings.rasa_url}/webhooks/slack/webhook"
            " (needs SLACK_BOT_TOKEN and SLACK_SIGNING_SECRET)\n"
            f"  logs            {VAR}/*.log\n"
            "Press Ctrl-C to stop.",
            flush=True,
        )
        while True:
            for service, process in running:
                if process.poll() is not None:
                    print(f"{service.name} stopped (exit {process.returncode}); stopping the rest", file=sys.stderr)
                    return 1
            time.sleep(0.5)
    except ServerFailed as exc:
        print(f"could not start: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("\nstopping ...", flush=True)
        return 0
    finally:
        for _, process in reversed(running):
            stop(process)


if __name__ == "__main__":
    sys.exit(main())
