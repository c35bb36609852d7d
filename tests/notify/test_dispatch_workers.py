"""Several workers share the outbox: each expands the rows of the games it writes, whose
states it holds, and takes another game's row only after a grace, so that a game nobody
writes (or whose worker died) is still served. Before, every worker claimed every game's
rows, and a row of another worker's game read that game from the store and replayed the
events it had missed, pass after pass (issue 17: two workers cost 1.3× one's CPU a post).
On SQLite and on the real PostgreSQL."""

from __future__ import annotations

import json
from datetime import timedelta

from lepromafia.engine import commands as cmd
from lepromafia.engine.inboxes import live_inbox
from lepromafia.service.service import Current, GameService
from lepromafia.store.database import DatabaseConfig
from lepromafia.store.notify import NotifyStore, outbox

from ..service.conftest import backend  # noqa: F401  (fixture: SQLite and PostgreSQL)
from ..service.helpers import at, manual_clock, run, setup_game, small_cast, two_workers
from .helpers import dispatcher

GRACE = 5.0


async def bell_for(svc: GameService, game: str, user: str, due: float) -> None:
    """An outbox row of ``game`` (a post in an inbox ``user`` follows), due at ``due``."""
    async with svc.store.transaction() as tx:
        await tx.insert_rows(outbox, [{
            "key": f"{game}:followed:{user}:{due}", "game_id": game, "user_id": user,
            "kind": "followed_inbox", "seq": 1, "payload": json.dumps({"inbox": "x"}),
            "due_real": due, "expires_real": None, "status": "pending"}])


def games_of(rows: list[dict[str, object]]) -> set[object]:
    """The games of the bells claimed (setting a game up makes rows of its own)."""
    return {r["game_id"] for r in rows if r["kind"] == "followed_inbox"}


def test_each_worker_expands_its_own_games_and_an_orphans_rows_after_the_grace(
        backend: DatabaseConfig) -> None:  # noqa: F811
    """Worker A writes the game North, worker B writes South (their lanes committed them).
    A bell is due now in each, and one in East, a game neither writes (an inactivity prod
    made by a sweep). A's pass takes North's bell only, B's South's only: East's waits.
    Once East's bell has waited the grace, the next worker that looks for others' rows
    takes it, once. Then B is gone; a bell in South waits the grace and A takes it."""

    async def scenario() -> list[set[object]]:
        clock = manual_clock()
        seen: list[set[object]] = []
        async with two_workers(backend, clock) as (a, b):
            await setup_game(a, "north", small_cast())
            await setup_game(b, "south", small_cast())
            da = dispatcher(a, NotifyStore(a.store), [], foreign_grace=GRACE)
            db = dispatcher(b, NotifyStore(b.store), [], foreign_grace=GRACE)
            now = clock.now()
            for game in ("north", "south", "east"):
                await bell_for(a, game, "ana", now)
            seen.append(games_of(await da.claim_outbox()))
            seen.append(games_of(await db.claim_outbox()))
            clock.advance(timedelta(seconds=GRACE + 1))
            seen.append(games_of(await db.claim_outbox()))
            seen.append(games_of(await da.claim_outbox()))
            await bell_for(a, "south", "ben", clock.now())
            # B is gone (it looks no more): South's bell waits the grace
            clock.advance(timedelta(seconds=GRACE - 1))
            seen.append(games_of(await da.claim_outbox()))
            clock.advance(timedelta(seconds=2 * da.config.idle))
            seen.append(games_of(await da.claim_outbox()))
        return seen

    own_a, own_b, orphan, again, early, late = run(scenario())
    assert own_a == {"north"}, "A takes its own game's bell, not East's (not yet) nor South's"
    assert own_b == {"south"}
    assert orphan == {"east"}, "past the grace, the first worker to look takes East's bell"
    assert again == set(), "East's bell is taken once"
    assert early == set(), "South's new bell waits for its own worker"
    assert late == {"south"}, "past the grace, A takes the bell of B's game"


def test_a_sole_writer_takes_every_due_row_at_once(backend: DatabaseConfig) -> None:  # noqa: F811
    """One worker and no Redis: every game is its own, East's bell included, at once."""

    async def scenario() -> set[object]:
        clock = manual_clock()
        from lepromafia.store.event_store import EventStore

        svc = GameService(EventStore.open(backend), clock, sole_writer=True)
        await svc.start(sweep=False)
        try:
            for game in ("north", "east"):
                await bell_for(svc, game, "ana", clock.now())
            return games_of(await dispatcher(svc, NotifyStore(svc.store), []).claim_outbox())
        finally:
            await svc.close()

    assert run(scenario()) == {"east", "north"}


def test_a_sweep_reads_the_games_this_worker_writes_and_those_nobody_writes(
        backend: DatabaseConfig) -> None:  # noqa: F811
    """Inactivity prods and overdue host duties come from a sweep of every unfinished game.
    Worker A writes North, worker B writes South, whose residents keep talking. A's sweeps
    read North each time and leave South to B while South's version moves. Then South falls
    silent (B is gone): A's next sweep finds it where it was and reads it, so its prods
    are still made (INBOX-CITY-1)."""

    async def scenario() -> list[list[str]]:
        clock = manual_clock()
        read: list[str] = []
        sweeps: list[list[str]] = []
        async with two_workers(backend, clock) as (a, b):
            await setup_game(a, "north", small_cast())
            await setup_game(b, "south", small_cast())
            clock.set(at(1, "10:05"))
            state = await b.state("south")
            city = next(iter(state.cities))
            inbox, talker = live_inbox(state, "city", city), state.living(city)[0]
            assert inbox
            reads = a.current

            async def counted(game_id: str) -> Current:
                read.append(game_id)
                return await reads(game_id)

            a.current = counted  # type: ignore[method-assign]
            da = dispatcher(a, NotifyStore(a.store), [])
            for n in range(4):
                if n < 2:
                    await b.execute("south", cmd.PostMessage(actor=talker, inbox=inbox, text=f"№{n}"),
                                    f"south-{n}")
                read.clear()
                await da.watch()
                sweeps.append(sorted(read))
        return sweeps

    talking, still_talking, fallen_silent, silent = run(scenario())
    assert talking == still_talking == ["north"], "South is B's while it moves"
    assert fallen_silent == silent == ["north", "south"], "a game nobody writes is swept by A"
