"""A conversation store that cannot be reached is an error, not a fresh conversation.

Rasa 3.6 wraps its tracker store in `FailSafeTrackerStore`: when PostgreSQL cannot be
reached, `retrieve` logs the error and returns nothing, so the turn runs on a new,
empty conversation (every slot gone), and `save` keeps the result in this process's
memory, where the other replicas never see it. A customer mid-sizing would be asked
again for what they already said, with nothing saying why. Here both raise
`ConversationStoreDown`, naming the store; the REST channel (channels/rest.py) answers
503 with that message, and the next turn, once the database is back, carries on where
the conversation was (SQLAlchemy opens new connections; nothing of ours restarts).

On one machine the tracker store is a SQLite file, and Rasa commits every turn with
SQLite's default full sync: one fsync per turn, about 16 ms of a 100 ms turn in a
profile here. Its connections are opened in write-ahead-log mode with
`synchronous=NORMAL` instead (what our own SQLite stores use): a crash of Rasa loses
nothing committed, a power cut at most the last turns.

Installed by `channels/__init__.py`, like action_validation.
"""

import sqlite3
from typing import Any

from rasa.core.tracker_store import FailSafeTrackerStore
from rasa.shared.core.trackers import DialogueStateTracker
from rasa.shared.exceptions import RasaException
from sqlalchemy import event
from sqlalchemy.engine import Engine


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


async def retrieve(self: FailSafeTrackerStore, sender_id: str) -> DialogueStateTracker | None:
    try:
        return await self._tracker_store.retrieve(sender_id)
    except Exception as error:
        raise _down(self, error) from error


async def retrieve_full_tracker(self: FailSafeTrackerStore, sender_id: str) -> DialogueStateTracker | None:
    try:
        return await self._tracker_store.retrieve_full_tracker(sender_id)
    except Exception as error:
        raise _down(self, error) from error


async def save(self: FailSafeTrackerStore, tracker: DialogueStateTracker) -> None:
    try:
        await self._tracker_store.save(tracker)
    except Exception as error:
        raise _down(self, error) from error


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
