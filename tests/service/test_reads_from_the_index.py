"""An edited message still shows as last edited, with its versions, from every seat that may
read its inbox and from no other, now that an inbox's edits, its message counts and the
events by class come from the event index instead of a walk over the game's history
(issue 17: a page costs the same on Day 14 as on Day 2; INBOX-GEN-1, INBOX-MAFIA-1).

Cast: ``helpers.small_cast`` (Лепроград and a second city, six residents each, the
Procurator, the Consigliere, the Arbiter and two Tribunes). In Лепроград an honest
resident (the «author») writes three messages in the city inbox on Day 1 and edits the
second twice; a mafioso writes in his city's mafia inbox and edits it once.
"""

from __future__ import annotations

from lepromafia.engine import commands as cmd
from lepromafia.engine import events as ev
from lepromafia.engine.errors import ErrorCode, RuleViolation
from lepromafia.engine.inboxes import can_read, live_inbox
from lepromafia.engine.state import Faction
from lepromafia.service.event_index import EventIndex
from lepromafia.service.outbound import visible
from lepromafia.service.posts import edits_of
from lepromafia.service.queries import GameQueries
from lepromafia.service.service import GameService
from lepromafia.store.accounts import AccountStore
from lepromafia.store.database import DatabaseConfig
from lepromafia.store.event_store import EventStore

from .helpers import Ids, at, manual_clock, open_day2_vote, run, setup_game, small_cast, two_workers

CAST = small_cast()
LEPROGRAD, OTHER = list(CAST.cities)
EVERY_SEAT = (CAST.procurator, CAST.consigliere, CAST.arbiter, *CAST.tribunes,
              *(u for users in CAST.cities.values() for u in users))


def test_an_edited_message_shows_as_last_edited_with_its_versions_to_every_reader_and_to_nobody_else(
        backend: DatabaseConfig) -> None:
    """INBOX-GEN-1, INBOX-MAFIA-1. Message #2 of Лепроград's city inbox reads «третья
    версия», «первая версия» and «вторая версия» before it, for every seat the policy
    table lets read that inbox; every other seat gets no inbox at all. The mafia inbox's
    edited message shows only to Лепроград's mafiosi (and the seats the table admits), never
    to an honest citizen of Лепроград. The edits from the index are exactly the edits a walk
    over every event finds."""

    async def scenario() -> None:
        clock = manual_clock()
        svc = GameService(EventStore.open(backend), clock)
        await svc.start(sweep=False)
        try:
            ids = Ids()
            await setup_game(svc, "g", CAST)
            clock.set(at(1, "10:05"))
            s = await svc.state("g")
            city = live_inbox(s, "city", LEPROGRAD)
            mafia = live_inbox(s, "mafia", LEPROGRAD)
            assert city and mafia
            honest = [u for u in s.living(LEPROGRAD) if s.residents[u].faction is Faction.HONEST]
            mafiosi = [u for u in s.living(LEPROGRAD) if s.residents[u].faction is Faction.MAFIA]
            author, citizen, mafioso = honest[0], honest[1], mafiosi[0]
            for text in ("один", "первая версия", "три"):
                await svc.execute("g", cmd.PostMessage(actor=author, inbox=city, text=text), ids())
            await svc.execute("g", cmd.EditMessage(actor=author, inbox=city, number=2, text="вторая версия"), ids())
            await svc.execute("g", cmd.EditMessage(actor=author, inbox=city, number=2, text="третья версия"), ids())
            await svc.execute("g", cmd.PostMessage(actor=mafioso, inbox=mafia, text="ночью — его"), ids())
            await svc.execute("g", cmd.EditMessage(actor=mafioso, inbox=mafia, number=1, text="ночью — никого"),
                              ids())
            q = GameQueries(svc, AccountStore(svc.store))
            game = await q.current("g")
            s = game.state

            for seat in EVERY_SEAT:
                view = await q.inbox("g", city, seat, mark_read=False)
                if not can_read(s, city, seat):
                    assert view is None, seat
                    continue
                assert view is not None, seat
                second = view.messages[1]
                assert (second.seq, second.text) == (2, "третья версия"), seat
                assert [v.text for v in second.versions] == ["первая версия", "вторая версия"], seat
                assert second.edited_at is not None, seat
                assert [m.edited_at for m in (view.messages[0], view.messages[2])] == [None, None], seat
            assert await q.inbox("g", city, CAST.cities[OTHER][0], mark_read=False) is None

            readers = [seat for seat in EVERY_SEAT if can_read(s, mafia, seat)]
            assert mafioso in readers and citizen not in readers and author not in readers
            for seat in EVERY_SEAT:
                view = await q.inbox("g", mafia, seat, mark_read=False)
                if seat not in readers:
                    assert view is None, seat
                    continue
                assert view is not None and view.messages[0].text == "ночью — никого", seat
                assert [v.text for v in view.messages[0].versions] == ["ночью — его"], seat

            indexed = await q.events(game)
            for inbox in (city, mafia):
                assert edits_of(indexed, inbox) == edits_of(list(indexed), inbox)  # the index = a walk
            honest_edits = visible(indexed, citizen, ev.MessageEdited)
            assert [e.inbox for _s, e in honest_edits] == [city, city]  # the mafia's edit: not his
        finally:
            await svc.close()

    run(scenario())


def test_a_reader_at_an_older_version_sees_the_message_as_it_stood_then_and_a_refused_edit_changes_nothing(
        backend: DatabaseConfig) -> None:
    """INBOX-GEN-1. The index has read past a page's version (another request asked later):
    the page's own view still shows the message as of its version, not the later edit. A
    citizen's edit of someone else's message is refused (NOT_YOUR_MESSAGE) and no reader
    sees a new version."""

    async def scenario() -> None:
        clock = manual_clock()
        svc = GameService(EventStore.open(backend), clock)
        await svc.start(sweep=False)
        try:
            ids = Ids()
            await setup_game(svc, "g", CAST)
            clock.set(at(1, "10:05"))
            s = await svc.state("g")
            city = live_inbox(s, "city", LEPROGRAD)
            assert city
            author, other = s.living(LEPROGRAD)[:2]
            await svc.execute("g", cmd.PostMessage(actor=author, inbox=city, text="до"), ids())
            before = (await svc.current("g")).version
            await svc.execute("g", cmd.EditMessage(actor=author, inbox=city, number=1, text="после"), ids())
            try:
                await svc.execute("g", cmd.EditMessage(actor=other, inbox=city, number=1, text="чужое"), ids())
                raise AssertionError("another's message was edited")
            except RuleViolation as refused:
                assert refused.code is ErrorCode.NOT_YOUR_MESSAGE
            index = EventIndex(svc.store)
            now = await index.events("g", (await svc.current("g")).version)
            then = await index.events("g", before)
            assert [e.text for e in now.edits(city)[1]] == ["после"]
            assert then.edits(city) == {}
            assert edits_of(then, city) == edits_of(list(then), city) == {}
            assert not any(seq > before for seq, _e in then)
            assert list(reversed(then)) == list(then)[::-1] and then[-1] == list(then)[-1]
            for view in (now, then):  # by class: exactly what a walk over the view finds
                for kinds in (ev.MessageEdited, (ev.DayStarted, ev.DeadlineScheduled), ev.Event):
                    assert view.of(kinds) == [(q, e) for q, e in view if isinstance(e, kinds)]
            q = GameQueries(svc, AccountStore(svc.store), index)
            view = await q.inbox("g", city, other, mark_read=False)
            assert view is not None and view.messages[0].text == "после"
            assert [v.text for v in view.messages[0].versions] == ["до"]
        finally:
            await svc.close()

    run(scenario())


def test_unread_counts_from_the_index_match_the_database_for_every_seat_across_two_workers(
        backend: DatabaseConfig) -> None:
    """INBOX-CITY-1, INBOX-MAFIA-1. Worker A serves the pages; worker B takes some of the
    messages. After each step every seat's inbox list (messages, unread) and unread badge
    equal the database's own count (``Transaction.inbox_counts``) over the inboxes he may
    read; a seat who may not read an inbox has no row for it and nothing of it in his badge."""

    async def scenario() -> None:
        clock = manual_clock()
        async with two_workers(backend, clock) as (a, b):
            ids = Ids()
            await setup_game(a, "g", CAST)
            clock.set(at(1, "10:05"))
            s = await a.state("g")
            city = live_inbox(s, "city", LEPROGRAD)
            mafia = live_inbox(s, "mafia", LEPROGRAD)
            assert city and mafia
            mafioso = next(u for u in s.living(LEPROGRAD) if s.residents[u].faction is Faction.MAFIA)
            reader = next(u for u in s.living(LEPROGRAD) if s.residents[u].faction is Faction.HONEST)
            q = GameQueries(a, AccountStore(a.store))

            async def agree() -> None:
                game = await q.current("g")
                for seat in EVERY_SEAT:
                    readable = [i for i in game.state.inboxes if can_read(game.state, i, seat)]
                    async with a.store.reading() as tx:
                        truth = await tx.inbox_counts("g", readable, seat)
                    rows = {r.inbox: r for r in await q.inboxes("g", seat, game=game)}
                    assert set(rows) == set(readable), seat
                    for inbox in readable:
                        want = truth.get(inbox)
                        assert (rows[inbox].messages, rows[inbox].unread) == \
                            ((want.total, want.unread) if want else (0, 0)), (seat, inbox)
                    assert await q.unread_total("g", seat, game=game) == sum(c.unread for c in truth.values())

            await agree()  # nothing posted yet
            for n in range(3):
                await a.execute("g", cmd.PostMessage(actor=reader, inbox=city, text=f"A{n}"), ids())
                await b.execute("g", cmd.PostMessage(actor=mafioso, inbox=city, text=f"B{n}"), ids())
            await b.execute("g", cmd.PostMessage(actor=mafioso, inbox=mafia, text="только нам"), ids())
            await agree()
            assert (await q.inbox("g", city, reader)) is not None  # he reads the city inbox
            await agree()
            assert await q.unread_total("g", reader) == 0  # the mafia inbox is not his to count
            await a.execute("g", cmd.PostMessage(actor=mafioso, inbox=city, text="ещё"), ids())
            assert await q.unread_total("g", reader) == 1
            await agree()

    run(scenario())


def test_a_closed_vote_s_count_is_computed_once_per_set_of_events_and_equals_a_walk_over_them(
        backend: DatabaseConfig) -> None:
    """EXEC-9, EXEC-14. Лепроград's Day 2 vote closes with «казнить» for one candidate; every
    seat's vote record from the index is the record a walk over every event gives, the same
    object for two readers who see the same events (computed once), and a new vote count
    published later is not hidden behind the earlier result. Each seat's clocks are the
    pending deadlines whose scheduling he saw, as a walk over every event finds them."""
    from lepromafia.web.api.votes import published_counts

    async def scenario() -> None:
        clock = manual_clock()
        svc = GameService(EventStore.open(backend), clock)
        await svc.start(sweep=False)
        try:
            ids = Ids()
            await setup_game(svc, "g", CAST)
            a, _b = await open_day2_vote(svc, "g", clock, LEPROGRAD, ids)
            s = await svc.state("g")
            box = live_inbox(s, "voting", LEPROGRAD, a)
            voter = next(u for u in s.living(LEPROGRAD) if u != a)
            await svc.execute("g", cmd.PostMessage(actor=voter, inbox=box or "", text="казнить"), ids())
            clock.set(at(3, "09:00"))
            await svc.sweep()
            index = EventIndex(svc.store)
            events = await index.events("g", (await svc.current("g")).version)
            first = published_counts(events, voter)
            assert [(c.city, c.day) for c in first if c.closed_at] == [(LEPROGRAD, 2)]
            for seat in EVERY_SEAT:
                assert published_counts(events, seat) == published_counts(list(events), seat), seat
            assert published_counts(events, CAST.procurator) is published_counts(events, voter)
            q = GameQueries(svc, AccountStore(svc.store), index)  # the clocks: each seat's own deadlines
            game = await q.current("g")
            for seat in (*EVERY_SEAT, None):
                walked = {e.key for _s, e in visible(list(events), seat, ev.DeadlineScheduled)}
                mine = [d.key for d in await q.deadlines("g", seat, game=game)]
                assert sorted(mine) == sorted(k for k in game.state.deadlines if k in walked), seat
            assert any(not d.key.startswith("vote") for d in await q.deadlines("g", CAST.procurator))
            clock.set(at(3, "20:01"))  # Day 3: nobody nominated, its vote published as none
            await svc.sweep()
            clock.set(at(4, "09:00"))
            await svc.sweep()
            later = await index.events("g", (await svc.current("g")).version)
            assert published_counts(later, voter) == published_counts(list(later), voter)
            assert len(published_counts(later, voter)) > len(first)
        finally:
            await svc.close()

    run(scenario())


def test_mentions_reach_every_seat_that_may_read_them_as_last_edited_and_nobody_else(
        backend: DatabaseConfig) -> None:
    """INBOX-GEN-1, INBOX-MAFIA-1. In Лепроград's city inbox the author names the citizen in
    his first message, adds him by an edit to his third and takes him out of his second by
    an edit; a mafioso names the citizen in the mafia inbox. The citizen's mentions are the
    first and the third message, as last edited — never the mafia inbox's; for every seat
    the list is exactly what reading every inbox he may read in full finds."""
    from lepromafia.engine.inboxes import POLICY, Kind
    from lepromafia.service.posts import mentions_of, posts_of

    async def scenario() -> None:
        clock = manual_clock()
        svc = GameService(EventStore.open(backend), clock)
        await svc.start(sweep=False)
        try:
            ids = Ids()
            await setup_game(svc, "g", CAST)
            clock.set(at(1, "10:05"))
            s = await svc.state("g")
            city, mafia = live_inbox(s, "city", LEPROGRAD), live_inbox(s, "mafia", LEPROGRAD)
            assert city and mafia
            honest = [u for u in s.living(LEPROGRAD) if s.residents[u].faction is Faction.HONEST]
            mafioso = next(u for u in s.living(LEPROGRAD) if s.residents[u].faction is Faction.MAFIA)
            author, citizen = honest[0], honest[1]
            for text in (f"@{citizen}, где ты был?", f"и ты, @{citizen}", "три"):
                await svc.execute("g", cmd.PostMessage(actor=author, inbox=city, text=text), ids())
            clock.set(at(1, "10:10"))  # the edits come later: the newest mention is the edited one
            await svc.execute("g", cmd.EditMessage(actor=author, inbox=city, number=2, text="и ты"), ids())
            await svc.execute("g", cmd.EditMessage(actor=author, inbox=city, number=3, text=f"три, @{citizen}"),
                              ids())
            await svc.execute("g", cmd.PostMessage(actor=mafioso, inbox=mafia, text=f"берём @{citizen}"), ids())
            q = GameQueries(svc, AccountStore(svc.store))
            game = await q.current("g")

            async def walking(seat: str) -> set[tuple[str, int, str]]:  # every inbox, in full
                out = set()
                for inbox in game.state.inboxes.values():
                    if POLICY[Kind(inbox.kind)].keywords_only or not can_read(game.state, inbox.id, seat):
                        continue
                    view = await q.inbox("g", inbox.id, seat, limit=1_000_000, mark_read=False, game=game)
                    assert view is not None
                    maybe = [m for m in view.messages if f"@{seat}" in m.text.lower()]
                    out |= {(inbox.id, p.number, p.text) for p in posts_of(maybe, frozenset(game.state.residents), "S")
                            if seat in p.mentions and p.author != seat}
                return out

            found = await mentions_of(q, game, citizen, "S")
            assert [(m.inbox, m.post.number, m.post.text) for m in found] == \
                [(city, 3, f"три, @{citizen}"), (city, 1, f"@{citizen}, где ты был?")]
            assert [v.text for v in found[0].post.versions] == ["три"]
            for seat in EVERY_SEAT:
                mine = {(m.inbox, m.post.number, m.post.text) for m in await mentions_of(q, game, seat, "S")}
                assert mine == await walking(seat), seat
            assert all(m.inbox != mafia for m in found)
        finally:
            await svc.close()

    run(scenario())
