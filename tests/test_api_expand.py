"""POST /v1/recommendations/{id}/expand on the real HTTP server: a stored design grown to
more GPUs keeps its switches, lists only what is added, stores the larger design, and
says what must be re-cabled where the larger size crosses a tier boundary."""

from __future__ import annotations

import httpx
import pytest

B200_4SU = {"workload": "training", "gpu_count": 1024, "gpu_model": "B200"}


@pytest.fixture(scope="module")
def stored(api) -> dict:
    created = httpx.post(api.url + "/v1/recommendations", json=B200_4SU, timeout=60)
    assert created.status_code == 201
    return created.json()


def _expand(client: httpx.Client, rec_id: str, gpus: object) -> httpx.Response:
    return client.post(f"/v1/recommendations/{rec_id}/expand", json={"gpus": gpus}, timeout=60)


def test_one_more_su_lists_only_the_added_switches_and_stores_the_larger_design(
    client: httpx.Client, stored: dict
) -> None:
    response = _expand(client, stored["id"], 1280)
    assert response.status_code == 201
    body = response.json()
    assert body["from_id"] == stored["id"] and body["gpus_before"] == 1024
    step = body["step"]
    assert (step["gpus"], step["gpus_added"], step["servers_added"]) == (1280, 256, 32)
    assert step["leaf_switches_added"] == 8  # one leaf per rail for the fifth SU
    larger = client.get(response.headers["location"]).json()
    assert larger["id"] == body["id"] != stored["id"]
    assert larger["profile"]["gpu_count"] == 1280
    assert larger["fabric"]["switch_model"] == stored["fabric"]["switch_model"]
    assert step["switches_added"] == larger["topology"]["leaf_switches"] + larger["topology"]["spine_switches"] + (
        larger["topology"]["core_switches"]
    ) - (
        stored["topology"]["leaf_switches"] + stored["topology"]["spine_switches"] + stored["topology"]["core_switches"]
    )
    compute = [line for line in step["added"] if line["fabric"] == "compute" and line["category"] == "switch"]
    assert sum(line["quantity"] for line in compute) == step["switches_added"]


def test_crossing_into_three_tiers_says_what_is_re_cabled(client: httpx.Client, stored: dict) -> None:
    body = _expand(client, stored["id"], 4096).json()
    assert body["keeps_cabling"] is False
    assert any("third tier" in why for why in body["step"]["recabling"])
    assert body["step"]["core_switches_added"] > 0


def test_filling_the_last_su_only_adds(client: httpx.Client) -> None:
    created = client.post(
        "/v1/recommendations", json={"workload": "training", "gpu_count": 1000, "gpu_model": "H100"}, timeout=60
    ).json()
    body = _expand(client, created["id"], 1016).json()
    assert body["keeps_cabling"] is True and body["step"]["recabling"] == []
    assert body["step"]["switches_added"] == 0


@pytest.mark.parametrize("gpus", [1024, 512])
def test_not_more_gpus_than_stored_is_a_422_that_says_so(client: httpx.Client, stored: dict, gpus: int) -> None:
    response = _expand(client, stored["id"], gpus)
    assert response.status_code == 422
    assert "more than 1,024" in response.text
    assert "gpus" in response.text


def test_an_unknown_id_is_404(client: httpx.Client) -> None:
    response = _expand(client, "r_000000000000", 2048)
    assert response.status_code == 404
    assert "r_000000000000" in response.json()["detail"]


@pytest.mark.parametrize("gpus", [0, "many", None])
def test_a_bad_gpus_value_is_a_422(client: httpx.Client, stored: dict, gpus: object) -> None:
    assert _expand(client, stored["id"], gpus).status_code == 422
