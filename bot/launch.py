"""Start the chat stack for tests and benchmarks: train the Rasa model when the bot's
data changed, then run the action server (our env) and Rasa (its own env) on free
127.0.0.1 ports, each stopped when its block ends (ops/processes.py does the process
work).

    with launch.chat_stack(tmp_path) as stack:
        httpx.post(stack.webhook, json={"sender": "me", "message": "hi"}, params=stack.auth)

Rasa is locked down the same way everywhere (docs/security.md): its HTTP API and the
REST channel need the Rasa token (`?token=`), CORS admits only the widget's origin, and
the socket.io channel takes only session ids the API signed. A test stack gets fresh
random secrets (`stack.secrets`).

The same commands, with fixed ports, are what `make run` starts (see bot/README.md).
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

from ops.chat_secrets import RASA_TOKEN_VARIABLE, for_tests
from ops.processes import RASA_BIN, REPO, VENV_BIN, Server, free_port, running

BOT = REPO / "bot"
MODEL = BOT / "models" / "fabric-advisor.tar.gz"
RASA_START_TIMEOUT = 120.0  # Rasa imports TensorFlow and loads the model: ~15-30 s here
ACTIONS_START_TIMEOUT = 60.0

# quiet, offline Rasa: no telemetry calls, no SQLAlchemy 2.0 banner; the repository on
# the path for the intent featurizer (bot/components imports minilm.embedding); one BLAS
# thread, since the featurizer's small matrix products only contend for the two cores
# (p95 of an embedding 0.2-0.5 s with two threads on a busy machine, docs/embeddings.md)
RASA_ENV = {
    "RASA_TELEMETRY_ENABLED": "false",
    "SQLALCHEMY_SILENCE_UBER_WARNING": "1",
    "PYTHONPATH": str(REPO),
    "OPENBLAS_NUM_THREADS": "1",
}


def training_inputs() -> list[Path]:
    """The files the model is trained from (the Makefile's BOT_DATA)."""
    return [
        *sorted((BOT / "data").glob("*.yml")),
        BOT / "domain.yml",
        BOT / "config.yml",
        *sorted((BOT / "components").glob("*.py")),
    ]


def model_is_stale() -> bool:
    if not MODEL.exists():
        return True
    built = MODEL.stat().st_mtime
    return any(path.stat().st_mtime > built for path in training_inputs())


def train_command() -> list[str]:
    """`make model`'s command, run in bot/."""
    return [str(RASA_BIN / "rasa"), "train", "--quiet", "--fixed-model-name", "fabric-advisor", "--out", "models"]


def cross_validate_command(seed: int, out: Path) -> list[str]:
    """`make nlu-report`'s command for one seeded draw of folds (bot/cross_validate.py), run in bot/."""
    return [str(RASA_BIN / "python"), "cross_validate.py", str(seed), "--folds", "3", "--out", str(out), "--quiet"]


def run_in_bot(command: list[str]) -> int:
    """Run a Rasa command as every Rasa process here runs: in bot/ with RASA_ENV."""
    return subprocess.run(command, cwd=BOT, env={**os.environ, **RASA_ENV}).returncode


#: Where `make model` keeps everything `rasa train` printed (the deprecation warnings of
#: TensorFlow, Keras, pkg_resources and matplotlib among it: 10 in a run here), off the
#: terminal.
TRAIN_LOG = REPO / "var" / "logs" / "rasa-train.log"
_WARNING = re.compile(r"\b[A-Z]\w*Warning\b")
WARNING_LINES = 4  # a warning's message lines and source line looked for under its first
SHOWN_ON_FAILURE = 30  # lines of Rasa's own output (warnings left out) shown when training fails


def _elapsed(seconds: float) -> str:
    minutes, rest = divmod(round(seconds), 60)
    return f"{minutes} min {rest:02d} s" if minutes else f"{rest} s"


def output_without_warnings(text: str) -> tuple[list[str], int]:
    """The lines of Rasa's output that are not Python warnings, and how many warnings
    there were. A warning is its "file:line: SomeWarning: message" line, the message's
    further lines if it has some, and the indented source line Python prints under it."""
    lines = text.splitlines()
    kept: list[str] = []
    warnings = 0
    at = 0
    while at < len(lines):
        line = lines[at]
        at += 1
        if not (_WARNING.search(line) and ": " in line):
            kept.append(line)
            continue
        warnings += 1
        ahead = lines[at : at + WARNING_LINES]
        source = next((n for n, later in enumerate(ahead) if later.startswith((" ", "\t"))), None)
        if source is not None:
            at += source + 1
    return kept, warnings


def train(command: list[str] | None = None, log: Path = TRAIN_LOG) -> int:
    """`make model`: `rasa train` in bot/ under a spinner with the elapsed time (on
    stderr, when it is a terminal; a log or CI gets a line before and one after), its
    output kept in `log`, whose path is printed. On failure the last lines of that output,
    warnings left out, are shown too."""
    from rich.console import Console
    from rich.progress import Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

    log.parent.mkdir(parents=True, exist_ok=True)
    shown = _relative(log)
    print(f"rasa: training the chat model (a few minutes; Rasa's output goes to {shown})", flush=True)
    started = time.monotonic()
    with log.open("w", encoding="utf-8") as sink:
        process = subprocess.Popen(
            command or train_command(), cwd=BOT, env={**os.environ, **RASA_ENV}, stdout=sink, stderr=subprocess.STDOUT
        )
        if sys.stderr.isatty():
            with Progress(
                SpinnerColumn(),
                TextColumn("rasa train"),
                TimeElapsedColumn(),
                console=Console(stderr=True),
                transient=True,
            ) as spinner:
                spinner.add_task("train", total=None)
                code = process.wait()
        else:  # a log or CI: the lines before and after only
            code = process.wait()
    lines, warnings = output_without_warnings(log.read_text(encoding="utf-8", errors="replace"))
    took = _elapsed(time.monotonic() - started)
    if code != 0:
        print("\n".join(lines[-SHOWN_ON_FAILURE:]), file=sys.stderr)
        print(f"rasa: training failed (exit code {code}) after {took}; its whole output is in {shown}", file=sys.stderr)
        return code
    print(f"rasa: chat model trained in {took}; {warnings} warning(s) from Rasa's dependencies kept in {shown}")
    return 0


def _relative(path: Path) -> str:
    return str(path.relative_to(REPO)) if path.is_relative_to(REPO) else str(path)


def main(argv: list[str]) -> int:
    """`python -m bot.launch train` (make model) or `cross-validate SEED OUT` (make nlu-report)."""
    if argv[:1] == ["train"] and len(argv) == 1:
        return train()
    if argv[:1] == ["cross-validate"] and len(argv) == 3 and argv[1].isdigit():
        return run_in_bot(cross_validate_command(int(argv[1]), Path(argv[2]).resolve()))
    print("usage: python -m bot.launch train | cross-validate SEED OUT", file=sys.stderr)
    return 2


def ensure_model(timeout: float = 600.0) -> Path:
    """The trained model, trained first when it is missing or older than the bot's data."""
    if model_is_stale():
        result = subprocess.run(
            train_command(),
            cwd=BOT,
            env={**os.environ, **RASA_ENV},
            capture_output=True,
            text=True,
            timeout=timeout,
        )
        if result.returncode != 0 or not MODEL.exists():
            raise RuntimeError(
                f"rasa train failed ({result.returncode}):\n{result.stdout[-3000:]}\n{result.stderr[-3000:]}"
            )
    return MODEL


def actions_command(port: int) -> list[str]:
    """The action server in one process (bot/action_server.py says why not `python -m rasa_sdk`)."""
    return [str(VENV_BIN / "python"), "-m", "bot.action_server", "--port", str(port)]


def origin(url: str) -> str:
    """The origin (scheme://host[:port]) of a URL, what a browser sends as Origin."""
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}"


def rasa_command(
    port: int,
    model: Path = MODEL,
    host: str = "127.0.0.1",
    endpoints: str = "endpoints.yml",
    cors_origin: str = "http://127.0.0.1:8000",
) -> list[str]:
    """`rasa run` in bot/, through bot/rasa_run.py, which adds `--auth-token` from
    FABRIC_ADVISOR_RASA_TOKEN (never on the command line) and refuses to start without
    it. `--cors` admits the widget's origin only (the API's public URL): the page,
    served by the API on another port, may fall back to socket.io long-polling."""
    return [
        str(RASA_BIN / "python"),
        "rasa_run.py",
        "run",
        "--enable-api",
        "-i",
        host,
        "-p",
        str(port),
        "--cors",
        origin(cors_origin),
        "--model",
        str(model),
        "--endpoints",
        endpoints,
        "--credentials",
        "credentials.yml",
    ]


@contextmanager
def action_server(port: int | None = None, env: dict[str, str] | None = None) -> Iterator[Server]:
    """The rasa-sdk action server (our env), serving bot.actions."""
    port = port or free_port()
    with running(
        actions_command(port),
        port=port,
        health_path="/health",
        cwd=REPO,
        env={"SANIC_HOST": "127.0.0.1", **(env or {})},
        timeout=ACTIONS_START_TIMEOUT,
    ) as server:
        yield server


@contextmanager
def rasa_server(
    actions_url: str, tracker_db: Path, port: int | None = None, env: dict[str, str] | None = None
) -> Iterator[Server]:
    """Rasa (its own env) with the REST and socket.io channels and a SQLite tracker store;
    env must carry the Rasa token and session secret (ops.chat_secrets)."""
    port = port or free_port()
    cors = (env or {}).get("FABRIC_ADVISOR_PUBLIC_URL") or "http://127.0.0.1:8000"
    variables = {
        **RASA_ENV,
        "ACTION_SERVER_URL": f"{actions_url}/webhook",
        "RASA_TRACKER_DB": str(Path(tracker_db).resolve()),
        **(env or {}),
    }
    with running(
        rasa_command(port, cors_origin=cors),
        port=port,
        health_path="/status",
        cwd=BOT,
        env=variables,
        timeout=RASA_START_TIMEOUT,
    ) as server:
        yield server


@dataclass
class ChatStack:
    rasa: Server
    actions: Server
    tracker_db: Path
    secrets: dict[str, str]
    _restart: Callable[[], Server] | None = None

    @property
    def token(self) -> str:
        return self.secrets[RASA_TOKEN_VARIABLE]

    @property
    def auth(self) -> dict[str, str]:
        """Query parameters every call to Rasa's HTTP API and REST channel needs."""
        return {"token": self.token}

    @property
    def webhook(self) -> str:
        """The REST channel: POST {"sender": id, "message": text} -> [{"recipient_id", "text"...}]
        (send `params=stack.auth`)."""
        return f"{self.rasa.url}/webhooks/rest/webhook"

    def tracker_url(self, sender: str, channel: str = "rest") -> str:
        """The tracker of a channel's sender (the conversation id is `channel:sender`);
        send `params=stack.auth`."""
        return f"{self.rasa.url}/conversations/{channel}:{sender}/tracker"

    def restart_rasa(self) -> Server:
        """Stop Rasa and start it again on the same port and tracker store."""
        assert self._restart is not None
        self.rasa = self._restart()
        return self.rasa


@contextmanager
def chat_stack(workdir: Path, env: dict[str, str] | None = None) -> Iterator[ChatStack]:
    """Model (trained if stale), action server and Rasa, with their state under workdir.

    The advisor's store of recommendations and Rasa's tracker store are files in workdir,
    so a test run leaves nothing behind in var/.
    """
    workdir = Path(workdir)
    workdir.mkdir(parents=True, exist_ok=True)
    ensure_model()
    tracker_db = workdir / "rasa-tracker.db"
    secrets = for_tests()
    actions_env = {"FABRIC_ADVISOR_DB": str(workdir / "advisor.db"), **(env or {})}
    rasa_env = {**secrets, **(env or {})}
    with ExitStack() as stack:
        actions = stack.enter_context(action_server(env=actions_env))
        port = free_port()
        current: list[ExitStack] = []

        def stop_rasa() -> None:
            if current:
                current.pop().close()

        def start_rasa() -> Server:
            stop_rasa()
            rasa_stack = ExitStack()
            current.append(rasa_stack)
            return rasa_stack.enter_context(rasa_server(actions.url, tracker_db, port=port, env=rasa_env))

        stack.callback(stop_rasa)
        yield ChatStack(rasa=start_rasa(), actions=actions, tracker_db=tracker_db, secrets=secrets, _restart=start_rasa)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
