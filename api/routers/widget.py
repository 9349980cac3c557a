"""The web chat widget: `GET /` serves api/static/index.html and /static its assets.

The page and its files are written separately; until they exist, `/` says so (404)
and /static is not mounted.
"""

from __future__ import annotations

from pathlib import Path

from fastapi import APIRouter, FastAPI, HTTPException
from fastapi.responses import FileResponse
from fastapi.staticfiles import StaticFiles

STATIC = Path(__file__).resolve().parents[1] / "static"

router = APIRouter(include_in_schema=False)


@router.get("/")
async def index() -> FileResponse:
    page = STATIC / "index.html"
    if not page.is_file():
        raise HTTPException(404, detail="The web chat widget is not installed; the API is documented at /docs.")
    return FileResponse(page, media_type="text/html")


def mount_static(app: FastAPI) -> None:
    """Serve api/static at /static when the directory exists."""
    if STATIC.is_dir():
        app.mount("/static", StaticFiles(directory=STATIC), name="static")
