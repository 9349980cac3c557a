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

    @classmethod
    def from_settings(cls) -> ApiConfig:
        return cls(api_key=settings.api_key or None)
