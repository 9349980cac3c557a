"""The API's documentation pages, /docs (Swagger UI) and /redoc (ReDoc), served from
api/static/vendor (scripts/vendor-widget.sh copies them from npm), so both render with
no internet: FastAPI's own pages load their scripts, styles, fonts and favicon from a
CDN and stay blank offline.
"""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.openapi.docs import get_redoc_html, get_swagger_ui_html, get_swagger_ui_oauth2_redirect_html
from fastapi.responses import HTMLResponse

VENDOR = "/static/vendor"

router = APIRouter(include_in_schema=False)


@router.get("/docs")
async def swagger_ui(request: Request) -> HTMLResponse:
    return get_swagger_ui_html(
        openapi_url=request.app.openapi_url,
        title=f"{request.app.title} - Swagger UI",
        oauth2_redirect_url="/docs/oauth2-redirect",
        swagger_js_url=f"{VENDOR}/swagger-ui-bundle.js",
        swagger_css_url=f"{VENDOR}/swagger-ui.css",
        swagger_favicon_url=f"{VENDOR}/favicon-32x32.png",
    )


@router.get("/docs/oauth2-redirect")
async def swagger_ui_redirect() -> HTMLResponse:
    return get_swagger_ui_oauth2_redirect_html()


@router.get("/redoc")
async def redoc(request: Request) -> HTMLResponse:
    return get_redoc_html(
        openapi_url=request.app.openapi_url,
        title=f"{request.app.title} - ReDoc",
        redoc_js_url=f"{VENDOR}/redoc.standalone.js",
        redoc_favicon_url=f"{VENDOR}/favicon-32x32.png",
        with_google_fonts=False,
    )
