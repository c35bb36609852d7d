"""The live unread count: who in this process listens for his (an open WebSocket), and
ringing them when a notification is created for them or they read some.

The dispatcher rings the users it just wrote in-app notifications for; each listener
gets his new unread count (a number only: the list itself is read from the page). A
listener that fails (a closed socket) is dropped. With several workers a ring also goes
to the others through Redis (``relay``, wired by the app to ``RedisBroker.publish_ring``),
whose listeners hear it through ``ring_here``; a page also polls (``static/js/badge.js``),
slowly while a socket is open.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Iterable

log = logging.getLogger(__name__)

Listener = Callable[[int], Awaitable[None]]


class Bells:
    def __init__(self, count: Callable[[str], Awaitable[int]]) -> None:
        self.count = count
        self._listeners: dict[str, list[Listener]] = {}
        self.relay: Callable[[list[str]], None] | None = None
        """Where a ring goes for the other workers' listeners (None: one process)."""

    def listen(self, user: str, listener: Listener) -> Callable[[], None]:
        """Call ``listener(unread)`` on each ring for ``user``; returns the function that stops it."""
        self._listeners.setdefault(user, []).append(listener)

        def stop() -> None:
            found = self._listeners.get(user, [])
            if listener in found:
                found.remove(listener)
            if not found:
                self._listeners.pop(user, None)
        return stop

    def listening(self, user: str) -> bool:
        return bool(self._listeners.get(user))

    async def ring(self, users: Iterable[str]) -> None:
        """Ring ``users`` here and, through ``relay``, on every other worker."""
        users = list(dict.fromkeys(users))
        if self.relay is not None and users:
            self.relay(users)
        await self.ring_here(users)

    async def ring_here(self, users: Iterable[str]) -> None:
        """Ring this process's listeners of ``users`` only."""
        for user in dict.fromkeys(users):
            listeners = list(self._listeners.get(user, ()))
            if not listeners:
                continue
            unread = await self.count(user)
            for listener in listeners:
                try:
                    await listener(unread)
                except Exception:  # a socket closing under us: it stops listening itself
                    log.debug("a bell listener of %s failed", user, exc_info=True)
