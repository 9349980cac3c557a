"""A handoff ("talk to an engineer"): the request recorded, sent on, and told truthfully.

One service function, `submit`, used by the chat (bot/actions/handoff.py), the API
(POST /v1/handoffs) and the CLI (`fabric-advisor handoff`):

1. the request is stored in the advisor's store (advisor/storage/store.py: the SQLite file, or
   PostgreSQL in the replicated mode) under a reference the person is given
   (H- and 8 hex digits), with the design on the table (its recommendation id), the
   conversation id, the contact details and the person's message;
2. it is sent to every configured destination (advisor/handoffs/destinations.py: Slack, email,
   webhook), each within a bounded time, and what each answered is stored with it;
3. the reply says what happened: sent by which channels, or recorded but not sent (none
   configured, or none reached), and then how to reach the team directly. It never says
   someone will get in touch when nobody was told.

An email address is checked for its shape only (one @, a dotted domain, no spaces), as
the only sure check is a mail that arrives; the API answers a malformed one with 422.
"""

from __future__ import annotations

import json
import re
import secrets
from datetime import UTC, datetime

from pydantic import BaseModel, ConfigDict, Field, field_validator

from advisor.handoffs import destinations
from advisor.handoffs.destinations import Delivery, Notice
from advisor.storage import store
from core.settings import Settings, settings
from rules.models import Recommendation

MAX_MESSAGE_CHARS = 2000
#: one @, something before it, a dotted domain after it, no spaces (RFC 5321's shape)
EMAIL = re.compile(r"^[^@\s]+@[^@\s]+\.[^@\s.]+$")
RECOMMENDATION_ID = r"^r_[0-9a-f]{12}$"


def email_problem(text: str) -> str | None:
    """Why text is not an email address, None when it looks like one."""
    if not EMAIL.match(text.strip()):
        return "an email address looks like name@example.com"
    if len(text.strip()) > 254:
        return "an email address has at most 254 characters"
    return None


class HandoffRequest(BaseModel):
    """Who wants to talk to an engineer, how to reach them, and about what."""

    model_config = ConfigDict(extra="forbid", str_strip_whitespace=True)
    name: str = Field(min_length=1, max_length=200, description="The person's name.", examples=["Jane Doe"])
    email: str = Field(description="Where the engineer can write to them.", examples=["jane@acme.example"])
    company: str = Field(min_length=1, max_length=200, description="Their company.", examples=["Acme AI Lab"])
    message: str = Field(
        "",
        max_length=MAX_MESSAGE_CHARS,
        description="What they want to discuss (at most 2,000 characters).",
        examples=["We need a quote for the 128-GPU design by Friday."],
    )
    recommendation_id: str | None = Field(
        None, pattern=RECOMMENDATION_ID, description="The design on the table, if any.", examples=["r_3f9a0c12ab34"]
    )
    conversation_id: str | None = Field(
        None, max_length=200, description="The chat conversation it came from, if any.", examples=["web-4c1d"]
    )
    details: str | None = Field(
        None,
        max_length=MAX_MESSAGE_CHARS,
        description="What the person told the advisor so far (the chat fills this in).",
        examples=["workload training; GPUs 128."],
    )

    @field_validator("email")
    @classmethod
    def _looks_like_an_email(cls, value: str) -> str:
        if problem := email_problem(value):
            raise ValueError(problem)
        return value.strip()


class Handoff(BaseModel):
    """A recorded handoff and what became of it."""

    model_config = ConfigDict(extra="forbid")
    reference: str = Field(description="The handoff's reference, to quote.", examples=["H-3F9A0C12"])
    created_at: str = Field(description="When it was recorded (UTC, ISO 8601).", examples=["2026-12-05T08:01:02+00:00"])
    request: HandoffRequest = Field(description="What was asked for, as recorded.")
    deliveries: list[Delivery] = Field(description="Each configured destination and whether it was reached.")
    notified: bool = Field(description="Whether at least one destination received it.", examples=[True])
    reply: str = Field(
        description="What happened, in the words the chat uses.",
        examples=["Sent to the sales engineering team by email and Slack; reference H-3F9A0C12."],
    )


class UnknownRecommendation(LookupError):
    """The handoff names a design the store does not hold (or no longer holds)."""


def new_reference() -> str:
    return "H-" + secrets.token_hex(4).upper()


def _design_line(rec: Recommendation, config: Settings) -> str:
    cost = rec.cost
    return (
        f"{rec.id}: {rec.fabric.name}, {rec.topology.tiers}-tier {rec.topology.kind.value.replace('_', '-')}, "
        f"network ${cost.network_usd_low:,}-${cost.network_usd_high:,} "
        f"({config.public_url}/v1/recommendations/{rec.id})"
    )


def notice(reference: str, request: HandoffRequest, rec: Recommendation | None, config: Settings) -> Notice:
    """The handoff as the team reads it (mail and Slack text) and as a webhook gets it (JSON)."""
    lines = [
        f"Handoff {reference}: {request.name} ({request.company}) would like to talk to an engineer.",
        f"Contact: {request.name}, {request.email}, {request.company}",
        f"Message: {request.message or '(none)'}",
        f"Design: {_design_line(rec, config) if rec else 'none yet'}",
    ]
    if request.details:
        lines.append(f"Details given: {request.details}")
    if request.conversation_id:
        lines.append(f"Conversation: {request.conversation_id}")
    payload = {"reference": reference, **request.model_dump(), "design_url": None}
    if rec is not None:
        payload["design_url"] = f"{config.public_url}/v1/recommendations/{rec.id}"
    return Notice(
        subject=f"Handoff {reference}: {request.company} ({request.name})", text="\n".join(lines), payload=payload
    )


def _spoken(items: list[str]) -> str:
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def reply(reference: str, deliveries: list[Delivery], config: Settings) -> str:
    """What the person is told: only what happened."""
    reached = [destinations.SPOKEN[d.destination] for d in deliveries if d.reached]
    missed = [destinations.SPOKEN[d.destination] for d in deliveries if not d.reached]
    team = config.handoff_team
    direct = (
        f"please contact {team} at {config.handoff_contact} and quote {reference}"
        if config.handoff_contact
        else f"please contact {team} directly and quote {reference}"
    )
    if reached:
        text = f"Sent to {team} by {_spoken(reached)}; reference {reference}."
        if missed:
            text += f" ({_spoken(missed)} could not be reached.)"
        return text
    if not deliveries:
        return f"Recorded as {reference}, but no destination is configured, so nobody has been notified yet: {direct}."
    return (
        f"Recorded as {reference}, but {_spoken(missed)} could not be reached, so nobody has been notified yet: "
        f"{direct}."
    )


def submit(request: HandoffRequest, config: Settings | None = None) -> Handoff:
    """Record the request, send it to every configured destination, and say what happened.

    Raises UnknownRecommendation when it names a design the store does not hold, and
    store.StoreUnavailable when the store cannot be reached (then nothing was sent)."""
    config = config or settings
    rec = None
    if request.recommendation_id:
        rec = store.load(request.recommendation_id)
        if rec is None:
            raise UnknownRecommendation(f"no stored recommendation has the id {request.recommendation_id}")
    reference = new_reference()
    created_at = datetime.now(UTC).isoformat(timespec="seconds")
    database = store.database()
    database.insert_handoff(
        (
            reference,
            created_at,
            request.recommendation_id,
            request.conversation_id,
            request.name,
            request.email,
            request.company,
            request.message,
            request.details,
            "[]",
        )
    )
    deliveries = destinations.send_all(notice(reference, request, rec, config), config)
    database.record_deliveries(reference, json.dumps([d.model_dump(mode="json") for d in deliveries]))
    return Handoff(
        reference=reference,
        created_at=created_at,
        request=request,
        deliveries=deliveries,
        notified=any(d.reached for d in deliveries),
        reply=reply(reference, deliveries, config),
    )
