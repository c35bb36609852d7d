"""Two workers on one database: a read through either reflects every acknowledged commit.

Cast: the small game of ``helpers.small_cast`` (Лепроград p01_01..p01_06). Worker A serves
the pages and has read the game; worker B takes p01_03's «казнить». Before the version
check, A's cached state still showed an empty tally while B's WebSocket event had arrived.
"""

from __future__ import annotations

from lepromafia.engine import commands as cmd
from lepromafia.service.queries import GameQueries
from lepromafia.store.accounts import AccountStore
from lepromafia.store.database import DatabaseConfig

from .helpers import Ids, manual_clock, open_day2_vote, run, setup_game, small_cast, two_workers, voting_inbox

CAST = small_cast()
LEPROGRAD = next(iter(CAST.cities))


def test_a_vote_committed_by_worker_b_shows_in_worker_a_s_tally_at_once(backend: DatabaseConfig) -> None:
    """EXEC-5, INBOX-VOTE-1: A's state and A's tally API show B's vote on the next read."""

    async def scenario() -> None:
        clock = manual_clock()
        async with two_workers(backend, clock) as (a, b):
            ids = Ids()
            await setup_game(a, "g", CAST)
            candidate, _ = await open_day2_vote(a, "g", clock, LEPROGRAD, ids)
            queries_a = GameQueries(a, AccountStore(a.store))
            before = await a.current("g")
            inbox = voting_inbox(before.state, LEPROGRAD, candidate)
            assert [t.votes for t in await queries_a.tallies("g", "p01_04") if t.candidate == candidate] == [0]

            voter = before.state.living(LEPROGRAD)[2]
            ack = await b.execute("g", cmd.PostMessage(actor=voter, inbox=inbox, text="казнить"), ids())

            seen = await a.current("g")
            assert seen.version == ack.last_seq
            assert voter in seen.state.cities[LEPROGRAD].voting.active[candidate]  # type: ignore[union-attr]
            tally = [t for t in await queries_a.tallies("g", "p01_04") if t.candidate == candidate]
            assert [(t.votes, t.voters) for t in tally] == [(1, (voter,))]
            # A writes next: its lane's handle is behind B's commit and must not fork the log
            await a.execute("g", cmd.PostMessage(actor=before.state.living(LEPROGRAD)[3], inbox=inbox,
                                                 text="казнить"), ids())
            assert len((await b.current("g")).state.cities[LEPROGRAD].voting.active[candidate]) == 2  # type: ignore[union-attr]

    run(scenario())


def test_after_its_own_vote_worker_a_reads_both_votes_without_a_version_read(backend: DatabaseConfig) -> None:
    """EXEC-5, EXEC-18: p01_03's «казнить» is taken by worker B; p01_04 presses it on worker
    A, whose cached game is behind B's commit. Within that same request (one read scope) A's
    read after its own commit shows both votes, in order, and asks the store nothing: the
    commit's version check already proved nothing newer had been acknowledged."""
    from sqlalchemy import event

    async def scenario() -> None:
        clock = manual_clock()
        async with two_workers(backend, clock) as (a, b):
            ids = Ids()
            await setup_game(a, "g", CAST)
            candidate, _ = await open_day2_vote(a, "g", clock, LEPROGRAD, ids)
            state = (await a.current("g")).state
            inbox = voting_inbox(state, LEPROGRAD, candidate)
            first, second = state.living(LEPROGRAD)[2:4]
            await b.execute("g", cmd.PostMessage(actor=first, inbox=inbox, text="казнить"), ids())
            statements: list[str] = []
            event.listen(a.store.engine.sync_engine, "before_cursor_execute",
                         lambda *args: statements.append(args[2]))
            async with a.store.read_scope():
                ack = await a.execute("g", cmd.PostMessage(actor=second, inbox=inbox, text="казнить"), ids())
                writes = len(statements)
                seen = await a.current("g")
                assert len(statements) == writes, statements[writes:]
            assert seen.version == ack.last_seq
            book = seen.state.cities[LEPROGRAD].voting
            assert book is not None and list(book.active[candidate]) == [first, second]
            # outside a request's scope nothing is assumed: the next read checks the version
            await a.current("g")
            assert any("games" in s for s in statements[writes:])

    run(scenario())
