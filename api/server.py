"""Run the API with uvicorn; `fabric-advisor serve` calls `serve()`."""

from __future__ import annotations

import uvicorn

from core.settings import settings

#: the most an incomplete request head (request line and headers) may take before uvicorn
#: drops the connection: 16 KiB (h11's default; nginx allows 4 x 8k). A head read whole in
#: one 64 KiB chunk still passes, so a head is at most about 80 KiB (httptools took 32 MB).
MAX_HEADER_BYTES = 16 * 1024


#: the same, for `python -m uvicorn api.app:app` command lines (ops/run.py, deploy/Dockerfile)
UVICORN_FLAGS = (
    "--http",
    "h11",
    "--h11-max-incomplete-event-size",
    str(MAX_HEADER_BYTES),
    "--no-server-header",
)


def serve(host: str = "127.0.0.1", port: int = 8000, workers: int = 1, reload: bool = False) -> None:
    """Serve `api.app:app` until interrupted.

    More than one worker (or reload) needs the import string, so uvicorn can start the
    app in each process; the app itself is stateless, the store is shared on disk.
    """
    uvicorn.run(
        "api.app:app",
        host=host,
        port=port,
        workers=None if reload else workers,
        reload=reload,
        proxy_headers=True,
        forwarded_allow_ips=settings.trusted_proxies,  # the same balancers the rate limit trusts
        server_header=False,
        http="h11",  # h11 bounds a request's head; httptools takes a 32 MB header
        h11_max_incomplete_event_size=MAX_HEADER_BYTES,
    )
