"""POST /v1/chat/sessions: a web chat session id, issued and signed by the server.

The widget talks to Rasa's socket.io channel, which continues the conversation a
session id names. If the page chose the id, anyone could name someone else's
conversation (a Slack user's id, another visitor's) and read or continue it. So the API
issues it: `NONCE.SIGNATURE`, 32 random bytes (unguessable) and their HMAC-SHA256 under
the session secret (`FABRIC_ADVISOR_SESSION_SECRET`) that Rasa's channel checks
(bot/channels/web.py, which signs the same bytes; the end-to-end tests hold the two to
each other). The conversation it opens is `web:NONCE` in Rasa, a namespace no other
channel can reach.

Open like the page itself: a browser loading the widget carries no API key. Like the
page and /widget-config.js it is the widget's plumbing, left out of the API's published
schema (not a /v1 operation a client integrates with, and it never answers 401).
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import secrets

from fastapi import APIRouter, HTTPException
from pydantic import BaseModel, Field

from core.settings import settings

CONTEXT = b"fabric-advisor web chat session:"  # bot/channels/web.py checks the same bytes

router = APIRouter(include_in_schema=False)


class ChatSession(BaseModel):
    """A new web chat session: send `session_id` in socket.io's `session_request`."""

    session_id: str = Field(
        description="NONCE.SIGNATURE, signed by this server; keep it for the conversation",
        examples=["4fJ0v0m3Wl2nQeS1yq1a7m4Y8bZr6k2XoH9cV5tU3dE.Zx1q8ZbUe0p3m3p2q2l8c7w1V8q4s9Qk3b6n2m1r0yE"],
    )


def signature(secret: str, nonce: str) -> str:
    digest = hmac.new(secret.encode(), CONTEXT + nonce.encode(), hashlib.sha256).digest()
    return base64.urlsafe_b64encode(digest).rstrip(b"=").decode()


def issue(secret: str) -> str:
    """A fresh signed session id."""
    nonce = secrets.token_urlsafe(32)
    return f"{nonce}.{signature(secret, nonce)}"


@router.post(
    "/v1/chat/sessions",
    status_code=201,
    summary="A new web chat session id (no API key needed)",
    responses={503: {"description": "No session secret configured."}},
)
async def new_session() -> ChatSession:
    """A signed session id for the web chat; Rasa refuses ids it did not get from here."""
    secret = settings.session_secret
    if not secret:
        raise HTTPException(
            status_code=503,
            detail="Web chat sessions are off: set FABRIC_ADVISOR_SESSION_SECRET (make run generates one in var/).",
        )
    return ChatSession(session_id=issue(secret))
