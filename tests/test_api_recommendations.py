"""POST /v1/recommendations stores what it returns; GET by id gives it back, drawn
as SVG too; a bad profile gets a 422 that names the field and its allowed range."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import httpx
import pytest

PRETRAINING = {"workload": "training", "gpu_count": 128, "gpu_model": "H100", "model_params_b": 70}


@pytest.fixture(scope="module")
def created(api) -> httpx.Response:
    return httpx.post(api.url + "/v1/recommendations", json=PRETRAINING, timeout=30)


def test_create_returns_the_stored_recommendation_with_its_location(created: httpx.Response) -> None:
    assert created.status_code == 201
    body = created.json()
    assert body["id"]
    assert created.headers["location"] == f"/v1/recommendations/{body['id']}"
    assert body["profile"]["gpu_count"] == 128
    assert body["explanation"], "every recommendation says which rules produced it"


def test_get_by_id_returns_the_same_recommendation(client: httpx.Client, created: httpx.Response) -> None:
    again = client.get(created.headers["location"])
    assert again.status_code == 200
    assert again.json() == created.json()


def test_diagram_is_an_svg_image(client: httpx.Client, created: httpx.Response) -> None:
    response = client.get(created.headers["location"] + "/diagram.svg")
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("image/svg+xml")
    root = ET.fromstring(response.content)
    assert root.tag == "{http://www.w3.org/2000/svg}svg"


def test_bom_csv_lists_every_part_of_the_stored_recommendation(
    client: httpx.Client,
    created: httpx.Response,
) -> None:
    import csv
    import io

    response = client.get(created.headers["location"] + "/bom.csv")
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/csv")
    assert "attachment" in response.headers["content-disposition"]
    rows = list(csv.DictReader(io.StringIO(response.text)))
    body = created.json()
    assert len(rows) == len(body["bill_of_materials"]) + 1
    assert [r["part_number"] for r in rows[:-1]] == [line["part_number"] for line in body["bill_of_materials"]]
    assert int(rows[-1]["total_usd_high"]) == body["cost"]["network_usd_high"]


def test_report_is_a_printable_page_with_design_diagram_bom_reasons_and_price_date(
    client: httpx.Client,
    created: httpx.Response,
) -> None:
    response = client.get(created.headers["location"] + "/report")
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/html")
    page = response.text
    body = created.json()
    for section in ("design", "diagram", "cost", "bom", "reasons", "assumptions"):
        assert f"id='{section}'" in page, section
    assert "<svg" in page and "@page" in page
    assert body["bill_of_materials"][0]["part_number"] in page
    assert body["explanation"][0]["rule_id"] in page
    assert body["cost"]["price_book_date"] in page


@pytest.mark.parametrize(
    "path",
    [
        "/v1/recommendations/r_000000000000",
        "/v1/recommendations/r_000000000000/diagram.svg",
        "/v1/recommendations/r_000000000000/bom.csv",
        "/v1/recommendations/r_000000000000/report",
    ],
)
def test_unknown_id_is_404_naming_the_id(client: httpx.Client, path: str) -> None:
    response = client.get(path)
    assert response.status_code == 404
    assert response.headers["content-type"] == "application/json"
    assert "r_000000000000" in response.json()["detail"]


@pytest.mark.parametrize("action", ["feedback", "expand"])
def test_an_action_without_its_id_is_404_saying_where_the_id_goes(client: httpx.Client, action: str) -> None:
    response = client.post(f"/v1/recommendations/{action}", json={"reason": "The spine count looks low."})
    assert response.status_code == 404
    assert f"/v1/recommendations/{{id}}/{action}" in response.json()["detail"]


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
        ({"workload": "training", "gpu_count": 16, "tp": 8, "pp": 4}, "tp", ["tp x pp", "lower tp or pp"]),
        ({"workload": "training", "gpu_count": 16, "message_gb": 0}, "message_gb", ["more than 0", "100,000"]),
    ],
)
def test_bad_profile_is_422_naming_field_and_allowed_values(
    client: httpx.Client,
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


def test_a_partly_filled_last_server_round_trips(client: httpx.Client) -> None:
    """12 GPUs on 8-GPU servers is 2 servers; the stored profile must validate again."""
    created = client.post("/v1/recommendations", json={"workload": "training", "gpu_count": 12})
    assert created.status_code == 201, created.text
    assert created.json()["profile"]["node_count"] == 2
    again = client.get(created.headers["location"])
    assert again.status_code == 200 and again.json() == created.json()


def test_malformed_json_is_422_saying_so(client: httpx.Client) -> None:
    response = client.post(
        "/v1/recommendations", content=b'{"workload": ', headers={"content-type": "application/json"}
    )
    assert response.status_code == 422
    assert "not valid JSON" in response.json()["detail"][0]["msg"]


def test_a_json_array_is_422_asking_for_an_object(client: httpx.Client) -> None:
    response = client.post("/v1/recommendations", json=[PRETRAINING])
    assert response.status_code == 422
    assert "JSON object" in response.json()["detail"][0]["msg"]


def test_the_training_plan_is_an_api_field_and_comes_back_with_its_step(client: httpx.Client) -> None:
    profile = {
        "workload": "training",
        "gpu_count": 16384,
        "gpu_model": "H100",
        "model_params_b": 405,
        "tp": 8,
        "pp": 16,
    }
    created = client.post("/v1/recommendations", json=profile)
    assert created.status_code == 201, created.text
    performance = created.json()["performance"]
    assert (performance["plan"]["tp"], performance["plan"]["pp"], performance["plan"]["dp"]) == (8, 16, 128)
    assert performance["step"]["exposed_share"] < 1
    assert created.json()["fabric_configuration"]["validation"]
