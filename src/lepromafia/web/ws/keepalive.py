"""Every socket's keepalive from one timer per process (issue 17).

uvicorn's protocol pings each socket every ``ws_ping_interval`` from timers of its own:
a timer for the next ping and another for the pong's deadline, re-made every interval.
With 5,000 sockets that is 250 pings a second and about 10,000 timer handles alive at
any moment, which outlive the collector's young generations and fill its full
collections (docs/performance.md, sessions 7 and 12).

Here one timer visits a twentieth of the sockets every twentieth of the interval, so each
socket once per interval, in the order they opened. At its visit a socket (the protocol's
``keepalive_visit``):

- that both sent and received something since its last visit is not pinged: the peer
  has shown it is there, and a proxy in between (nginx's ``proxy_read_timeout``) has
  seen traffic from us;
- that has an unanswered ping older than ``ws_ping_timeout`` is closed with 1011, as
  uvicorn closes it (the timeout is therefore checked once per interval);
- is otherwise pinged, unless a ping is still within its timeout.
"""

from __future__ import annotations

import asyncio
import weakref
from typing import Protocol

SLOTS = 20
"""Groups of sockets: one is visited every ``interval / SLOTS`` seconds."""


class Pinged(Protocol):
    def keepalive_visit(self, now: float) -> None: ...


class Keepalive:
    """The sockets of one event loop sharing one ping interval, in ``SLOTS`` groups."""

    def __init__(self, loop: asyncio.AbstractEventLoop, interval: float) -> None:
        self.loop = loop
        self.interval = interval
        self.slots: list[dict[Pinged, None]] = [{} for _ in range(SLOTS)]
        self.where: dict[Pinged, int] = {}
        self.cursor = 0
        """The group the next tick visits."""
        self.timer: asyncio.TimerHandle | None = None

    def join(self, sock: Pinged) -> None:
        """First visited one interval from now (the group visited last)."""
        slot = (self.cursor - 1) % SLOTS
        self.slots[slot][sock] = None
        self.where[sock] = slot
        if self.timer is None:
            self._arm()

    def leave(self, sock: Pinged) -> None:
        slot = self.where.pop(sock, None)
        if slot is not None:
            del self.slots[slot][sock]
        if not self.where and self.timer is not None:
            self.timer.cancel()
            self.timer = None

    def _arm(self) -> None:
        self.timer = self.loop.call_later(self.interval / SLOTS, self._tick)

    def _tick(self) -> None:
        self.timer = None
        group = self.slots[self.cursor]
        self.cursor = (self.cursor + 1) % SLOTS
        now = self.loop.time()
        for sock in list(group):  # a visit may close it, and closing leaves
            sock.keepalive_visit(now)
        if self.where and self.timer is None:
            self._arm()


_wheels: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, dict[float, Keepalive]] = (
    weakref.WeakKeyDictionary())


def keepalive_for(loop: asyncio.AbstractEventLoop, interval: float) -> Keepalive:
    """The loop's keepalive for sockets pinged every ``interval`` seconds."""
    wheels = _wheels.setdefault(loop, {})
    wheel = wheels.get(interval)
    if wheel is None:
        wheel = wheels[interval] = Keepalive(loop, interval)
    return wheel
