"""One writer per game across workers (issue 17): each writer lane holds its game's row
for the batch and follows what another worker committed, so two workers taking the same
game's commands never refuse each other's, and a deadline fires once.

Cast: ``small_cast`` (Лепроград p01_01..p01_06, Мафиозово p02_01..p02_06), Day 1 after
12:00: both city inboxes open (CHAT-1).
"""

from __future__ import annotations

import asyncio

from lepromafia.engine import commands as cmd
from lepromafia.engine.errors import RuleViolation
from lepromafia.engine.events import DayStarted, MessagePosted
from lepromafia.service.errors import ServiceError
from lepromafia.service.observer import ServiceObserver
from lepromafia.service.replay import check_game
from lepromafia.service.service import GameService
from lepromafia.store.database import DatabaseConfig
from lepromafia.store.event_store import EventStore, decode_rows

from ..service.conftest import backend  # noqa: F401 - the fixture (SQLite and PostgreSQL)
from ..service.helpers import at, manual_clock, run, setup_game, small_cast, two_workers

CAST = small_cast()
LEPROGRAD, MAFIOZOVO = list(CAST.cities)


class Follows(ServiceObserver):
    def __init__(self) -> None:
        self.times = 0

    def followed(self, events: int) -> None:
        self.times += 1


def test_two_workers_posting_at_once_to_one_game_refuse_nothing(backend: DatabaseConfig) -> None:  # noqa: F811
    """CHAT-1: Лепроград's residents post 40 messages through worker A and Мафиозово's 40
    through worker B, in rounds of eight at once. Every post is acknowledged, none twice; the log is
    whole; each worker's lane followed the other's commits instead of failing on them."""

    async def scenario() -> None:
        clock = manual_clock()
        a = GameService(EventStore.open(backend), clock, lanes=1)
        b = GameService(EventStore.open(backend), clock, lanes=1)
        a.observer, b.observer = Follows(), Follows()
        await a.start(sweep=False)
        await b.start(sweep=False)
        await setup_game(a, "g", CAST)
        clock.set(at(1, "12:00"))
        await a.sweep()
        state = await a.state("g")
        inboxes = {c: state.current_inbox("city", c) for c in (LEPROGRAD, MAFIOZOVO)}

        async def post(svc: GameService, city: str, n: int) -> str:
            author = CAST.cities[city][n % len(CAST.cities[city])]
            text = f"{city}-{n}"
            await svc.execute("g", cmd.PostMessage(actor=author, inbox=inboxes[city], text=text), text)
            return text

        outcomes: list[object] = []
        for n in range(0, 40, 4):  # rounds of eight posts at once, four through each worker
            outcomes += await asyncio.gather(*(post(svc, city, m) for m in range(n, n + 4)
                                               for svc, city in ((a, LEPROGRAD), (b, MAFIOZOVO))),
                                             return_exceptions=True)
        refused = [o for o in outcomes if isinstance(o, (ServiceError, RuleViolation, Exception))]
        assert refused == []
        rows = await a.store.event_rows("g")
        texts = [e.text for _, e in decode_rows(rows) if isinstance(e, MessagePosted)]
        assert sorted(texts) == sorted(str(o) for o in outcomes)
        assert (await check_game(a.store, "g")).ok
        assert a.observer.times + b.observer.times > 0  # type: ignore[attr-defined]
        await a.close()
        await b.close()

    run(scenario())


def test_a_deadline_both_workers_sweep_at_once_fires_once(backend: DatabaseConfig) -> None:  # noqa: F811
    """Day 2 begins at 10:00 (the day_start deadline): both workers' sweepers wake at
    10:01 together; one DayStarted, one firing recorded."""

    async def scenario() -> None:
        clock = manual_clock()
        async with two_workers(backend, clock) as (a, b):
            await setup_game(a, "g", CAST)
            clock.set(at(1, "12:00"))
            await a.sweep()
            await b.state("g")  # B has the game cached too
            clock.set(at(2, "10:01"))
            await asyncio.gather(a.sweep(), b.sweep())
            events = [e for _, e in decode_rows(await a.store.event_rows("g"))]
            assert [e.day for e in events if isinstance(e, DayStarted)] == [1, 2]
            fired = [r for r in await a.store.command_rows("g") if r["command_id"].startswith("deadline:day_start:2@")]
            assert len(fired) == 1
            assert (await a.state("g")).day == (await b.state("g")).day == 2

    run(scenario())
