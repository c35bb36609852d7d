"""An inbox page reads only the messages it shows, and still knows how far its reader read
(issue 17; INBOX-CITY-1).

Cast: ``helpers.small_cast``; in Лепроград, p01_01 writes seven messages in the city
inbox on Day 1, p01_02 reads them page by page, p01_03 reads nothing.
"""

from __future__ import annotations

from lepromafia.engine import commands as cmd
from lepromafia.engine.inboxes import live_inbox
from lepromafia.service.queries import GameQueries
from lepromafia.service.service import GameService
from lepromafia.store.accounts import AccountStore
from lepromafia.store.database import DatabaseConfig
from lepromafia.store.event_store import EventStore

from .helpers import Ids, at, manual_clock, run, setup_game, small_cast

CAST = small_cast()
LEPROGRAD = next(iter(CAST.cities))


def test_a_page_of_a_long_inbox_reads_its_rows_and_counts_the_reader_s_marker(backend: DatabaseConfig) -> None:
    """Pages of two show messages 1–2, 3–4, …; the reader's ``read_upto`` is the number he
    has read (4 after two pages) whichever page he looks at, as with the whole inbox."""

    async def scenario() -> None:
        clock = manual_clock()
        svc = GameService(EventStore.open(backend), clock)
        await svc.start(sweep=False)
        try:
            ids = Ids()
            await setup_game(svc, "g", CAST)
            clock.set(at(1, "10:05"))
            state = await svc.state("g")
            inbox = live_inbox(state, "city", LEPROGRAD)
            assert inbox
            writer, reader, idle = state.living(LEPROGRAD)[:3]
            for i in range(7):
                await svc.execute("g", cmd.PostMessage(actor=writer, inbox=inbox, text=f"№{i + 1}"), ids())
            q = GameQueries(svc, AccountStore(svc.store))

            first = await q.inbox("g", inbox, reader, limit=2)
            assert first is not None and [m.text for m in first.messages] == ["№1", "№2"]
            assert first.read_upto == 0
            second = await q.inbox("g", inbox, reader, after_seq=2, limit=2)
            assert second is not None and [(m.seq, m.text) for m in second.messages] == [(3, "№3"), (4, "№4")]
            assert second.read_upto == 2

            for after, limit in ((0, 2), (0, 500), (2, 2), (4, 1), (6, 5)):
                page = await q.inbox("g", inbox, reader, after_seq=after, limit=limit, mark_read=False)
                assert page is not None and page.read_upto == 4, (after, limit)
            none = await q.inbox("g", inbox, idle, limit=2, mark_read=False)
            assert none is not None and none.read_upto == 0
            whole = await q.inbox("g", inbox, reader)
            assert whole is not None and len(whole.messages) == 7 and whole.read_upto == 4
            assert (await q.inbox("g", inbox, reader, mark_read=False)).read_upto == 7  # type: ignore[union-attr]
        finally:
            await svc.close()

    run(scenario())
