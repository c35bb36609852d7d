"""A restarted worker loads the games in progress before their players ask (issue 17)."""

from __future__ import annotations

from typing import Any

import pytest

from lepromafia.engine import commands as cmd
from lepromafia.service.event_index import EventIndex
from lepromafia.service.service import GameService
from lepromafia.service.warmup import WarmedUp, warm_up
from lepromafia.store.database import DatabaseConfig
from lepromafia.store.event_store import Transaction

from .helpers import manual_clock, run, setup_game, small_cast


def test_after_a_restart_the_games_in_progress_are_loaded_once_and_recruitment_is_left(
        backend: DatabaseConfig, monkeypatch: pytest.MonkeyPatch) -> None:
    """Лепроград's game is in its Day 1 and «Набор» still recruits when the worker restarts:
    the warm-up loads Лепроград's game (state and event index) and not «Набор»; then a
    player's page and twenty sockets read it with no further load of the game."""

    async def scenario() -> tuple[WarmedUp, list[str], int, int]:
        clock = manual_clock()
        async with GameService.running(backend, clock=clock, sweep=False) as first:
            await setup_game(first, "lepro", small_cast())
            await first.create_game("nabor", cmd.CreateGame(actor="host", title="Набор"), "create-nabor")
        loads: list[str] = []
        index_reads = 0
        real_stored, real_events_of = Transaction.stored, Transaction.events_of

        async def stored(self: Transaction, game_id: str, use_snapshot: bool = True) -> Any:
            loads.append(game_id)
            return await real_stored(self, game_id, use_snapshot)

        async def events_of(self: Transaction, *args: Any, **kwargs: Any) -> Any:
            nonlocal index_reads
            index_reads += 1
            return await real_events_of(self, *args, **kwargs)

        monkeypatch.setattr(Transaction, "stored", stored)
        monkeypatch.setattr(Transaction, "events_of", events_of)
        async with GameService.running(backend, clock=clock, sweep=False) as restarted:
            events = EventIndex(restarted.store)
            warmed = await warm_up(restarted, events, limit=10)
            reads_after_warm_up = index_reads
            for _ in range(20):
                current = await restarted.current("lepro")
                await events.events("lepro", current.version)
        return warmed, loads, reads_after_warm_up, index_reads

    warmed, loads, reads_after_warm_up, index_reads = run(scenario())
    assert warmed == WarmedUp(games=1, failed=0)
    assert loads == ["lepro"]
    assert reads_after_warm_up == 1 and index_reads == 1


def test_the_warm_up_loads_no_more_games_than_the_caches_keep(backend: DatabaseConfig) -> None:
    """Three games in progress, room for two: the two most advanced are loaded (more would
    only evict the first ones again)."""

    async def scenario() -> WarmedUp:
        clock = manual_clock()
        async with GameService.running(backend, clock=clock, sweep=False) as first:
            for game_id in ("a", "b", "c"):
                await setup_game(first, game_id, small_cast())
        async with GameService.running(backend, clock=clock, sweep=False) as restarted:
            return await warm_up(restarted, EventIndex(restarted.store), limit=2)

    assert run(scenario()) == WarmedUp(games=2, failed=0)


def test_after_the_warm_up_a_sole_writers_lane_holds_each_game_and_its_log(
        backend: DatabaseConfig, monkeypatch: pytest.MonkeyPatch) -> None:
    """Лепроград's and Мафиозо's games are in their Day 1 when the worker (the only one)
    restarts. The warm-up has the writer lane take both: their logs are read then, a batch
    for both. Ana's and Boris's first messages afterwards read no leaves and load no game:
    the first commands after a start no longer wait for one batch loading every game
    (issue 17). With several workers nothing is taken (a game's commands pick its worker)."""
    from .test_verifiable_log import KEY

    games = ("lepro", "mafioso")

    async def scenario() -> tuple[list[set[str]], list[str], list[set[str]], int]:
        clock = manual_clock()
        city = await games_on_day_one(backend, clock, games)
        leaf_reads, loads = spy_on_loads(monkeypatch)
        async with GameService.running(backend, clock=clock, sweep=False, log_key=KEY,
                                       sole_writer=True) as restarted:
            await warm_up(restarted, EventIndex(restarted.store), limit=10)
            during_warm_up = list(leaf_reads)
            leaf_reads.clear()
            loads.clear()
            for game, author in zip(games, ("p01_01", "p01_02"), strict=True):
                await restarted.execute(game, cmd.PostMessage(actor=author, inbox=city, text="Утро"),
                                        f"first-{game}")
        async with GameService.running(backend, clock=clock, sweep=False, log_key=KEY) as shared:
            taken = await shared.take(list(games))
        return during_warm_up, loads, leaf_reads, taken

    during_warm_up, loads, leaf_reads, taken = run(scenario())
    assert during_warm_up == [set(games)]
    assert leaf_reads == [] and loads == []
    assert taken == 0


def test_with_several_workers_a_subscribed_game_is_taken_before_its_first_command(
        backend: DatabaseConfig, monkeypatch: pytest.MonkeyPatch) -> None:
    """Two workers share the store. After a restart, a socket subscribes to Лепроград's game
    on this worker (its proxy routes the game here) and one to Мафиозо's on the other. This
    worker's lane takes Лепроград's game in the background (``hold``), a batch reading its
    log, and Ana's first message then reads no leaves and loads no game; Мафиозо's game is
    not taken here (issue 17: the first commands after a start no longer load the games)."""
    from .test_verifiable_log import KEY

    games = ("lepro", "mafioso")

    async def scenario() -> tuple[list[set[str]], list[str], list[set[str]], list[str]]:
        clock = manual_clock()
        city = await games_on_day_one(backend, clock, games)
        leaf_reads, loads = spy_on_loads(monkeypatch)
        async with GameService.running(backend, clock=clock, sweep=False, log_key=KEY) as worker:
            worker.hold("lepro")
            worker.hold("lepro")  # a second socket of the same game: one take
            assert worker._holder is not None
            await worker._holder
            during_hold = list(leaf_reads)
            held = sorted(g for lane in worker._lanes for g in lane.handles)
            leaf_reads.clear()
            loads.clear()
            await worker.execute("lepro", cmd.PostMessage(actor="p01_01", inbox=city, text="Утро"), "first")
        return during_hold, loads, leaf_reads, held

    during_hold, loads, leaf_reads, held = run(scenario())
    assert during_hold == [{"lepro"}]
    assert held == ["lepro"]
    assert leaf_reads == [] and loads == []


def spy_on_loads(monkeypatch: pytest.MonkeyPatch) -> tuple[list[set[str]], list[str]]:
    """The games whose verifiable-log leaves were read (a set per read) and the games loaded
    from the store, from now on."""
    leaf_reads: list[set[str]] = []
    loads: list[str] = []
    real_leaves, real_stored = Transaction.leaves_after, Transaction.stored

    async def leaves_after(self: Transaction, after: Any) -> Any:
        leaf_reads.append(set(after))
        return await real_leaves(self, after)

    async def stored(self: Transaction, game_id: str, use_snapshot: bool = True) -> Any:
        loads.append(game_id)
        return await real_stored(self, game_id, use_snapshot)

    monkeypatch.setattr(Transaction, "leaves_after", leaves_after)
    monkeypatch.setattr(Transaction, "stored", stored)
    return leaf_reads, loads


async def games_on_day_one(backend: DatabaseConfig, clock: Any, games: tuple[str, ...]) -> str:
    """The games set up to their Day 1 (with a verifiable log), by a worker that then
    stops; the first city's inbox id (the same in each)."""
    from .test_verifiable_log import KEY

    async with GameService.running(backend, clock=clock, sweep=False, log_key=KEY) as first:
        for game in games:
            await setup_game(first, game, small_cast())
        city = (await first.state(games[0])).current_inbox("city", next(iter(small_cast().cities)))
    assert city is not None
    return city
