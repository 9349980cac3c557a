"""Run the API with uvicorn; `fabric-advisor serve` calls `serve()`."""

from __future__ import annotations

import uvicorn


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
        server_header=False,
    )
