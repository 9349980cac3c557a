"""Real servers for end-to-end tests, on free 127.0.0.1 ports (ops.processes)."""

from ops.processes import (  # noqa: F401
    RASA_BIN,
    REPO,
    VENV_BIN,
    Server,
    ServerFailed,
    free_port,
    running,
    stop,
    wait_for,
)
