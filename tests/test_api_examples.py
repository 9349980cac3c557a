"""The error examples the OpenAPI schema shows are what the API answers."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient

from api.app import create_app
from api.config import ApiConfig
from api.schemas import Problem, SubjectNotFound, ValidationIssue


@pytest.fixture(scope="module")
def client() -> TestClient:
    return TestClient(create_app(ApiConfig()))


def example(model: type, field: str) -> object:
    return model.model_fields[field].examples[0]


def test_the_not_found_example_is_the_real_message(client: TestClient) -> None:
    assert client.get("/v1/recommendations/r_00000000").json() == {"detail": example(Problem, "detail")}


def test_the_validation_example_is_the_real_message(client: TestClient) -> None:
    response = client.post("/v1/recommendations", json={"workload": "training", "gpu_count": 5_000_000})
    assert response.status_code == 422
    issue = response.json()["detail"][0]
    assert issue["loc"] == example(ValidationIssue, "loc")
    assert issue["msg"] == example(ValidationIssue, "msg")
    assert issue["type"] == example(ValidationIssue, "type")


def test_the_unknown_subject_example_reads_like_the_real_answer(client: TestClient) -> None:
    body = client.get("/v1/knowledge/switches").json()
    shown = example(SubjectNotFound, "subjects")
    assert isinstance(shown, list) and set(shown) <= set(body["subjects"])
    assert body["detail"] == "Unknown subject 'switches'; choose one of: " + ", ".join(body["subjects"])
    assert example(SubjectNotFound, "detail") == "Unknown subject 'switches'; choose one of: " + ", ".join(shown)
