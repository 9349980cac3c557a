"""The knowledge base over HTTP: search it (FAQ) or list a subject."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Path, Query, Request
from fastapi.responses import JSONResponse

from api import offload
from api.deps import Knowledge
from api.schemas import FaqResults, KnowledgeSubject, SubjectNotFound, ValidationProblem

router = APIRouter(prefix="/v1", tags=["knowledge"])


@router.get(
    "/faq",
    summary="Search the knowledge base",
    responses={422: {"model": ValidationProblem, "description": "`q` missing or too long, or `limit` out of range."}},
)
async def faq(
    kb: Knowledge,
    request: Request,
    q: Annotated[
        str,
        Query(min_length=1, max_length=500, description="The question or keywords.", examples=["what is PFC?"]),
    ],
    limit: Annotated[int, Query(ge=1, le=20, description="Most entries to return.", examples=[5])] = 5,
) -> FaqResults:
    """Entries that answer the question, best first, each with its source."""
    return FaqResults(query=q, results=await offload.run(request, kb.search, q, limit=limit))


@router.get("/knowledge", summary="List the knowledge subjects")
async def list_subjects(kb: Knowledge) -> list[str]:
    """The subjects `GET /v1/knowledge/{subject}` lists."""
    return kb.subjects()


@router.get(
    "/knowledge/{subject}",
    summary="Every entry of one subject",
    responses={
        404: {"model": SubjectNotFound, "description": "No such subject; the body lists the valid ones."},
        422: {"model": ValidationProblem, "description": "The subject name is empty or over 64 characters."},
    },
)
async def get_subject(
    kb: Knowledge,
    subject: Annotated[
        str,
        Path(
            min_length=1,
            max_length=64,
            description="technologies, topologies, glossary, hardware, ...",
            examples=["glossary"],
        ),
    ],
) -> KnowledgeSubject:
    try:
        entries = kb.subject(subject)
    except KeyError as unknown:
        valid = getattr(unknown, "valid", None) or kb.subjects()
        return JSONResponse(  # type: ignore[return-value]  # documented as 404 above
            status_code=404,
            content=SubjectNotFound(
                detail=f"Unknown subject {subject!r}; choose one of: {', '.join(valid)}", subjects=valid
            ).model_dump(),
        )
    return KnowledgeSubject(subject=subject, entries=entries)
