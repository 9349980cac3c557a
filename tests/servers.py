"""Real servers for end-to-end tests, on free 127.0.0.1 ports (ops.processes), and what
the API server of the tests runs with (the `api` fixtures are in conftest.py)."""

from __future__ import annotations

import subprocess
from pathlib import Path

from api.server import UVICORN_FLAGS
from ops.processes import (
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

__all__ = [
    "API_KEY",
    "RASA_BIN",
    "REPO",
    "VENV_BIN",
    "Server",
    "ServerFailed",
    "api_env",
    "free_port",
    "running",
    "stop",
    "uvicorn_command",
    "wait_for",
]

API_KEY = "test-key-0123456789"


def api_env(data_dir: Path) -> dict[str, str]:
    """Environment of a test server: its own store and knowledge base, no API key."""
    data_dir.mkdir(parents=True, exist_ok=True)
    env = {
        "FABRIC_ADVISOR_DB": str(data_dir / "advisor.db"),
        "FABRIC_ADVISOR_KB": str(data_dir / "knowledge.db"),
        "FABRIC_ADVISOR_API_KEY": "",
        # the shared servers answer every test module, faster than any one client may ask;
        # tests/test_api_exposure.py starts its own with the limit on
        "FABRIC_ADVISOR_RATE_LIMIT": "0",
    }
    _build_knowledge(Path(env["FABRIC_ADVISOR_KB"]))
    return env


def _build_knowledge(db: Path) -> None:
    """Build the knowledge database the server reads (the same step `make kb` runs)."""
    if db.exists() or not (REPO / "knowledge" / "__main__.py").exists():
        return
    subprocess.run(
        [str(VENV_BIN / "python"), "-m", "knowledge", "build", "--db", str(db)],
        cwd=REPO,
        check=True,
        capture_output=True,
        timeout=120,
    )


def uvicorn_command(port: int) -> list[str]:
    return [
        str(VENV_BIN / "python"),
        "-m",
        "uvicorn",
        "api.app:app",
        "--host",
        "127.0.0.1",
        "--port",
        str(port),
        *UVICORN_FLAGS,
    ]
