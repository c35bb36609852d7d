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
from typing import Generic, NamedTuple, Protocol, TypeVar

from ..engine.events import Event
from .outbound import may_see, who_may_see

T = TypeVar("T")
logger = logging.getLogger(__name__)

MAX_AUDIENCES = 256
"""A game's kept audiences (``_Stream.audiences``): its inboxes' reader sets, and more
only when sets change often (each is dropped at the first subscriber to come or go)."""


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


Sink = Callable[[int, Event, int | None], bool]
"""Takes a delivery at once, as it is published (True), or declines it (False): it then
waits in the subscription's queue for its reader like any other. Given the delivery's
fields (``seq``, ``event``, ``after``): a delivery taken at once is never made a
``Delivery`` (issue 17: a tuple per reader per event)."""


class Subscription:
    __slots__ = ("_breaks", "_clean_since", "broker", "game_id", "overflowed", "queue", "sink",
                 "viewer")

    def __init__(self, broker: Broker, game_id: str, viewer: str | None, maxsize: int = 0) -> None:
        self.broker = broker
        self.game_id = game_id
        self.viewer = viewer
        self.queue: Buffer[Delivery] = Buffer(maxsize)
        self.overflowed = False
        """A bounded subscriber fell behind: it was dropped and must resync from the store."""
        self._clean_since: int | None = None
        """The seq after which this subscriber was offered every event (its latest delivery,
        or where it joined the game's stream), as long as the stream has not broken since
        (``_breaks``)."""
        self._breaks = 0
        self.sink: Sink | None = None
        """Offered each delivery while the queue is empty (``Sink``): a socket writes it
        straight away, with no task woken per delivery (issue 17, the fan-out)."""

    def drain(self) -> list[Delivery]:
        """Everything received so far."""
        items = list(self.queue.items)
        self.queue.items.clear()
        return items

    async def get(self) -> Delivery:
        return await self.queue.get()

    def close(self) -> None:
        self.broker.unsubscribe(self)


class _Stream:
    """One game's published sequence in this process, and its subscribers by viewer."""

    __slots__ = ("audiences", "breaks", "by_viewer", "hole", "last", "subs")

    def __init__(self) -> None:
        self.subs: list[Subscription] = []
        self.by_viewer: dict[str | None, list[Subscription]] = {}
        self.audiences: dict[frozenset[str], list[Subscription]] = {}
        """``audience``'s answers by the readers' set, until a subscriber comes or goes
        (an inbox's lines share one set: a city line looked up its 20 readers' subscribers
        one by one for every line). A list here is never changed, only dropped."""
        self.last: int | None = None
        """The latest seq published."""
        self.breaks = 0
        """How often the sequence broke: a seq that is not ``last + 1`` (a relay lost or
        reordered), or the first one published."""
        self.hole = 0
        """The seq before the latest break: nothing before it is known to be offered."""

    def published(self, seq: int) -> None:
        if self.last is None or seq != self.last + 1:
            self.breaks += 1
            self.hole = seq - 1
        self.last = seq

    def audience(self, event: Event) -> list[Subscription]:
        """The subscribers who may see ``event``, or more (never fewer): every one for a
        public event, else those of its readers (``outbound.who_may_see``)."""
        users = who_may_see(event)
        if users is None:
            return list(self.subs)
        found = self.audiences.get(users)
        if found is not None:
            return found
        by_viewer = self.by_viewer
        if len(users) > len(by_viewer):
            found = [sub for viewer, subs in by_viewer.items() if viewer in users for sub in subs]
        else:
            found = [sub for user in users for sub in by_viewer.get(user, ())]
        if len(self.audiences) >= MAX_AUDIENCES:
            self.audiences = {}
        self.audiences[users] = found
        return found

    def changed(self) -> None:
        """A subscriber came or went: every kept audience is stale."""
        if self.audiences:
            self.audiences = {}


Observer = Callable[[str, Sequence[tuple[int, Event]]], None]
"""Told every published batch of a game, before the subscribers (``ViewerStreams.observe``)."""


class WriteHold(Protocol):
    """What the sinks write while a game's batch of several events is published, held from
    ``hold`` and written at ``release``, once per socket (the web layer's
    ``transport.HeldFrames``): a reader that k of the batch's events are for costs one
    write, not k. Nothing else runs between the two (``publish`` does not await)."""

    def hold(self) -> None: ...

    def release(self) -> None: ...


class Broker:
    def __init__(self) -> None:
        self._streams: dict[str, _Stream] = {}
        self.observers: list[Observer] = []
        """The process's own read caches kept current by what is published (issue 17: a
        pushed message's number is then known without a read)."""
        self.writes: WriteHold | None = None
        """Set by the sockets' layer: their writes during a publish of several events."""

    async def ping(self) -> None:
        """Readiness: an in-process broker is always reachable (RedisBroker asks Redis)."""

    async def relayed(self) -> None:
        """Return once what was published so far has left for the other workers (nothing
        to wait for in one process): the writer lane acknowledges after this, so a worker
        killed right after its answer has already relayed the events it answered for."""

    def subscribe(self, game_id: str, viewer: str | None, maxsize: int = 0) -> Subscription:
        """``maxsize`` > 0 bounds the queue: a subscriber that falls that far behind is
        dropped (``overflowed``) instead of holding anyone back."""
        stream = self._streams.get(game_id)
        if stream is None:
            stream = self._streams[game_id] = _Stream()
        sub = Subscription(self, game_id, viewer, maxsize)
        sub._clean_since, sub._breaks = stream.last, stream.breaks
        stream.subs.append(sub)
        stream.by_viewer.setdefault(viewer, []).append(sub)
        stream.changed()
        return sub

    def has_subscribers(self, game_id: str) -> bool:
        stream = self._streams.get(game_id)
        return stream is not None and bool(stream.subs)

    def unsubscribe(self, sub: Subscription) -> None:
        stream = self._streams.get(sub.game_id)
        if stream is None or sub not in stream.subs:
            return
        stream.subs.remove(sub)
        stream.changed()
        same = stream.by_viewer[sub.viewer]
        same.remove(sub)
        if not same:
            del stream.by_viewer[sub.viewer]
        if not stream.subs:  # a later subscriber starts a stream of its own
            del self._streams[sub.game_id]

    def publish(self, game_id: str, events: Sequence[tuple[int, Event]]) -> None:
        """Each event to the subscribers who may see it (``may_see``, asked of each one the
        audience index names), in seq order per subscriber; ``after`` from the game's
        stream, so a subscriber the event is not for costs nothing (issue 17: 80 of a
        city line's 100 subscribers)."""
        for observe in self.observers:
            observe(game_id, events)
        stream = self._streams.get(game_id)
        if stream is None:
            return
        writes = self.writes
        if writes is None or len(events) < 2:
            self._offer(stream, events)
            return
        writes.hold()
        try:
            self._offer(stream, events)
        finally:
            writes.release()

    def _offer(self, stream: _Stream, events: Sequence[tuple[int, Event]]) -> None:
        for seq, event in events:
            stream.published(seq)
            breaks = stream.breaks
            for sub in stream.audience(event):
                if sub.overflowed or not may_see(event, sub.viewer):
                    continue
                after = sub._clean_since if sub._breaks == breaks else stream.hole
                sub._clean_since, sub._breaks = seq, breaks
                sink = sub.sink
                if sink is not None and not sub.queue.items:
                    try:
                        if sink(seq, event, after):
                            continue
                    except Exception:  # it declines: the queue's reader meets the same failure
                        logger.exception("sink failed; the delivery is queued")
                try:
                    sub.queue.put_nowait(Delivery(seq, event, after))
                except asyncio.QueueFull:
                    sub.overflowed = True
                    self.unsubscribe(sub)
