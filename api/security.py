"""The optional API key: when FABRIC_ADVISOR_API_KEY is set, /v1/* needs it in X-API-Key,
or, for a GET of a recommendation's artifacts, a valid signature (core.links).

What stays open without a key, and why:
- `/healthz`: a load balancer's health check carries no key;
- `/`, `/widget-config.js` and `/static/*`: the web chat page and its files, loaded by a
  browser that has no key; they hold no customer data (the page talks to Rasa);
- `/docs`, `/redoc` and `/openapi.json`: the published contract, the same for everyone;
  it names no data, and a client needs it to learn where the key goes.
Everything under /v1/ (recommendations, questions, the knowledge base) needs the key or,
for GET /v1/recommendations/{id}/..., a signed link that has not expired.

The scheme is always declared in OpenAPI so the docs show where the key goes; without
the env var the server does not ask for it.
"""

from __future__ import annotations

import hmac
from typing import Annotated

from fastapi import HTTPException, Request, Security
from fastapi.security import APIKeyHeader

from core import links

API_KEY_HEADER = "X-API-Key"

api_key_header = APIKeyHeader(
    name=API_KEY_HEADER,
    scheme_name="APIKeyHeader",
    description=(
        "Needed on /v1/* when the server sets FABRIC_ADVISOR_API_KEY; requests without the right key get 401. "
        "A recommendation's diagram, report and files also open with a signed link (`expires` and `sig`)."
    ),
    auto_error=False,
)


def check_key_is_sendable(key: str | None) -> None:
    """Refuse, at start-up, a key no client can send: HTTP header values are latin-1, so a
    key with other characters would lock every client out without a word."""
    if key is None:
        return
    try:
        key.encode("latin-1")
    except UnicodeEncodeError:
        raise ValueError(
            "FABRIC_ADVISOR_API_KEY has characters outside latin-1, which no HTTP client can send in the "
            "X-API-Key header; choose a key of ASCII letters, digits and punctuation"
        ) from None
    if not key.strip() or key != key.strip() or any(ord(c) < 32 or ord(c) == 127 for c in key):
        raise ValueError(
            "FABRIC_ADVISOR_API_KEY starts or ends with a space or holds a control character, which HTTP clients "
            "drop or refuse; choose a key of ASCII letters, digits and punctuation"
        )


async def require_api_key(request: Request, given: Annotated[str | None, Security(api_key_header)]) -> None:
    """401 unless the configured key was given (compared in constant time), or the request
    is a GET of a recommendation's artifact with a valid, unexpired signature."""
    expected: str | None = request.app.state.config.api_key
    if expected is None:
        return
    if given is not None and hmac.compare_digest(given.encode("latin-1"), expected.encode("latin-1")):
        return
    if request.method in ("GET", "HEAD") and links.verify(
        request.url.path,
        request.query_params.get(links.EXPIRES),
        request.query_params.get(links.SIGNATURE),
        expected,
    ):
        return
    raise HTTPException(
        status_code=401,
        detail=f"Missing or wrong {API_KEY_HEADER} header; send the API key this server was started with "
        "(or follow a signed link that has not expired).",
        headers={"WWW-Authenticate": f'APIKey header="{API_KEY_HEADER}"'},
    )
