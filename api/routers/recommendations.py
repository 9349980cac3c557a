"""Recommendations: create one from a workload profile (optionally quoted for a
customer, with their prices and discount), fetch it by its shareable id, draw its
topology as SVG, export its bill of materials as CSV or XLSX or its cabling plan as CSV,
print it as a report (HTML or PDF), and file a "this looks wrong" report against it.
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Body, HTTPException, Path, Request, Response
from fastapi.concurrency import run_in_threadpool
from fastapi.exceptions import RequestValidationError
from fastapi.responses import StreamingResponse
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from advisor.designs.quote import RecommendationRequest
from advisor.render.bom import bom_csv
from advisor.render.cabling import NO_FABRIC, cabling_build, cabling_csv
from advisor.render.pdf import report_pdf
from advisor.render.report import report_html
from advisor.render.svg import topology_svg
from advisor.render.xlsx import bom_xlsx
from advisor.storage import feedback
from api import offload
from api.deps import Service
from api.schemas import Problem, ValidationProblem, json_error, json_model
from core.settings import settings
from rules.models import MAX_GPUS, Expansion, Recommendation

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
    "a quote": {
        "summary": "A quote for a customer, with their switch price and a discount",
        "value": {
            "workload": "training",
            "gpu_count": 128,
            "gpu_model": "H100",
            "prepared_for": "Acme AI Lab",
            "prices": {"MQM9700-NS2F": 41000},
            "discount_pct": 8,
        },
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

FEEDBACK_EXAMPLE = {"reason": "The spine count looks low for 1,024 GPUs."}

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


class CSVResponse(Response):
    media_type = "text/csv; charset=utf-8"


class HTMLReportResponse(Response):
    media_type = "text/html; charset=utf-8"


class PDFResponse(Response):
    media_type = "application/pdf"


XLSX_TYPE = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"


class XLSXResponse(Response):
    media_type = XLSX_TYPE


def _non_json(media_type: str, description: str) -> dict[int | str, Any]:
    """The responses of an endpoint whose success is not JSON, its errors JSON."""
    return {
        200: {"content": {media_type: {"schema": {"type": "string"}}}, "description": description},
        401: json_error(Problem, "API key missing or wrong (only when the server sets one)."),
        404: json_error(Problem, "No recommendation has this id."),
        422: json_error(ValidationProblem, "The id has characters ids never have."),
    }


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
        422: {
            "model": ValidationProblem,
            "description": "A profile field is missing or out of range, or `prices` names a part number the price "
            "book does not know.",
        },
    },
)
async def create_recommendation(
    body: Annotated[RecommendationRequest, Body(openapi_examples=PROFILE_EXAMPLES)],
    service: Service,
    request: Request,
) -> Response:
    """Size the fabric for a workload: technology, topology, ports per server, switch and
    cable counts, cost range and all-reduce time, with the rule behind every choice.
    Every recommendation is stored; its `id` is a link a sales engineer can share.
    `prepared_for`, `prices` (part number -> unit price, USD) and `discount_pct` make it
    a quote for a customer: their prices replace the price book's, the discount is its
    own line."""
    try:
        recommendation = await offload.run(request, service.recommend, body.profile(), terms=body.terms())
    except ValidationError as exc:  # the profile does not fit the server it names (rules.servers)
        raise RequestValidationError([{**e, "loc": ("body", *e["loc"])} for e in exc.errors()]) from None
    return json_model(recommendation, status_code=201, headers={"Location": f"{router.prefix}/{recommendation.id}"})


@router.get("/{rec_id}", summary="Fetch a stored recommendation", response_model=Recommendation, responses=NOT_FOUND)
async def get_recommendation(rec_id: RecId, service: Service, request: Request) -> Response:
    """The recommendation exactly as it was returned when it was made."""
    return await offload.run(request, lambda: json_model(_stored(service, rec_id)))


@router.post("/{action}", include_in_schema=False)
async def post_without_an_id(action: str) -> Response:
    """POST /v1/recommendations/feedback (or /expand): an action of a recommendation asked
    with its id left out, as a client does that sends the empty id of a context with no
    design. A 404 that says where the id goes, not a bare 405 from the GET route's path."""
    raise HTTPException(
        404,
        detail=f"No recommendation id was given: POST /v1/recommendations/{{id}}/{action} takes the id of a "
        "recommendation you were given (a design's `id`, or a context's `recommendation_id` once a design is on "
        "the table).",
    )


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
async def get_diagram(rec_id: RecId, service: Service, request: Request) -> SVGResponse:
    """The recommended topology drawn as SVG: switch tiers, counts and links."""
    return SVGResponse(await offload.run(request, lambda: topology_svg(_stored(service, rec_id))))


@router.get(
    "/{rec_id}/bom.csv",
    summary="Bill of materials of a recommendation, as CSV",
    response_class=CSVResponse,
    responses=_non_json(
        "text/csv", "One row per part (network, category, part number, quantity, prices, source), then a total row."
    ),
)
async def get_bom_csv(rec_id: RecId, service: Service, request: Request) -> CSVResponse:
    """Every part of the recommended network with its low and high price, date and
    source, for a spreadsheet or a quote."""
    return CSVResponse(
        await offload.run(request, lambda: bom_csv(_stored(service, rec_id))),
        headers={"Content-Disposition": f'attachment; filename="{rec_id}-bom.csv"'},
    )


@router.get(
    "/{rec_id}/cabling.csv",
    summary="Cabling plan of a recommendation, as CSV",
    response_class=StreamingResponse,
    responses={
        **_non_json(
            "text/csv",
            "One row per cable of the compute fabric, the storage network (with the storage system's ports), "
            "the in-band network and the out-of-band management network: from device and port, to device and port, tier, plane (a dual-homed network's "
            "side), medium, the part at each end, the cable's part, its length in metres and its network. "
            "Streamed.",
        ),
        409: json_error(Problem, "The design has no compute fabric cabled port by port (one server or rack)."),
    },
)
async def get_cabling_csv(rec_id: RecId, service: Service) -> StreamingResponse:
    """Every cable of the compute fabric as the installer pulls it, with the same parts the
    bill of materials prices (its optics and cable lines are these rows' totals). The
    lengths come from the floor model (the profile's `floor`, or the reference
    architecture's racks and rows)."""
    build = cabling_build(_stored(service, rec_id))
    if build is None:  # the design exists; it has no plan to give (409, not 404: nothing is missing)
        raise HTTPException(409, detail=f"Recommendation {rec_id!r} {NO_FABRIC}.")
    return StreamingResponse(
        cabling_csv(build),
        media_type="text/csv; charset=utf-8",
        headers={"Content-Disposition": f'attachment; filename="{rec_id}-cabling.csv"'},
    )


@router.get(
    "/{rec_id}/report",
    summary="Printable report of a recommendation",
    response_class=HTMLReportResponse,
    responses=_non_json("text/html", "A self-contained HTML page, laid out to print on A4."),
)
async def get_report(rec_id: RecId, service: Service, request: Request) -> HTMLReportResponse:
    """The design, its diagram, the bill of materials with totals, the reasons with their
    sources, the assumptions and the price book's date: a page to send a customer."""
    return HTMLReportResponse(await offload.run(request, lambda: report_html(_stored(service, rec_id))))


@router.get(
    "/{rec_id}/report.pdf",
    summary="Quote-ready report of a recommendation, as PDF",
    response_class=PDFResponse,
    responses=_non_json("application/pdf", "The report on A4 pages, numbered, rendered on the server."),
)
async def get_report_pdf(rec_id: RecId, service: Service, request: Request) -> PDFResponse:
    """The printable report as a PDF (quote id, date, validity, configuration, bill of
    materials, alternatives side by side), ready to attach to a mail."""
    pdf = await offload.run(request, lambda: report_pdf(_stored(service, rec_id)))
    return PDFResponse(pdf, headers={"Content-Disposition": f'attachment; filename="{rec_id}-report.pdf"'})


@router.get(
    "/{rec_id}/bom.xlsx",
    summary="Bill of materials of a recommendation, as an Excel workbook",
    response_class=XLSXResponse,
    responses=_non_json(
        XLSX_TYPE, "A summary sheet, then one sheet per network (compute, storage, in_band, out_of_band)."
    ),
)
async def get_bom_xlsx(rec_id: RecId, service: Service, request: Request) -> XLSXResponse:
    """Every part with its prices, date and source, a sheet per network, for a
    purchasing team's spreadsheet."""
    return XLSXResponse(
        await offload.run(request, lambda: bom_xlsx(_stored(service, rec_id))),
        headers={"Content-Disposition": f'attachment; filename="{rec_id}-bom.xlsx"'},
    )


@router.post(
    "/{rec_id}/feedback",
    status_code=201,
    response_model=feedback.Feedback,
    summary='Report that a recommendation "looks wrong"',
    responses={
        201: {"description": "The report as filed, with the versions of the data the design used."},
        404: {"model": Problem, "description": "No recommendation has this id."},
        413: {"model": Problem, "description": "Body over 64 KiB."},
        422: {"model": ValidationProblem, "description": "The reason is missing, too short or too long."},
    },
)
async def post_feedback(
    rec_id: RecId,
    body: Annotated[
        feedback.FeedbackRequest,
        Body(openapi_examples={"spines": {"summary": "A count that looks wrong", "value": FEEDBACK_EXAMPLE}}),
    ],
    service: Service,
) -> Response:
    """File what looks wrong with a design; stored with the rulebook, catalogue and price
    book versions it was made from, for the team that maintains them."""
    filed = await run_in_threadpool(feedback.file, _stored(service, rec_id), body.reason)
    return json_model(filed, status_code=201)


class ExpandRequest(BaseModel):
    """How large the expanded cluster is."""

    model_config = ConfigDict(extra="forbid")
    gpus: int = Field(
        ge=1,
        le=MAX_GPUS,
        description="GPUs in the expanded cluster, in all: more than the stored design has.",
        examples=[1280],
    )


@router.post(
    "/{rec_id}/expand",
    status_code=201,
    response_model=Expansion,
    summary="Expand a stored design to more GPUs",
    responses={
        201: {
            "description": "What the expansion adds; the larger design is stored, `Location` is where to fetch it.",
            "headers": {
                "Location": {
                    "description": "Path of the expanded design.",
                    "schema": {"type": "string", "example": "/v1/recommendations/r_9b1e22d0"},
                }
            },
        },
        404: {"model": Problem, "description": "No recommendation has this id."},
        413: {"model": Problem, "description": "Body over 64 KiB."},
        422: {
            "model": ValidationProblem,
            "description": "`gpus` is missing, out of range, or not more than the stored design's GPUs.",
        },
    },
)
async def expand_recommendation(
    rec_id: RecId,
    body: Annotated[
        ExpandRequest,
        Body(openapi_examples={"one more SU": {"summary": "From 1,024 to 1,280 GPUs", "value": {"gpus": 1280}}}),
    ],
    service: Service,
    request: Request,
) -> Response:
    """Grow a stored design to `gpus` GPUs in all, keeping its fabric, switches and
    cabling: the answer lists only the parts added (bill-of-materials lines with the
    quantity added), the switches, cables and cost added, and what must be re-cabled
    where the larger size crosses a tier or switch boundary. The larger design is stored
    under its own id."""
    try:
        expanded = await offload.run(request, service.expand, rec_id, body.gpus)
    except ValidationError as exc:  # the larger profile does not fit the server it names
        raise RequestValidationError([{**e, "loc": ("body", *e["loc"])} for e in exc.errors()]) from None
    except ValueError as exc:  # not more GPUs than stored
        raise RequestValidationError(
            [{"type": "value_error", "loc": ("body", "gpus"), "msg": str(exc), "input": body.gpus}]
        ) from None
    if expanded is None:
        _stored(service, rec_id)  # raises the 404 with its words
    assert expanded is not None
    return json_model(expanded, status_code=201, headers={"Location": f"{router.prefix}/{expanded.id}"})


def _stored(service: Service, rec_id: str) -> Recommendation:
    recommendation = service.get_recommendation(rec_id)
    if recommendation is None:
        raise HTTPException(
            404,
            detail=f"No recommendation has the id {rec_id!r}; check the id you were given. Recommendations are "
            f"kept for {settings.retention_days:g} days: an older one is gone, so size the workload again.",
        )
    return recommendation
