"""Slack for the Fabric Advisor: Rasa's Slack connector with a configurable Web API URL,
switched on by the environment, that answers each Slack event once.

In bot/credentials.yml:

    channels.slack.SlackConnector:
      # api_url: https://slack.com/api/      # GovSlack: https://slack-gov.com/api/
      # use_threads: true

Why a subclass of Rasa's `SlackInput`:

- Rasa posts replies from a background task through slack_sdk's `AsyncWebClient`, whose
  base URL its credentials cannot set. GovSlack (slack-gov.com) and test stubs need
  another one: `api_url` here, else the `SLACK_API_URL` environment variable, else
  https://slack.com/api/.
- The token and signing secret come from `SLACK_BOT_TOKEN` and `SLACK_SIGNING_SECRET`
  when the credentials do not give them. Rasa's `${VAR}` substitution fails to start
  when a variable is unset, so credentials.yml cannot refer to them; with either unset,
  the connector is off and its webhook answers 404 (the rest of the bot runs on).
- Slack retries an event it thinks went unanswered (`X-Slack-Retry-Num`). Rasa drops
  only retries whose reason is `http_timeout`; here every event id is answered once,
  whatever the reason, while a retry of an event never seen is handled. With
  `FABRIC_ADVISOR_REDIS_URL` set (redis://host:6379/0), the event ids seen are kept in
  Redis, so a retry that the balancer sends to another Rasa replica is not answered
  twice either; while Redis is unreachable an event is answered 503 (Slack retries it
  later) rather than risk a double answer. Unset, they are kept in this process.
- A request whose signature is wrong or whose timestamp is more than five minutes off
  is refused with 401 before anything reads it (Rasa's check, answered earlier).
- Slack's `url_verification` is answered with `{"challenge": ...}`, the shape Slack
  documents.
- Conversation ids are `slack:` and Slack's own id (the user, or user_channel_thread
  with another granularity), so no other channel can name a Slack user's conversation
  (the REST channel's are `rest:...`, the web widget's `web:...`).
- What a user types cannot become a link in the bot's replies: a markdown link
  `[label](url)` in Slack text loses its shape (`[label] (url)`) before the bot reads
  it, so when the advisor echoes it (a free-text GPU model, the question) and its
  markdown is turned into Slack mrkdwn, nobody sees a disguised live link under the
  bot's name; `<`, `>` and `&` arrive escaped by Slack and stay so, and the replies
  escape them again (advisor/render/slack.py). Slack's own `<url|label>` links become
  their label, as in Rasa, with a pattern that stays linear on any input (Rasa's is
  quadratic on a long run of `<http://`).
- Replies: one Slack message per reply (Rasa splits text at every blank line), as
  mrkdwn (the action server writes Slack mrkdwn for this channel), buttons under a
  mrkdwn section, without the legacy `as_user` flag new Slack apps cannot use.
"""

import logging
import os
import re
import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from http import HTTPStatus
from typing import Any

import redis.asyncio
import redis.exceptions
from rasa.core.channels.channel import InputChannel, OutputChannel, UserMessage
from rasa.core.channels.slack import SlackBot, SlackInput
from redis.asyncio.retry import Retry
from redis.backoff import NoBackoff
from sanic import Blueprint, response
from sanic.request import Request
from sanic.response import HTTPResponse
from slack_sdk.web.async_client import AsyncWebClient

logger = logging.getLogger(__name__)

DEFAULT_API_URL = "https://slack.com/api/"
TOKEN_ENV = "SLACK_BOT_TOKEN"
SIGNING_SECRET_ENV = "SLACK_SIGNING_SECRET"
API_URL_ENV = "SLACK_API_URL"

# chat.postMessage takes 40,000 characters but Slack shows a long message folded;
# longer replies are sent as several messages, cut at blank lines
MESSAGE_CHARS = 3900
ACTIONS_PER_BLOCK = 25  # Block Kit: at most 25 elements in an actions block

# Slack retries after 1 and 5 minutes (3 tries); an hour of event ids is plenty
SEEN_EVENTS_TTL = 3600.0
SEEN_EVENTS_MAX = 10000
REDIS_URL_ENV = "FABRIC_ADVISOR_REDIS_URL"
REDIS_KEY_PREFIX = "fabric-advisor:slack-event:"
REDIS_TIMEOUT_S = 2.0
PREFIX = "slack:"


# Slack's own link markup, <https://url|label> or <mailto:a@b|label>: negated classes only,
# so a failed match stops at the next < or >, and a whole message is scanned in linear time
SLACK_LINK = re.compile(r"<(?:https?|mailto):[^<>|]*\|([^<>]*)>")


def user_text(text: str, mentions: list[str] | None = None) -> str:
    """A Slack message as the bot should read it: the bot's own @mentions dropped, Slack
    links as their label, and markdown links defused (see the module's docstring)."""
    for uid in mentions or []:
        text = text.replace(f"<@{uid}>", " ")
    text = SLACK_LINK.sub(lambda m: m.group(1), text)
    return text.replace("](", "] (").strip()


class SeenStoreDown(RuntimeError):
    """The shared store of seen events cannot be reached."""


def api_url_from(credentials: dict[str, Any]) -> str:
    """The Slack Web API base URL: credentials, then SLACK_API_URL, then slack.com."""
    url = (credentials.get("api_url") or os.environ.get(API_URL_ENV, "").strip() or DEFAULT_API_URL).strip()
    return url if url.endswith("/") else url + "/"


class SeenEvents:
    """Event ids seen lately, so an event Slack delivers twice is answered once."""

    def __init__(self, ttl: float = SEEN_EVENTS_TTL, capacity: int = SEEN_EVENTS_MAX) -> None:
        self.ttl = ttl
        self.capacity = capacity
        self._seen: OrderedDict[str, float] = OrderedDict()

    def first_time(self, event_id: str) -> bool:
        """True the first time event_id is offered (within the ttl), False after."""
        now = time.monotonic()
        while self._seen:
            _oldest, at = next(iter(self._seen.items()))
            if now - at <= self.ttl and len(self._seen) < self.capacity:
                break
            self._seen.popitem(last=False)
        if event_id in self._seen:
            return False
        self._seen[event_id] = now
        return True

    async def claim(self, event_id: str) -> bool:
        return self.first_time(event_id)


class RedisSeenEvents:
    """Event ids seen lately, in Redis, shared by every Rasa replica: the first replica to
    claim an id (SET NX, expiring after the ttl) answers the event, the others do not."""

    def __init__(self, url: str, ttl: float = SEEN_EVENTS_TTL) -> None:
        self.url = url
        self.ttl = ttl
        # a connection left over from before a Redis restart fails once: retry on a new one
        self.client = redis.asyncio.Redis.from_url(
            url,
            socket_timeout=REDIS_TIMEOUT_S,
            socket_connect_timeout=REDIS_TIMEOUT_S,
            retry=Retry(NoBackoff(), 2),
            retry_on_error=[redis.exceptions.ConnectionError, redis.exceptions.TimeoutError],
        )

    async def claim(self, event_id: str) -> bool:
        try:
            return bool(await self.client.set(REDIS_KEY_PREFIX + event_id, "1", nx=True, ex=int(self.ttl)))
        except (redis.exceptions.ConnectionError, redis.exceptions.TimeoutError, OSError) as exc:
            raise SeenStoreDown(f"Redis at {self.url.rsplit('@', 1)[-1]} is unreachable: {exc}") from exc


def seen_events_store() -> SeenEvents | RedisSeenEvents:
    """Redis when FABRIC_ADVISOR_REDIS_URL is set, else this process's memory."""
    url = os.environ.get(REDIS_URL_ENV, "").strip()
    return RedisSeenEvents(url) if url else SeenEvents()


class SlackOutput(SlackBot):
    """Rasa's Slack output, posting through `api_url`, one message per reply."""

    def __init__(
        self,
        token: str,
        slack_channel: str | None = None,
        thread_id: str | None = None,
        proxy: str | None = None,
        api_url: str = DEFAULT_API_URL,
    ) -> None:
        super().__init__(token, slack_channel, thread_id, proxy)
        self.client = AsyncWebClient(token, base_url=api_url, proxy=proxy)

    async def _post_message(self, channel: str, **kwargs: Any) -> None:
        # `as_user` is for classic apps only; `type` is not a chat.postMessage argument
        kwargs.pop("as_user", None)
        kwargs.pop("type", None)
        await super()._post_message(channel, **kwargs)

    async def send_text_message(self, recipient_id: str, text: str, **kwargs: Any) -> None:
        recipient = self.slack_channel or slack_id(recipient_id)
        for part in split_message(text.strip()):
            await self._post_message(channel=recipient, text=part, mrkdwn=True)

    async def send_text_with_buttons(
        self, recipient_id: str, text: str, buttons: list[dict[str, Any]], **kwargs: Any
    ) -> None:
        recipient = self.slack_channel or slack_id(recipient_id)
        elements = [
            {
                "type": "button",
                "text": {"type": "plain_text", "text": str(button["title"])[:75]},
                "value": str(button["payload"])[:2000],
            }
            for button in buttons[:ACTIONS_PER_BLOCK]
        ]
        blocks = [
            {"type": "section", "text": {"type": "mrkdwn", "text": text[:3000]}},
            {"type": "actions", "elements": elements},
        ]
        await self._post_message(channel=recipient, text=text, blocks=blocks)

    async def send_custom_json(self, recipient_id: str, json_message: dict[str, Any], **kwargs: Any) -> None:
        """Post json_message (e.g. `{"text": ..., "blocks": [...]}`) as chat.postMessage's arguments."""
        message = dict(json_message)
        channel = message.pop("channel", None) or self.slack_channel or slack_id(recipient_id)
        await self._post_message(channel=channel, **message)


def slack_id(conversation: str) -> str:
    """The Slack user id a `slack:` conversation id stands for."""
    return conversation.removeprefix(PREFIX).split("_", 1)[0]


def split_message(text: str, limit: int = MESSAGE_CHARS) -> list[str]:
    """text in parts of at most limit characters, cut at blank lines, else at newlines."""
    parts: list[str] = []
    while len(text) > limit:
        cut = text.rfind("\n\n", 0, limit)
        if cut <= 0:
            cut = text.rfind("\n", 0, limit)
        if cut <= 0:
            cut = limit
        parts.append(text[:cut].rstrip())
        text = text[cut:].lstrip("\n")
    if text:
        parts.append(text)
    return parts


class SlackDisabled(InputChannel):
    """Stands in for the Slack connector when its token or signing secret is unset."""

    def __init__(self, missing: list[str]) -> None:
        self.missing = missing

    @classmethod
    def name(cls) -> str:
        return "slack"

    def blueprint(self, on_new_message: Callable[[UserMessage], Awaitable[Any]]) -> Blueprint:
        disabled = Blueprint("slack_webhook_disabled", __name__)
        body = {"status": "disabled", "detail": f"Slack is off: set {' and '.join(self.missing)} to switch it on."}

        @disabled.route("/", methods=["GET"])
        async def health(_: Request) -> HTTPResponse:
            return response.json(body, status=HTTPStatus.NOT_FOUND)

        @disabled.route("/webhook", methods=["GET", "POST"])
        async def webhook(_: Request) -> HTTPResponse:
            return response.json(body, status=HTTPStatus.NOT_FOUND)

        return disabled


class SlackConnector(SlackInput):
    """Rasa's `SlackInput` with a configurable Web API URL, set up from the environment,
    answering each Slack event once (see the module's docstring)."""

    @classmethod
    def from_credentials(cls, credentials: dict[str, Any] | None) -> InputChannel:
        credentials = dict(credentials or {})
        token = credentials.get("slack_token") or os.environ.get(TOKEN_ENV, "").strip()
        secret = credentials.get("slack_signing_secret") or os.environ.get(SIGNING_SECRET_ENV, "").strip()
        missing = [name for name, value in ((TOKEN_ENV, token), (SIGNING_SECRET_ENV, secret)) if not value]
        if missing:
            if len(missing) == 1:
                logger.warning("Slack connector off: %s is set but %s is not.", _other(missing[0]), missing[0])
            else:
                logger.info("Slack connector off: %s and %s are not set.", TOKEN_ENV, SIGNING_SECRET_ENV)
            return SlackDisabled(missing)
        channel = cls(
            token,
            credentials.get("slack_channel"),
            credentials.get("proxy"),
            credentials.get("slack_retry_reason_header", "x-slack-retry-reason"),
            credentials.get("slack_retry_number_header", "x-slack-retry-num"),
            credentials.get("errors_ignore_retry"),
            bool(credentials.get("use_threads", False)),
            secret,
            credentials.get("conversation_granularity", "sender"),
            api_url=api_url_from(credentials),
        )
        # retries are screened by event id (screen()); Rasa's reason-based drop only on request
        channel.errors_ignore_retry = tuple(credentials.get("errors_ignore_retry") or ())
        logger.info("Slack connector on, Web API at %s", channel.api_url)
        return channel

    def __init__(self, *args: Any, api_url: str = DEFAULT_API_URL, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.api_url = api_url
        self.seen_events = seen_events_store()

    def get_output_channel(self, channel: str | None = None, thread_id: str | None = None) -> OutputChannel:
        return SlackOutput(self.slack_token, channel or self.slack_channel, thread_id, self.proxy, self.api_url)

    @staticmethod
    def _sanitize_user_message(text: str, uids_to_remove: list[str] | None) -> str:
        """Rasa's hook for the text of a Slack message (see user_text)."""
        return user_text(text, uids_to_remove)

    async def process_message(
        self,
        request: Request,
        on_new_message: Callable[[UserMessage], Awaitable[Any]],
        text: str,
        sender_id: str | None,
        metadata: dict[str, Any] | None,
    ) -> Any:
        """Rasa's, with the conversation id in the `slack:` namespace."""
        conversation = PREFIX + sender_id if sender_id else sender_id
        return await super().process_message(request, on_new_message, text, conversation, metadata)

    def blueprint(self, on_new_message: Callable[[UserMessage], Awaitable[Any]]) -> Blueprint:
        webhook: Blueprint = super().blueprint(on_new_message)

        @webhook.middleware("request")
        async def guard(request: Request) -> HTTPResponse | None:
            """Runs before Rasa's handler; a response here ends the request."""
            if request.method != "POST" or not request.path.rstrip("/").endswith("/webhook"):
                return None
            return await self.screen(request)

        return webhook

    async def screen(self, request: Request) -> HTTPResponse | None:
        """Refuse what is not from Slack, answer url_verification and repeated events;
        None lets Rasa's handler take the request."""
        if not self.is_request_from_slack_authentic(request):
            logger.warning("Slack request refused: bad signature or stale timestamp.")
            return response.text(
                "Not signed by Slack (X-Slack-Signature), or X-Slack-Request-Timestamp is more than 5 minutes off.",
                status=HTTPStatus.UNAUTHORIZED,
            )
        if request.headers.get("content-type", "").split(";")[0].strip() != "application/json":
            return None  # interactive payloads (button clicks) are form-encoded, never retried
        try:
            body = request.json
        except Exception:  # sanic raises on a body that is not JSON
            return response.text("Body is not JSON.", status=HTTPStatus.BAD_REQUEST)
        if not isinstance(body, dict):
            return response.text("Body is not a JSON object.", status=HTTPStatus.BAD_REQUEST)
        if body.get("type") == "url_verification":
            return response.json({"challenge": body.get("challenge", "")})
        event_id = body.get("event_id")
        try:
            first = not event_id or await self.seen_events.claim(str(event_id))
        except SeenStoreDown as exc:
            logger.error("Slack event %s not taken: %s", event_id, exc)
            return response.text(
                f"Cannot tell whether this event was answered already ({exc}); retry later.",
                status=HTTPStatus.SERVICE_UNAVAILABLE,
            )
        if not first:
            retry = request.headers.get(self.retry_num_header)
            reason = request.headers.get(self.retry_reason_header)
            logger.info("Slack event %s already taken (retry %s, %s); not answering again.", event_id, retry, reason)
            return response.text("", status=HTTPStatus.OK, headers={"X-Slack-No-Retry": "1"})
        return None


def _other(name: str) -> str:
    return SIGNING_SECRET_ENV if name == TOKEN_ENV else TOKEN_ENV
