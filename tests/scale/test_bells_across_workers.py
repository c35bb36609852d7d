"""The live unread badge with several workers (issue 13, "live badge ... without reload"):
a notification written by worker A's dispatcher rings the person's socket held by worker
B, through Redis (``lepromafia:bells``); worker B reads the count itself, so only user ids
cross the channel.

Cast: Ульяна, whose tab's socket is on worker B; worker A's dispatcher notifies her."""

from __future__ import annotations

import asyncio

from lepromafia.service.notify.bells import Bells
from lepromafia.service.redis_bus import RedisBroker

from .cluster import REDIS_URL


def test_a_bell_rung_on_worker_a_reaches_ulyanas_socket_on_worker_b() -> None:
    async def scenario() -> tuple[list[int], list[int]]:
        counts = {"ulyana": 3}

        async def count(user: str) -> int:
            return counts[user]

        a, b = RedisBroker(REDIS_URL), RedisBroker(REDIS_URL)
        await a.start()
        await b.start()
        bells_a, bells_b = Bells(count), Bells(count)
        for broker, bells in ((a, bells_a), (b, bells_b)):
            bells.relay = broker.publish_ring
            broker.on_ring = bells.ring_here
        heard_b: list[int] = []
        heard_a: list[int] = []

        async def on_b(n: int) -> None:
            heard_b.append(n)

        async def on_a(n: int) -> None:
            heard_a.append(n)

        bells_b.listen("ulyana", on_b)
        await bells_a.ring(["ulyana"])           # A has no socket of hers: B must hear it
        for _ in range(250):
            if heard_b:
                break
            await asyncio.sleep(0.02)
        stop_a = bells_a.listen("ulyana", on_a)  # now a tab on A too: B's own ring reaches both,
        counts["ulyana"] = 0                     # and A hears B's ring exactly once
        await bells_b.ring(["ulyana"])
        for _ in range(250):
            if heard_a:
                break
            await asyncio.sleep(0.02)
        await asyncio.sleep(0.2)
        stop_a()
        await a.close()
        await b.close()
        return heard_a, heard_b

    heard_a, heard_b = asyncio.run(scenario())
    assert heard_b == [3, 0]
    assert heard_a == [0]
