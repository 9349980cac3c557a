"""CPU work off the event loop, on a bounded pool of threads.

Answering a question or drawing a diagram is CPU work of a few to a few hundred
milliseconds. Done on the event loop it held every other request, `/healthz` too:
ten long `/v1/ask` requests delayed a health check by 9.8 s, long enough for HAProxy
(`inter 1s fall 2`) to take a healthy replica out. On a thread the loop keeps
answering (Python hands the GIL over every few milliseconds), and the pool's size
(FABRIC_ADVISOR_API_THREADS) bounds how many requests compute at once; the rest wait
their turn without holding the loop.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Any, TypeVar

import anyio
from anyio import to_thread
from fastapi import Request

T = TypeVar("T")


def limiter_for(request: Request) -> anyio.CapacityLimiter:
    """The app's pool of worker threads (made on first use, sized by its config)."""
    limiter = getattr(request.app.state, "cpu_limiter", None)
    if limiter is None:
        limiter = request.app.state.cpu_limiter = anyio.CapacityLimiter(request.app.state.config.threads)
    return limiter


async def run(request: Request, work: Callable[..., T], *args: Any, **kwargs: Any) -> T:
    """`work(*args, **kwargs)` on one of the app's worker threads."""
    return await to_thread.run_sync(partial(work, *args, **kwargs), limiter=limiter_for(request))
