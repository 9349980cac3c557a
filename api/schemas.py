"""Response bodies that belong to the API alone (errors, health, search wrappers).

The domain bodies are the contract models themselves (`rules.models`,
`advisor.models`, `knowledge.Entry`): the API publishes exactly what the engine returns.
"""

from __future__ import annotations

from typing import Any, Literal

from fastapi import Response
from pydantic import BaseModel, ConfigDict, Field

from knowledge import Entry


class Health(BaseModel):
    status: Literal["ok"] = Field(description="Always `ok` while the process serves.", examples=["ok"])


class Problem(BaseModel):
    """Every error but validation: one sentence that says what went wrong and what to do."""

    detail: str = Field(
        description="What went wrong and how to fix the request.",
        examples=[
            "No recommendation has the id 'r_00000000'; check the id you were given. Recommendations are kept "
            "for 90 days: an older one is gone, so size the workload again."
        ],
    )


class ValidationIssue(BaseModel):
    loc: list[str | int] = Field(
        description="Where the problem is: `body`, `query` or `path`, then the field.",
        examples=[["body", "gpu_count"]],
    )
    msg: str = Field(
        description="The field, what is wrong with it, and the allowed values.",
        examples=["gpu_count: must be at most 1,000,000 (got 5000000); allowed: 1 to 1,000,000"],
    )
    type: str = Field(description="Pydantic's error type.", examples=["less_than_equal"])


class ValidationProblem(BaseModel):
    """FastAPI's 422 body (a `detail` list), with a message per item a person can act on."""

    detail: list[ValidationIssue] = Field(description="One item per problem in the request.")


class SubjectNotFound(BaseModel):
    detail: str = Field(
        description="Which subject was not found.",
        examples=["Unknown subject 'switches'; choose one of: faq, glossary, hardware, technologies, topologies"],
    )
    subjects: list[str] = Field(
        description="The subjects that exist.",
        examples=[["faq", "glossary", "hardware", "technologies", "topologies"]],
    )


class FaqResults(BaseModel):
    """Knowledge-base entries that answer a question, best first, each with its source."""

    model_config = ConfigDict(extra="forbid")
    query: str = Field(description="The question as searched.", examples=["what is PFC?"])
    results: list[Entry] = Field(description="Matching entries, best first; empty when nothing matches.")


class KnowledgeSubject(BaseModel):
    """Every entry of one knowledge subject, as the knowledge base stores it."""

    model_config = ConfigDict(extra="forbid")
    subject: str = Field(description="The subject listed.", examples=["glossary"])
    entries: list[dict[str, Any]] = Field(
        description="The subject's entries; each carries its `source`.",
        examples=[
            [
                {
                    "id": "glossary/pfc",
                    "title": "PFC",
                    "text": "Priority Flow Control ...",
                    "source": "Seed guide, 'Priority Flow Control (PFC)'",
                }
            ]
        ],
    )


def json_error(model: type[BaseModel], description: str) -> dict[str, Any]:
    """An error response documented as JSON on a route whose success is not JSON.

    FastAPI files a `model` response under the route's own media type, which for the
    SVG diagram would be wrong; this points at the component schema directly (the
    model is registered by the routes that use it with `model`).
    """
    return {
        "description": description,
        "content": {"application/json": {"schema": {"$ref": f"#/components/schemas/{model.__name__}"}}},
    }


def json_model(model: BaseModel, status_code: int = 200, headers: dict[str, str] | None = None) -> Response:
    """A model already validated by our code, serialised once by pydantic-core.

    Endpoints declare their `response_model` for the OpenAPI document but return this,
    so FastAPI does not validate and serialise the same large model a second time."""
    return Response(model.model_dump_json(), status_code=status_code, headers=headers, media_type="application/json")
