"""A conversation store that cannot be reached is an error, not a fresh conversation.

Rasa 3.6 wraps its tracker store in `FailSafeTrackerStore`: when PostgreSQL cannot be
reached, `retrieve` logs the error and returns nothing, so the turn runs on a new,
empty conversation (every slot gone), and `save` keeps the result in this process's
memory, where the other replicas never see it. A customer mid-sizing would be asked
again for what they already said, with nothing saying why. Here both raise
`ConversationStoreDown`, naming the store, once the connection has failed for
`RETRY_S` (a PostgreSQL restart takes a few seconds: a turn during it waits and carries
on rather than fail; SQLAlchemy drops the dead pooled connections and opens new ones;
a save is one transaction, so a retry adds nothing twice); the REST channel (channels/rest.py) answers
503 with that message, and the next turn, once the database is back, carries on where
the conversation was (SQLAlchemy opens new connections; nothing of ours restarts).

On one machine the tracker store is a SQLite file, and Rasa commits every turn with
SQLite's default full sync: one fsync per turn, about 16 ms of a 100 ms turn in a
profile here. Its connections are opened in write-ahead-log mode with
`synchronous=NORMAL` instead (what our own SQLite stores use): a crash of Rasa loses
nothing committed, a power cut at most the last turns.

Installed by `channels/__init__.py`, like action_validation.
"""

import asyncio
import sqlite3
import time
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

from rasa.core.tracker_store import FailSafeTrackerStore
from rasa.shared.core.trackers import DialogueStateTracker
from rasa.shared.exceptions import RasaException
from sqlalchemy import event, exc
from sqlalchemy.engine import Engine

RETRY_S = 20.0
_T = TypeVar("_T")


class ConversationStoreDown(RasaException):
    """The tracker store cannot be reached (the message says which and why)."""


def _down(store: FailSafeTrackerStore, error: Exception) -> ConversationStoreDown:
    inner = store._tracker_store
    where = f"{type(inner).__name__}"
    host = getattr(getattr(getattr(inner, "engine", None), "url", None), "host", None)
    if host:
        where += f" at {host}:{inner.engine.url.port}"
    reason = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
    return ConversationStoreDown(f"the conversation store ({where}) is unreachable: {reason}")


def _connection_lost(error: Exception) -> bool:
    return isinstance(error, (exc.OperationalError, exc.InterfaceError, exc.DisconnectionError)) or (
        isinstance(error, exc.DBAPIError) and error.connection_invalidated
    )


async def _with_retry(store: FailSafeTrackerStore, call: Callable[[], Awaitable[_T]]) -> _T:
    """call, again every half second while the store's connection fails, for RETRY_S."""
    deadline = time.monotonic() + RETRY_S
    while True:
        try:
            return await call()
        except Exception as error:
            if not _connection_lost(error) or time.monotonic() > deadline:
                raise _down(store, error) from error
        await asyncio.sleep(0.5)


async def retrieve(self: FailSafeTrackerStore, sender_id: str) -> DialogueStateTracker | None:
    return await _with_retry(self, lambda: self._tracker_store.retrieve(sender_id))


async def retrieve_full_tracker(self: FailSafeTrackerStore, sender_id: str) -> DialogueStateTracker | None:
    return await _with_retry(self, lambda: self._tracker_store.retrieve_full_tracker(sender_id))


async def save(self: FailSafeTrackerStore, tracker: DialogueStateTracker) -> None:
    await _with_retry(self, lambda: self._tracker_store.save(tracker))


def sqlite_write_ahead(dbapi_connection: Any, _: Any) -> None:
    """SQLAlchemy's connect hook: a SQLite connection in WAL mode, synced at checkpoints."""
    if isinstance(dbapi_connection, sqlite3.Connection):
        cursor = dbapi_connection.cursor()
        cursor.execute("PRAGMA journal_mode=WAL")
        cursor.execute("PRAGMA synchronous=NORMAL")
        cursor.close()


def install() -> None:
    """Make Rasa's fail-safe tracker store report a store it cannot reach, and its SQLite
    connections write ahead (idempotent)."""
    patched: dict[str, Any] = {"retrieve": retrieve, "retrieve_full_tracker": retrieve_full_tracker, "save": save}
    for name, function in patched.items():
        setattr(FailSafeTrackerStore, name, function)
    if not event.contains(Engine, "connect", sqlite_write_ahead):
        event.listen(Engine, "connect", sqlite_write_ahead)
