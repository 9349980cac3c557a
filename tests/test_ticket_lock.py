"""bot/channels/ticket_lock.py on a real Redis, in Rasa's environment: a ticket whose
holder died (no renewal) stops blocking its conversation within one lease, where Rasa's
own lock store kept it for its whole lifetime; a live holder keeps its turn past the
lease however long it runs; a waiter whose ticket vanished with a Redis restart takes a
new one instead of failing."""

from __future__ import annotations

import subprocess
import textwrap
from pathlib import Path

import pytest

from ops import parts
from ops.processes import RASA_BIN, REPO, free_port
from ops.supervisor import Supervisor

pytestmark = [pytest.mark.rasa, pytest.mark.cluster]

SCRIPT = textwrap.dedent(
    """
    import asyncio, sys, time
    from rasa.utils.endpoints import EndpointConfig
    from channels import ticket_lock

    config = EndpointConfig(url="127.0.0.1", port=int(sys.argv[1]), password=sys.argv[2], db=0, key_prefix="test")

    async def main():
        dead = ticket_lock.LeasedRedisLockStore(config, lease_s=1.0)
        alive = ticket_lock.LeasedRedisLockStore(config, lease_s=1.0)
        # a replica took a ticket and died mid-turn: nobody renews it
        await dead._run(ticket_lock.ISSUE, "rest:c1", dead.lease_ms)
        started = time.monotonic()
        async with alive.lock("rest:c1"):
            waited = time.monotonic() - started
        print("dead", round(waited, 2))
        # a live holder runs three leases long; the next turn waits for it
        order = []
        async def hold():
            async with alive.lock("rest:c2"):
                order.append("first in"); await asyncio.sleep(3.0); order.append("first out")
        async def follow():
            await asyncio.sleep(0.3)
            async with alive.lock("rest:c2"):
                order.append("second in")
        await asyncio.gather(hold(), follow())
        print("order", ",".join(order))

    asyncio.run(main())
    """
)


def test_a_dead_holders_ticket_expires_within_a_lease_and_a_live_one_keeps_its_turn(tmp_path: Path):
    port = free_port()
    redis = parts.redis(tmp_path / "redis", port, "secret")
    with Supervisor([redis], tmp_path).running():
        result = subprocess.run(
            [str(RASA_BIN / "python"), "-c", SCRIPT, str(port), "secret"],
            cwd=REPO / "bot",
            capture_output=True,
            text=True,
            timeout=120,
        )
    assert result.returncode == 0, result.stderr[-3000:]
    lines = dict(line.split(" ", 1) for line in result.stdout.strip().splitlines())
    assert 0.5 <= float(lines["dead"]) <= 3.0, lines  # not Rasa's 60 s (nor 15 s)
    assert lines["order"] == "first in,first out,second in"
