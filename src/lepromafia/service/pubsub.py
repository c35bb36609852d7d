"""Publish after commit: an in-process broker that filters every event per viewer.

Each subscriber gets a ``Delivery`` for each committed event its viewer may see
(``service.outbound.may_see``), in order, and nothing for the others: its queue, its
bound and its drop for slowness count only what the viewer may see, so even a resync
says nothing about hidden traffic. A delivery names its global seq and ``after``, the
seq after which the broker offered this subscriber every event without a hole; both
are server-side only. The WebSocket fills a hole (a lost relay) from the store and
numbers what it sends by the viewer's own stream (``service.streams``).
"""

from __future__ import annotations

import asyncio
import logging
from collections import deque
from collections.abc import Callable, Sequence
from typing import Generic, NamedTuple, TypeVar

from ..engine.events import Event
from .outbound import may_see

T = TypeVar("T")
logger = logging.getLogger(__name__)


class Delivery(NamedTuple):
    """One event offered to one subscriber (a tuple: a frozen dataclass's ``__init__`` sets
    each field through ``object.__setattr__``, and the broker makes one per reader per
    event: issue 17)."""

    seq: int
    """The event's global seq: server-side only, never sent to a client."""
    event: Event | None
    """The event if the viewer may see it (always, from the broker), else None (a read
    from the store covers the invisible ones too)."""
    after: int | None = None
    """Every event in ``after < seq' < seq`` was offered and is invisible to the viewer;
    None: unknown (the store must be asked)."""


def deliver(seq: int, event: Event, viewer: str | None) -> Delivery:
    return Delivery(seq, event if may_see(event, viewer) else None, seq - 1)


class Buffer(Generic[T]):
    """A subscriber's bounded FIFO of deliveries: a deque and at most one waiting reader.
    ``asyncio.Queue`` carries two waiter deques, a task counter and an ``Event`` per
    instance, for one reader and one writer that never wait on each other (issue 17:
    memory per connected client). The socket transport's received messages use it too
    (``web/ws/transport.py``)."""

    __slots__ = ("_waiter", "items", "maxsize")

    def __init__(self, maxsize: int = 0) -> None:
        self.items: deque[T] = deque()
        self.maxsize = maxsize
        self._waiter: asyncio.Future[None] | None = None

    def qsize(self) -> int:
        return len(self.items)

    def empty(self) -> bool:
        return not self.items

    def put_nowait(self, item: T) -> None:
        """Raises ``asyncio.QueueFull`` on a bounded buffer that is full."""
        if self.maxsize > 0 and len(self.items) >= self.maxsize:
            raise asyncio.QueueFull
        self.items.append(item)
        waiter = self._waiter
        if waiter is not None:
            self._waiter = None
            if not waiter.done():
                waiter.set_result(None)

    def get_nowait(self) -> T:
        """Raises ``asyncio.QueueEmpty`` on an empty buffer."""
        if not self.items:
            raise asyncio.QueueEmpty
        return self.items.popleft()

    def awaited(self) -> bool:
        """Its reader waits for the next item (on ``wait``'s future), with none queued."""
        waiter = self._waiter
        return waiter is not None and not waiter.done() and not self.items

    def wait(self) -> asyncio.Future[None]:
        """A future done when an item arrives: a reader that awaits it directly makes no
        coroutine per wait (a pump's waits were a quarter of what the collector's young
        generations held with 5,000 sockets: docs/performance.md)."""
        waiter = self._waiter
        if waiter is None or waiter.done():
            waiter = self._waiter = asyncio.get_running_loop().create_future()
        return waiter

    async def get(self) -> T:
        while not self.items:
            await self.wait()
        return self.items.popleft()


Sink = Callable[[Delivery], bool]
"""Takes a delivery at once, as it is published (True), or declines it (False): it then
waits in the subscription's queue for its reader like any other."""


class Subscription:
    __slots__ = ("_clean_since", "_offered", "broker", "game_id", "overflowed", "queue", "sink",
                 "viewer")

    def __init__(self, broker: Broker, game_id: str, viewer: str | None, maxsize: int = 0) -> None:
        self.broker = broker
        self.game_id = game_id
        self.viewer = viewer
        self.queue: Buffer[Delivery] = Buffer(maxsize)
        self.overflowed = False
        """A bounded subscriber fell behind: it was dropped and must resync from the store."""
        self._offered: int | None = None
        self._clean_since: int | None = None
        self.sink: Sink | None = None
        """Offered each delivery while the queue is empty (``Sink``): a socket writes it
        straight away, with no task woken per delivery (issue 17, the fan-out)."""

    def offer(self, seq: int, event: Event) -> Delivery | None:
        """What this subscriber gets of one published event: a delivery, or None."""
        if self._offered is None or seq != self._offered + 1:
            self._clean_since = seq - 1  # a hole (or the start): nothing known before
        self._offered = seq
        if not may_see(event, self.viewer):
            return None
        item = Delivery(seq, event, self._clean_since)
        self._clean_since = seq
        return item

    def drain(self) -> list[Delivery]:
        """Everything received so far."""
        items = list(self.queue.items)
        self.queue.items.clear()
        return items

    async def get(self) -> Delivery:
        return await self.queue.get()

    def close(self) -> None:
        self.broker.unsubscribe(self)


Observer = Callable[[str, Sequence[tuple[int, Event]]], None]
"""Told every published batch of a game, before the subscribers (``ViewerStreams.observe``)."""


class Broker:
    def __init__(self) -> None:
        self._subs: dict[str, list[Subscription]] = {}
        self.observers: list[Observer] = []
        """The process's own read caches kept current by what is published (issue 17: a
        pushed message's number is then known without a read)."""

    async def ping(self) -> None:
        """Readiness: an in-process broker is always reachable (RedisBroker asks Redis)."""

    async def relayed(self) -> None:
        """Return once what was published so far has left for the other workers (nothing
        to wait for in one process): the writer lane acknowledges after this, so a worker
        killed right after its answer has already relayed the events it answered for."""

    def subscribe(self, game_id: str, viewer: str | None, maxsize: int = 0) -> Subscription:
        """``maxsize`` > 0 bounds the queue: a subscriber that falls that far behind is
        dropped (``overflowed``) instead of holding anyone back."""
        sub = Subscription(self, game_id, viewer, maxsize)
        self._subs.setdefault(game_id, []).append(sub)
        return sub

    def has_subscribers(self, game_id: str) -> bool:
        return bool(self._subs.get(game_id))

    def unsubscribe(self, sub: Subscription) -> None:
        subs = self._subs.get(sub.game_id, [])
        if sub in subs:
            subs.remove(sub)

    def publish(self, game_id: str, events: Sequence[tuple[int, Event]]) -> None:
        for observe in self.observers:
            observe(game_id, events)
        for sub in list(self._subs.get(game_id, ())):
            for seq, event in events:
                item = sub.offer(seq, event)
                if item is None:
                    continue
                sink = sub.sink
                if sink is not None and not sub.queue.items:
                    try:
                        if sink(item):
                            continue
                    except Exception:  # it declines: the queue's reader meets the same failure
                        logger.exception("sink failed; the delivery is queued")
                try:
                    sub.queue.put_nowait(item)
                except asyncio.QueueFull:
                    sub.overflowed = True
                    self.unsubscribe(sub)
                    break
