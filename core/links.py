"""Signed links: a recommendation's diagram, report and files open without the API key.

A browser following a link in Slack or the web chat cannot send `X-API-Key`. When the
server has a key, the links we hand out carry `expires` (Unix time) and `sig`, an
HMAC-SHA256 over the path and the expiry, keyed by a secret derived from the API key
(every replica has the key, so every replica checks every link). A signature is good for
exactly one path, so a link to one recommendation's diagram opens nothing else, and only
until it expires (FABRIC_ADVISOR_LINK_TTL_DAYS, 7 days by default).

    >>> sign_path("/v1/recommendations/r_1/diagram.svg", 1_700_000_000, key="k")
    'DlOJkio4wJw8TkNjOBx3sggf0HHTivvDo07K-WH9BPE'

Any GET path under SIGNABLE_PREFIX can be signed: the diagram, report and bom.csv of
today and the files other work adds (bom.xlsx, cabling.csv, report.pdf) alike.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import time
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from core.settings import settings

SIGNABLE_PREFIX = "/v1/recommendations/"
EXPIRES = "expires"
SIGNATURE = "sig"


def _secret(key: str) -> bytes:
    """The signing secret: derived from the API key, never the key itself in a URL's maths."""
    return hashlib.sha256(b"fabric-advisor signed links\x00" + key.encode("utf-8")).digest()


def sign_path(path: str, expires: int, key: str | None = None) -> str:
    """The signature of `path` until `expires` (URL-safe base64, no padding)."""
    key = settings.api_key if key is None else key
    digest = hmac.new(_secret(key or ""), f"{path}\n{expires}".encode(), hashlib.sha256).digest()
    return base64.urlsafe_b64encode(digest).rstrip(b"=").decode()


def signed(url: str | None, now: float | None = None, key: str | None = None) -> str | None:
    """`url` with `expires` and `sig` added when the server has an API key (else as it is).
    A link already signed, or one outside SIGNABLE_PREFIX, is returned unchanged."""
    key = settings.api_key if key is None else key
    if not url or not key:
        return url
    parts = urlsplit(url)
    query = dict(parse_qsl(parts.query))
    if SIGNATURE in query or not parts.path.startswith(SIGNABLE_PREFIX):
        return url
    expires = int((time.time() if now is None else now) + settings.link_ttl_days * 86_400)
    query |= {EXPIRES: str(expires), SIGNATURE: sign_path(parts.path, expires, key)}
    return urlunsplit(parts._replace(query=urlencode(query)))


def unsigned(url: str) -> str:
    """`url` without its signature (to derive a sibling link from it)."""
    parts = urlsplit(url)
    query = [(k, v) for k, v in parse_qsl(parts.query) if k not in (EXPIRES, SIGNATURE)]
    return urlunsplit(parts._replace(query=urlencode(query)))


def verify(path: str, expires: str | None, signature: str | None, key: str, now: float | None = None) -> bool:
    """True when `signature` signs `path` until `expires` and that time has not passed."""
    if not expires or not signature or not path.startswith(SIGNABLE_PREFIX):
        return False
    try:
        until = int(expires)
    except ValueError:
        return False
    if until < (time.time() if now is None else now):
        return False
    return hmac.compare_digest(signature.encode(), sign_path(path, until, key).encode())
