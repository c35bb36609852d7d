"""CPU per published chat line in the in-process broker (issue 17, session 20).

A game of 100 subscribers in 5 cities of 20; each line is for its city's 20 residents (the
fan-out benchmark's shape). Every subscriber's sink takes its delivery (as an idle socket's
``_Feed.direct`` does) and does nothing else, so what is timed is the broker alone:
who is offered the event, the audience filter and the sink call. With
``--before FILE``, the same against another ``pubsub.py`` (e.g. ``git show
8efa7fd:src/lepromafia/service/pubsub.py`` saved), blocks interleaved.

    python bench/broker_publish.py [--lines 20000] [--blocks 10] [--before old_pubsub.py]
"""

from __future__ import annotations

import argparse
import time
from datetime import UTC, datetime
from types import ModuleType

from module_ab import load_earlier, report

from lepromafia.engine.audience import Audience
from lepromafia.engine.events import MessagePosted
from lepromafia.service import pubsub

AT = datetime(2026, 12, 5, tzinfo=UTC)
CITIES = [[f"c{c}p{p}" for p in range(20)] for c in range(5)]


def per_line(module: ModuleType, lines: int) -> float:
    """CPU microseconds per published line."""
    broker = module.Broker()
    for city in CITIES:
        for viewer in city:
            broker.subscribe("g", viewer).sink = lambda seq, event, after: True
    events = [MessagePosted(at=AT, audience=Audience(False, frozenset(CITIES[i % 5])),
                            inbox=f"city{i % 5}", author=CITIES[i % 5][0], text="a line")
              for i in range(lines)]
    started = time.process_time()
    for seq, event in enumerate(events, 1):
        broker.publish("g", [(seq, event)])
    return (time.process_time() - started) / lines * 1e6


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--lines", type=int, default=20_000)
    parser.add_argument("--blocks", type=int, default=10)
    parser.add_argument("--before", default="")
    args = parser.parse_args()
    trees = {"this": pubsub}
    if args.before:
        trees["before"] = load_earlier(args.before, "lepromafia.service")
    times: dict[str, list[float]] = {name: [] for name in trees}
    for _ in range(args.blocks):
        for name, module in trees.items():
            times[name].append(per_line(module, args.lines))
    report(times, "line", f"{args.blocks} blocks of {args.lines}")


if __name__ == "__main__":
    main()
