"""The knowledge base over HTTP: FAQ search with sources, subjects by name."""

from __future__ import annotations

import httpx
import pytest


def test_faq_returns_entries_with_sources(client: httpx.Client) -> None:
    response = client.get("/v1/faq", params={"q": "what is PFC?"})
    assert response.status_code == 200
    body = response.json()
    assert body["query"] == "what is PFC?"
    assert body["results"], "PFC is in the knowledge base"
    for entry in body["results"]:
        assert entry["source"] and entry["text"] and entry["title"]


def test_faq_limit_caps_the_results(client: httpx.Client) -> None:
    body = client.get("/v1/faq", params={"q": "InfiniBand Ethernet RoCE cost latency", "limit": 2}).json()
    assert len(body["results"]) <= 2


@pytest.mark.parametrize(
    ("params", "field", "words"),
    [
        ({}, "q", ["required"]),
        ({"q": ""}, "q", ["1 to 500"]),
        ({"q": "x" * 501}, "q", ["1 to 500"]),
        ({"q": "pfc", "limit": 0}, "limit", ["1 to 20"]),
        ({"q": "pfc", "limit": 21}, "limit", ["1 to 20"]),
    ],
)
def test_faq_bad_query_is_422_naming_the_parameter(
    client: httpx.Client,
    params: dict,
    field: str,
    words: list[str],
) -> None:
    response = client.get("/v1/faq", params=params)
    assert response.status_code == 422
    (item,) = response.json()["detail"]
    assert item["loc"] == ["query", field]
    for word in words:
        assert word in item["msg"], item


def test_subjects_are_listed_and_each_one_served(client: httpx.Client) -> None:
    subjects = client.get("/v1/knowledge").json()
    assert {"technologies", "topologies", "glossary", "hardware"} <= set(subjects)
    for name in subjects:
        response = client.get(f"/v1/knowledge/{name}")
        assert response.status_code == 200, name
        body = response.json()
        assert body["subject"] == name and isinstance(body["entries"], list)


def test_unknown_subject_is_404_listing_the_valid_ones(client: httpx.Client) -> None:
    response = client.get("/v1/knowledge/switchgear")
    assert response.status_code == 404
    body = response.json()
    assert "switchgear" in body["detail"]
    assert "glossary" in body["subjects"] and "glossary" in body["detail"]
