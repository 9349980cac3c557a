"""Progress of long work, reported by the code that does it and shown by whoever started it.

A long step (the knowledge entries' sentence vectors, about 30 s on two cores) reports
`advance(done, total)`; a command line that wants a bar installs a sink with
`reporting(sink)`. Library code neither prints nor imports a display library, and with
no sink installed `advance` costs one context-variable read.

    with reporting(lambda done, total: print(f"{done}/{total}")):
        model.encode(texts)
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar

Sink = Callable[[int, int], None]

_SINK: ContextVar[Sink | None] = ContextVar("progress_sink", default=None)


def advance(done: int, total: int) -> None:
    """Say that `done` of `total` units of the current step are finished."""
    sink = _SINK.get()
    if sink is not None:
        sink(done, total)


@contextmanager
def reporting(sink: Sink) -> Iterator[None]:
    """Send the progress of the work done inside the block to `sink`."""
    token = _SINK.set(sink)
    try:
        yield
    finally:
        _SINK.reset(token)
