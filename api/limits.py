"""A cap on request bodies (413), for declared and for chunked uploads alike.

A pure ASGI middleware, so it sees the body as it streams: it refuses a declared
Content-Length over the cap before reading anything, and counts the bytes of a body
without one (chunked transfer encoding), stopping as soon as the count passes the cap.
"""

from __future__ import annotations

import json

from starlette.exceptions import HTTPException
from starlette.types import ASGIApp, Message, Receive, Scope, Send


class BodyTooLarge(HTTPException):
    """Raised from receive(); FastAPI passes HTTPExceptions through body parsing unchanged."""

    def __init__(self, limit: int) -> None:
        super().__init__(status_code=413, detail=_detail(limit))


def _detail(limit: int) -> str:
    return f"Request body is over {limit:,} bytes ({limit // 1024} KiB); send a smaller body."


class BodySizeLimit:
    def __init__(self, app: ASGIApp, max_bytes: int) -> None:
        self.app = app
        self.max_bytes = max_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        declared = _content_length(scope)
        if declared == -1:
            await _respond(send, 400, "Content-Length is not a whole number of bytes.")
            return
        if declared is not None and declared > self.max_bytes:
            await _respond(send, 413, _detail(self.max_bytes))
            return

        received = 0
        exceeded = False
        started = False

        async def counted_receive() -> Message:
            nonlocal received, exceeded
            message = await receive()
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > self.max_bytes:
                    exceeded = True
                    raise BodyTooLarge(self.max_bytes)
            return message

        async def guarded_send(message: Message) -> None:
            nonlocal started
            if exceeded:
                # whatever the app made of the overflow, the client gets the 413
                if message["type"] == "http.response.start" and not started:
                    started = True
                    await _respond(send, 413, _detail(self.max_bytes))
                return
            if message["type"] == "http.response.start":
                started = True
            await send(message)

        try:
            await self.app(scope, counted_receive, guarded_send)
        except BodyTooLarge:
            if not started:
                started = True
                await _respond(send, 413, _detail(self.max_bytes))


def _content_length(scope: Scope) -> int | None:
    """The declared body length; None when absent, -1 when it is not a number."""
    for name, value in scope.get("headers", ()):
        if name == b"content-length":
            try:
                length = int(value)
            except ValueError:
                return -1
            return length if length >= 0 else -1
    return None


async def _respond(send: Send, status: int, detail: str) -> None:
    body = json.dumps({"detail": detail}).encode()
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(body)).encode()),
                (b"connection", b"close"),
            ],
        }
    )
    await send({"type": "http.response.body", "body": body})
