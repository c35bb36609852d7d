"""A reconnect storm on a cold game (issue 17, review P3): after a restart every viewer of
a game subscribes at once; the game is loaded from the store once, not once per viewer,
and the viewers waiting for that load hold no pooled connection meanwhile."""

from __future__ import annotations

import asyncio

import pytest

from lepromafia.service.service import GameService
from lepromafia.service.streams import ViewerStreams
from lepromafia.store.database import DatabaseConfig
from lepromafia.store.event_store import EventStore, Transaction

from .helpers import manual_clock, run, setup_game, small_cast


def test_fifty_viewers_of_a_cold_game_share_one_load(backend: DatabaseConfig,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    async def scenario() -> tuple[int, set[int], int]:
        clock = manual_clock()
        async with GameService.running(backend, clock=clock, sweep=False) as first:
            await setup_game(first, "storm", small_cast())
            version = (await first.current("storm")).version
        loads = 0
        real_load = Transaction.stored

        async def counted(self: Transaction, game_id: str, use_snapshot: bool = True) -> object:
            nonlocal loads
            loads += 1
            await asyncio.sleep(0.05)  # a slow read: every viewer arrives while it runs
            return await real_load(self, game_id, use_snapshot)

        monkeypatch.setattr(Transaction, "stored", counted)
        async with GameService.running(backend, clock=clock, sweep=False) as restarted:  # cold
            seen = await asyncio.gather(*(restarted.current("storm") for _ in range(50)))
        return loads, {c.version for c in seen}, version

    loads, versions, version = run(scenario())
    assert loads == 1
    assert versions == {version}


def test_a_failed_load_fails_its_waiters_and_the_next_read_loads_again(
        backend: DatabaseConfig, monkeypatch: pytest.MonkeyPatch) -> None:
    async def scenario() -> tuple[list[bool], int]:
        clock = manual_clock()
        async with GameService.running(backend, clock=clock, sweep=False) as first:
            await setup_game(first, "storm", small_cast())
        real_load = Transaction.stored
        calls = 0

        async def flaky(self: Transaction, game_id: str, use_snapshot: bool = True) -> object:
            nonlocal calls
            calls += 1
            await asyncio.sleep(0.05)
            if calls == 1:
                raise OSError("the database went away")
            return await real_load(self, game_id, use_snapshot)

        monkeypatch.setattr(Transaction, "stored", flaky)
        async with GameService.running(backend, clock=clock, sweep=False) as restarted:
            results = await asyncio.gather(*(restarted.current("storm") for _ in range(5)),
                                           return_exceptions=True)
            again = await restarted.current("storm")
        return [isinstance(r, OSError) for r in results], again.version

    failed, version = run(scenario())
    assert any(failed)  # the read that ran the failing load failed, and those that joined it
    assert version > 0  # the failure is not remembered: the next read loads the game


def test_page_requests_waiting_for_a_stream_read_hold_no_connection(backend: DatabaseConfig) -> None:
    """Two page requests of one game hold the whole (two-connection) pool in their read
    transactions when a socket of the same game starts reading the new events of its
    viewers' streams; the requests then need that very read. They wait for it holding no
    connection, so the socket's read gets one and all three answer (before: the requests
    waited on the reader holding the pool, the reader waited for the pool, and all three
    failed after the pool's timeout: 246 answers of 500 in 20 s of the load benchmark)."""
    async def scenario() -> list[int]:
        clock = manual_clock()
        async with GameService.running(backend, clock=clock, sweep=False) as first:
            await setup_game(first, "busy", small_cast())
        store = EventStore.open(backend, pool_size=2, max_overflow=0, pool_timeout=3)
        service = GameService(store, clock=clock)
        await service.start(sweep=False)
        streams = ViewerStreams(store)
        try:
            version = (await service.current("busy")).version
            holding, go = asyncio.Semaphore(0), asyncio.Event()

            async def page_request() -> int:
                async with store.read_scope():
                    await service.current("busy")  # the request's read transaction is open
                    holding.release()
                    await go.wait()
                    return await streams.position("busy", None, version)

            async def socket() -> int:
                for _ in range(2):
                    await holding.acquire()
                return await streams.position("busy", None, version)  # outside any request

            requests = [asyncio.create_task(page_request()) for _ in range(2)]
            reader = asyncio.create_task(socket())
            await asyncio.sleep(0.2)  # the socket now waits for a pooled connection
            go.set()
            return list(await asyncio.wait_for(asyncio.gather(reader, *requests), 20))
        finally:
            await service.close()

    positions = run(scenario())
    assert len(set(positions)) == 1 and positions[0] > 0


def test_a_stream_read_that_ends_while_a_waiter_lets_go_of_its_connection(
        backend: DatabaseConfig, monkeypatch: pytest.MonkeyPatch) -> None:
    """A request finds another task reading its game's stream and lets go of its
    connection first; the read ends meanwhile. The request carries on from what was read
    (before: it then waited on a read already gone and answered 500 — twice in 20 s of
    the 10-game load benchmark)."""
    async def scenario() -> tuple[int, int]:
        clock = manual_clock()
        async with GameService.running(backend, clock=clock, sweep=False) as service:
            await setup_game(service, "busy", small_cast())
            version = (await service.current("busy")).version
            streams = ViewerStreams(service.store)
            real_release = service.store.release_reads

            async def slow_release() -> None:
                await real_release()
                await asyncio.sleep(0.3)  # the other read ends while this one lets go

            monkeypatch.setattr(service.store, "release_reads", slow_release)

            async def waiter() -> int:
                await asyncio.sleep(0)  # the reader below starts first
                return await streams.position("busy", None, version)

            first, second = await asyncio.gather(streams.position("busy", None, version), waiter())
            return first, second

    first, second = run(scenario())
    assert first == second > 0
