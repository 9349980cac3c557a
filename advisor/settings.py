"""Settings from environment variables, read once per process.

Plain environment variables (no settings framework) because the same values are read
by the Makefile, the Procfile, Rasa's endpoints.yml and our processes alike.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def _env(name: str, default: str) -> str:
    value = os.environ.get(name, "").strip()
    return value or default


@dataclass(frozen=True)
class Settings:
    host: str = field(default_factory=lambda: _env("FABRIC_ADVISOR_HOST", "127.0.0.1"))
    api_port: int = field(default_factory=lambda: int(_env("FABRIC_ADVISOR_API_PORT", "8000")))
    rasa_port: int = field(default_factory=lambda: int(_env("FABRIC_ADVISOR_RASA_PORT", "5005")))
    actions_port: int = field(default_factory=lambda: int(_env("FABRIC_ADVISOR_ACTIONS_PORT", "5055")))
    var_dir: Path = field(default_factory=lambda: Path(_env("FABRIC_ADVISOR_VAR", str(REPO / "var"))))
    db_path: Path = field(default_factory=lambda: Path(_env("FABRIC_ADVISOR_DB", str(REPO / "var" / "advisor.db"))))
    # PostgreSQL for stored recommendations (postgresql://user:pw@host:5432/db); unset: the SQLite file db_path
    database_url: str | None = field(default_factory=lambda: os.environ.get("FABRIC_ADVISOR_DATABASE_URL") or None)
    # `make run-cluster`: its PostgreSQL and Redis ports, and the first port of the replicas
    # (Rasa, action server and API replica n listen on replica_base_port + 10 * part + n)
    postgres_port: int = field(default_factory=lambda: int(_env("FABRIC_ADVISOR_POSTGRES_PORT", "5432")))
    redis_port: int = field(default_factory=lambda: int(_env("FABRIC_ADVISOR_REDIS_PORT", "6379")))
    replica_base_port: int = field(default_factory=lambda: int(_env("FABRIC_ADVISOR_REPLICA_BASE_PORT", "7000")))
    api_key: str | None = field(default_factory=lambda: os.environ.get("FABRIC_ADVISOR_API_KEY") or None)
    public_url_override: str | None = field(default_factory=lambda: os.environ.get("FABRIC_ADVISOR_PUBLIC_URL") or None)

    @property
    def public_url(self) -> str:
        """Base URL people's browsers and Slack reach the API at (diagram links)."""
        return (self.public_url_override or f"http://{self.host}:{self.api_port}").rstrip("/")

    @property
    def rasa_url(self) -> str:
        return f"http://{self.host}:{self.rasa_port}"

    def diagram_url(self, recommendation_id: str | None) -> str | None:
        if not recommendation_id:
            return None
        return f"{self.public_url}/v1/recommendations/{recommendation_id}/diagram.svg"


settings = Settings()
