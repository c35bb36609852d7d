"""Notifications' tables and their reads and writes (issue 13, docs/notifications.md).

``notify_outbox`` is the transactional outbox: the game lane writes its rows in the
same transaction as the events that cause them (``GameWrite.outbox``). The dispatcher
claims due rows, expands each into ``notifications`` (the in-app list, one per person)
and ``notify_deliveries`` (one per external channel and address), and sends those.
Every key is unique, so a claim that runs twice (a crash, a second worker) inserts
nothing twice; a claim is a lease (``claimed_until``, ``claimed_by``), so a worker killed
mid-batch leaves its rows to the next one after the lease.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterable, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Any

from sqlalchemy import (
    Boolean,
    Column,
    Float,
    Index,
    Integer,
    String,
    Table,
    Text,
    and_,
    bindparam,
    delete,
    func,
    or_,
    select,
    update,
)
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.ext.asyncio import AsyncConnection

from . import schema
from .event_store import EventStore
from .schema import ID, metadata

LOGIN = String(32)
KEY = String(400)

outbox = Table(
    "notify_outbox",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("key", KEY, nullable=False, unique=True),
    Column("game_id", ID, nullable=False),
    Column("user_id", LOGIN),
    # None: the recipients are found when it is due (the engine's duties at that moment).
    Column("kind", String(40), nullable=False),
    Column("seq", Integer),
    # The causing event's seq, if an event caused it.
    Column("payload", Text, nullable=False),
    Column("due_real", Float, nullable=False),
    Column("expires_real", Float),
    Column("status", String(12), nullable=False),
    # 'pending' -> 'done' | 'dropped' (its moment passed, or the deadline moved).
    Column("claimed_until", Float),
    Column("claimed_by", String(40)),
    Index("ix_notify_outbox_due", "status", "due_real"),
)

notifications = Table(
    "notifications",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("key", KEY, nullable=False, unique=True),
    Column("game_id", ID, nullable=False),
    Column("user_id", LOGIN, nullable=False),
    Column("kind", String(40), nullable=False),
    Column("payload", Text, nullable=False),
    Column("secret", Boolean, nullable=False),
    Column("created_real", Float, nullable=False),
    Column("read_real", Float),
    Index("ix_notifications_user", "user_id", "id"),
)

deliveries = Table(
    "notify_deliveries",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("key", KEY, nullable=False, unique=True),
    # The idempotency key: the channel gets it (Message-ID, Topic), a retry reuses it.
    Column("notification_id", Integer),
    Column("game_id", ID, nullable=False),
    Column("kind", String(40), nullable=False),
    Column("user_id", LOGIN, nullable=False),
    Column("channel", String(16), nullable=False),
    Column("address", Text),
    Column("payload", Text, nullable=False),
    Column("status", String(12), nullable=False),
    # 'pending' -> 'sent' | 'dead' (retries spent or refused) | 'dropped' (too late, gone).
    Column("attempts", Integer, nullable=False),
    Column("next_real", Float, nullable=False),
    Column("expires_real", Float),
    Column("claimed_until", Float),
    Column("claimed_by", String(40)),
    Column("sent_real", Float),
    Column("last_error", Text),
    Index("ix_notify_deliveries_due", "status", "next_real"),
)

prefs = Table(
    "notify_prefs",
    metadata,
    Column("user_id", LOGIN, primary_key=True),
    Column("game_id", ID, primary_key=True),
    # '' for the account's default.
    Column("kind", String(40), primary_key=True),
    # '*' for every kind.
    Column("channel", String(16), primary_key=True),
    Column("enabled", Boolean, nullable=False),
)

profiles = Table(
    "notify_profiles",
    metadata,
    Column("user_id", LOGIN, primary_key=True),
    Column("language", String(8), nullable=False),
    Column("time_zone", String(64), nullable=False),
    Column("quiet_start", String(5)),
    Column("quiet_end", String(5)),
    Column("digest", String(8), nullable=False),
    # 'off', 'hourly' or 'daily' (e-mail).
    Column("email", Text),
    Column("email_verified", Boolean, nullable=False),
    Column("email_token", String(64)),
    Column("unsubscribe_token", String(64), nullable=False, unique=True),
    Column("telegram_chat", String(64)),
    Column("telegram_token", String(64)),
)

push_subscriptions = Table(
    "push_subscriptions",
    metadata,
    Column("endpoint", String(1000), primary_key=True),
    Column("user_id", LOGIN, nullable=False),
    Column("p256dh", String(200), nullable=False),
    Column("auth", String(100), nullable=False),
    Column("created_real", Float, nullable=False),
    Index("ix_push_user", "user_id"),
)

follows = schema.follows

Row = dict[str, Any]


@dataclass(frozen=True)
class Claim:
    worker: str
    now: float
    lease: float
    limit: int = 200
    games: tuple[str, ...] | None = None
    """Only these games' rows (the outbox: the games this worker writes), or any game's."""
    due_by: float | None = None
    """Only rows due by then (``now`` if None): another worker's rows after a grace."""


_CLAIMS: dict[tuple[str, bool, bool], Any] = {}


def _claim_statement(table: Table, is_sqlite: bool, by_game: bool = False) -> Any:
    """The claim of up to ``:limit`` rows of ``table`` due by ``:due_by`` (the outbox by
    ``due_real``, deliveries by ``next_real``), pending and unleased at ``:now``, for
    ``:worker`` until ``:until``, returning them; with ``by_game``, only the outbox rows of
    the games in ``:games``. Built once per process (issue 17: not a statement and its
    cache key per pass)."""
    key = (table.name, is_sqlite, by_game)
    if key not in _CLAIMS:
        due = table.c.due_real if table is outbox else table.c.next_real
        now: Any = bindparam("now")
        free = or_(table.c.claimed_until.is_(None), table.c.claimed_until < now)
        wanted = [table.c.status == "pending", due <= bindparam("due_by"), free]
        if by_game:
            wanted.append(table.c.game_id.in_(bindparam("games", expanding=True)))
        ids = select(table.c.id).where(and_(*wanted)).order_by(due).limit(bindparam("limit"))
        lease: dict[str, Any] = {"claimed_until": bindparam("until"), "claimed_by": bindparam("worker")}
        if is_sqlite:  # one writer at a time: the subquery is read once
            pending = and_(table.c.id.in_(ids.scalar_subquery()), table.c.status == "pending")
            _CLAIMS[key] = update(table).where(pending).values(**lease).returning(*table.c)
        else:
            # A materialized CTE locks its rows exactly once. As an ``IN (subquery)`` the
            # planner may run the ``LIMIT … FOR UPDATE SKIP LOCKED`` subquery again for
            # each row it updates: every run skips the rows the earlier ones locked, so one
            # claim took every due row (the batch limit ignored) in quadratic time. The
            # update then finds its rows by primary key only (the lock already re-checked
            # them): a second condition on ``status`` led an unanalyzed table's plan to
            # scan every pending row once per claimed one.
            picked = ids.with_for_update(skip_locked=True).cte("picked").prefix_with("MATERIALIZED")
            _CLAIMS[key] = (update(table).where(table.c.id == picked.c.id)
                            .values(**lease).returning(*table.c))
    return _CLAIMS[key]


class NotifyStore:
    """Plain reads and writes; what to send and to whom is the service's."""

    def __init__(self, store: EventStore) -> None:
        self.store = store

    @property
    def is_sqlite(self) -> bool:
        return self.store.config.is_sqlite

    @asynccontextmanager
    async def _write(self) -> AsyncIterator[AsyncConnection]:
        async with self.store.write_connection() as conn:
            yield conn

    @asynccontextmanager
    async def _read(self) -> AsyncIterator[AsyncConnection]:
        async with self.store.connection() as conn:
            yield conn

    def _insert(self, table: Table) -> Any:
        return (sqlite.insert if self.is_sqlite else postgresql.insert)(table)

    # --- claiming (several workers, SIGKILL-safe) ----------------------------------

    async def _claim(self, table: Table, claim: Claim) -> list[Row]:
        params: dict[str, Any] = {
            "now": claim.now, "limit": claim.limit, "until": claim.now + claim.lease,
            "worker": claim.worker, "due_by": claim.now if claim.due_by is None else claim.due_by}
        by_game = claim.games is not None and table is outbox
        if by_game:
            if not claim.games:
                return []
            params["games"] = list(claim.games)
        async with self._write() as conn:
            rows = (await conn.execute(_claim_statement(table, self.is_sqlite, by_game), params)).all()
        return sorted((dict(r._mapping) for r in rows), key=lambda r: r["id"])

    async def claim_outbox(self, claim: Claim) -> list[Row]:
        return await self._claim(outbox, claim)

    async def claim_deliveries(self, claim: Claim) -> list[Row]:
        return await self._claim(deliveries, claim)

    async def expand(self, outbox_id: int, worker: str, status: str, notes: Sequence[Row],
                     sends: Sequence[Row]) -> bool:
        """One outbox row done: its notifications and deliveries, in one transaction,
        only if this worker still holds the claim (else False and nothing written)."""
        return bool(await self.expand_many(worker, [(outbox_id, status, notes, sends)]))

    async def expand_many(self, worker: str,
                          items: Sequence[tuple[int, str, Sequence[Row], Sequence[Row]]]) -> set[int]:
        """``expand`` for a batch, in one transaction and a few statements: the outbox ids
        this worker still held (only their notifications and deliveries are written)."""
        if not items:
            return set()
        async with self._write() as conn:
            held = {r.id for r in await conn.execute(
                select(outbox.c.id).where(and_(outbox.c.id.in_([i[0] for i in items]),
                                               outbox.c.claimed_by == worker, outbox.c.status == "pending")))}
            mine = [i for i in items if i[0] in held]
            for status in {i[1] for i in mine}:
                ids_of = [i[0] for i in mine if i[1] == status]
                await conn.execute(update(outbox).where(outbox.c.id.in_(ids_of))
                                   .values(status=status, claimed_until=None))
            notes = [n for i in mine for n in i[2]]
            ids: dict[str, int] = {}
            if notes:
                await conn.execute(self._insert(notifications).on_conflict_do_nothing(
                    index_elements=[notifications.c.key]), notes)
                keys = [n["key"] for n in notes]
                for chunk in range(0, len(keys), 500):
                    found = await conn.execute(select(notifications.c.key, notifications.c.id)
                                               .where(notifications.c.key.in_(keys[chunk:chunk + 500])))
                    ids.update({r.key: r.id for r in found})
            sends = []
            for i in mine:
                for send in i[3]:
                    row = dict(send)
                    row["notification_id"] = ids.get(row.pop("note_key", ""))
                    sends.append(row)
            if sends:
                await conn.execute(self._insert(deliveries).on_conflict_do_nothing(
                    index_elements=[deliveries.c.key]), sends)
        return held

    async def finish(self, delivery_id: int, worker: str, **values: Any) -> bool:
        """Record a send's outcome, only under this worker's claim."""
        async with self._write() as conn:
            result = await conn.execute(
                update(deliveries).where(and_(deliveries.c.id == delivery_id,
                                              deliveries.c.claimed_by == worker,
                                              deliveries.c.status == "pending"))
                .values(claimed_until=None, **values))
        return bool(result.rowcount == 1)

    async def add_deliveries(self, rows: Sequence[Row]) -> None:
        async with self._write() as conn:
            for row in rows:
                await conn.execute(self._insert(deliveries).values(**row).on_conflict_do_nothing(
                    index_elements=[deliveries.c.key]))

    async def add_outbox(self, rows: Sequence[Row]) -> None:
        """Outbox rows found by a sweep (inactivity, overdue host duties); a key already
        written is kept once, so several workers sweeping at once write each row once."""
        if rows:
            async with self._write() as conn:
                await conn.execute(self._insert(outbox).on_conflict_do_nothing(
                    index_elements=[outbox.c.key]), list(rows))

    async def events_at(self, game_id: str, seqs: Sequence[int]) -> dict[int, str]:
        """The stored payloads of some of a game's events, by seq."""
        if not seqs:
            return {}
        e = schema.events
        async with self._read() as conn:
            rows = await conn.execute(select(e.c.seq, e.c.payload).where(
                and_(e.c.game_id == game_id, e.c.seq.in_(sorted(set(seqs))))))
            return {int(r.seq): str(r.payload) for r in rows}

    # --- followed inboxes --------------------------------------------------------------

    async def follow(self, user_id: str, game_id: str, inbox_id: str, on: bool, now: float) -> None:
        async with self._write() as conn:
            if on:
                await conn.execute(self._insert(follows).values(
                    user_id=user_id, game_id=game_id, inbox_id=inbox_id, created_real=now)
                    .on_conflict_do_nothing())
            else:
                await conn.execute(delete(follows).where(and_(
                    follows.c.user_id == user_id, follows.c.game_id == game_id,
                    follows.c.inbox_id == inbox_id)))

    async def followers(self, inboxes: Iterable[tuple[str, str]]) -> dict[tuple[str, str], list[str]]:
        """(game, inbox) -> the users who follow it, for many inboxes of many games in one
        statement (the dispatcher asks once a pass, whatever the number of games)."""
        wanted = set(inboxes)
        if not wanted:
            return {}
        f = follows
        found: dict[tuple[str, str], list[str]] = {}
        async with self._read() as conn:
            rows = await conn.execute(select(f.c.game_id, f.c.inbox_id, f.c.user_id).where(and_(
                f.c.game_id.in_(sorted({g for g, _ in wanted})),
                f.c.inbox_id.in_(sorted({i for _, i in wanted})))).order_by(f.c.user_id))
            for r in rows:
                if (r.game_id, r.inbox_id) in wanted:
                    found.setdefault((r.game_id, r.inbox_id), []).append(r.user_id)
        return found

    async def follows_of(self, user_id: str, game_id: str) -> set[str]:
        f = follows
        async with self._read() as conn:
            rows = await conn.execute(select(f.c.inbox_id).where(and_(f.c.user_id == user_id,
                                                                      f.c.game_id == game_id)))
            return {r.inbox_id for r in rows}

    # --- the in-app list -------------------------------------------------------------

    async def notifications_of(self, user_id: str, limit: int = 100) -> list[Row]:
        n = notifications
        async with self._read() as conn:
            rows = await conn.execute(select(n).where(n.c.user_id == user_id)
                                      .order_by(n.c.id.desc()).limit(limit))
            return [dict(r._mapping) for r in rows]

    async def unread_count(self, user_id: str) -> int:
        n = notifications
        async with self._read() as conn:
            return int((await conn.execute(select(func.count()).select_from(n).where(
                and_(n.c.user_id == user_id, n.c.read_real.is_(None))))).scalar_one())

    async def mark_read(self, user_id: str, now: float, upto: int | None = None) -> None:
        n = notifications
        where = [n.c.user_id == user_id, n.c.read_real.is_(None)]
        if upto is not None:
            where.append(n.c.id <= upto)
        async with self._write() as conn:
            await conn.execute(update(n).where(and_(*where)).values(read_real=now))

    # --- preferences and profiles ----------------------------------------------------

    async def prefs_of(self, user_ids: Sequence[str]) -> list[Row]:
        if not user_ids:
            return []
        async with self._read() as conn:
            rows = await conn.execute(select(prefs).where(prefs.c.user_id.in_(sorted(set(user_ids)))))
            return [dict(r._mapping) for r in rows]

    async def set_prefs(self, user_id: str, game_id: str, values: dict[tuple[str, str], bool]) -> None:
        """Replace the user's preferences for ``game_id`` ('' = account defaults)."""
        async with self._write() as conn:
            await conn.execute(delete(prefs).where(and_(prefs.c.user_id == user_id,
                                                        prefs.c.game_id == game_id)))
            rows = [{"user_id": user_id, "game_id": game_id, "kind": k, "channel": c, "enabled": v}
                    for (k, c), v in values.items()]
            if rows:
                await conn.execute(prefs.insert(), rows)

    async def profiles_of(self, user_ids: Sequence[str]) -> dict[str, Row]:
        if not user_ids:
            return {}
        async with self._read() as conn:
            rows = await conn.execute(select(profiles).where(profiles.c.user_id.in_(sorted(set(user_ids)))))
            return {r.user_id: dict(r._mapping) for r in rows}

    async def put_profile(self, row: Row) -> None:
        stmt = self._insert(profiles).values(**row)
        stmt = stmt.on_conflict_do_update(
            index_elements=[profiles.c.user_id],
            set_={c: getattr(stmt.excluded, c) for c in row if c != "user_id"})
        async with self._write() as conn:
            await conn.execute(stmt)

    async def profile_by(self, column: str, value: str) -> Row | None:
        async with self._read() as conn:
            r = (await conn.execute(select(profiles).where(profiles.c[column] == value))).first()
        return dict(r._mapping) if r else None

    async def update_profile(self, user_id: str, **values: Any) -> None:
        async with self._write() as conn:
            await conn.execute(update(profiles).where(profiles.c.user_id == user_id).values(**values))

    # --- push subscriptions ------------------------------------------------------------

    async def add_push(self, row: Row) -> None:
        stmt = self._insert(push_subscriptions).values(**row)
        stmt = stmt.on_conflict_do_update(index_elements=[push_subscriptions.c.endpoint],
                                          set_={c: getattr(stmt.excluded, c) for c in row
                                                if c != "endpoint"})
        async with self._write() as conn:
            await conn.execute(stmt)

    async def push_of(self, user_ids: Sequence[str]) -> list[Row]:
        if not user_ids:
            return []
        p = push_subscriptions
        async with self._read() as conn:
            rows = await conn.execute(select(p).where(p.c.user_id.in_(sorted(set(user_ids)))))
            return [dict(r._mapping) for r in rows]

    async def drop_push(self, endpoint: str, user_id: str | None = None) -> None:
        p = push_subscriptions
        where = [p.c.endpoint == endpoint] + ([p.c.user_id == user_id] if user_id else [])
        async with self._write() as conn:
            await conn.execute(delete(p).where(and_(*where)))

    # --- operators ---------------------------------------------------------------------

    async def deliveries_of(self, *, game_id: str | None = None, status: str | None = None,
                            limit: int = 200) -> list[Row]:
        d = deliveries
        where = []
        if game_id is not None:
            where.append(d.c.game_id == game_id)
        if status is not None:
            where.append(d.c.status == status)
        async with self._read() as conn:
            rows = await conn.execute(select(d).where(and_(True, *where)).order_by(d.c.id.desc())
                                      .limit(limit))
            return [dict(r._mapping) for r in rows]

    async def outbox_rows(self, game_id: str | None = None) -> list[Row]:
        async with self._read() as conn:
            q = select(outbox).order_by(outbox.c.id)
            if game_id is not None:
                q = q.where(outbox.c.game_id == game_id)
            return [dict(r._mapping) for r in await conn.execute(q)]

    async def all_notifications(self, game_id: str | None = None) -> list[Row]:
        async with self._read() as conn:
            q = select(notifications).order_by(notifications.c.id)
            if game_id is not None:
                q = q.where(notifications.c.game_id == game_id)
            return [dict(r._mapping) for r in await conn.execute(q)]
