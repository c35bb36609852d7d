"""Fan-out across worker processes through Redis pub/sub.

Each worker publishes committed events to its local subscribers (the in-process ``Broker``)
and to the game's Redis channel; every other worker relays what it hears to its own local
subscribers, still filtered per viewer (``pubsub.deliver``). Redis carries only
committed events, so "publish after commit" holds across processes too.

Sessions: a worker that ends a session (logout, expiry) or must re-read a user's (a
sanction) says so on ``lepromafia:sessions``; every other worker drops it from its
session cache at once (``AccountService.evict``), instead of answering it from memory for
up to ``session_cache_seconds``.

Bells: the users whose unread notification count changed, on ``lepromafia:bells``, so the
worker holding a person's WebSocket tells him, whichever worker's dispatcher wrote the
notification (user ids only; the count is read where the socket is).

Redis's pub/sub ignores the database number of the URL (every client of the server hears
every channel), so the channels are named after it: workers on ``redis://host/3`` hear only
each other, as their keys would be (``/0``, the default, keeps the bare names).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import random
import secrets
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

import redis.asyncio as aioredis
from redis.asyncio.connection import parse_url

from ..engine.events import Event
from ..store import codec
from .pubsub import Broker

log = logging.getLogger(__name__)

CHANNEL = "lepromafia:game:"
RECONNECT_FIRST = 0.2
RECONNECT_MAX = 5.0
"""Seconds between attempts to subscribe again: doubling from the first to the most,
each drawn in 0.5–1.5× (the workers of a restarted Redis do not return in lockstep)."""
RELAY_TIMEOUT = 1.0
"""Seconds an acknowledgement waits at most for its events to reach Redis."""
ROUND_TIMEOUT = 5.0
"""Seconds a round of publications may take before it is given up as failed: a Redis that
accepts the connection and never answers must not hold every later round (they are chained,
in order) nor a worker's shutdown."""
SILENCE_PING = 15.0
"""Seconds the subscription may hear nothing before it pings Redis on that connection."""
PONG_TIMEOUT = 5.0
"""Seconds that ping may go unanswered before the subscription counts as lost (and the most
subscribing, or closing a lost subscription, may take): a Redis, or a network, that stopped
answering without closing the connection would otherwise leave the worker deaf to the
others, and ready."""
SESSIONS = "lepromafia:sessions"
BELLS = "lepromafia:bells"


def namespace(url: str) -> str:
    """``""`` for Redis database 0, else ``"db<N>:"``: the channels' prefix inside ``lepromafia:``."""
    db = int(parse_url(url).get("db", 0) or 0)
    return f"db{db}:" if db else ""


Eviction = Callable[[str | None, str | None], None]
"""(token hash, user): forget that cached session, or every cached session of the user."""


class RedisBroker(Broker):
    """A ``Broker`` whose publications also reach the other workers' subscribers."""

    def __init__(self, url: str = "redis://127.0.0.1:6379/0", worker: str | None = None,
                 prefix: str = CHANNEL, reconnect_first: float | None = None) -> None:
        super().__init__()
        self.reconnect_first = RECONNECT_FIRST if reconnect_first is None else reconnect_first
        self.worker = worker or secrets.token_hex(8)
        scope = namespace(url)
        self.prefix = prefix.replace("lepromafia:", f"lepromafia:{scope}", 1)
        self.sessions = SESSIONS.replace("lepromafia:", f"lepromafia:{scope}", 1)
        self.bells = BELLS.replace("lepromafia:", f"lepromafia:{scope}", 1)
        # named in CLIENT LIST (an operator, a test, can find this worker's connections)
        self._redis: Any = aioredis.from_url(url, client_name=f"lepromafia-{self.worker}")
        self._listener: asyncio.Task[None] | None = None
        self._sends: set[asyncio.Task[Any]] = set()
        """The rounds of publications not yet through (``_queue``)."""
        self._round: list[tuple[str, str]] | None = None
        """The publications of the round that has not started sending yet: the next ones
        join it."""
        self._last: asyncio.Task[Any] | None = None
        self._rings: set[asyncio.Task[None]] = set()
        self._ready = asyncio.Event()
        self._confirmed = 0
        self._own = codec.dumps({"origin": self.worker})[:-1].encode()
        """How this worker's own publications begin (``publish`` writes ``origin`` first):
        they come back through the pattern subscription and are dropped undecoded."""
        self.on_eviction: Eviction | None = None
        """Where another worker's session evictions go (``AccountService.evict``)."""
        self.on_ring: Callable[[list[str]], Awaitable[None]] | None = None
        """Where another worker's bells go (``Bells.ring_here``)."""
        self.on_resubscribed: Callable[[], None] | None = None
        """Told when a lost subscription is back (``AccountService.evict_all``)."""
        self.listening = False
        """Subscribed now: the other workers are heard."""
        self.subscriptions = 0
        """Subscriptions made again after a lost connection."""
        self._delay = self.reconnect_first
        """Seconds before the next attempt to subscribe again (back to the first once it
        succeeds)."""

    async def start(self) -> None:
        """Subscribe (raises if Redis cannot be reached), then listen for good: a lost
        connection is subscribed again (``_listen``)."""
        pubsub = await self._subscribed()
        self._listener = asyncio.get_running_loop().create_task(self._listen(pubsub))
        await self._ready.wait()

    async def _subscribed(self) -> Any:
        pubsub = self._redis.pubsub()
        try:
            async with asyncio.timeout(PONG_TIMEOUT):  # connecting names the client: an answer
                await pubsub.psubscribe(f"{self.prefix}*")
                await pubsub.subscribe(self.sessions, self.bells)
        except BaseException:
            await pubsub.aclose()
            raise
        return pubsub

    def publish_eviction(self, token_key: str | None, user: str | None) -> None:
        """Tell every other worker to forget a session (see ``Eviction``)."""
        self._send(self.sessions, {"origin": self.worker, "token": token_key, "user": user})

    def publish_ring(self, users: list[str]) -> None:
        """Tell every other worker that these users' unread counts changed."""
        self._send(self.bells, {"origin": self.worker, "users": users})

    def _send(self, channel: str, data: dict[str, Any]) -> None:
        self._queue(channel, json.dumps(data))

    def _queue(self, channel: str, message: str) -> None:
        """Publish ``message`` on ``channel`` with the round being gathered: one pipeline
        (one task, one round trip) for everything published while the previous round was
        on its way, in order (issue 17: a task and a pooled command per publication were
        a twentieth of two workers' CPU at 200 games)."""
        if self._round is None:
            self._round = []
            task = asyncio.get_running_loop().create_task(self._send_round(self._round, self._last))
            self._last = task
            self._sends.add(task)
            task.add_done_callback(self._sends.discard)
        self._round.append((channel, message))

    async def _send_round(self, messages: list[tuple[str, str]], previous: asyncio.Task[Any] | None) -> None:
        if previous is not None:
            await asyncio.wait([previous])  # in order, whatever became of it
        if self._round is messages:
            self._round = None  # what is published from now on waits for the next round
        pipe = self._redis.pipeline(transaction=False)
        for channel, message in messages:
            pipe.publish(channel, message)
        try:
            async with asyncio.timeout(ROUND_TIMEOUT):  # cancelled, redis-py drops the connection
                await pipe.execute()
        except Exception as exc:  # committed events: a subscriber that misses them fills the hole
            log.warning("relay to Redis failed: %r", exc)

    async def ping(self) -> None:
        """One round trip to Redis (readiness); raises if it cannot be reached, or while
        this worker's subscription is down (it would not hear the other workers)."""
        if not self.listening:
            raise aioredis.ConnectionError("not subscribed to the other workers' channels")
        await self._redis.ping()

    def publish(self, game_id: str, events: Sequence[tuple[int, Event]]) -> None:
        super().publish(game_id, events)
        message = codec.dumps({  # orjson, compact: ``_own`` is written the same way
            "origin": self.worker,
            "game": game_id,
            "events": [[seq, codec.encode_event(event)] for seq, event in events],
        })
        self._queue(f"{self.prefix}{game_id}", message)

    async def _listen(self, pubsub: Any) -> None:
        """Relay what Redis says, for as long as the worker runs. A lost connection (Redis
        restarted, the network, ``CLIENT KILL``, or a ping on a silent subscription that
        gets no answer: ``SILENCE_PING``) is retried with a jittered back-off; while
        it is down ``ping`` fails (``/readyz`` answers 503). What was published meanwhile
        is not heard: each socket fills that hole from the store with the game's next
        event, and every cached session is forgotten (an eviction may have been lost)."""
        while True:
            try:
                if pubsub is None:
                    pubsub = await self._subscribed()
                await self._relay(pubsub)
            except (aioredis.ConnectionError, aioredis.TimeoutError, OSError) as exc:
                log.warning("Redis subscription lost (%r); subscribing again in about %.1f s",
                            exc, self._delay)
            finally:
                self.listening = False
                self._confirmed = 0
                if pubsub is not None:
                    with contextlib.suppress(Exception):
                        async with asyncio.timeout(PONG_TIMEOUT):  # a silent peer: do not wait on it
                            await pubsub.aclose()
                    pubsub = None
            await asyncio.sleep(self._delay * random.uniform(0.5, 1.5))
            self._delay = min(self._delay * 2, RECONNECT_MAX)

    async def _relay(self, pubsub: Any) -> None:
        loop = asyncio.get_running_loop()
        heard = loop.time()
        pinged: float | None = None
        while True:
            message = await pubsub.get_message(ignore_subscribe_messages=False,
                                               timeout=min(1.0, SILENCE_PING, PONG_TIMEOUT))
            now = loop.time()
            if message is None:  # silence: ask Redis whether this connection still works
                if pinged is None and now - heard >= SILENCE_PING:
                    await pubsub.ping()
                    pinged = now
                elif pinged is not None and now - pinged >= PONG_TIMEOUT:
                    raise aioredis.TimeoutError(f"no answer on the subscription in {PONG_TIMEOUT:g} s")
                continue
            heard, pinged = now, None
            try:
                self._heard(message)
            except Exception:  # one bad message must not stop the relay
                log.exception("a message from Redis could not be relayed")

    def _heard(self, message: dict[str, Any]) -> None:
        if message["type"] in ("psubscribe", "subscribe"):
            self._confirmed += 1
            if self._confirmed == 3:  # the games' pattern, sessions, bells
                self._subscribed_again()
            return
        if message["type"] == "message":
            channel = message["channel"]
            channel = channel.decode() if isinstance(channel, bytes) else channel
            if channel == self.bells:  # counted off the listening loop: games' events go on
                ring = asyncio.get_running_loop().create_task(self._rung(json.loads(message["data"])))
                self._rings.add(ring)
                ring.add_done_callback(self._rings.discard)
            else:
                self._evicted(json.loads(message["data"]))
            return
        if message["type"] != "pmessage" or self._mine(message["data"]):
            return  # already delivered locally
        data = codec.loads(message["data"])
        events = [(seq, codec.decode_event(raw)) for seq, raw in data["events"]]
        Broker.publish(self, data["game"], events)

    def _subscribed_again(self) -> None:
        self.listening = True
        self._delay = self.reconnect_first
        if self._ready.is_set():  # a reconnection: evictions sent meanwhile were not heard
            self.subscriptions += 1
            if self.on_resubscribed is not None:
                self.on_resubscribed()
        self._ready.set()

    def _mine(self, raw: bytes | str) -> bool:
        own = self._own
        return raw.startswith(own) if isinstance(raw, bytes) else raw.startswith(own.decode())

    async def _rung(self, data: dict[str, Any]) -> None:
        if data.get("origin") != self.worker and self.on_ring is not None:
            try:
                await self.on_ring([str(u) for u in data.get("users", [])])
            except Exception:  # a listener's failure must not stop the relay
                log.warning("a relayed bell failed", exc_info=True)

    def _evicted(self, data: dict[str, Any]) -> None:
        if data.get("origin") != self.worker and self.on_eviction is not None:
            self.on_eviction(data.get("token"), data.get("user"))

    async def relayed(self) -> None:
        """What was published so far has reached Redis, or failed (logged: the events are
        committed, and a subscriber that misses them fills the hole from the store)."""
        if not self._sends:
            return
        _done, pending = await asyncio.wait(list(self._sends), timeout=RELAY_TIMEOUT)
        if pending:
            log.warning("relay to Redis slow: %d publications pending", len(pending))

    async def flush(self) -> None:
        """Wait until every publication so far has reached Redis."""
        if self._sends:
            await asyncio.gather(*list(self._sends))

    async def close(self) -> None:
        await self.flush()
        if self._listener is not None:
            self._listener.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._listener
        await self._redis.aclose()

