"""The optional API key: when FABRIC_ADVISOR_API_KEY is set, /v1/* needs it in X-API-Key.

/healthz, the widget page and its static files stay open: a load balancer's health
check and a browser loading the page carry no key. The scheme is always declared in
OpenAPI so the docs show where the key goes; without the env var the server does not
ask for it.
"""

from __future__ import annotations

import hmac
from typing import Annotated

from fastapi import HTTPException, Request, Security
from fastapi.security import APIKeyHeader

API_KEY_HEADER = "X-API-Key"

api_key_header = APIKeyHeader(
    name=API_KEY_HEADER,
    scheme_name="APIKeyHeader",
    description=(
        "Needed on /v1/* when the server sets FABRIC_ADVISOR_API_KEY; requests without the right key get 401."
    ),
    auto_error=False,
)


async def require_api_key(request: Request, given: Annotated[str | None, Security(api_key_header)]) -> None:
    """401 unless the configured key was given (compared in constant time)."""
    expected: str | None = request.app.state.config.api_key
    if expected is None:
        return
    if given is None or not hmac.compare_digest(given.encode(), expected.encode()):
        raise HTTPException(
            status_code=401,
            detail=f"Missing or wrong {API_KEY_HEADER} header; send the API key this server was started with.",
            headers={"WWW-Authenticate": f'APIKey header="{API_KEY_HEADER}"'},
        )
