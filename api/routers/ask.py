"""POST /v1/ask: a question in plain words, answered the way the chat answers it."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Body, Request, Response

from advisor.models import AskRequest, AskResult
from api import offload
from api.deps import Service
from api.schemas import Problem, ValidationProblem, json_model

router = APIRouter(prefix="/v1", tags=["ask"])

ASK_EXAMPLES = {
    "sizing": {
        "summary": "A workload: gets a recommendation",
        "value": {"question": "We are pretraining a 70B model on 128 H100s. What network do we need?"},
    },
    "question": {
        "summary": "A question: gets an answer with its source",
        "value": {"question": "What is PFC?"},
    },
    "follow-up": {
        "summary": "A follow-up turn, with the profile of earlier turns",
        "value": {"question": "It is for training.", "profile": {"gpu_count": 256, "gpu_model": "H200"}},
    },
}


@router.post(
    "/ask",
    summary="Ask in plain words",
    response_model=AskResult,
    responses={
        413: {"model": Problem, "description": "Body over 64 KiB."},
        422: {
            "model": ValidationProblem,
            "description": "Question empty or over 2,000 characters, or a bad profile field.",
        },
    },
)
async def ask(
    body: Annotated[AskRequest, Body(openapi_examples=ASK_EXAMPLES)], service: Service, request: Request
) -> Response:
    """Understands a workload description or a question. `kind` says what came back:
    a `recommendation` when the workload is complete, an `answer` from the knowledge
    base, or a `clarification` naming what is `missing`. Send the returned `profile`
    with the next question to carry the conversation on."""
    return await offload.run(
        request,
        lambda: json_model(service.ask(body.question, body.profile, body.recommendation_id, body.context)),
    )
