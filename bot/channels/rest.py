"""Rasa's REST channel, answering 503 when a shared store is down.

Rasa's `RestInput` catches every error of a turn, logs it and answers 200 with no
messages, which a client cannot tell from a bot with nothing to say. When the
conversation store (PostgreSQL, channels/conversation_store.py) or the lock store
(Redis) cannot be reached, this one answers 503 with a body that says which, so the
client can say so and retry; everything else is Rasa's.

In bot/credentials.yml as `channels.rest.RestChannel` (same URL: /webhooks/rest/webhook).
"""

import contextvars
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

_unavailable: contextvars.ContextVar[str | None] = contextvars.ContextVar("store_unavailable", default=None)


def describe(error: BaseException) -> str | None:
    """What to tell the client about error, when it is a shared store being down."""
    if isinstance(error, ConversationStoreDown):
        return str(error)
    if isinstance(error, (LockError, redis.exceptions.RedisError)):
        reason = str(error).strip().splitlines()[-1] if str(error).strip() else type(error).__name__
        return f"the conversation lock store (Redis) is unreachable: {reason}"
    return None


class RestChannel(RestInput):
    @classmethod
    def name(cls) -> str:
        return "rest"

    def blueprint(self, on_new_message: Callable[[UserMessage], Awaitable[Any]]) -> Blueprint:
        async def handle(message: UserMessage) -> Any:
            try:
                return await on_new_message(message)
            except Exception as error:
                _unavailable.set(describe(error))
                raise

        webhook: Blueprint = super().blueprint(handle)

        @webhook.middleware("request")
        async def reset(request: Request) -> None:
            _unavailable.set(None)

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
