"""Every environment variable the advisor reads, in one pydantic-settings object.

`settings` is read once per process; each field names its variable (`alias`) and says
what it is for, and the README's settings table is checked against these fields by
tests/test_settings.py. Adding a variable is one line here and one row there. The
values are plain environment variables because the Makefile, Rasa's endpoints.yml and
our processes all read the same ones. This module imports nothing of the project, so
any layer may read it.
"""

from __future__ import annotations

from pathlib import Path

from pydantic import Field
from pydantic_settings import BaseSettings, SettingsConfigDict

REPO = Path(__file__).resolve().parents[1]

#: minilm/embedding.py's MODEL_DIR_VARIABLE and DEFAULT_MODEL_DIR, spelled out here rather
#: than imported: that module loads numpy, which the settings (read by every command of
#: the CLI) do not need (tests/test_cli.py checks the two agree)
MODEL_DIR_VARIABLE = "FABRIC_ADVISOR_EMBEDDING_MODEL"
DEFAULT_MODEL_DIR = REPO / "var" / "models" / "all-minilm-l6-v2"

#: Read by the Slack channel inside Rasa's own environment (bot/channels/slack.py),
#: which cannot import this module; documented in the same table.
RASA_SIDE_VARIABLES = ("SLACK_BOT_TOKEN", "SLACK_SIGNING_SECRET", "SLACK_API_URL", "FABRIC_ADVISOR_REDIS_URL")


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_ignore_empty=True, populate_by_name=True, extra="ignore")

    host: str = Field("127.0.0.1", alias="FABRIC_ADVISOR_HOST", description="interface every server listens on")
    api_port: int = Field(8000, alias="FABRIC_ADVISOR_API_PORT", description="the API's port")
    rasa_port: int = Field(5005, alias="FABRIC_ADVISOR_RASA_PORT", description="Rasa's port")
    actions_port: int = Field(5055, alias="FABRIC_ADVISOR_ACTIONS_PORT", description="the action server's port")
    public_url_override: str | None = Field(
        None, alias="FABRIC_ADVISOR_PUBLIC_URL", description="base URL for diagram links in chat and Slack"
    )
    rasa_public_url: str | None = Field(
        None, alias="FABRIC_ADVISOR_RASA_PUBLIC_URL", description="where the web chat page finds Rasa's socket.io"
    )
    var_dir: Path = Field(REPO / "var", alias="FABRIC_ADVISOR_VAR", description="logs and run-time files")
    db_path: Path = Field(REPO / "var" / "advisor.db", alias="FABRIC_ADVISOR_DB", description="stored recommendations")
    kb_path: Path = Field(REPO / "var" / "knowledge.db", alias="FABRIC_ADVISOR_KB", description="knowledge database")
    embedding_model_dir: Path = Field(
        DEFAULT_MODEL_DIR,
        alias=MODEL_DIR_VARIABLE,
        description="all-MiniLM-L6-v2's model.safetensors and vocab.txt (`make embedding-model`)",
    )
    embedding_cache_dir: Path = Field(
        REPO / "var" / "cache",
        alias="FABRIC_ADVISOR_EMBEDDING_CACHE",
        description="the knowledge entries' sentence vectors, one file per version of the entries",
    )
    api_key: str | None = Field(None, alias="FABRIC_ADVISOR_API_KEY", description="require X-API-Key on the API")
    database_url: str | None = Field(
        None,
        alias="FABRIC_ADVISOR_DATABASE_URL",
        description="PostgreSQL for stored recommendations (postgresql://user:pw@host:5432/db); unset: the SQLite file",
    )
    postgres_port: int = Field(
        5432, alias="FABRIC_ADVISOR_POSTGRES_PORT", description="`make run-cluster`'s PostgreSQL port"
    )
    redis_port: int = Field(6379, alias="FABRIC_ADVISOR_REDIS_PORT", description="`make run-cluster`'s Redis port")
    replica_base_port: int = Field(
        7000,
        alias="FABRIC_ADVISOR_REPLICA_BASE_PORT",
        description="`make run-cluster`: replica n of part p listens on this + 10 x p + n",
    )
    throughput_tolerance: float = Field(
        0.05,
        ge=0,
        le=0.5,
        alias="FABRIC_ADVISOR_THROUGHPUT_TOLERANCE",
        description="share of training throughput a cost-sensitive design gives up for a cheaper fabric, and the loss "
        "at which a job is called network-sensitive: the advisor's policy, not a vendor figure; raise it to favour "
        "price, lower it to favour throughput",
    )
    quote_valid_days: int = Field(
        30,
        ge=1,
        le=365,
        alias="FABRIC_ADVISOR_QUOTE_VALID_DAYS",
        description="days a quote (report, PDF, XLSX) holds from the day it was issued",
    )

    # --- exposure to the internet (issue 23): load, retention, signed links --------------
    rate_limit_per_s: float = Field(
        10.0,
        ge=0,
        alias="FABRIC_ADVISOR_RATE_LIMIT",
        description="requests a second each API client may make on average (0: no limit); the client is the API key "
        "when one is set, else the address",
    )
    rate_burst: int = Field(
        60, ge=1, alias="FABRIC_ADVISOR_RATE_BURST", description="requests an API client may make at once"
    )
    trusted_proxies: str = Field(
        "127.0.0.1",
        alias="FABRIC_ADVISOR_TRUSTED_PROXIES",
        description="comma-separated addresses of the balancers whose X-Forwarded-For names the client",
    )
    api_threads: int = Field(
        4, ge=1, alias="FABRIC_ADVISOR_API_THREADS", description="threads each API process computes answers on"
    )
    retention_days: float = Field(
        90, gt=0, alias="FABRIC_ADVISOR_RETENTION_DAYS", description="days a stored recommendation is kept"
    )
    link_ttl_days: float = Field(
        7,
        gt=0,
        alias="FABRIC_ADVISOR_LINK_TTL_DAYS",
        description="days a signed link to a recommendation's diagram, report or files works without the API key",
    )
    rasa_token_override: str | None = Field(
        None,
        alias="FABRIC_ADVISOR_RASA_TOKEN",
        description="token Rasa's HTTP API and REST chat channel require (`?token=`); unset: var/rasa-token, "
        "which `make run` generates",
    )
    session_secret_override: str | None = Field(
        None,
        alias="FABRIC_ADVISOR_SESSION_SECRET",
        description="HMAC key, shared by the API and Rasa, that signs the web chat's session ids; unset: "
        "var/session-secret, which `make run` generates",
    )
    crash_loop_restarts: int = Field(
        5,
        alias="FABRIC_ADVISOR_CRASH_LOOP_RESTARTS",
        description="`make run`/`run-cluster`: a process that dies this often within the window stops the stack",
    )
    crash_loop_seconds: float = Field(
        300.0,
        alias="FABRIC_ADVISOR_CRASH_LOOP_SECONDS",
        description="the window of FABRIC_ADVISOR_CRASH_LOOP_RESTARTS, in seconds",
    )

    # --- the handoff to a person (issue 25; advisor/handoffs/handoff.py, docs/handoff.md) --------
    handoff_team: str = Field(
        "the sales engineering team",
        alias="FABRIC_ADVISOR_HANDOFF_TEAM",
        description="who a handoff goes to, as the chat names them",
    )
    handoff_contact: str | None = Field(
        None,
        alias="FABRIC_ADVISOR_HANDOFF_CONTACT",
        description="how to reach that team directly (an address or a page), told to the person when no "
        "destination was reached",
    )
    handoff_timeout_s: float = Field(
        5.0,
        gt=0,
        le=60,
        alias="FABRIC_ADVISOR_HANDOFF_TIMEOUT",
        description="seconds each handoff destination may take (they are tried at the same time)",
    )
    handoff_slack_token: str | None = Field(
        None,
        alias="FABRIC_ADVISOR_HANDOFF_SLACK_TOKEN",
        description="a Slack bot token (xoxb-...) with chat:write; with the channel, posts each handoff to Slack",
    )
    handoff_slack_channel: str | None = Field(
        None, alias="FABRIC_ADVISOR_HANDOFF_SLACK_CHANNEL", description="the Slack channel (id or #name) handoffs go to"
    )
    handoff_slack_api_url: str = Field(
        "https://slack.com/api",
        alias="FABRIC_ADVISOR_HANDOFF_SLACK_API_URL",
        description="base URL of Slack's Web API (chat.postMessage is called under it)",
    )
    handoff_smtp_host: str | None = Field(
        None,
        alias="FABRIC_ADVISOR_HANDOFF_SMTP_HOST",
        description="SMTP server; with the from and to addresses, mails each handoff",
    )
    handoff_smtp_port: int = Field(25, alias="FABRIC_ADVISOR_HANDOFF_SMTP_PORT", description="the SMTP server's port")
    handoff_smtp_starttls: bool = Field(
        False, alias="FABRIC_ADVISOR_HANDOFF_SMTP_STARTTLS", description="upgrade the SMTP connection with STARTTLS"
    )
    handoff_smtp_user: str | None = Field(
        None, alias="FABRIC_ADVISOR_HANDOFF_SMTP_USER", description="SMTP login (unset: no login)"
    )
    handoff_smtp_password: str | None = Field(
        None, alias="FABRIC_ADVISOR_HANDOFF_SMTP_PASSWORD", description="the SMTP login's password"
    )
    handoff_email_from: str | None = Field(
        None, alias="FABRIC_ADVISOR_HANDOFF_EMAIL_FROM", description="the sender address of handoff mails"
    )
    handoff_email_to: str | None = Field(
        None,
        alias="FABRIC_ADVISOR_HANDOFF_EMAIL_TO",
        description="comma-separated addresses handoff mails go to",
    )
    handoff_webhook_url: str | None = Field(
        None,
        alias="FABRIC_ADVISOR_HANDOFF_WEBHOOK_URL",
        description="a URL each handoff is POSTed to as JSON (a CRM, a ticketing system)",
    )

    @property
    def public_url(self) -> str:
        """Base URL people's browsers and Slack reach the API at (diagram links)."""
        return (self.public_url_override or f"http://{self.host}:{self.api_port}").rstrip("/")

    @property
    def rasa_url(self) -> str:
        return f"http://{self.host}:{self.rasa_port}"

    @property
    def rasa_token(self) -> str | None:
        """The Rasa token: FABRIC_ADVISOR_RASA_TOKEN, else the one `make run` wrote to var/."""
        return self.rasa_token_override or _read_secret(self.var_dir / RASA_TOKEN_FILE)

    @property
    def session_secret(self) -> str | None:
        """The session-id key: FABRIC_ADVISOR_SESSION_SECRET, else the one `make run` wrote to var/."""
        return self.session_secret_override or _read_secret(self.var_dir / SESSION_SECRET_FILE)

    def diagram_url(self, recommendation_id: str | None) -> str | None:
        if not recommendation_id:
            return None
        return f"{self.public_url}/v1/recommendations/{recommendation_id}/diagram.svg"


RASA_TOKEN_FILE = "rasa-token"
SESSION_SECRET_FILE = "session-secret"


def _read_secret(path: Path) -> str | None:
    """A generated secret's text, None when the file is missing or empty."""
    try:
        return path.read_text(encoding="utf-8").strip() or None
    except OSError:
        return None


def variables() -> dict[str, str]:
    """Each environment variable this module reads, with what it is for."""
    return {field.alias or name: field.description or "" for name, field in Settings.model_fields.items()}


settings = Settings()
