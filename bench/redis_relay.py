"""CPU per publication relayed to the other workers through Redis (issue 17, session 21).

One worker's ``RedisBroker`` on the real Redis at 127.0.0.1:6379 (its own channel prefix)
publishes as a writer lane does at 200 games: a batch of ``--games`` games' chat lines
(one publication each), then ``relayed()`` before the acknowledgement, again and again.
What is timed is the process's CPU per publication: encoding, sending, and hearing its own
publications back through the pattern subscription (as every worker does), after which it
drops them. With ``--before FILE``, the same against another ``redis_bus.py`` (e.g. ``git
show 6c0972c:src/lepromafia/service/redis_bus.py``), blocks interleaved.

    python bench/redis_relay.py [--games 20] [--batches 500] [--blocks 6] [--before old.py]
"""

from __future__ import annotations

import argparse
import asyncio
import secrets
import time
import types
from datetime import UTC, datetime

from module_ab import load_earlier, report

from lepromafia.engine.audience import Audience
from lepromafia.engine.events import MessagePosted
from lepromafia.service import redis_bus

URL = "redis://127.0.0.1:6379/0"
AT = datetime(2026, 12, 5, tzinfo=UTC)


async def per_publication(module: types.ModuleType, games: int, batches: int) -> float:
    """CPU microseconds per publication."""
    broker = module.RedisBroker(URL, "bench", f"lepromafia-bench-{secrets.token_hex(4)}:")
    await broker.start()
    line = MessagePosted(at=AT, audience=Audience(False, frozenset({f"p{i}" for i in range(20)})),
                         inbox="city", author="p0", text="a line of the day's talk")
    try:
        started = time.process_time()
        for n in range(1, batches + 1):
            for g in range(games):
                broker.publish(f"g{g}", [(n, line)])
            await broker.relayed()
        await asyncio.sleep(0.2)  # its own publications heard back and dropped
        return (time.process_time() - started) / (games * batches) * 1e6
    finally:
        await broker.close()


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=20)
    parser.add_argument("--batches", type=int, default=500)
    parser.add_argument("--blocks", type=int, default=6)
    parser.add_argument("--before", default="")
    args = parser.parse_args()
    trees = {"this": redis_bus}
    if args.before:
        trees["before"] = load_earlier(args.before, "lepromafia.service")
    times: dict[str, list[float]] = {name: [] for name in trees}
    for _ in range(args.blocks):
        for name, module in trees.items():
            times[name].append(await per_publication(module, args.games, args.batches))
    report(times, "publication", f"{args.blocks} blocks of {args.batches} batches of {args.games}")


if __name__ == "__main__":
    asyncio.run(main())
