"""GET /healthz: answers while the process serves; the benchmark's trivial baseline."""

from __future__ import annotations

from fastapi import APIRouter

from api.schemas import Health

router = APIRouter(tags=["health"])

_OK = Health(status="ok")


@router.get("/healthz", summary="Liveness check (no API key needed)")
async def healthz() -> Health:
    """`{"status": "ok"}` while the server runs. Open even when an API key is set, so
    load balancers and `make run` can probe it."""
    return _OK
