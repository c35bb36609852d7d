"""A reconnect storm after a restart (issue 17): a subscribe reads a cold game from the
store, gives the pooled connection back, and only then decodes and replays it; the
viewers' streams of that game are read once for all of them.

Cast: ``small_cast`` (Лепроград and Мафиозово, six residents each), set up and started.
"""

from __future__ import annotations

import asyncio

import pytest

from lepromafia.service.service import GameService
from lepromafia.service.streams import ViewerStreams
from lepromafia.store.database import DatabaseConfig
from lepromafia.store.event_store import StoredGame, Transaction

from ..service.conftest import backend  # noqa: F401 - the fixture (SQLite and PostgreSQL)
from ..service.helpers import manual_clock, run, setup_game, small_cast

CAST = small_cast()


def test_a_cold_game_is_replayed_holding_no_pooled_connection(backend: DatabaseConfig,  # noqa: F811
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    async def scenario() -> tuple[list[int], int]:
        clock = manual_clock()
        async with GameService.running(backend, clock=clock, sweep=False) as first:
            await setup_game(first, "storm", CAST)
            version = (await first.current("storm")).version
        held: list[int] = []
        real = StoredGame.assemble
        async with GameService.running(backend, clock=clock, sweep=False) as restarted:  # cold
            pool = restarted.store.engine.pool

            def watched(self: StoredGame) -> object:
                held.append(pool.checkedout())  # type: ignore[attr-defined]
                return real(self)

            monkeypatch.setattr(StoredGame, "assemble", watched)
            seen = await restarted.current("storm")
        assert seen.version == version
        return held, version

    held, _ = run(scenario())
    assert held == [0]  # the replay ran with the reader's connection back in the pool


def test_twenty_viewers_of_a_cold_game_read_its_stream_once(backend: DatabaseConfig,  # noqa: F811
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    async def scenario() -> tuple[int, set[int]]:
        clock = manual_clock()
        async with GameService.running(backend, clock=clock, sweep=False) as svc:
            await setup_game(svc, "storm", CAST)
            version = (await svc.current("storm")).version
            reads = 0
            real = Transaction.event_rows

            async def counted(self: Transaction, game_id: str, after: int = 0) -> object:
                nonlocal reads
                reads += 1
                await asyncio.sleep(0.05)  # slow: every viewer arrives while it runs
                return await real(self, game_id, after)

            monkeypatch.setattr(Transaction, "event_rows", counted)
            streams = ViewerStreams(svc.store)
            viewers = [u for us in CAST.cities.values() for u in us]
            counts = await asyncio.gather(*(streams.position("storm", v, version) for v in viewers))
        return reads, set(counts)

    reads, counts = run(scenario())
    assert reads == 1
    assert all(n > 0 for n in counts)
