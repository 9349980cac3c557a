"""Bodies over 64 KiB get 413 whether they declare their length or stream in chunks;
a body just under the cap is still read; no input makes the server answer 500."""

from __future__ import annotations

import json
from collections.abc import Iterator

import httpx
import pytest

LIMIT = 64 * 1024


def padded(size: int) -> bytes:
    """A JSON object of exactly size bytes (an ask with a long, ignored profile key)."""
    head = b'{"question": "what is PFC?", "pad": "'
    return head + b"x" * (size - len(head) - 2) + b'"}'


def test_declared_length_over_the_cap_is_413(client: httpx.Client) -> None:
    response = client.post("/v1/ask", content=padded(LIMIT + 1), headers={"content-type": "application/json"})
    assert response.status_code == 413
    assert "64 KiB" in response.json()["detail"]


def test_chunked_body_over_the_cap_is_413(client: httpx.Client) -> None:
    def chunks() -> Iterator[bytes]:
        body = padded(LIMIT * 2)
        for i in range(0, len(body), 8192):
            yield body[i : i + 8192]

    request = client.build_request(
        "POST", "/v1/recommendations", content=chunks(), headers={"content-type": "application/json"}
    )
    assert request.headers.get("transfer-encoding") == "chunked" and "content-length" not in request.headers
    response = client.send(request)
    assert response.status_code == 413
    assert "64 KiB" in response.json()["detail"]


def test_body_at_the_cap_is_read_and_validated(client: httpx.Client) -> None:
    response = client.post("/v1/ask", content=padded(LIMIT), headers={"content-type": "application/json"})
    assert response.status_code == 422  # read in full, then refused for the unknown key
    assert response.json()["detail"][0]["loc"] == ["body", "pad"]


def test_small_chunked_body_is_served(client: httpx.Client) -> None:
    body = json.dumps({"question": "what is PFC?"}).encode()
    response = client.post("/v1/ask", content=iter([body[:5], body[5:]]), headers={"content-type": "application/json"})
    assert response.status_code == 200


@pytest.mark.parametrize(
    ("content", "content_type"),
    [
        (b"", "application/json"),
        (b"\xff\xfe\x00", "application/json"),
        (b"null", "application/json"),
        (b'{"question": "what is PFC?"}', "text/plain"),
        (b'{"question": 12}', "application/json"),
        (b'{"question": "a", "profile": {"gpu_count": 1e400}}', "application/json"),
        (b'{"question": "a", "profile": {"model_params_b": NaN}}', "application/json"),
    ],
)
def test_odd_bodies_are_4xx_never_500(client: httpx.Client, content: bytes, content_type: str) -> None:
    response = client.post("/v1/ask", content=content, headers={"content-type": content_type})
    assert 400 <= response.status_code < 500, response.text
    assert response.json()["detail"]


def test_unknown_method_is_405_with_allow(client: httpx.Client) -> None:
    response = client.delete("/v1/ask")
    assert response.status_code == 405
    assert "POST" in response.headers["allow"]
