"""POST /v1/recommendations stores what it returns; GET by id gives it back, drawn
as SVG too; a bad profile gets a 422 that names the field and its allowed range."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import httpx
import pytest

from tests.test_api_servers import api, client  # noqa: F401  (session server fixtures)

PRETRAINING = {"workload": "training", "gpu_count": 128, "gpu_model": "H100", "model_params_b": 70}


@pytest.fixture(scope="module")
def created(api) -> httpx.Response:  # noqa: F811
    return httpx.post(api.url + "/v1/recommendations", json=PRETRAINING, timeout=30)


def test_create_returns_the_stored_recommendation_with_its_location(created: httpx.Response) -> None:
    assert created.status_code == 201
    body = created.json()
    assert body["id"]
    assert created.headers["location"] == f"/v1/recommendations/{body['id']}"
    assert body["profile"]["gpu_count"] == 128
    assert body["explanation"], "every recommendation says which rules produced it"


def test_get_by_id_returns_the_same_recommendation(client: httpx.Client, created: httpx.Response) -> None:  # noqa: F811
    again = client.get(created.headers["location"])
    assert again.status_code == 200
    assert again.json() == created.json()


def test_diagram_is_an_svg_image(client: httpx.Client, created: httpx.Response) -> None:  # noqa: F811
    response = client.get(created.headers["location"] + "/diagram.svg")
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("image/svg+xml")
    root = ET.fromstring(response.content)
    assert root.tag == "{http://www.w3.org/2000/svg}svg"


@pytest.mark.parametrize(
    "path", ["/v1/recommendations/r_000000000000", "/v1/recommendations/r_000000000000/diagram.svg"]
)
def test_unknown_id_is_404_naming_the_id(client: httpx.Client, path: str) -> None:  # noqa: F811
    response = client.get(path)
    assert response.status_code == 404
    assert response.headers["content-type"] == "application/json"
    assert "r_000000000000" in response.json()["detail"]


@pytest.mark.parametrize(
    ("profile", "field", "words"),
    [
        ({"workload": "training", "gpu_count": 0}, "gpu_count", ["at least 1", "1 to 1,000,000"]),
        ({"workload": "training", "gpu_count": 2_000_000}, "gpu_count", ["1 to 1,000,000"]),
        ({"workload": "training", "gpu_count": 64, "gpus_per_node": 100}, "gpus_per_node", ["1 to 72"]),
        ({"workload": "gaming", "gpu_count": 64}, "workload", ["training", "inference", "mixed"]),
        ({"gpu_count": 64}, "workload", ["required"]),
        ({"workload": "training"}, "gpu_count", ["node_count"]),
        ({"workload": "training", "gpu_count": 10, "node_count": 3}, "gpu_count", ["evenly"]),
        ({"workload": "training", "gpu_count": 8, "colour": "red"}, "colour", ["unknown field", "gpu_count"]),
        ({"workload": "training", "gpu_count": "many"}, "gpu_count", ["integer"]),
        ({"workload": "training", "gpu_count": 8, "existing_ethernet": 0}, "existing_ethernet", ["boolean"]),
    ],
)
def test_bad_profile_is_422_naming_field_and_allowed_values(
    client: httpx.Client,  # noqa: F811
    profile: dict,
    field: str,
    words: list[str],
) -> None:
    response = client.post("/v1/recommendations", json=profile)
    assert response.status_code == 422
    detail = response.json()["detail"]
    assert isinstance(detail, list) and detail
    item = next(i for i in detail if field in i["loc"])
    assert item["msg"].startswith(f"{field}:"), item
    for word in words:
        assert word in item["msg"], item


def test_a_partly_filled_last_server_round_trips(client: httpx.Client) -> None:  # noqa: F811
    """12 GPUs on 8-GPU servers is 2 servers; the stored profile must validate again."""
    created = client.post("/v1/recommendations", json={"workload": "training", "gpu_count": 12})
    assert created.status_code == 201, created.text
    assert created.json()["profile"]["node_count"] == 2
    again = client.get(created.headers["location"])
    assert again.status_code == 200 and again.json() == created.json()


def test_malformed_json_is_422_saying_so(client: httpx.Client) -> None:  # noqa: F811
    response = client.post(
        "/v1/recommendations", content=b'{"workload": ', headers={"content-type": "application/json"}
    )
    assert response.status_code == 422
    assert "not valid JSON" in response.json()["detail"][0]["msg"]


def test_a_json_array_is_422_asking_for_an_object(client: httpx.Client) -> None:  # noqa: F811
    response = client.post("/v1/recommendations", json=[PRETRAINING])
    assert response.status_code == 422
    assert "JSON object" in response.json()["detail"][0]["msg"]
