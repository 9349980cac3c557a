"""The REST API: FastAPI over the same functions the chat and the CLI call.

`api.app:create_app()` builds the app; `api.app:app` is what `uvicorn api.app:app`
serves; `api.server.serve()` is what `fabric-advisor serve` runs.
"""
