"""A published chat line's fan-out in process, without sockets (issue 17): µs per publish.

``--games`` games of 100 subscribed viewers (5 cities × 20), each a real ``Connection``
whose feed takes deliveries directly (``_Feed.direct``, as the served process does
with the lean transport), on a real ``LeanWebSocketProtocol`` whose transport's ``write``
does nothing: what is measured is the Python of the publish (the broker's offers, the 20
admitted readers' frames and their transport checks), not the kernel's sends. The
message's fragment is rendered beforehand, as the broker's observer has it by then. Lines
go to the games in turn, each to one city.

A served process does a post's other work between two publishes (the command, the lane,
the other games' sockets and the kernel's), and a publish then finds its sockets' objects
out of the processor's caches. ``--between N`` walks N small lists between two publishes
(untimed) to put it in that state; ``--floor`` times, instead of the publish, the least a
fan-out must do per reader (the audience test, a position, a frame joined, a write) on the
same objects: what the publish costs above it is the broker's and the sockets' Python.

    python bench/publish_path.py [--events 20000] [--reps 5] [--games 1] [--between 0] [--floor]
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
    p.recheck()  # sendable: what a served socket's transitions keep
    return p


async def run(events: int, games: int, between: int, floor: bool) -> float:
    broker = Broker()
    web: Any = SimpleNamespace(pushed=PushedContent(), metrics=None, service=SimpleNamespace(broker=broker))
    cities = [[f"u{c}-{r}" for r in range(RESIDENTS)] for c in range(CITIES)]
    readers: dict[tuple[int, int], list[Any]] = {}
    for g in range(games):
        for c, members in enumerate(cities):
            for user in members:
                conn = Connection(None, web, user, "ru", transport=_protocol())  # type: ignore[arg-type]
                sub = broker.subscribe(f"g{g}", user)
                feed = _Feed(f"g{g}", sub, 0, 0, idle=True)
                conn.feeds[f"g{g}"] = feed
                sub.sink = conn.sink(feed)
                readers.setdefault((g, c), []).append((user, feed, conn.transport))
    audiences = [Audience(False, frozenset(members)) for members in cities]
    at = datetime(2026, 12, 6, tzinfo=UTC)
    loop = asyncio.get_running_loop()
    lines = []  # (game, its seq, city, event): game after game, each line to one city
    for i in range(events):
        g, c = i % games, (i // games) % CITIES
        lines.append((g, i // games + 1, c, MessagePosted(at=at, audience=audiences[c], inbox=f"city-{c}",
                                                      author=cities[c][0], text=f"line {i}")))
    for g, seq, _, _ in lines:
        done = loop.create_future()
        done.set_result(HTML)
        web.pushed._cache[(f"g{g}", seq, "ru")] = done
        web.pushed.rendered[(f"g{g}", seq, "ru")] = HTML
    web.pushed.maxsize = events + 1
    elsewhere = [[n] * 8 for n in range(between)]
    head, tail = b"\x81\x7e\x03\x20" + HTML[:400].encode(), HTML[400:].encode()
    _Sink.writes = 0
    took = 0.0
    for g, seq, c, event in lines:
        for block in elsewhere:  # the rest of a post's work, as far as the caches can tell
            block[0] += 1
        began = time.perf_counter()
        if floor:
            users = event.audience.users
            for user, feed, protocol in readers[(g, c)]:
                if user in users:
                    feed.position += 1
                    protocol.transport.write(b"".join((head, b"%d" % feed.position, tail)))
        else:
            broker.publish(f"g{g}", ((seq, event),))
        took += time.perf_counter() - began
    assert _Sink.writes == events * RESIDENTS, _Sink.writes
    return took / events * 1e6


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--events", type=int, default=20000)
    parser.add_argument("--reps", type=int, default=5)
    parser.add_argument("--games", type=int, default=1)
    parser.add_argument("--between", type=int, default=0, help="small lists walked between two publishes")
    parser.add_argument("--floor", action="store_true", help="time the least a fan-out does instead")
    args = parser.parse_args()
    runs = [asyncio.run(run(args.events, args.games, args.between, args.floor)) for _ in range(args.reps)]
    what = "the floor's" if args.floor else "a publish's"
    print(f"µs of {what} (20 of 100 admitted, {args.games} games, {args.between} between): "
          f"min {min(runs):.1f}, median {statistics.median(runs):.1f}, max {max(runs):.1f}")


if __name__ == "__main__":
    main()
