"""A published chat line's fan-out in process, without sockets (issue 17): µs per publish.

One game of 100 subscribed viewers (5 cities × 20), each a real ``Connection`` whose
feed takes deliveries directly (``Connection._direct``, as the served process does with
the lean transport), on a real ``LeanWebSocketProtocol`` whose transport's ``write`` does
nothing: what is measured is the Python of the publish (the broker's offers to all 100,
the 20 admitted readers' frames and their transport checks), not the kernel's sends. The
message's fragment is rendered beforehand, as the broker's observer has it by then.

    python bench/publish_path.py [--events 20000] [--reps 5]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import time
from datetime import UTC, datetime
from types import SimpleNamespace
from typing import Any

from websockets.protocol import State
from websockets.server import ServerProtocol

from lepromafia.engine.audience import Audience
from lepromafia.engine.events import MessagePosted
from lepromafia.service.pubsub import Broker
from lepromafia.web.ws.content import PushedContent
from lepromafia.web.ws.endpoint import Connection, _Feed
from lepromafia.web.ws.transport import LeanWebSocketProtocol, _Flag

CITIES, RESIDENTS = 5, 20
HTML = "<li class=\"msg\" id=\"m1\">" + "x" * 700 + "</li>"


class _Sink:
    """A transport whose writes go nowhere (counted)."""

    writes = 0

    def write(self, data: bytes) -> None:
        _Sink.writes += 1

    def is_closing(self) -> bool:
        return False


def _protocol() -> LeanWebSocketProtocol:
    p: Any = object.__new__(LeanWebSocketProtocol)  # uvicorn's __init__ not run: no server
    p.writable = _Flag()
    p.handshake_complete, p.close_sent, p.disconnected, p.initial_response = True, False, False, None
    p.conn = ServerProtocol()
    p.conn.state = State.OPEN
    p.transport = _Sink()
    return p


async def run(events: int) -> float:
    broker = Broker()
    web: Any = SimpleNamespace(pushed=PushedContent(), metrics=None, service=SimpleNamespace(broker=broker))
    cities = [[f"u{c}-{r}" for r in range(RESIDENTS)] for c in range(CITIES)]
    for members in cities:
        for user in members:
            conn = Connection(None, web, user, "ru", transport=_protocol())  # type: ignore[arg-type]
            sub = broker.subscribe("g", user)
            feed = _Feed("g", sub, 0, 0, idle=True)
            conn.feeds["g"] = feed
            sub.sink = conn.sink(feed)
    audience = Audience(False, frozenset(cities[0]))
    at = datetime(2026, 12, 6, tzinfo=UTC)
    loop = asyncio.get_running_loop()
    posted = [MessagePosted(at=at, audience=audience, inbox="city-0", author=cities[0][0],
                            text=f"line {i}") for i in range(events)]
    for seq in range(1, events + 1):
        done = loop.create_future()
        done.set_result(HTML)
        web.pushed._cache[("g", seq, "ru")] = done
        web.pushed.rendered[("g", seq, "ru")] = HTML
    web.pushed.maxsize = events + 1
    _Sink.writes = 0
    began = time.perf_counter()
    for seq, event in enumerate(posted, 1):
        broker.publish("g", ((seq, event),))
    took = time.perf_counter() - began
    assert _Sink.writes == events * RESIDENTS, _Sink.writes
    return took / events * 1e6


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--events", type=int, default=20000)
    parser.add_argument("--reps", type=int, default=5)
    args = parser.parse_args()
    runs = [asyncio.run(run(args.events)) for _ in range(args.reps)]
    print(f"µs per publish (20 of 100 admitted): min {min(runs):.1f}, median {statistics.median(runs):.1f}, "
          f"max {max(runs):.1f}")


if __name__ == "__main__":
    main()
