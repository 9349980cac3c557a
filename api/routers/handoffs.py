"""Handoffs: ask for a person ("talk to an engineer"), as the chat does.

The request is stored and sent to every configured destination (Slack, email, webhook)
by advisor/handoffs/handoff.py, the same function the chat and `fabric-advisor handoff` call; the
answer carries the reference, each destination's outcome and the reply the chat gives.
"""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Body, HTTPException, Response
from fastapi.concurrency import run_in_threadpool

from advisor.handoffs import handoff
from api.schemas import Problem, ValidationProblem, json_model

router = APIRouter(prefix="/v1/handoffs", tags=["handoffs"])

HANDOFF_EXAMPLE = {
    "name": "Jane Doe",
    "email": "jane@acme.example",
    "company": "Acme AI Lab",
    "message": "We need a quote for this design by Friday.",
}


@router.post(
    "",
    status_code=201,
    response_model=handoff.Handoff,
    summary="Hand a request to the sales engineering team",
    responses={
        201: {
            "description": "Recorded; `deliveries` says which destinations received it and `reply` says so in words "
            "(a request no destination received is still recorded, with `notified` false)."
        },
        404: {"model": Problem, "description": "`recommendation_id` names no stored recommendation."},
        413: {"model": Problem, "description": "Body over 64 KiB."},
        422: {"model": ValidationProblem, "description": "A contact detail is missing or the email is malformed."},
        503: {"model": Problem, "description": "The store cannot be reached; nothing was recorded or sent."},
    },
)
async def post_handoff(
    body: Annotated[
        handoff.HandoffRequest,
        Body(openapi_examples={"a quote": {"summary": "A customer asking for a quote", "value": HANDOFF_EXAMPLE}}),
    ],
) -> Response:
    """Record who wants to talk to an engineer and about what, and send it to the
    configured destinations, each within FABRIC_ADVISOR_HANDOFF_TIMEOUT seconds."""
    try:
        done = await run_in_threadpool(handoff.submit, body)
    except handoff.UnknownRecommendation as exc:
        raise HTTPException(404, detail=f"{exc}; leave recommendation_id out or size the workload again.") from exc
    return json_model(done, status_code=201)
