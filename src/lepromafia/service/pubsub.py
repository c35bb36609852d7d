"""Publish after commit: an in-process broker that filters every event per viewer.

Each subscriber gets what ``service.outbound.payload_for`` lets its viewer receive: the
event, or only its position, so each stream is gapless. Payloads are plain JSON values,
ready for a socket.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

from ..engine.events import Event
from .outbound import Payload, payload_for


class Subscription:
    def __init__(self, broker: Broker, game_id: str, viewer: str | None, maxsize: int = 0) -> None:
        self.broker = broker
        self.game_id = game_id
        self.viewer = viewer
        self.queue: asyncio.Queue[Payload] = asyncio.Queue(maxsize)
        self.overflowed = False
        """A bounded subscriber fell behind: it was dropped and must resync from the store."""

    def drain(self) -> list[Payload]:
        """Everything received so far."""
        items = []
        while not self.queue.empty():
            items.append(self.queue.get_nowait())
        return items

    async def get(self) -> Payload:
        return await self.queue.get()

    def close(self) -> None:
        self.broker.unsubscribe(self)


class Broker:
    def __init__(self) -> None:
        self._subs: dict[str, list[Subscription]] = {}

    def subscribe(self, game_id: str, viewer: str | None, maxsize: int = 0) -> Subscription:
        """``maxsize`` > 0 bounds the queue: a subscriber that falls that far behind is
        dropped (``overflowed``) instead of holding anyone back."""
        sub = Subscription(self, game_id, viewer, maxsize)
        self._subs.setdefault(game_id, []).append(sub)
        return sub

    def unsubscribe(self, sub: Subscription) -> None:
        subs = self._subs.get(sub.game_id, [])
        if sub in subs:
            subs.remove(sub)

    def publish(self, game_id: str, events: Sequence[tuple[int, Event]]) -> None:
        for sub in list(self._subs.get(game_id, ())):
            for seq, event in events:
                try:
                    sub.queue.put_nowait(payload_for(game_id, seq, event, sub.viewer))
                except asyncio.QueueFull:
                    sub.overflowed = True
                    self.unsubscribe(sub)
                    break
