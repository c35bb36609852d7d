"""A reconnect storm on a cold game (issue 17, review P3): after a restart every viewer of
a game subscribes at once; the game is loaded from the store once, not once per viewer,
and the viewers waiting for that load hold no pooled connection meanwhile."""

from __future__ import annotations

import asyncio

import pytest

from lepromafia.service.service import GameService
from lepromafia.store.database import DatabaseConfig
from lepromafia.store.event_store import Transaction

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
