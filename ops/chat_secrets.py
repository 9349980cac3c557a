"""The two secrets the chat stack shares between its processes, generated on first use.

- The Rasa token (`FABRIC_ADVISOR_RASA_TOKEN`): Rasa's HTTP API (`--auth-token`, so
  `?token=`) and the REST chat channel (bot/channels/rest.py) require it. Without it
  anyone who reaches Rasa's port could read, plant into or wipe any conversation.
- The session secret (`FABRIC_ADVISOR_SESSION_SECRET`): the HMAC key with which the
  API signs the web chat's session ids (api/routers/chat_session.py) and Rasa's
  socket.io channel checks them (bot/channels/socketio.py).

When the environment sets one, that value is used; otherwise `make run` and `make
run-cluster` write a random one to var/ (mode 0600) once and reuse it, so tools, the
evaluation runner and a restarted stack all find the same value there (core.settings
reads it back).
"""

from __future__ import annotations

import os
import secrets
from pathlib import Path

from core.settings import RASA_TOKEN_FILE, SESSION_SECRET_FILE, settings

RASA_TOKEN_VARIABLE = "FABRIC_ADVISOR_RASA_TOKEN"
SESSION_SECRET_VARIABLE = "FABRIC_ADVISOR_SESSION_SECRET"


def generated(path: Path) -> str:
    """The secret kept in path, written first (random, 0600) when there is none."""
    try:
        existing = path.read_text(encoding="utf-8").strip()
    except OSError:
        existing = ""
    if existing:
        return existing
    path.parent.mkdir(parents=True, exist_ok=True)
    value = new_secret()
    descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(descriptor, "w", encoding="utf-8") as out:
        out.write(value + "\n")
    os.chmod(path, 0o600)
    return value


def chat_secrets(var_dir: Path | None = None) -> dict[str, str]:
    """Both secrets as environment variables for every process of the stack: the
    configured values, else the ones kept (or now generated) in var_dir."""
    var_dir = var_dir or settings.var_dir.resolve()
    return {
        RASA_TOKEN_VARIABLE: settings.rasa_token_override or generated(var_dir / RASA_TOKEN_FILE),
        SESSION_SECRET_VARIABLE: settings.session_secret_override or generated(var_dir / SESSION_SECRET_FILE),
    }


def for_tests() -> dict[str, str]:
    """Fresh random secrets, for a stack started by a test or a benchmark."""
    return {RASA_TOKEN_VARIABLE: new_secret(), SESSION_SECRET_VARIABLE: new_secret()}


def new_secret() -> str:
    """256 random bits as hex: a url-safe token can begin with '-', which a command
    line (`rasa run --auth-token -x...`) reads as an option; hex never does."""
    return secrets.token_hex(32)
