"""Recommendations: create one from a workload profile, fetch it by its shareable id,
draw its topology as SVG.
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Body, HTTPException, Path, Response

from advisor.render.svg import topology_svg
from api.deps import Service
from api.schemas import Problem, ValidationProblem, json_error, json_model
from rules.models import Recommendation, WorkloadProfile

router = APIRouter(prefix="/v1/recommendations", tags=["recommendations"])

PROFILE_EXAMPLES = {
    "pretraining": {
        "summary": "Pretraining a 70B model on 128 H100s",
        "value": {"workload": "training", "gpu_count": 128, "gpu_model": "H100", "model_params_b": 70},
    },
    "inference": {
        "summary": "Serving on 16 L40S nodes, cost first",
        "value": {"workload": "inference", "node_count": 16, "gpu_model": "L40S", "cost_sensitive": True},
    },
    "ethernet shop": {
        "summary": "Fine-tuning on 512 GPUs where Ethernet already runs",
        "value": {
            "workload": "training",
            "gpu_count": 512,
            "gpus_per_node": 8,
            "model_params_b": 13,
            "budget_usd": 20000000,
            "existing_ethernet": True,
            "prefer": "rocev2",
        },
    },
}

RecId = Annotated[
    str,
    Path(
        description="The id a recommendation was stored under.",
        min_length=1,
        max_length=64,
        pattern=r"^[A-Za-z0-9_.-]+$",
        examples=["r_3f9a0c12"],
    ),
]

NOT_FOUND: dict[int | str, dict[str, Any]] = {
    404: {"model": Problem, "description": "No recommendation has this id."},
    422: {"model": ValidationProblem, "description": "The id has characters ids never have."},
}


class SVGResponse(Response):
    media_type = "image/svg+xml"


@router.post(
    "",
    status_code=201,
    response_model=Recommendation,
    summary="Recommend a fabric for a workload",
    responses={
        201: {
            "description": "The stored recommendation; `Location` is where to fetch it again.",
            "headers": {
                "Location": {
                    "description": "Path of the stored recommendation.",
                    "schema": {"type": "string", "example": "/v1/recommendations/r_3f9a0c12"},
                }
            },
        },
        413: {"model": Problem, "description": "Body over 64 KiB."},
        422: {"model": ValidationProblem, "description": "A profile field is missing or out of range."},
    },
)
async def create_recommendation(
    profile: Annotated[WorkloadProfile, Body(openapi_examples=PROFILE_EXAMPLES)],
    service: Service,
) -> Response:
    """Size the fabric for a workload: technology, topology, ports per server, switch and
    cable counts, cost range and all-reduce time, with the rule behind every choice.
    Every recommendation is stored; its `id` is a link a sales engineer can share."""
    recommendation = service.recommend(profile)
    return json_model(recommendation, status_code=201, headers={"Location": f"{router.prefix}/{recommendation.id}"})


@router.get("/{rec_id}", summary="Fetch a stored recommendation", response_model=Recommendation, responses=NOT_FOUND)
async def get_recommendation(rec_id: RecId, service: Service) -> Response:
    """The recommendation exactly as it was returned when it was made."""
    return json_model(_stored(service, rec_id))


@router.get(
    "/{rec_id}/diagram.svg",
    summary="Topology diagram of a recommendation",
    response_class=SVGResponse,
    responses={
        200: {"content": {"image/svg+xml": {"schema": {"type": "string"}}}, "description": "An SVG image."},
        401: json_error(Problem, "API key missing or wrong (only when the server sets one)."),
        404: json_error(Problem, "No recommendation has this id."),
        422: json_error(ValidationProblem, "The id has characters ids never have."),
    },
)
async def get_diagram(rec_id: RecId, service: Service) -> SVGResponse:
    """The recommended topology drawn as SVG: switch tiers, counts and links."""
    return SVGResponse(topology_svg(_stored(service, rec_id)))


def _stored(service: Service, rec_id: str) -> Recommendation:
    recommendation = service.get_recommendation(rec_id)
    if recommendation is None:
        raise HTTPException(404, detail=f"No recommendation has the id {rec_id!r}; check the id you were given.")
    return recommendation
