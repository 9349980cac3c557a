"""Rasa's REST channel, behind the Rasa token, in a namespace of its own, answering 503
when a shared store is down.

The REST channel is for trusted callers (our tools, the evaluation runner, a company's
own integration), so it requires the same token as Rasa's HTTP API,
`FABRIC_ADVISOR_RASA_TOKEN`, as `?token=` (Rasa's way) or `Authorization: Bearer`;
anything else is answered 401 before Rasa reads the body. With no token configured the
channel refuses every message (503): it never runs open. Its conversation ids are the
client's `sender` prefixed with `rest:`, so a REST caller can never continue a Slack
user's (`slack:`) or a web visitor's (`web:`) conversation, and the input channel is
always `rest`, whatever the body claims (the replies' format depends on it).

Rasa's `RestInput` catches every error of a turn, logs it and answers 200 with no
messages, which a client cannot tell from a bot with nothing to say. When the
conversation store (PostgreSQL, channels/conversation_store.py) or the lock store
(Redis) cannot be reached, this one answers 503 with a body that says which, so the
client can say so and retry; everything else is Rasa's.

In bot/credentials.yml as `channels.rest.RestChannel` (same URL: /webhooks/rest/webhook).
"""

import contextvars
import hmac
import os
from collections.abc import Awaitable, Callable
from http import HTTPStatus
from typing import Any

import redis.exceptions
from rasa.core.channels.channel import UserMessage
from rasa.core.channels.rest import RestInput
from rasa.core.lock_store import LockError
from sanic import Blueprint, response
from sanic.request import Request
from sanic.response import HTTPResponse

from .conversation_store import ConversationStoreDown

TOKEN_ENV = "FABRIC_ADVISOR_RASA_TOKEN"
PREFIX = "rest:"

_unavailable: contextvars.ContextVar[str | None] = contextvars.ContextVar("store_unavailable", default=None)


def describe(error: BaseException) -> str | None:
    """What to tell the client about error, when it is a shared store being down."""
    if isinstance(error, ConversationStoreDown):
        return str(error)
    if isinstance(error, (LockError, redis.exceptions.RedisError)):
        reason = str(error).strip().splitlines()[-1] if str(error).strip() else type(error).__name__
        return f"the conversation lock store (Redis) is unreachable: {reason}"
    return None


def presented_token(request: Request) -> str:
    """The token a request carries: `?token=`, else `Authorization: Bearer ...`."""
    token = request.args.get("token")
    if token:
        return str(token)
    scheme, _, value = request.headers.get("authorization", "").partition(" ")
    return value.strip() if scheme.lower() == "bearer" else ""


def token_matches(presented: str, expected: str) -> bool:
    """Constant-time comparison, so the time taken tells nothing about the token."""
    return bool(expected) and hmac.compare_digest(presented.encode(), expected.encode())


class RestChannel(RestInput):
    def __init__(self, token: str | None = None) -> None:
        super().__init__()
        self.token = os.environ.get(TOKEN_ENV, "").strip() if token is None else token

    @classmethod
    def name(cls) -> str:
        return "rest"

    async def _extract_sender(self, req: Request) -> str | None:
        body = req.json if isinstance(req.json, dict) else {}
        sender = body.get("sender")
        return PREFIX + str(sender) if sender not in (None, "") else None

    def _extract_input_channel(self, req: Request) -> str:
        return self.name()

    def blueprint(self, on_new_message: Callable[[UserMessage], Awaitable[Any]]) -> Blueprint:
        async def handle(message: UserMessage) -> Any:
            try:
                return await on_new_message(message)
            except Exception as error:
                _unavailable.set(describe(error))
                raise

        webhook: Blueprint = super().blueprint(handle)

        @webhook.middleware("request")
        async def reset(request: Request) -> HTTPResponse | None:
            _unavailable.set(None)
            if request.method != "POST":
                return None  # the channel's health check (GET /webhooks/rest/) stays open
            if not self.token:
                return response.json(
                    {"error": f"the REST channel is off: set {TOKEN_ENV} on Rasa"},
                    status=HTTPStatus.SERVICE_UNAVAILABLE,
                )
            if not token_matches(presented_token(request), self.token):
                return response.json(
                    {"error": "the REST channel needs the Rasa token: ?token=... or Authorization: Bearer ..."},
                    status=HTTPStatus.UNAUTHORIZED,
                    headers={"WWW-Authenticate": "Bearer"},
                )
            body = request.json if request.body else None
            if not isinstance(body, dict) or not body.get("sender") or not isinstance(body.get("message"), str):
                return response.json(
                    {"error": 'send a JSON object {"sender": "...", "message": "..."}'}, status=HTTPStatus.BAD_REQUEST
                )
            return None

        @webhook.middleware("response")
        async def unavailable(request: Request, answer: HTTPResponse) -> HTTPResponse | None:
            detail = _unavailable.get()
            if detail is None:
                return None
            return response.json(
                {"error": f"{detail}; retry shortly"},
                status=HTTPStatus.SERVICE_UNAVAILABLE,
                headers={"Retry-After": "5"},
            )

        return webhook
