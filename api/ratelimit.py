"""A per-client rate limit: a token bucket per client, 429 with Retry-After when empty.

Each client has a bucket of `burst` tokens that refills at `rate` tokens a second; a
request takes one, and a request that finds none is refused with 429, a `Retry-After`
header (whole seconds until a token is back) and a JSON `detail` that says so. The
client is the API key when the server has one and the request carries it (a key is one
customer, from however many addresses), else the address: the peer's, or, when the
peer is a trusted balancer (FABRIC_ADVISOR_TRUSTED_PROXIES, HAProxy on 127.0.0.1), the
last address in X-Forwarded-For that is not itself a balancer (the one HAProxy saw;
earlier entries are whatever the client wrote).

`/healthz` is never limited: a balancer that probes it must not lock itself out. The
buckets live in the process (each replica counts its own share); idle full buckets are
dropped so a flood of addresses cannot grow the table without end.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import math
import time
from dataclasses import dataclass

from starlette.types import ASGIApp, Receive, Scope, Send

EXEMPT_PATHS = frozenset({"/healthz"})
MAX_CLIENTS = 100_000


@dataclass
class Bucket:
    tokens: float
    updated: float


class RateLimit:
    def __init__(
        self,
        app: ASGIApp,
        rate: float,
        burst: int,
        trusted_proxies: frozenset[str],
        api_key: str | None = None,
    ) -> None:
        self.app = app
        self.rate = rate
        self.burst = burst
        self.trusted = trusted_proxies
        self.api_key = api_key
        self.buckets: dict[str, Bucket] = {}

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or self.rate <= 0 or scope.get("path") in EXEMPT_PATHS:
            await self.app(scope, receive, send)
            return
        wait = self.take(client_of(scope, self.trusted, self.api_key), time.monotonic())
        if wait is None:
            await self.app(scope, receive, send)
            return
        retry_after = max(1, math.ceil(wait))
        body = json.dumps(
            {
                "detail": f"Too many requests from this client: at most {self.rate:g} a second on average "
                f"(bursts of {self.burst}). Try again in {retry_after} s."
            }
        ).encode()
        await send(
            {
                "type": "http.response.start",
                "status": 429,
                "headers": [
                    (b"content-type", b"application/json"),
                    (b"content-length", str(len(body)).encode()),
                    (b"retry-after", str(retry_after).encode()),
                ],
            }
        )
        await send({"type": "http.response.body", "body": body})

    def take(self, client: str, now: float) -> float | None:
        """Take a token for `client`: None when there was one, else the seconds until there is."""
        bucket = self.buckets.get(client)
        if bucket is None:
            if len(self.buckets) >= MAX_CLIENTS:
                self._forget_idle(now)
            bucket = self.buckets[client] = Bucket(tokens=float(self.burst), updated=now)
        bucket.tokens = min(float(self.burst), bucket.tokens + (now - bucket.updated) * self.rate)
        bucket.updated = now
        if bucket.tokens >= 1:
            bucket.tokens -= 1
            return None
        return (1 - bucket.tokens) / self.rate

    def _forget_idle(self, now: float) -> None:
        """Drop the buckets that have refilled (their clients are back to a full burst anyway)."""
        full_after = self.burst / self.rate
        self.buckets = {c: b for c, b in self.buckets.items() if now - b.updated < full_after}
        if len(self.buckets) >= MAX_CLIENTS:  # all busy: a flood; start over rather than grow
            self.buckets.clear()


def client_of(scope: Scope, trusted: frozenset[str], api_key: str | None) -> str:
    """Who is asking: `key:<digest>` for a request carrying the server's key, else `addr:<address>`."""
    headers = dict(scope.get("headers") or ())
    given = headers.get(b"x-api-key")
    if api_key and given is not None and hmac.compare_digest(given, api_key.encode("latin-1")):
        return "key:" + hashlib.sha256(given).hexdigest()[:16]
    peer = (scope.get("client") or ("unknown", 0))[0]
    if peer in trusted:
        forwarded = [a.strip() for a in headers.get(b"x-forwarded-for", b"").decode("latin-1").split(",")]
        for address in reversed([a for a in forwarded if a]):
            if address not in trusted:
                return "addr:" + str(address)
    return "addr:" + str(peer)
