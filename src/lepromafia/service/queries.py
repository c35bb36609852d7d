"""The typed read side for pages and the API. Every read is checked through the engine.

Inbox content and membership: ``engine.inboxes.can_read``/``access``/``member_list``.
Tallies: ``engine.votes.live_tallies`` (immunity included). Duties: ``engine.duties``. Events, Day
Posts and deadlines: the per-process ``EventIndex``, filtered for the viewer by
``service.outbound``. A viewer is a user id, or None for an anonymous visitor. Hosts get
no god view: the Procurator reads what the policy table lets him read.

Each read starts with ``GameService.current`` (one cheap read of the game's version), so
it reflects every commit acknowledged before it, whichever worker made it.
"""

from __future__ import annotations

from array import array
from datetime import datetime
from typing import Any

from ..engine import events as ev
from ..engine.duties import Duty, Seat, duties
from ..engine.inboxes import POLICY, Access, Kind, access, can_read, live_inbox, member_list
from ..engine.state import Faction, GameState, Resident, Stage
from ..engine.votes import live_tallies
from ..store.accounts import AccountStore
from ..store.event_store import InboxCount, MessageRow, Transaction
from . import audit
from .audit import AuditFilter, AuditView
from .discussion import comments_of
from .event_index import EventIndex, Events, count_upto
from .outbound import Payload, may_see, stream_item, visible_json
from .posts import edits_of, with_edits
from .pubsub import Delivery, deliver
from .read_marks import ReadMarks
from .service import Current, GameService
from .streams import ViewerStreams
from .views import (
    DeadlineView,
    DeathView,
    GamePublic,
    GameSummary,
    HostsView,
    InboxHeader,
    InboxListRow,
    InboxView,
    MessageView,
    OfficeView,
    ResidentCard,
    RoleCard,
    TallyView,
)

THREAD_PAGE = 100
"""Messages an inbox page shows at first, and per "show earlier" (issue 17)."""
THREAD_CONTEXT = 5
"""Read messages shown before the first unread one when the page starts there."""
THREAD_UNREAD_MAX = 500
"""At most this many messages shown at first, however many are new to the viewer."""
THREAD_FROM_MAX = 1000
"""At most this many from a chosen message to the end (the page without JavaScript)."""

HONEST_NOTICE = "honest_notice"
"""DIST-5 / SEC-7: the identical notice every honest resident gets."""

RESULTS = (ev.VotingClosed, ev.VerdictReached, ev.CityDecided, ev.GameResultFixed, ev.GameEnded)


def public_summary(game_id: str, s: GameState, time_scale: float | None = None) -> GameSummary:
    return GameSummary(
        game_id=game_id, title=s.title, stage=s.stage.value, phase=s.phase.value, day=s.day,
        procurator=s.procurator, signups=len(s.signups),
        seats=s.settings.city_count * s.settings.population_per_city,
        cities=tuple(sorted(s.cities)), result=s.result.value if s.result else None,
        time_scale=time_scale)


VISIT_MARKER = "~visit"
"""The ``inbox_reads`` key of a viewer's last visit of the game page (no inbox id has "~")."""


class GameQueries:
    def __init__(self, service: GameService, accounts: AccountStore,
                 events: EventIndex | None = None) -> None:
        self.service = service
        self.accounts = accounts
        self.index = events or EventIndex(service.store)
        self.streams = ViewerStreams(service.store, max_games=self.index.max_games)
        self.read_marks = ReadMarks(service.store)
        service.broker.observers.append(self.streams.observe)

    async def current(self, game_id: str) -> Current:
        return await self.service.current(game_id)

    async def state(self, game_id: str) -> GameState:
        return (await self.current(game_id)).state

    async def version(self, game_id: str) -> int:
        return (await self.current(game_id)).version

    async def events(self, game: Current) -> Events:
        """The game's indexed events as of ``game`` (unfiltered: filter with ``outbound``)."""
        return await self.index.events(game.meta.game_id, game.version)

    # --- the event stream, filtered ------------------------------------------------

    async def position(self, game_id: str, viewer: str | None, version: int | None = None) -> int:
        """The viewer's own stream position at ``version`` (default: now): how many events
        he may see. Pages and regions carry it, never the game's version."""
        if version is None:
            version = await self.version(game_id)
        return await self.streams.position(game_id, viewer, version)

    async def events_since(self, game_id: str, viewer: str | None, since: int,
                           limit: int = 5000) -> list[Payload]:
        """The viewer's stream after his position ``since`` (at most ``limit`` events): only
        events he may see, each numbered by his position; nothing about the others."""
        version = await self.version(game_id)
        seqs = await self.streams.visible_seqs(game_id, viewer, version)
        wanted = seqs[max(0, since):max(0, since) + limit]
        if not wanted:
            return []
        async with self.service.store.reading() as tx:
            found = await tx.events_of(game_id, None, after=wanted[0] - 1, upto=wanted[-1])
        mine = [(seq, e) for seq, e in found if may_see(e, viewer)]
        return [stream_item(game_id, max(0, since) + i + 1, e) for i, (_, e) in enumerate(mine)]

    async def deliveries(self, game_id: str, viewer: str | None, after_seq: int,
                         upto_seq: int) -> list[Delivery]:
        """Server-side: every event in ``after_seq < seq <= upto_seq`` as the broker would
        have delivered it to ``viewer`` (the WebSocket's catch-up from the store)."""
        async with self.service.store.reading() as tx:
            found = await tx.events_of(game_id, None, after=after_seq, upto=upto_seq)
        return [deliver(seq, e, viewer) for seq, e in found]

    # --- public pages --------------------------------------------------------------

    async def games(self) -> list[GameSummary]:
        metas = await self.service.store.list_games()
        out = []
        for meta in metas:
            try:
                s = await self.service.state(meta.game_id)
            except Exception:  # noqa: S112 - a corrupt game is listed by the operator tools, not here
                continue
            out.append(public_summary(meta.game_id, s, meta.clock.scale))
        return out

    async def game_public(self, game_id: str, viewer: str | None = None) -> GamePublic:
        """The Recruitment Post (settings if non-default, sign-ups, city lists, hosts the
        community may know) and the Day Posts."""
        game = await self.current(game_id)
        s = game.state
        hosts = HostsView(procurator=s.procurator, arbiter=s.arbiter,
                          tribunes={name: c.tribune for name, c in s.cities.items()},
                          # HOST-CONS-1: secret to everyone else
                          consigliere=s.consigliere if viewer is not None
                          and viewer in (s.procurator, s.consigliere) else None)
        indexed = await self.events(game)
        summary = public_summary(game_id, s)
        dealt = s.stage in (Stage.DEALT, Stage.RUNNING, Stage.FINISHED)
        return GamePublic(
            **vars(summary),
            settings=s.settings.non_default(),
            signup_list=tuple(s.signups),
            city_lists={name: tuple(c.residents) for name, c in s.cities.items()},
            mafia_counts={name: c.mafia_count for name, c in s.cities.items()} if dealt else {},
            hosts=hosts,
            dead=tuple(_death(r) for r in s.residents.values() if not r.alive),
            day_posts=tuple(visible_json(indexed, viewer, ev.DayPostPublished)),
            results=tuple(visible_json(indexed, viewer, RESULTS)),
            commitment=s.deal.commitment,
        )

    # --- the viewer's own ----------------------------------------------------------

    async def role_card(self, game_id: str, viewer: str) -> RoleCard:
        """The viewer's own role: offices, city, and his faction as the deal told him. An
        honest resident gets the one notice identical for all (SEC-7)."""
        s = await self.state(game_id)
        offices = [OfficeView(office) for office, holder in
                   (("procurator", s.procurator), ("consigliere", s.consigliere), ("arbiter", s.arbiter))
                   if holder == viewer]
        offices += [OfficeView("tribune", name) for name, c in s.cities.items() if c.tribune == viewer]
        r = s.residents.get(viewer)
        return RoleCard(game_id=game_id, user=viewer, offices=tuple(offices),
                        signed_up=viewer in s.signups, resident=_resident_card(s, r) if r else None)

    async def inboxes(self, game_id: str, viewer: str, *, game: Current | None = None) -> list[InboxListRow]:
        """The inboxes the viewer may read, with his access and unread count (one statement:
        his read markers; the counts come from the event index's per-inbox ledger)."""
        game = game or await self.current(game_id)
        s = game.state
        readable = [i.id for i in s.inboxes.values() if can_read(s, i.id, viewer)]
        counts = await self._counts(game, viewer, readable)
        out = []
        for inbox_id in readable:
            count = counts.get(inbox_id)
            out.append(InboxListRow(**vars(_header(game, inbox_id, viewer)),
                                    unread=count.unread if count else 0,
                                    messages=count.total if count else 0))
        out.sort(key=lambda i: (i.archived, POLICY[Kind(i.kind)].order, i.inbox))
        return out

    async def unread_total(self, game_id: str, viewer: str, game: Current | None = None) -> int:
        """The viewer's unread messages in every inbox he may read (the menu's badge). Only
        an inbox with messages is asked ``can_read``, and only those he may read are looked
        up for his markers (issue 17: the game's past inboxes cost a bisection each)."""
        game = game or await self.current(game_id)
        s = game.state
        seqs = await self.index.messages(game_id, game.version)
        mine = [i for i, found in list(seqs.items())
                if i in s.inboxes and count_upto(found, game.version) and can_read(s, i, viewer)]
        counts = await self._counts(game, viewer, mine)
        return sum(c.unread for c in counts.values())

    async def _counts(self, game: Current, viewer: str, inboxes: list[str]) -> dict[str, InboxCount]:
        """Per inbox with messages: how many, and how many after the viewer's read marker
        (his markers of those inboxes: one statement)."""
        seqs = await self.index.messages(game.meta.game_id, game.version)
        totals = {i: count_upto(found, game.version) for i in inboxes if (found := seqs.get(i)) is not None}
        async with self.service.store.reading() as tx:
            markers = await tx.read_markers(game.meta.game_id, viewer, [i for i, n in totals.items() if n])
        out = {}
        for inbox_id, total in totals.items():
            if total:
                last = markers.get(inbox_id, 0)
                out[inbox_id] = InboxCount(total, count_upto(seqs[inbox_id], game.version, after=last), last)
        return out

    async def inbox(self, game_id: str, inbox_id: str, viewer: str | None, after_seq: int = 0,
                    limit: int = 500, mark_read: bool = True,
                    game: Current | None = None) -> InboxView | None:
        """An inbox's messages after number ``after_seq`` (at most ``limit``), and its live
        tally, if the viewer may read it; else None. Messages are numbered 1, 2, 3, … within
        the inbox (``MessageView.seq``, ``after_seq`` and ``read_upto`` are such numbers):
        the game's global seq would tell a reader how many hidden events fell between two
        posts (F3-5, F3-6). Reading moves the viewer's read marker to the last message he
        was shown. The page is found by the inbox's ledger: one statement, whatever the
        number (issue 17: paging forward through a long inbox reads each page once)."""
        game = game or await self.current(game_id)
        if not can_read(game.state, inbox_id, viewer):
            return None
        seqs, total = await self._ledger(game, inbox_id)
        first = min(max(0, after_seq), total)
        async with self.service.store.reading() as tx:
            rows, marker = await _rows(tx, game_id, inbox_id, viewer, seqs, first,
                                       min(total, first + max(0, limit)))
            if not rows and viewer is not None:  # past the end: his marker all the same
                marker = (await tx.read_markers(game_id, viewer, [inbox_id])).get(inbox_id, 0)
        return await self._view(game, inbox_id, viewer, seqs, first, rows, marker,
                                mark_read=mark_read)

    async def thread(self, game_id: str, inbox_id: str, viewer: str | None, *,
                     start: int | None = None, before: int | None = None, mark_read: bool = True,
                     game: Current | None = None) -> InboxView | None:
        """An inbox as its page shows it, if the viewer may read it; else None. Not the whole
        thread (issue 17: a page's cost the same on Day 1 and Day 14): its last
        ``THREAD_PAGE`` messages, or from his first unread one (with ``THREAD_CONTEXT`` read
        ones before it) when more are new to him, at most ``THREAD_UNREAD_MAX``. ``start``
        (a message number): from there to the end, at most ``THREAD_FROM_MAX`` (the page
        without JavaScript, a page at a time). ``before``: the ``THREAD_PAGE`` messages
        before that number ("show earlier", no read marker moved). ``InboxView.earlier``
        says how many messages come before the ones shown; a viewer's marker moves to the
        last one shown, as with ``inbox``. One statement, two when the unread run is longer
        than a page."""
        game = game or await self.current(game_id)
        if not can_read(game.state, inbox_id, viewer):
            return None
        seqs, total = await self._ledger(game, inbox_id)
        end = total if before is None else max(0, min(before - 1, total))
        if before is not None:
            first = max(0, end - THREAD_PAGE)
        elif start is not None:
            first = max(0, min(start - 1, total - 1), total - THREAD_FROM_MAX)
        else:
            first = max(0, total - THREAD_PAGE)
        async with self.service.store.reading() as tx:
            # one row more after an earlier page: when the next one was posted (vote counts)
            rows, marker = await _rows(tx, game_id, inbox_id, viewer, seqs, first,
                                       end + (1 if end < total else 0))
            if start is None and before is None and viewer is not None and first > 0:
                read = count_upto(seqs, min(marker, game.version))  # messages up to his marker
                want = max(0, total - THREAD_UNREAD_MAX, min(first, read - THREAD_CONTEXT))
                if want < first:
                    more, _ = await _rows(tx, game_id, inbox_id, viewer, seqs, want, first)
                    rows, first = more + rows, want
        following = rows[end - first] if len(rows) > end - first else None
        return await self._view(game, inbox_id, viewer, seqs, first, rows[:end - first], marker,
                                mark_read=mark_read and before is None,
                                next_at=following.at if following else None)

    async def message(self, game_id: str, inbox_id: str, viewer: str | None, number: int,
                      game: Current | None = None) -> MessageView | None:
        """Message ``number`` of an inbox as last edited, if the viewer may read it (one row,
        found by the inbox's ledger, not by reading the messages before it)."""
        found = await self.inbox(game_id, inbox_id, viewer, after_seq=number - 1, limit=1,
                                 mark_read=False, game=game) if number >= 1 else None
        return found.messages[0] if found and found.messages else None

    async def _ledger(self, game: Current, inbox_id: str) -> tuple[array[int], int]:
        """The inbox's message seqs (global, ascending) and how many of them the game has at
        its version."""
        seqs = (await self.index.messages(game.meta.game_id, game.version)).get(inbox_id) or array("q")
        return seqs, count_upto(seqs, game.version)

    async def _view(self, game: Current, inbox_id: str, viewer: str | None, seqs: array[int],
                    first: int, shown: list[MessageRow], marker: int, *, mark_read: bool,
                    next_at: str | None = None) -> InboxView:
        """The messages at positions ``first``… as last edited, the viewer's marker moved to
        the last of them if asked."""
        if shown and mark_read and viewer is not None and shown[-1].seq > marker:
            async with self.service.store.transaction() as wtx:
                await wtx.mark_read(game.meta.game_id, inbox_id, viewer, shown[-1].seq)
        messages = with_edits([MessageView(first + i + 1, r.author, r.text, r.at)
                               for i, r in enumerate(shown)],
                              edits_of(await self.events(game), inbox_id))  # as last edited
        return InboxView(**vars(_header(game, inbox_id, viewer)), messages=messages,
                         tally=_inbox_tally(game.state, inbox_id),
                         read_upto=count_upto(seqs, min(marker, game.version)), earlier=first,
                         next_at=next_at)

    async def inbox_header(self, game_id: str, inbox_id: str, viewer: str | None,
                           game: Current | None = None) -> InboxHeader | None:
        """The inbox without its messages, if the viewer may read it (the composer after
        a post: issue 17, no read of the thread and no read marker moved); else None."""
        game = game or await self.current(game_id)
        if inbox_id not in game.state.inboxes or not can_read(game.state, inbox_id, viewer):
            return None
        return _header(game, inbox_id, viewer)

    async def mark_read_upto(self, game_id: str, inbox_id: str, viewer: str, position: int) -> bool:
        """Move the viewer's read marker of an inbox forward to his stream ``position`` (the
        frame of the last message his page showed, issue 17): one in-memory lookup and one
        statement, no scan of the inbox. False if he may not read it or the position is
        not in his stream. Reports of many readers share one transaction (``ReadMarks``)."""
        game = await self.current(game_id)
        if not can_read(game.state, inbox_id, viewer):
            return False
        # give the request's connection back first: the stream look-up may wait for another
        # reader of this game, who may need a connection from the pool (issue 17)
        await self.service.store.release_reads()
        seq = await self.streams.global_seq(game_id, viewer, position, game.version)
        if seq is None:
            return False
        await self.read_marks.mark(game_id, inbox_id, viewer, seq)
        return True

    async def tallies(self, game_id: str, viewer: str | None) -> list[TallyView]:
        """Live tallies of the voting inboxes the viewer may read (INBOX-VOTE-1);
        closed votes are public through ``VotingClosed`` in ``game_public``."""
        s = await self.state(game_id)
        out = []
        for name, city in s.cities.items():
            if city.voting is None:
                continue
            for candidate in city.voting.candidates:
                tally = _tally(s, name, candidate)
                if tally is not None and tally.inbox and can_read(s, tally.inbox, viewer):
                    out.append(tally)
        return out

    async def deadlines(self, game_id: str, viewer: str | None,
                        game: Current | None = None) -> list[DeadlineView]:
        """Pending deadlines whose scheduling the viewer saw, with real due times for
        countdowns (``due_real``, Unix seconds)."""
        game = game or await self.current(game_id)
        s = game.state
        events = await self.events(game)  # only the pending keys' schedulings (issue 17)
        seen = {key for key in s.deadlines if any(may_see(e, viewer) for _s, e in events.scheduled(key))}
        out = [DeadlineView(key, key.partition(":")[0], due.isoformat(), game.meta.clock.to_real(due))
               for key, due in s.deadlines.items() if key in seen]
        out.sort(key=lambda d: d.due_at)
        return out

    async def comments(self, game_id: str, viewer: str | None,
                       game: Current | None = None) -> dict[str, list[dict[str, Any]]]:
        """POST-1, POST-2: every post's comments as the viewer may see them."""
        game = game or await self.current(game_id)
        return comments_of(await self.events(game), viewer)

    async def audit(self, game_id: str, viewer: str | None,
                    wanted: AuditFilter | None = None) -> AuditView:
        """The host audit log as ``viewer`` may read it (``service.audit``): the events he may
        see that a host's command (or the platform, for an office) caused, and contact reads.

        :raises AuditError: NOT_A_HOST, BAD_FILTER.
        """
        game = await self.current(game_id)
        if not audit.may_keep(game.state, viewer):
            raise audit.AuditError(audit.AuditErrorCode.NOT_A_HOST)
        async with self.service.store.reading() as tx:
            commands = await tx.host_commands(game_id, upto=game.version)
        clock = game.meta.clock
        reads = [audit.ContactRead(clock.to_game(r["at_real"]), r["viewer"], r["subject"], bool(r["granted"]))
                 for r in await self.accounts.contact_access_log(game_id)]
        rows = audit.build(game.state, await self.events(game), commands, reads, viewer)
        assert viewer is not None
        return audit.view(game.state, rows, viewer, wanted or AuditFilter())

    async def last_visit(self, game_id: str, viewer: str) -> int | None:
        """The game's version at the viewer's last visit of its page (None: never). Kept
        server-side beside his inbox read markers, under a key no inbox has."""
        async with self.service.store.reading() as tx:  # one key, not his every marker
            return (await tx.read_markers(game_id, viewer, [VISIT_MARKER])).get(VISIT_MARKER)

    async def mark_visit(self, game_id: str, viewer: str, version: int) -> None:
        """Move the viewer's last-visit marker forward to ``version`` (never back)."""
        await self.accounts.mark_read(game_id, VISIT_MARKER, viewer, version)

    async def duties(self, game_id: str, viewer: str) -> list[dict[str, Any]]:
        """What the viewer's offices and role ask of him now: ``engine.duties``, as JSON."""
        game = await self.current(game_id)
        return [duty_json(d) for d in duties(game.state, viewer, game.now)]


def _header(game: Current, inbox_id: str, viewer: str | None) -> InboxHeader:
    s = game.state
    inbox = s.inboxes[inbox_id]
    policy = POLICY[Kind(inbox.kind)]
    level = access(s, inbox_id, viewer, now=game.now)
    members = member_list(s, inbox_id, viewer)
    return InboxHeader(
        inbox=inbox.id, kind=inbox.kind, city=inbox.city, title=inbox.title,
        subject=inbox.subject if not policy.pseudonymous else None, archived=inbox.archived,
        access=level.name.lower(), read_only=level is Access.READ,
        keywords_only=policy.keywords_only,
        members=tuple(members) if members is not None else None)


async def _rows(tx: Transaction, game_id: str, inbox_id: str, viewer: str | None, seqs: array[int],
                first: int, end: int) -> tuple[list[MessageRow], int]:
    """The inbox's messages at positions ``first`` up to ``end`` (0-based, by its ledger of
    global seqs), and the viewer's read marker there: one statement."""
    return await tx.messages(game_id, inbox_id, after=seqs[first - 1] if first else 0,
                             limit=max(0, end - first), reader=viewer)


def _inbox_tally(s: GameState, inbox_id: str) -> TallyView | None:
    """A voting inbox's live tally (INBOX-VOTE-1); None for any other inbox."""
    inbox = s.inboxes[inbox_id]
    if inbox.kind == Kind.VOTING and inbox.city and inbox.subject:
        return _tally(s, inbox.city, inbox.subject)
    return None


def _tally(s: GameState, city: str, candidate: str) -> TallyView | None:
    c = s.cities.get(city)
    book = c.voting if c else None
    if c is None or book is None or candidate not in book.candidates:
        return None
    counted = next(t for t in live_tallies(s, city) if t.candidate == candidate)
    return TallyView(city=city, candidate=candidate, inbox=live_inbox(s, Kind.VOTING, city, candidate),
                     day=book.day, votes=counted.votes, voters=counted.voters, closed=book.closed)


def _death(r: Resident) -> DeathView:
    return DeathView(user=r.user, city=r.city, cause=r.cause.value if r.cause else None,
                     label=r.died_in, faction=r.faction.value if r.faction else None)


def _resident_card(s: GameState, r: Resident) -> ResidentCard:
    viewer, city = r.user, s.cities[r.city]
    mafioso = r.faction is Faction.MAFIA
    roles = [role for role, holds in (("godfather", mafioso and city.godfather == viewer),
                                      ("commissar", city.commissar == viewer),
                                      ("judge", city.judge == viewer),
                                      ("spirit", viewer in city.spirits)) if holds]
    return ResidentCard(
        city=r.city, alive=r.alive, cause=r.cause.value if r.cause else None,
        faction="mafia" if mafioso else None,
        notice=HONEST_NOTICE if r.faction is Faction.HONEST else None, roles=tuple(roles),
        observing=tuple(sorted(n for n, c in s.cities.items() if viewer in c.observers)),
        mafia=tuple(s.mafiosi(r.city)) if mafioso else (),
        acknowledged=viewer in s.deal.acknowledged if mafioso else None)


_CONSOLES = {Seat.PROCURATOR: "procurator", Seat.CONSIGLIERE: "consigliere", Seat.ARBITER: "arbiter",
             Seat.TRIBUNE: "tribune"}


def duty_json(d: Duty) -> dict[str, Any]:
    """One duty for a client: its stable kind (a page translates it), its seat, whether
    it is required, its deadline, the command it takes with the prefilled arguments, and
    the choices. The prefilled arguments are also spread at the top level for templates."""
    args = {k: _plain(v) for k, v in d.args}
    return args | {
        "kind": d.kind.value, "duty": d.kind.value, "seat": d.seat.value,
        "office": _CONSOLES.get(d.seat, "resident"), "rule": d.rule, "required": d.required,
        "deadline": d.deadline.isoformat() if d.deadline else None,
        "command": d.command.__name__, "args": args, "choice": d.choice,
        "choices": [_plain(c) for c in d.choices],
    }


def _plain(value: Any) -> Any:
    return value.isoformat() if isinstance(value, datetime) else value
