"""With FABRIC_ADVISOR_API_KEY set, /v1/* wants it in X-API-Key; /healthz stays open.
Without it the API is open, and the docs show the key as optional."""

from __future__ import annotations

import httpx
import pytest

from tests.servers import API_KEY

#: our code in another process (make test runs these; make check leaves them out)
pytestmark = pytest.mark.e2e

CALLS = [
    ("POST", "/v1/recommendations", {"workload": "training", "gpu_count": 16}),
    ("POST", "/v1/ask", {"question": "what is PFC?"}),
    ("GET", "/v1/faq?q=pfc", None),
    ("GET", "/v1/knowledge", None),
    ("GET", "/v1/knowledge/glossary", None),
    ("GET", "/v1/recommendations/r_000000000000", None),
]


@pytest.mark.parametrize(("method", "path", "body"), CALLS)
@pytest.mark.parametrize("key", [None, "wrong", API_KEY[:-1], API_KEY + "x", ""])
def test_without_the_right_key_v1_is_401(keyed_api, method: str, path: str, body: dict | None, key: str | None) -> None:
    headers = {} if key is None else {"X-API-Key": key}
    response = httpx.request(method, keyed_api.url + path, json=body, headers=headers, timeout=30)
    assert response.status_code == 401
    assert "X-API-Key" in response.json()["detail"]
    assert response.headers["www-authenticate"].startswith("APIKey")


@pytest.mark.parametrize(("method", "path", "body"), CALLS)
def test_with_the_key_v1_answers(keyed_api, method: str, path: str, body: dict | None) -> None:
    response = httpx.request(method, keyed_api.url + path, json=body, headers={"X-API-Key": API_KEY}, timeout=30)
    assert response.status_code in {200, 201, 404}  # 404: the made-up recommendation id
    assert response.status_code != 401


def test_healthz_and_docs_stay_open(keyed_api) -> None:
    assert httpx.get(keyed_api.url + "/healthz").json() == {"status": "ok"}
    assert httpx.get(keyed_api.url + "/openapi.json").status_code == 200


def test_openapi_declares_the_key_required_when_set(keyed_api) -> None:
    schema = httpx.get(keyed_api.url + "/openapi.json").json()
    scheme = schema["components"]["securitySchemes"]["APIKeyHeader"]
    assert scheme == {**scheme, "type": "apiKey", "in": "header", "name": "X-API-Key"}
    assert schema["paths"]["/v1/ask"]["post"]["security"] == [{"APIKeyHeader": []}]
    assert "security" not in schema["paths"]["/healthz"]["get"]


def test_openapi_shows_the_key_as_optional_when_unset(api) -> None:
    schema = httpx.get(api.url + "/openapi.json").json()
    assert "APIKeyHeader" in schema["components"]["securitySchemes"]
    assert schema["paths"]["/v1/ask"]["post"]["security"] == [{}, {"APIKeyHeader": []}]
    assert httpx.post(api.url + "/v1/ask", json={"question": "what is PFC?"}).status_code == 200
