"""Rasa's socket.io channel (the web widget's), on session ids the server issued.

Rasa's `SocketIOInput` takes the conversation id from the client: whatever
`session_id` a page sends becomes the Rasa sender id, in the same namespace as Slack
user ids, and joining that room also receives every reply to it. Anyone could continue
(and read) any conversation whose id they know or guess.

Here the API issues the widget's session id (api/routers/chat_session.py):
`NONCE.SIGNATURE`, a random nonce and its HMAC-SHA256 under the session secret
(`FABRIC_ADVISOR_SESSION_SECRET`) that the API and Rasa share. This channel:

- accepts a `session_request` only with an id whose signature checks (constant time);
  anything else is answered with `session_refused` and the socket is disconnected;
- keeps the conversation id, `web:NONCE`, in the socket's server-side session, so a
  message's own `session_id` field is never trusted: a socket speaks only for the
  session it proved;
- puts the socket in the room `web:NONCE` only, so it receives only its own replies.

No secret configured: every session is refused (the channel never runs open).

In bot/credentials.yml as `channels.web.SignedSocketIO` (same path: /socket.io).
"""

import base64
import hashlib
import hmac
import json
import logging
import os
import re
from collections.abc import Awaitable, Callable
from typing import Any

from rasa.core.channels.channel import UserMessage
from rasa.core.channels.socketio import SocketBlueprint, SocketIOInput, SocketIOOutput
from sanic import Blueprint, response
from sanic.request import Request
from sanic.response import HTTPResponse
from socketio import AsyncServer

logger = logging.getLogger(__name__)

SECRET_ENV = "FABRIC_ADVISOR_SESSION_SECRET"
PREFIX = "web:"
CONTEXT = b"fabric-advisor web chat session:"  # the API signs the same bytes
NONCE = re.compile(r"[A-Za-z0-9_-]{22,64}")


def signature(secret: str, nonce: str) -> str:
    """The signature the API appends to a nonce (api/routers/chat_session.py)."""
    digest = hmac.new(secret.encode(), CONTEXT + nonce.encode(), hashlib.sha256).digest()
    return base64.urlsafe_b64encode(digest).rstrip(b"=").decode()


def conversation_id(session_id: object, secret: str) -> str | None:
    """`web:NONCE` for a session id the API signed with secret, else None."""
    if not secret or not isinstance(session_id, str) or len(session_id) > 200:
        return None
    nonce, _, signed = session_id.partition(".")
    if not NONCE.fullmatch(nonce) or not signed:
        return None
    if not hmac.compare_digest(signed.encode(), signature(secret, nonce).encode()):
        return None
    return PREFIX + nonce


class SignedSocketIO(SocketIOInput):
    """Rasa's socket.io channel, on signed session ids (see the module's docstring)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.secret = os.environ.get(SECRET_ENV, "").strip()
        if not self.secret:
            logger.warning("socket.io channel refuses every session: %s is not set.", SECRET_ENV)

    @classmethod
    def name(cls) -> str:
        return "socketio"

    def blueprint(self, on_new_message: Callable[[UserMessage], Awaitable[Any]]) -> Blueprint:
        # cors_allowed_origins=[]: CORS is left to Rasa's own --cors (the widget's origin)
        sio = AsyncServer(async_mode="sanic", cors_allowed_origins=[])
        webhook = SocketBlueprint(sio, self.socketio_path, "socketio_webhook", __name__)
        self.sio = sio

        @webhook.route("/", methods=["GET"])
        async def health(_: Request) -> HTTPResponse:
            return response.json({"status": "ok"})

        @sio.on("connect", namespace=self.namespace)
        async def connect(sid: str, environ: dict[str, Any], auth: dict[str, Any] | None) -> bool:
            return True  # the session id is proved by session_request, before any message counts

        @sio.on("session_request", namespace=self.namespace)
        async def session_request(sid: str, data: dict[str, Any] | None) -> None:
            session_id = (data or {}).get("session_id") if isinstance(data, dict) else None
            conversation = conversation_id(session_id, self.secret)
            if conversation is None:
                logger.info("socket.io session refused: unsigned or forged session id")
                await sio.emit(
                    "session_refused",
                    {"detail": "unknown session: ask the API for one (POST /v1/chat/sessions)"},
                    room=sid,
                    namespace=self.namespace,
                )
                await sio.disconnect(sid, namespace=self.namespace)
                return
            await sio.save_session(sid, {"conversation": conversation}, namespace=self.namespace)
            sio.enter_room(sid, conversation, namespace=self.namespace)
            await sio.emit("session_confirm", session_id, room=sid, namespace=self.namespace)

        @sio.on(self.user_message_evt, namespace=self.namespace)
        async def handle_message(sid: str, data: dict[str, Any]) -> None:
            session = await sio.get_session(sid, namespace=self.namespace)
            conversation = session.get("conversation") if isinstance(session, dict) else None
            if conversation is None or not isinstance(data, dict):
                logger.info("socket.io message dropped: the socket has no proved session")
                return
            metadata = data.get(self.metadata_key) or {}
            if isinstance(metadata, str):
                try:
                    metadata = json.loads(metadata)
                except ValueError:
                    metadata = {}
            message = UserMessage(
                str(data.get("message", "")),
                SocketIOOutput(sio, self.bot_message_evt),
                conversation,
                input_channel=self.name(),
                metadata=metadata if isinstance(metadata, dict) else {},
            )
            await on_new_message(message)

        blueprint: Blueprint = webhook
        return blueprint
