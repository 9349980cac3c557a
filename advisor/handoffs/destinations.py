"""Where a handoff is sent: a Slack channel, an email over SMTP, a webhook.

Each destination is configured by its settings (core/settings.py, FABRIC_ADVISOR_HANDOFF_*,
docs/handoff.md) and is left out when they are not all set. The configured ones are tried
at the same time, each with FABRIC_ADVISOR_HANDOFF_TIMEOUT seconds per network operation,
and the whole sending waits at most twice that: a destination that has not answered by
then is reported as not reached (its thread finishes on its own), so a chat turn is never
held for long. Every destination's outcome is returned, reached or not and why, for the
store and for the reply.

- Slack: Slack's Web API `chat.postMessage` with a bot token (`Authorization: Bearer`),
  which answers HTTP 200 with `{"ok": false, "error": ...}` on a refusal
  (https://api.slack.com/methods/chat.postMessage, Slack's Web API reference).
- Email: one message over SMTP (RFC 5321), upgraded with STARTTLS (RFC 3207) when asked,
  with a login when a user is set.
- Webhook: the handoff as JSON in a POST; any 2xx answer counts as received.
"""

from __future__ import annotations

import smtplib
import ssl
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor, wait
from email.message import EmailMessage
from enum import StrEnum
from typing import Any

import httpx
from pydantic import BaseModel, ConfigDict, Field

from core.settings import Settings


class Destination(StrEnum):
    email = "email"
    slack = "slack"
    webhook = "webhook"


#: how the reply names each destination ("by email and Slack")
SPOKEN = {Destination.email: "email", Destination.slack: "Slack", Destination.webhook: "the webhook"}


class Delivery(BaseModel):
    """What one destination answered."""

    model_config = ConfigDict(extra="forbid")
    destination: Destination = Field(description="Where the handoff was sent.", examples=["email"])
    reached: bool = Field(description="Whether the destination accepted it.", examples=[True])
    detail: str = Field(
        description="What happened: who received it, or why it was not reached.",
        examples=["accepted by smtp.example.com for sales@example.com"],
    )


class Notice(BaseModel):
    """The handoff as the destinations get it."""

    subject: str
    text: str
    payload: dict[str, Any]


def configured(config: Settings) -> list[Destination]:
    """The destinations whose settings are all given, in the order they are named."""
    found = []
    if config.handoff_email_to and config.handoff_smtp_host and config.handoff_email_from:
        found.append(Destination.email)
    if config.handoff_slack_token and config.handoff_slack_channel:
        found.append(Destination.slack)
    if config.handoff_webhook_url:
        found.append(Destination.webhook)
    return found


def _reason(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


def send_email(notice: Notice, config: Settings) -> Delivery:
    host, port = config.handoff_smtp_host or "", config.handoff_smtp_port
    recipients = [address.strip() for address in (config.handoff_email_to or "").split(",") if address.strip()]
    message = EmailMessage()
    message["Subject"] = notice.subject
    message["From"] = config.handoff_email_from or ""
    message["To"] = ", ".join(recipients)
    message.set_content(notice.text)
    try:
        with smtplib.SMTP(host, port, timeout=config.handoff_timeout_s) as smtp:
            if config.handoff_smtp_starttls:
                smtp.starttls(context=ssl.create_default_context())
            if config.handoff_smtp_user:
                smtp.login(config.handoff_smtp_user, config.handoff_smtp_password or "")
            refused = smtp.send_message(message, to_addrs=recipients)
    except (OSError, smtplib.SMTPException) as exc:
        return Delivery(destination=Destination.email, reached=False, detail=f"{host}:{port}: {_reason(exc)}")
    accepted = [address for address in recipients if address not in refused]
    return Delivery(
        destination=Destination.email,
        reached=bool(accepted),
        detail=f"accepted by {host}:{port} for {', '.join(accepted)}"
        + (f"; refused for {', '.join(refused)}" if refused else ""),
    )


def send_slack(notice: Notice, config: Settings) -> Delivery:
    url = f"{config.handoff_slack_api_url.rstrip('/')}/chat.postMessage"
    try:
        response = httpx.post(
            url,
            json={"channel": config.handoff_slack_channel, "text": notice.text, "unfurl_links": False},
            headers={"Authorization": f"Bearer {config.handoff_slack_token}"},
            timeout=config.handoff_timeout_s,
        )
        answer = response.json() if response.headers.get("content-type", "").startswith("application/json") else {}
    except (httpx.HTTPError, ValueError) as exc:
        return Delivery(destination=Destination.slack, reached=False, detail=f"{url}: {_reason(exc)}")
    if response.status_code == 200 and answer.get("ok") is True:
        return Delivery(destination=Destination.slack, reached=True, detail=f"posted to {config.handoff_slack_channel}")
    error = answer.get("error") or f"HTTP {response.status_code}"
    return Delivery(destination=Destination.slack, reached=False, detail=f"Slack refused the message: {error}")


def send_webhook(notice: Notice, config: Settings) -> Delivery:
    url = config.handoff_webhook_url or ""
    try:
        response = httpx.post(url, json=notice.payload, timeout=config.handoff_timeout_s)
    except httpx.HTTPError as exc:
        return Delivery(destination=Destination.webhook, reached=False, detail=f"{url}: {_reason(exc)}")
    if response.is_success:
        return Delivery(destination=Destination.webhook, reached=True, detail=f"{url} answered {response.status_code}")
    return Delivery(destination=Destination.webhook, reached=False, detail=f"{url} answered {response.status_code}")


SENDERS: dict[Destination, Callable[[Notice, Settings], Delivery]] = {
    Destination.email: send_email,
    Destination.slack: send_slack,
    Destination.webhook: send_webhook,
}


def send_all(notice: Notice, config: Settings) -> list[Delivery]:
    """Send notice to every configured destination at once; each one's outcome, in order."""
    targets = configured(config)
    if not targets:
        return []
    budget = 2 * config.handoff_timeout_s
    pool = ThreadPoolExecutor(max_workers=len(targets), thread_name_prefix="handoff")
    try:
        futures = {target: pool.submit(SENDERS[target], notice, config) for target in targets}
        wait(futures.values(), timeout=budget)
    finally:
        pool.shutdown(wait=False)  # a destination still talking is not waited for
    outcomes = []
    for target, future in futures.items():
        if not future.done():
            outcomes.append(Delivery(destination=target, reached=False, detail=f"no answer within {budget:g} s"))
        elif (error := future.exception()) is not None:
            outcomes.append(Delivery(destination=target, reached=False, detail=_reason(error)))
        else:
            outcomes.append(future.result())
    return outcomes
