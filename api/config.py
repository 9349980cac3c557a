"""What the API takes from the process settings, fixed when the app is built.

The values come from `core.settings` (the one settings object);
`create_app(ApiConfig(...))` lets a test or an embedding build an app with
other values without touching the environment.
"""

from __future__ import annotations

from dataclasses import dataclass

from core.settings import settings

MAX_BODY_BYTES = 64 * 1024


@dataclass(frozen=True)
class ApiConfig:
    """The API's settings, kept in `app.state.config` (the key check reads it there)."""

    api_key: str | None = None  # FABRIC_ADVISOR_API_KEY; None leaves /v1/* open
    max_body_bytes: int = MAX_BODY_BYTES
    rate_per_s: float = 0.0  # FABRIC_ADVISOR_RATE_LIMIT; 0: no limit
    rate_burst: int = 60  # FABRIC_ADVISOR_RATE_BURST
    trusted_proxies: frozenset[str] = frozenset({"127.0.0.1"})  # FABRIC_ADVISOR_TRUSTED_PROXIES
    threads: int = 4  # FABRIC_ADVISOR_API_THREADS

    @classmethod
    def from_settings(cls) -> ApiConfig:
        return cls(
            api_key=settings.api_key or None,
            rate_per_s=settings.rate_limit_per_s,
            rate_burst=settings.rate_burst,
            trusted_proxies=frozenset(a.strip() for a in settings.trusted_proxies.split(",") if a.strip()),
            threads=settings.api_threads,
        )
