"""The framework's floor, for the API bench: what a POST costs when it does no work.

The same FastAPI, the same uvicorn, the same request body model and the same paths as
`api.app`, but `POST /v1/recommendations` only validates the profile and returns the
bytes of one real recommendation, made once at start-up. Measured in the same run as
the real server, it shows how much of the target ratio the framework itself uses, and
so how many microseconds per request are left for the work (bench/api.py prints both).
Nothing here is part of the service.
"""

from __future__ import annotations

from fastapi import FastAPI, Response

from rules.engine import recommend
from rules.models import WorkloadProfile

_SAMPLE = WorkloadProfile(workload="training", gpu_count=1024, gpu_model="H100", model_params_b=70)
RECOMMENDATION_BYTES = recommend(_SAMPLE).model_dump_json().encode()

app = FastAPI(title="Fabric Advisor bench floor")


@app.get("/healthz")
async def healthz() -> dict[str, str]:
    return {"status": "ok"}


@app.post("/v1/recommendations", status_code=201)
async def validated_body_only(profile: WorkloadProfile) -> Response:
    return Response(RECOMMENDATION_BYTES, status_code=201, media_type="application/json")
