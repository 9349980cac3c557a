"""The web chat widget: `GET /` serves api/static/index.html and /static its assets.

The page and its files are written separately; until they exist, `/` says so (404)
and /static is not mounted.
"""

from __future__ import annotations

import json
from pathlib import Path

from fastapi import APIRouter, FastAPI, HTTPException, Response
from fastapi.responses import FileResponse
from fastapi.staticfiles import StaticFiles

from core.settings import settings

STATIC = Path(__file__).resolve().parents[1] / "static"

router = APIRouter(include_in_schema=False)


@router.get("/")
async def index() -> FileResponse:
    page = STATIC / "index.html"
    if not page.is_file():
        raise HTTPException(404, detail="The web chat widget is not installed; the API is documented at /docs.")
    return FileResponse(page, media_type="text/html")


@router.get("/widget-config.js")
async def widget_config() -> Response:
    """Where the page finds Rasa's socket.io channel: this host on Rasa's port, unless
    FABRIC_ADVISOR_RASA_PUBLIC_URL names another address (a proxy, another host)."""
    config = {"rasaUrl": settings.rasa_public_url, "rasaPort": settings.rasa_port}
    return Response(
        f"window.FABRIC_ADVISOR_CONFIG = {json.dumps(config)};\n",
        media_type="text/javascript",
        headers={"Cache-Control": "no-store"},
    )


def mount_static(app: FastAPI) -> None:
    """Serve api/static at /static when the directory exists."""
    if STATIC.is_dir():
        app.mount("/static", StaticFiles(directory=STATIC), name="static")
