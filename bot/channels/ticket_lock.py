"""Rasa's conversation lock in Redis, with leases a dead replica cannot keep.

Rasa takes a ticket lock per conversation (`LockStore.lock`) so that one conversation's
turns run one at a time, in order, whichever replica takes them. Its Redis lock store
falls short when a replica dies (`make run-cluster`'s fault matrix):

- a ticket lives for a fixed time (`TICKET_LOCK_LIFETIME`, 60 s by default) whether
  its holder is alive or not: the turn HAProxy retries on the other replica waits for
  the dead one's ticket to run out, while a live turn that takes longer than the
  lifetime loses its lock to the next;
- tickets are read, changed and written back in three Redis calls, so two replicas
  issuing at once can draw the same number;
- a lock that vanished (Redis restarted: nothing is persisted) fails the waiting turn
  with `LockError`; a Redis call that fails during the restart fails the turn too;
- its Redis client is synchronous, blocking the replica's event loop on every call.

Here each ticket is a lease: a holder renews it every third of its lifetime while its
turn runs, so a live turn keeps its place however long it takes and a dead replica's
ticket is gone within one lifetime (the retried turn waits at most that long, not
60 s). Issuing, checking the turn, renewing and releasing are each one Lua script (one
atomic step, on Redis's own clock, so replicas' clocks need not agree). A waiter whose
ticket vanished (the store was restarted) takes a new one instead of failing, and a
Redis call that fails on the connection is retried for `REDIS_RETRY_S` before the turn
is refused (503 from channels/rest.py). The client is redis-py's asyncio one.

In bot/endpoints-cluster.yml as `type: channels.ticket_lock.LeasedRedisLockStore`, with
the same url, port, password, db and key_prefix as Rasa's `redis` type.
"""

import asyncio
import logging
import os
import time
from collections.abc import AsyncGenerator
from contextlib import asynccontextmanager, suppress
from typing import Any

import redis.asyncio
import redis.exceptions
from rasa.core.lock import TicketLock
from rasa.core.lock_store import LockError, LockStore
from rasa.utils.endpoints import EndpointConfig

logger = logging.getLogger(__name__)

LEASE_S = float(os.environ.get("TICKET_LOCK_LIFETIME", 0) or 15)
POLL_S = 0.1  # how often a waiter looks whether its turn came
WAIT_LIMIT_S = 300.0  # a turn waiting longer than this for its conversation is refused
REDIS_RETRY_S = 10.0  # a Redis restart takes a second or two; a longer outage is an error
REDIS_TIMEOUT_S = 2.0

# KEYS: the conversation's queue (sorted set: ticket -> lease end in ms) and its counter;
# both keys expire a minute after the last lease would (ARGV: ..., lease in ms)
_NOW = "local t = redis.call('TIME') local now = t[1] * 1000 + math.floor(t[2] / 1000) "
_KEEP = "redis.call('PEXPIRE', KEYS[1], LEASE + 60000) redis.call('PEXPIRE', KEYS[2], LEASE + 60000) "
ISSUE = (
    _NOW + "local LEASE = tonumber(ARGV[1]) local n = redis.call('INCR', KEYS[2]) "
    "redis.call('ZADD', KEYS[1], now + LEASE, n) " + _KEEP + "return n"
)
# 1: the ticket's turn; 0: wait; -1: the ticket is gone (expired, or the store restarted)
TURN = (
    _NOW + "redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now) "
    "if not redis.call('ZSCORE', KEYS[1], ARGV[1]) then return -1 end "
    "local first = nil "
    "for _, m in ipairs(redis.call('ZRANGE', KEYS[1], 0, -1)) do "
    "  local n = tonumber(m) if first == nil or n < first then first = n end end "
    "if first == tonumber(ARGV[1]) then return 1 end return 0"
)
RENEW = (
    _NOW + "local LEASE = tonumber(ARGV[2]) if not redis.call('ZSCORE', KEYS[1], ARGV[1]) then return 0 end "
    "redis.call('ZADD', KEYS[1], 'XX', now + LEASE, ARGV[1]) " + _KEEP + "return 1"
)
RELEASE = (
    "redis.call('ZREM', KEYS[1], ARGV[1]) "
    "if redis.call('ZCARD', KEYS[1]) == 0 then redis.call('DEL', KEYS[1], KEYS[2]) end return 1"
)


class LeasedRedisLockStore(LockStore):
    """Rasa's `LockStore`, leased tickets in Redis (see the module's docstring)."""

    def __init__(self, endpoint_config: EndpointConfig, lease_s: float = LEASE_S) -> None:
        kwargs: dict[str, Any] = dict(endpoint_config.kwargs or {})
        self.red = redis.asyncio.Redis(
            host=endpoint_config.url or "localhost",
            port=int(kwargs.get("port", 6379)),
            db=int(kwargs.get("db", 0)),
            username=kwargs.get("username"),
            password=kwargs.get("password"),
            ssl=bool(kwargs.get("use_ssl", False)),
            socket_timeout=REDIS_TIMEOUT_S,
            socket_connect_timeout=REDIS_TIMEOUT_S,
        )
        prefix = str(kwargs.get("key_prefix") or "")
        self.key_prefix = (prefix + ":" if prefix.isalnum() else "") + "lease:"
        self.lease_ms = int(lease_s * 1000)
        super().__init__()

    def _keys(self, conversation_id: str) -> list[str]:
        return [f"{self.key_prefix}{conversation_id}:queue", f"{self.key_prefix}{conversation_id}:next"]

    async def _run(self, script: str, conversation_id: str, *args: int) -> int:
        """One script, retried while Redis cannot be reached, for REDIS_RETRY_S."""
        deadline = time.monotonic() + REDIS_RETRY_S
        while True:
            try:
                return int(await self.red.eval(script, 2, *self._keys(conversation_id), *args))
            except (redis.exceptions.ConnectionError, redis.exceptions.TimeoutError) as error:  # noqa: PERF203
                if time.monotonic() > deadline:
                    raise LockError(f"Redis unreachable for {REDIS_RETRY_S:.0f} s: {error}") from error
                await asyncio.sleep(0.25)

    async def _renew(self, conversation_id: str, ticket: list[int]) -> None:
        """Renew the ticket every third of its lease until cancelled."""
        while True:
            await asyncio.sleep(self.lease_ms / 3000)
            try:
                if not await self._run(RENEW, conversation_id, ticket[0], self.lease_ms):
                    # stalled past the lease, or Redis restarted: the waiter loop takes a new
                    # ticket; a holder can only say so (its turn is under way)
                    logger.warning(f"the lease on conversation '{conversation_id}' was lost")
            except LockError as error:
                logger.warning(f"could not renew the lease on conversation '{conversation_id}': {error}")

    @asynccontextmanager
    async def lock(
        self, conversation_id: str, lock_lifetime: float = 0, wait_time_in_seconds: float = 0
    ) -> AsyncGenerator[TicketLock, None]:
        """This conversation's turn: wait for the tickets before ours, hold the lease while
        the block runs (renewed), release it after. The lifetime and wait arguments of
        Rasa's signature are not used (the lease and POLL_S are)."""
        ticket = [await self._run(ISSUE, conversation_id, self.lease_ms)]
        renewal = asyncio.create_task(self._renew(conversation_id, ticket))
        try:
            started = time.monotonic()
            while (turn := await self._run(TURN, conversation_id, ticket[0])) != 1:
                if turn == -1:  # our ticket vanished: the store restarted, or we stalled past the lease
                    ticket[0] = await self._run(ISSUE, conversation_id, self.lease_ms)
                if time.monotonic() - started > WAIT_LIMIT_S:
                    raise LockError(f"conversation '{conversation_id}' stayed busy for {WAIT_LIMIT_S:.0f} s")
                await asyncio.sleep(POLL_S)
            yield TicketLock(conversation_id)
        finally:
            renewal.cancel()
            with suppress(asyncio.CancelledError):
                await renewal
            with suppress(LockError, redis.exceptions.RedisError):
                await self._run(RELEASE, conversation_id, ticket[0])
