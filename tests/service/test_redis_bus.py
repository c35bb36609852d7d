"""Several workers: events committed by one reach every worker's subscribers through Redis,
filtered per viewer (publish after commit across processes). Uses the real Redis server at
127.0.0.1:6379 and fails if it is unreachable."""

import asyncio
import os
import secrets
from collections.abc import Callable

import pytest
import redis.asyncio as aioredis
from redis.asyncio.connection import parse_url

from lepromafia.bots.simulate import play
from lepromafia.engine.events import Event
from lepromafia.engine.visibility import visible_to
from lepromafia.service import redis_bus
from lepromafia.service.pubsub import Subscription
from lepromafia.service.redis_bus import RedisBroker
from lepromafia.store import codec

URL = os.environ.get("LEPROMAFIA_TEST_REDIS_URL", "redis://127.0.0.1:6379/0")


async def until(condition: Callable[[], bool], seconds: float) -> None:
    for _ in range(int(seconds / 0.01)):
        if condition():
            return
        await asyncio.sleep(0.01)


async def lost_then_subscribed_again(worker: RedisBroker) -> None:
    """The worker finds its subscription lost, is not ready meanwhile, and subscribes again."""
    await until(lambda: not worker.listening, 3)
    assert not worker.listening
    with pytest.raises(aioredis.ConnectionError):
        await worker.ping()  # /readyz: 503 while it cannot hear the others
    await until(lambda: worker.listening, 5)
    assert worker.listening and worker.subscriptions == 1


async def heard(one: RedisBroker, sub: Subscription, events: list[Event]) -> list[int]:
    """Worker one publishes game 1's events; the sequence numbers ``sub`` receives."""
    one.publish("g1", list(enumerate(events, start=1)))
    await one.flush()
    await until(lambda: sub.queue.qsize() >= sum(e.audience.public for e in events), 2)
    return [d.seq for d in sub.drain()]


def test_a_second_worker_relays_events_to_its_subscribers_filtered_per_viewer():
    """SEC-11, §9: a mafia inbox message reaches the other worker's mafioso, and only a bare
    seq reaches the other worker's honest resident."""
    events = play(seed=2, cities=2).table.events[:400]
    viewer_mafia = next(u for e in events if type(e).__name__ == "MafiaDealt" for u in e.mafiosi)
    viewer_honest = "anonymous-stranger"

    async def run() -> None:
        prefix = f"lepromafia-test-{secrets.token_hex(4)}:"
        one, two = RedisBroker(URL, "one", prefix), RedisBroker(URL, "two", prefix)
        await one.start()
        await two.start()
        try:
            mafioso = two.subscribe("g1", viewer_mafia)
            stranger = two.subscribe("g1", viewer_honest)
            local = one.subscribe("g1", viewer_mafia)
            one.publish("g1", list(enumerate(events, start=1)))
            await one.flush()
            seen_mafia = [q for q, e in enumerate(events, start=1) if visible_to(e, viewer_mafia)]
            seen_public = [q for q, e in enumerate(events, start=1) if e.audience.public]
            for _ in range(100):
                if mafioso.queue.qsize() >= len(seen_mafia) and stranger.queue.qsize() >= len(seen_public):
                    break
                await asyncio.sleep(0.02)
            got_mafia, got_stranger = mafioso.drain(), stranger.drain()
            assert [p.seq for p in got_mafia] == seen_mafia  # only what he may see
            assert [p.seq for p in got_stranger] == seen_public
            for got in (got_mafia, got_stranger):  # chained: no hole between deliveries
                assert [p.after for p in got] == [0, *(p.seq for p in got[:-1])]
            assert len(local.drain()) == len(seen_mafia)  # delivered once locally, not echoed
        finally:
            await one.close()
            await two.close()

    asyncio.run(run())


def test_workers_on_two_redis_databases_do_not_hear_each_other():
    """Two deployments (or two benchmarked servers) on one Redis with different database
    numbers: pub/sub ignores the number, the channels' names must not. A chat message
    committed on /5's worker reaches /5's other worker once, and nobody on /6."""
    events = play(seed=2, cities=2).table.events[:40]
    base = URL.rsplit("/", 1)[0]

    async def run() -> None:
        a5, b5 = RedisBroker(f"{base}/5", "a5"), RedisBroker(f"{base}/5", "b5")
        b6 = RedisBroker(f"{base}/6", "b6")
        for broker in (a5, b5, b6):
            await broker.start()
        try:
            game = f"g-{secrets.token_hex(4)}"
            same, other = b5.subscribe(game, "anyone"), b6.subscribe(game, "anyone")
            a5.publish(game, list(enumerate(events, start=1)))
            a5.publish_eviction(None, "alice")
            await a5.flush()
            public = [q for q, e in enumerate(events, start=1) if e.audience.public]
            for _ in range(100):
                if same.queue.qsize() >= len(public):
                    break
                await asyncio.sleep(0.02)
            await asyncio.sleep(0.2)  # what /6 would hear has had time to arrive
            assert [p.seq for p in same.drain()] == public
            assert other.drain() == []
        finally:
            for broker in (a5, b5, b6):
                await broker.close()

    asyncio.run(run())


def test_a_worker_drops_only_its_own_publications_before_decoding_them():
    """The pattern subscription returns a worker's own batches: they are recognised from
    their first bytes; another worker's, even one whose name begins with this one's, are not."""
    async def run() -> None:
        broker = RedisBroker(URL, "w1", "lepromafia-test-own:")
        try:
            batch = {"game": "g1", "events": []}
            assert broker._mine(codec.dumps({"origin": "w1", **batch}).encode())  # as publish writes it
            assert not broker._mine(codec.dumps({"origin": "w10", **batch}).encode())
            assert not broker._mine(codec.dumps({"origin": "w", **batch}))
            broker.publish("g1", [])  # what publish itself queues for the other workers
            assert broker._round is not None and broker._mine(broker._round[-1][1].encode())
        finally:
            await broker.close()
        named = RedisBroker(URL, "сервер-1", "lepromafia-test-own:")  # written as publish writes it
        try:
            assert named._mine(codec.dumps({"origin": "сервер-1", "game": "g1"}).encode())
        finally:
            await named.close()

    asyncio.run(run())


def test_a_worker_whose_redis_connection_drops_subscribes_again_and_hears_the_others():
    """Redis drops worker two's subscription (``CLIENT KILL``, as a Redis restart would).
    Until two has subscribed again its readiness fails; then it hears worker one's next
    chat message as before, and it has forgotten its cached sessions, since a logout
    announced meanwhile would not have reached it."""
    events = play(seed=2, cities=2).table.events[:40]
    viewer = "anonymous-stranger"
    public = [q for q, e in enumerate(events, start=1) if e.audience.public]

    async def run() -> None:
        prefix = f"lepromafia-test-{secrets.token_hex(4)}:"
        name_two = f"two-{secrets.token_hex(4)}"
        one = RedisBroker(URL, f"one-{secrets.token_hex(4)}", prefix)
        two = RedisBroker(URL, name_two, prefix, reconnect_first=1.0)
        forgotten: list[bool] = []
        two.on_resubscribed = lambda: forgotten.append(True)
        await one.start()
        await two.start()
        admin = aioredis.from_url(URL)
        try:
            stranger = two.subscribe("g1", viewer)
            await two.ping()
            clients = await admin.execute_command("CLIENT", "LIST", "TYPE", "pubsub")
            ids = [line.split(" ")[0].split("=")[1] for line in clients.decode().splitlines()
                   if f" name=lepromafia-{name_two} " in f" {line} "]
            assert len(ids) == 1, clients
            await admin.execute_command("CLIENT", "KILL", "ID", ids[0])
            await lost_then_subscribed_again(two)
            assert forgotten == [True]
            await two.ping()
            assert await heard(one, stranger, events) == public
        finally:
            await admin.aclose()
            await one.close()
            await two.close()

    asyncio.run(run())


def test_publications_made_together_leave_in_one_round_trip_and_in_order():
    """Worker one commits chat lines of thirty games one after another in one turn of its
    loop (as a writer lane's batch publishes), announces a logout, then publishes game 1's
    next lines while the first round is on its way. Worker two hears every line once, each
    game's in order and chained with no hole, and the logout; worker one sent the first
    thirty-one publications as one pipeline and the rest in the next, and ``relayed``
    returned once all were through."""
    events = [e for e in play(seed=2, cities=2).table.events[:400] if e.audience.public][:8]

    async def run() -> None:
        prefix = f"lepromafia-test-{secrets.token_hex(4)}:"
        one, two = RedisBroker(URL, "one", prefix), RedisBroker(URL, "two", prefix)
        rounds: list[int] = []
        send_round = one._send_round

        async def counted(messages, previous):
            await send_round(messages, previous)
            rounds.append(len(messages))

        one._send_round = counted  # type: ignore[method-assign]
        evicted: list[tuple[str | None, str | None]] = []
        two.on_eviction = lambda token, user: evicted.append((token, user))
        await one.start()
        await two.start()
        try:
            subs = {g: two.subscribe(g, "anonymous-stranger") for g in (f"g{n}" for n in range(1, 31))}
            for n in range(1, 31):
                one.publish(f"g{n}", [(1, events[0])])
            one.publish_eviction("token-of-anna", "anna")
            await asyncio.sleep(0)  # the round leaves
            for seq in range(2, 9):
                one.publish("g1", [(seq, events[seq - 1])])
            await one.relayed()
            assert rounds == [31, 7]
            for _ in range(100):
                if subs["g1"].queue.qsize() == 8 and evicted:
                    break
                await asyncio.sleep(0.02)
            got = subs["g1"].drain()
            assert [d.seq for d in got] == list(range(1, 9))
            assert [d.after for d in got] == list(range(0, 8))
            assert all([d.seq for d in sub.drain()] == [1] for g, sub in subs.items() if g != "g1")
            assert evicted == [("token-of-anna", "anna")]
        finally:
            await one.close()
            await two.close()

    asyncio.run(run())


def test_a_redis_that_never_answers_fails_each_round_in_time_and_holds_no_later_one(monkeypatch, caplog):
    """Worker one's Redis accepts the connection and then says nothing (a hung server, a
    network that drops every packet). Worker one commits game 1's chat line, and while that
    round waits, game 2's. Each round is given up after ``ROUND_TIMEOUT`` and logged (the
    events are committed: another worker's subscriber fills the hole from the store), so
    the second round is not held behind the first for ever, and the worker can shut down."""
    monkeypatch.setattr(redis_bus, "ROUND_TIMEOUT", 0.2)
    events = [e for e in play(seed=2, cities=2).table.events[:400] if e.audience.public][:2]

    async def run() -> None:
        held: list[asyncio.StreamWriter] = []

        async def silent(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            held.append(writer)  # read what it is sent, never answer
            while await reader.read(65536):
                pass

        server = await asyncio.start_server(silent, "127.0.0.1", 0)
        port = server.sockets[0].getsockname()[1]
        one = RedisBroker(f"redis://127.0.0.1:{port}/0", "one")
        try:
            one.publish("g1", [(1, events[0])])
            await asyncio.sleep(0)  # the first round is on its way
            one.publish("g2", [(1, events[1])])
            await asyncio.wait_for(one.flush(), 5)
            failed = [r for r in caplog.records if "relay to Redis failed" in r.getMessage()]
            assert len(failed) == 2
        finally:
            await asyncio.wait_for(one.close(), 5)
            for writer in held:
                writer.close()
            server.close()
            await server.wait_closed()

    asyncio.run(run())


class FreezableProxy:
    """A TCP relay to Redis whose open connections can be frozen: kept open, nothing passed
    either way (a hung Redis, a network that drops every packet). Connections made after
    the freeze pass as before."""

    def __init__(self) -> None:
        self.frozen: list[asyncio.Event] = []
        self.writers: list[asyncio.StreamWriter] = []
        self.port = 0

    async def start(self) -> None:
        self.server = await asyncio.start_server(self._serve, "127.0.0.1", 0)
        self.port = self.server.sockets[0].getsockname()[1]

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        redis = parse_url(URL)
        up_reader, up_writer = await asyncio.open_connection(redis["host"], redis["port"])
        self.writers += [writer, up_writer]
        frozen = asyncio.Event()
        self.frozen.append(frozen)

        async def pipe(src: asyncio.StreamReader, dst: asyncio.StreamWriter) -> None:
            while data := await src.read(65536):
                if frozen.is_set():
                    await asyncio.Event().wait()  # never again
                dst.write(data)
                await dst.drain()

        await asyncio.gather(pipe(reader, up_writer), pipe(up_reader, writer), return_exceptions=True)

    def freeze(self) -> None:
        for frozen in self.frozen:
            frozen.set()

    async def close(self) -> None:
        for writer in self.writers:
            writer.close()
        self.server.close()


def test_a_subscription_that_goes_silent_is_pinged_found_dead_and_made_again(monkeypatch):
    """Worker two's connection to Redis stops passing anything without closing (Redis hung,
    or the network between them). Two's subscription hears nothing for ``SILENCE_PING``,
    pings, gets no answer in ``PONG_TIMEOUT``, and counts as lost: two is not ready, then
    subscribes again on a new connection and hears worker one's next chat message."""
    monkeypatch.setattr(redis_bus, "SILENCE_PING", 0.3)
    monkeypatch.setattr(redis_bus, "PONG_TIMEOUT", 0.3)
    events = play(seed=2, cities=2).table.events[:40]
    public = [q for q, e in enumerate(events, start=1) if e.audience.public]

    async def run() -> None:
        proxy = FreezableProxy()
        await proxy.start()
        prefix = f"lepromafia-test-{secrets.token_hex(4)}:"
        one = RedisBroker(URL, "one", prefix)
        two = RedisBroker(f"redis://127.0.0.1:{proxy.port}/0", "two", prefix, reconnect_first=0.1)
        await one.start()
        await two.start()
        try:
            stranger = two.subscribe("g1", "anonymous-stranger")
            proxy.freeze()
            await lost_then_subscribed_again(two)
            assert await heard(one, stranger, events) == public
        finally:
            await one.close()
            await asyncio.wait_for(two.close(), 5)
            await proxy.close()

    asyncio.run(run())
