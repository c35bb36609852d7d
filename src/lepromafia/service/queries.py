"""The read side for pages and the API. Every read is checked through the engine.

Inbox content and membership: ``engine.inboxes.can_read``/``access``/``member_list``.
Events, Day Posts and deadlines: ``engine.visibility.visible_to`` on the very events
that made them. A viewer is a user id, or None for an anonymous visitor. Hosts get no
god view: the Procurator reads what the policy table lets him read.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from sqlalchemy import and_, func, select

from ..engine import events as ev
from ..engine.duties import Duty, Seat, duties
from ..engine.events import Event
from ..engine.inboxes import POLICY, Access, Kind, access, can_read, live_inbox, member_list
from ..engine.state import Faction, GameState, Stage
from ..engine.visibility import visible_to
from ..store import codec, schema
from ..store.accounts import AccountStore
from .errors import ServiceError, ServiceErrorCode
from .pubsub import Payload, payload_for
from .service import GameService

INDEXED = ("DayPostPublished", "DeadlineScheduled", "VotingClosed", "VerdictReached",
           "ResidentDied", "GameEnded", "CityDecided", "GameResultFixed")
"""Event types kept in memory per game for the pages (Day Posts, countdowns, results)."""

HONEST_NOTICE = "honest_notice"
"""DIST-5 / SEC-7: the identical notice every honest resident gets."""


@dataclass
class _Index:
    last_seq: int = 0
    events: list[tuple[int, Event]] = field(default_factory=list)


def public_summary(game_id: str, s: GameState) -> dict[str, Any]:
    return {
        "game_id": game_id, "title": s.title, "stage": s.stage.value, "phase": s.phase.value,
        "day": s.day, "procurator": s.procurator, "signups": len(s.signups),
        "seats": s.settings.city_count * s.settings.population_per_city,
        "cities": sorted(s.cities), "result": s.result.value if s.result else None,
    }


class GameQueries:
    def __init__(self, service: GameService, accounts: AccountStore) -> None:
        self.service = service
        self.accounts = accounts
        self._index: dict[str, _Index] = {}

    async def state(self, game_id: str) -> GameState:
        return await self.service.state(game_id)

    async def now(self, game_id: str) -> datetime:
        """The game's time now: what ``engine.inboxes.access`` asks (a ban may expire)."""
        async with self.service.store.reading() as tx:
            meta = await tx.meta(game_id)
        if meta is None:
            raise ServiceError(ServiceErrorCode.UNKNOWN_GAME, game=game_id)
        return self.service.game_now(meta.clock)

    # --- the event log, filtered ---------------------------------------------------

    async def _indexed(self, game_id: str) -> list[tuple[int, Event]]:
        idx = self._index.setdefault(game_id, _Index())
        e = schema.events
        async with self.service.store.reading() as tx:
            rows = await tx.conn.execute(
                select(e.c.seq, e.c.payload).where(and_(
                    e.c.game_id == game_id, e.c.seq > idx.last_seq, e.c.type.in_(INDEXED)))
                .order_by(e.c.seq))
            found = [(r.seq, codec.decode_event(codec.loads(r.payload))) for r in rows]
        for seq, event in found:
            if seq > idx.last_seq:
                idx.events.append((seq, event))
                idx.last_seq = seq
        return idx.events

    async def version(self, game_id: str) -> int:
        async with self.service.store.reading() as tx:
            meta = await tx.meta(game_id)
        return meta.version if meta else 0

    async def events_since(self, game_id: str, viewer: str | None, since_seq: int,
                           limit: int = 5000) -> list[Payload]:
        """Every event after ``since_seq``, as the viewer may see it (gapless: a marker
        for each event he may not see)."""
        async with self.service.store.reading() as tx:
            rows = await tx.event_rows(game_id, after=max(0, since_seq))
        out = []
        for row in rows[:limit]:
            event = codec.decode_event(codec.loads(row["payload"]))
            out.append(without_audience(payload_for(game_id, row["seq"], event, viewer)))
        return out

    # --- public pages --------------------------------------------------------------

    async def games(self) -> list[dict[str, Any]]:
        metas = await self.service.store.list_games()
        out = []
        for meta in metas:
            try:
                s = await self.service.state(meta.game_id)
            except Exception:  # noqa: S112 - a corrupt game is listed by the operator tools, not here
                continue
            out.append(public_summary(meta.game_id, s) | {"time_scale": meta.clock.scale})
        return out

    async def game_public(self, game_id: str, viewer: str | None = None) -> dict[str, Any]:
        """The Recruitment Post (settings if non-default, sign-ups, city lists, hosts the
        community may know) and the Day Posts."""
        s = await self.state(game_id)
        hosts = {"procurator": s.procurator, "arbiter": s.arbiter,
                 "tribunes": {name: c.tribune for name, c in s.cities.items()}}
        if viewer is not None and viewer in (s.procurator, s.consigliere):
            hosts["consigliere"] = s.consigliere  # HOST-CONS-1: secret to everyone else
        indexed = await self._indexed(game_id)
        day_posts = [_json(e) | {"seq": seq} for seq, e in indexed
                     if isinstance(e, ev.DayPostPublished) and visible_to(e, viewer)]
        results = [_json(e) | {"seq": seq} for seq, e in indexed
                   if isinstance(e, ev.VotingClosed | ev.VerdictReached | ev.CityDecided
                                 | ev.GameResultFixed | ev.GameEnded) and visible_to(e, viewer)]
        return public_summary(game_id, s) | {
            "settings": s.settings.non_default(),
            "signup_list": list(s.signups),
            "city_lists": {name: list(c.residents) for name, c in s.cities.items()},
            "mafia_counts": {name: c.mafia_count for name, c in s.cities.items()}
            if s.stage in (Stage.DEALT, Stage.RUNNING, Stage.FINISHED) else {},
            "hosts": hosts,
            "dead": [_death(r) for r in s.residents.values() if not r.alive],
            "day_posts": day_posts,
            "results": results,
            "commitment": s.deal.commitment,
        }

    # --- the viewer's own ----------------------------------------------------------

    async def role_card(self, game_id: str, viewer: str) -> dict[str, Any]:
        """The viewer's own role: offices, city, and his faction as the deal told him. An
        honest resident gets the one notice identical for all (SEC-7)."""
        s = await self.state(game_id)
        offices = []
        if viewer == s.procurator:
            offices.append({"office": "procurator"})
        if viewer == s.consigliere:
            offices.append({"office": "consigliere"})
        if viewer == s.arbiter:
            offices.append({"office": "arbiter"})
        for name, c in s.cities.items():
            if c.tribune == viewer:
                offices.append({"office": "tribune", "city": name})
        card: dict[str, Any] = {"game_id": game_id, "user": viewer, "offices": offices,
                                "signed_up": viewer in s.signups, "resident": None}
        r = s.residents.get(viewer)
        if r is None:
            return card
        city = s.cities[r.city]
        resident: dict[str, Any] = {"city": r.city, "alive": r.alive,
                                    "cause": r.cause.value if r.cause else None,
                                    "faction": None, "notice": None, "roles": []}
        if r.faction is Faction.MAFIA:
            resident["faction"] = "mafia"
            resident["mafia"] = s.mafiosi(r.city)
            resident["acknowledged"] = viewer in s.deal.acknowledged
            if city.godfather == viewer:
                resident["roles"].append("godfather")
        elif r.faction is Faction.HONEST:
            resident["notice"] = HONEST_NOTICE
        if city.commissar == viewer:
            resident["roles"].append("commissar")
        if city.judge == viewer:
            resident["roles"].append("judge")
        if viewer in city.spirits:
            resident["roles"].append("spirit")
        resident["observing"] = sorted(n for n, c in s.cities.items() if viewer in c.observers)
        card["resident"] = resident
        return card

    async def inboxes(self, game_id: str, viewer: str) -> list[dict[str, Any]]:
        """The inboxes the viewer may read, with his access and unread count."""
        s = await self.state(game_id)
        now = await self.now(game_id)
        readable = [i for i in s.inboxes.values() if can_read(s, i.id, viewer)]
        markers = await self.accounts.read_markers(game_id, viewer)
        counts = await self._message_counts(game_id, [i.id for i in readable], markers)
        out = []
        for inbox in readable:
            out.append(self._inbox_header(s, inbox.id, viewer, now) | {
                "unread": counts.get(inbox.id, (0, 0))[0], "messages": counts.get(inbox.id, (0, 0))[1]})
        out.sort(key=lambda i: (i["archived"], POLICY[Kind(i["kind"])].order, i["inbox"]))
        return out

    async def _message_counts(self, game_id: str, inbox_ids: list[str],
                              markers: dict[str, int]) -> dict[str, tuple[int, int]]:
        if not inbox_ids:
            return {}
        m = schema.messages
        out: dict[str, tuple[int, int]] = {}
        async with self.service.store.reading() as tx:
            rows = await tx.conn.execute(
                select(m.c.inbox, m.c.seq).where(and_(m.c.game_id == game_id, m.c.inbox.in_(inbox_ids))))
            for r in rows:
                unread, total = out.get(r.inbox, (0, 0))
                out[r.inbox] = (unread + (r.seq > markers.get(r.inbox, 0)), total + 1)
        return out

    def _inbox_header(self, s: GameState, inbox_id: str, viewer: str | None,
                      now: datetime) -> dict[str, Any]:
        inbox = s.inboxes[inbox_id]
        policy = POLICY[Kind(inbox.kind)]
        level = access(s, inbox_id, viewer, now=now)
        return {
            "inbox": inbox.id, "kind": inbox.kind, "city": inbox.city, "title": inbox.title,
            "subject": inbox.subject if not policy.pseudonymous else None,
            "archived": inbox.archived, "access": level.name.lower(),
            "read_only": level is Access.READ, "keywords_only": policy.keywords_only,
            "members": member_list(s, inbox_id, viewer),
        }

    async def inbox(self, game_id: str, inbox_id: str, viewer: str | None, after_seq: int = 0,
                    limit: int = 500, mark_read: bool = True) -> dict[str, Any] | None:
        """An inbox's messages (and its live tally) if the viewer may read it; else None."""
        s = await self.state(game_id)
        if not can_read(s, inbox_id, viewer):
            return None
        m = schema.messages
        async with self.service.store.reading() as tx:
            rows = (await tx.conn.execute(
                select(m.c.seq, m.c.author, m.c.text, m.c.at)
                .where(and_(m.c.game_id == game_id, m.c.inbox == inbox_id, m.c.seq > after_seq))
                .order_by(m.c.seq).limit(limit))).all()
        messages = [{"seq": r.seq, "author": r.author, "text": r.text, "at": r.at} for r in rows]
        if messages and mark_read and viewer is not None:
            await self.accounts.mark_read(game_id, inbox_id, viewer, messages[-1]["seq"])
        out = self._inbox_header(s, inbox_id, viewer, await self.now(game_id)) | {"messages": messages}
        inbox = s.inboxes[inbox_id]
        if inbox.kind == Kind.VOTING and inbox.city and inbox.subject:
            out["tally"] = await self._tally(game_id, s, inbox.city, inbox.subject)
        return out

    async def _tally(self, game_id: str, s: GameState, city: str, candidate: str) -> dict[str, Any] | None:
        book = s.cities[city].voting
        if book is None:
            return None
        t = schema.tallies
        async with self.service.store.reading() as tx:
            row = (await tx.conn.execute(select(t).where(and_(
                t.c.game_id == game_id, t.c.city == city, t.c.day == book.day,
                t.c.candidate == candidate)))).first()
        if row is None:
            return None
        return {"candidate": candidate, "votes": row.votes, "voters": json.loads(row.voters),
                "closed": row.closed, "day": row.day}

    async def tallies(self, game_id: str, viewer: str | None) -> list[dict[str, Any]]:
        """Live tallies of the voting inboxes the viewer may read (INBOX-VOTE-1);
        closed votes are public through ``VotingClosed`` in ``game_public``."""
        s = await self.state(game_id)
        out = []
        for name, city in s.cities.items():
            book = city.voting
            if book is None:
                continue
            for candidate in book.candidates:
                box = live_inbox(s, Kind.VOTING, name, candidate)
                if box and can_read(s, box, viewer):
                    tally = await self._tally(game_id, s, name, candidate)
                    if tally:
                        out.append(tally | {"city": name, "inbox": box})
        return out

    async def deadlines(self, game_id: str, viewer: str | None) -> list[dict[str, Any]]:
        """Pending deadlines whose scheduling the viewer saw, with real due times for
        countdowns (``due_real``, Unix seconds)."""
        s = await self.state(game_id)
        latest: dict[str, ev.DeadlineScheduled] = {}
        for _, e in await self._indexed(game_id):
            if isinstance(e, ev.DeadlineScheduled):
                latest[e.key] = e
        d = schema.deadlines
        async with self.service.store.reading() as tx:
            rows = {r.key: r.due_real for r in await tx.conn.execute(
                select(d.c.key, d.c.due_real).where(and_(d.c.game_id == game_id, d.c.status == "pending")))}
        out = []
        for key, due in s.deadlines.items():
            scheduled = latest.get(key)
            if scheduled is None or not visible_to(scheduled, viewer):
                continue
            out.append({"key": key, "kind": key.partition(":")[0], "due_at": due.isoformat(),
                        "due_real": rows.get(key)})
        out.sort(key=lambda x: str(x["due_at"]))
        return out

    async def duties(self, game_id: str, viewer: str) -> list[dict[str, Any]]:
        """What the viewer's offices and role ask of him now: ``engine.duties``, as JSON."""
        found = duties(await self.state(game_id), viewer, await self.now(game_id))
        return [duty_json(d) for d in found]

    async def unread_total(self, game_id: str, viewer: str) -> int:
        return sum(i["unread"] for i in await self.inboxes(game_id, viewer))

    async def message_count(self, game_id: str) -> int:
        m = schema.messages
        async with self.service.store.reading() as tx:
            return int((await tx.conn.execute(
                select(func.count()).select_from(m).where(m.c.game_id == game_id))).scalar_one())


def without_audience(payload: Payload) -> Payload:
    """A payload for a client: the audience would name the event's other readers (§9)."""
    event = payload.get("event")
    if event is None:
        return payload
    return {**payload, "event": {k: v for k, v in event.items() if k != "audience"}}


def _json(event: Event) -> dict[str, Any]:
    data = codec.encode_event(event)
    data.pop("audience", None)
    return data


def _death(r: Any) -> dict[str, Any]:
    return {"user": r.user, "city": r.city, "cause": r.cause.value if r.cause else None,
            "label": r.died_in, "faction": r.faction.value if r.faction else None}


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
