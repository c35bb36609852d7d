"""The one per-process event index: read once, then only the tail; bounded; by class.

Cast: two small games «g» and «h» (helpers.small_cast). The pages' reads of a game's
events cost no SQL once the index has reached the version the read already knows.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import event

from lepromafia.engine import commands as cmd
from lepromafia.engine import events as ev
from lepromafia.service.event_index import UNINDEXED, EventIndex
from lepromafia.service.service import GameService
from lepromafia.service.streams import ViewerStreams
from lepromafia.store.database import DatabaseConfig
from lepromafia.store.event_store import EventStore

from .helpers import Ids, at, manual_clock, run, setup_game, small_cast, two_workers

CAST = small_cast()


def test_a_warm_read_runs_no_sql_a_new_commit_reads_only_its_tail_and_old_games_are_evicted(
        backend: DatabaseConfig) -> None:
    async def scenario() -> None:
        clock = manual_clock()
        svc = GameService(EventStore.open(backend), clock)
        await svc.start(sweep=False)
        await setup_game(svc, "g", CAST)
        await setup_game(svc, "h", CAST, ids=Ids("h-"))
        statements: list[str] = []

        def count(_c: Any, _cur: Any, statement: str, *_a: Any) -> None:
            statements.append(statement)

        event.listen(svc.store.engine.sync_engine, "before_cursor_execute", count)
        index = EventIndex(svc.store, max_games=1)
        g = await svc.current("g")
        first = list(await index.events("g", g.version))
        assert first and not any(isinstance(e, UNINDEXED) for _s, e in first)
        assert any(isinstance(e, ev.GameStarted) for _s, e in first)
        statements.clear()
        assert list(await index.events("g", g.version)) == first
        assert statements == []  # warm: nothing read
        clock.set(at(1, "12:00"))
        city = g.state.current_inbox("city", next(iter(CAST.cities)))
        ack = await svc.execute("g", cmd.PostMessage(actor="p01_01", inbox=city, text="привет"), "m1")
        statements.clear()
        after = await index.events("g", ack.last_seq)
        assert statements == []  # this worker's own commit extended the index as it landed
        assert [s for s, _e in after if s > g.version] == [s for s in range(g.version + 1, ack.last_seq + 1)
                                                        if s != ack.last_seq]  # the message is unindexed
        other = GameService(EventStore.open(backend), clock)  # a second worker commits
        await other.start(sweep=False)
        theirs = await other.execute("g", cmd.PostMessage(actor="p01_02", inbox=city, text="да"), "m2")
        await other.close()
        statements.clear()
        await index.events("g", theirs.last_seq)
        assert len([s for s in statements if "FROM events" in s]) == 1  # only the tail
        await index.events("h", (await svc.current("h")).version)  # evicts «g»
        statements.clear()
        await index.events("g", ack.last_seq)
        assert any("FROM events" in s for s in statements)  # read again from the start
        await svc.close()

    run(scenario())


def test_a_read_that_began_before_this_workers_own_commit_still_indexes_that_commit(
        backend: DatabaseConfig) -> None:
    """EXEC-3. Worker B takes p01_03's nomination of p01_01; worker A's page request then
    begins its read (one snapshot for the request); meanwhile A's own lane takes p01_04's
    nomination of p01_02. The request's state is A's lane copy, which holds both; the
    events it reads must hold both too, and the index must not mark p01_02's nomination as
    read while the request's old snapshot (SQLite) could not show it: every later page
    would lack it. The viewers' streams (positions) read the same way."""
    import asyncio

    async def scenario() -> None:
        clock = manual_clock()
        async with two_workers(backend, clock) as (a, b):
            await setup_game(a, "g", CAST)
            clock.set(at(2, "12:00"))
            await a.sweep()
            index, streams = EventIndex(a.store), ViewerStreams(a.store)
            await index.events("g", (await a.current("g")).version)
            await streams.visible_seqs("g", None, (await a.current("g")).version)
            living = (await a.state("g")).living(next(iter(CAST.cities)))
            await b.execute("g", cmd.Nominate(actor=living[2], candidate=living[0]), "n1")
            go, done = asyncio.Event(), asyncio.Event()

            async def a_takes_the_second_nomination() -> None:  # outside the request's read
                await go.wait()
                await a.execute("g", cmd.Nominate(actor=living[3], candidate=living[1]), "n2")
                done.set()

            other = asyncio.create_task(a_takes_the_second_nomination())
            async with a.store.read_scope():
                await a.current("g")  # the request's read (and snapshot) begins
                go.set()
                await done.wait()
                seen = await a.current("g")
                inside = [e.candidate for _s, e in await index.events("g", seen.version)
                          if isinstance(e, ev.NominationMade)]
                public = list(await streams.visible_seqs("g", None, seen.version))
            await other
            after = [e.candidate for _s, e in await index.events("g", (await a.current("g")).version)
                     if isinstance(e, ev.NominationMade)]
            assert inside == [living[0], living[1]]
            fresh = list(await ViewerStreams(a.store).visible_seqs("g", None, seen.version))
            assert public == fresh, "the viewers' streams hold the second nomination too"
            assert after == [living[0], living[1]]

    run(scenario())
