"""The process's one keepalive timer (``web/ws/keepalive.py``, issue 17): every socket is
visited once per ping interval, first one interval after it opened; a socket that left is
not visited again, and with no socket left no timer remains."""

from __future__ import annotations

import asyncio

from lepromafia.web.ws.keepalive import SLOTS, keepalive_for


class Socket:
    def __init__(self, name: str, log: list[tuple[str, float]], start: float) -> None:
        self.name, self.log, self.start = name, log, start

    def keepalive_visit(self, now: float) -> None:
        self.log.append((self.name, round(now - self.start, 2)))


def test_each_socket_is_visited_once_per_interval_from_one_timer() -> None:
    async def scenario() -> tuple[list[tuple[str, float]], object, int]:
        loop = asyncio.get_running_loop()
        wheel = keepalive_for(loop, 1.0)
        assert keepalive_for(loop, 1.0) is wheel
        log: list[tuple[str, float]] = []
        start = loop.time()
        anna, boris = Socket("anna", log, start), Socket("boris", log, start)
        wheel.join(anna)
        await asyncio.sleep(0.5)
        wheel.join(boris)  # half an interval later
        await asyncio.sleep(1.8)  # anna at 1.0 and 2.0, boris at 1.5
        wheel.leave(anna)
        await asyncio.sleep(0.5)  # boris at 2.5; anna no more
        wheel.leave(boris)
        return log, wheel.timer, len(wheel.where)

    log, timer, left = asyncio.run(scenario())
    slack = 2 / SLOTS + 0.1  # two ticks, and a busy machine's delay
    visits = {name: [t for n, t in log if n == name] for name in ("anna", "boris")}
    assert len(visits["anna"]) == 2 and len(visits["boris"]) == 2
    for name, first in (("anna", 1.0), ("boris", 1.5)):
        assert abs(visits[name][0] - first) <= slack, (name, visits)
        assert abs(visits[name][1] - visits[name][0] - 1.0) <= slack, (name, visits)
    assert timer is None and left == 0
