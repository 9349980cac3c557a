"""The FastAPI app: `create_app()` wires the routers, the body limit, the API key and
the error handlers; `app` is the instance `uvicorn api.app:app` serves.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from fastapi import Depends, FastAPI

from advisor import service
from api import errors
from api.config import ApiConfig
from api.limits import BodySizeLimit
from api.ratelimit import RateLimit
from api.routers import ask, chat_session, docs, handoffs, health, knowledge, recommendations, widget
from api.schemas import Problem
from api.security import check_key_is_sendable, require_api_key

DESCRIPTION = """\
Rules-based advice on networking GPU clusters: the fabric (InfiniBand, RoCEv2,
Ethernet, NVLink), the topology, ports per server, switch and cable counts, a cost
range and the all-reduce time, each choice with the rule and the source behind it.

* `POST /v1/recommendations` sizes a workload profile; `POST /v1/ask` takes plain words.
* Every recommendation is stored: `GET /v1/recommendations/{id}` and its `diagram.svg`.
* `GET /v1/faq?q=...` and `GET /v1/knowledge/{subject}` read the knowledge base.

Errors are JSON with a `detail` that says what to fix. Bodies are limited to 64 KiB;
each client may make `FABRIC_ADVISOR_RATE_LIMIT` requests a second (bursts of
`FABRIC_ADVISOR_RATE_BURST`), past which it gets 429 with `Retry-After`.
When the server sets `FABRIC_ADVISOR_API_KEY`, every `/v1/*` call needs it in
the `X-API-Key` header, except a GET of a recommendation's diagram, report or files
through a signed link (`expires` and `sig`, as the chat and Slack hand out). Open
without a key: `/healthz`, the web chat page (`/`, `/widget-config.js`, `/static`) and
these docs (`/docs`, `/redoc`, `/openapi.json`).
"""

TAGS = [
    {"name": "recommendations", "description": "Size a fabric from a workload profile; fetch and draw stored ones."},
    {"name": "ask", "description": "Plain-language questions, answered like the chat answers them."},
    {"name": "knowledge", "description": "The knowledge base the answers come from, with sources."},
    {"name": "health", "description": "Liveness."},
]

UNAUTHORIZED: dict[int | str, dict[str, Any]] = {
    401: {"model": Problem, "description": "API key missing or wrong (only when the server sets one)."}
}


@asynccontextmanager
async def _lifespan(app: FastAPI) -> AsyncIterator[None]:
    """Load the extractor, rules and knowledge before the first request, not during it."""
    service.warm_up(freeze=True)
    yield


def create_app(config: ApiConfig | None = None) -> FastAPI:
    """Build the app; config defaults to the process settings (see `api.config`)."""
    config = config or ApiConfig.from_settings()
    check_key_is_sendable(config.api_key)  # a key no client can send: refuse to start, say why
    app = FastAPI(
        lifespan=_lifespan,
        # no "/path/" -> "/path" redirects: they are built from the request's Host header,
        # which a client chooses (an open redirect through a shared link); such a path is a 404
        redirect_slashes=False,
        title="Fabric Advisor API",
        version=_version(),
        description=DESCRIPTION,
        openapi_tags=TAGS,
        docs_url=None,  # api.routers.docs serves /docs and /redoc from local files
        redoc_url=None,
    )
    app.state.config = config
    errors.install(app)
    app.add_middleware(BodySizeLimit, max_bytes=config.max_body_bytes)
    # outermost: a client over its rate is refused before its body is read
    app.add_middleware(
        RateLimit,
        rate=config.rate_per_s,
        burst=config.rate_burst,
        trusted_proxies=config.trusted_proxies,
        api_key=config.api_key,
    )

    guarded = [Depends(require_api_key)]
    app.include_router(recommendations.router, dependencies=guarded, responses=UNAUTHORIZED)
    app.include_router(ask.router, dependencies=guarded, responses=UNAUTHORIZED)
    app.include_router(knowledge.router, dependencies=guarded, responses=UNAUTHORIZED)
    app.include_router(handoffs.router, dependencies=guarded, responses=UNAUTHORIZED)
    app.include_router(health.router)
    app.include_router(chat_session.router)
    app.include_router(widget.router)
    app.include_router(docs.router)
    widget.mount_static(app)
    if config.api_key is None:
        _document_key_as_optional(app)
    return app


def _document_key_as_optional(app: FastAPI) -> None:
    """Without a configured key the scheme stays in the docs but is optional (`{}`)."""
    build = app.openapi

    def openapi() -> dict[str, Any]:
        if app.openapi_schema is None:
            schema = build()
            for operations in schema.get("paths", {}).values():
                for operation in operations.values():
                    if isinstance(operation, dict) and operation.get("security"):
                        operation["security"] = [{}, *operation["security"]]
            app.openapi_schema = schema
        return app.openapi_schema

    app.openapi = openapi  # type: ignore[method-assign]


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("fabric-advisor")
    except PackageNotFoundError:
        return "0.0.0"


app = create_app()
