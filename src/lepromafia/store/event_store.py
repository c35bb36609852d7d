"""The event store: append-only events, snapshots, idempotency keys and read models.

Everything one batch of commands changes is written in one transaction
(``Transaction.write``); the games row's version check and the ``(game_id, seq)``
key make a concurrent writer fail with ``ConcurrencyConflict`` instead of forking
the log.
"""

from __future__ import annotations

import asyncio
import json
import logging
import sqlite3
from collections.abc import AsyncIterator, Callable, Collection, Mapping, Sequence
from contextlib import asynccontextmanager, suppress
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import Select, and_, bindparam, case, column, delete, func, or_, select, tuple_, update
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from ..engine.events import Event
from ..engine.evolve import evolve
from ..engine.state import GameState
from . import codec, postgres_batch, schema, sqlite_direct, sqlite_inline
from .database import HELD_WRITER, DatabaseConfig, create_engine
from .projection import PK, PRIMARY_KEYS, Changes, GameClock, Row
from .schema import inbox_reads

log = logging.getLogger(__name__)


class UnreadableSnapshot(Exception):
    """A snapshot that does not decode: only a cache, so read the game without it."""


class ConcurrencyConflict(Exception):
    """Another writer appended to the game first; reload it and try again."""

    def __init__(self, game_id: str) -> None:
        super().__init__(f"concurrent write to game {game_id}")
        self.game_id = game_id


class CorruptLog(Exception):
    """A stored event (or snapshot) does not decode or does not apply."""

    def __init__(self, game_id: str, seq: int, detail: str) -> None:
        super().__init__(f"game {game_id}: event {seq} is corrupt: {detail}")
        self.game_id = game_id
        self.seq = seq
        self.detail = detail


@dataclass(frozen=True)
class GameMeta:
    game_id: str
    title: str
    created_at: str
    stage: str
    version: int
    clock: GameClock


@dataclass(frozen=True)
class CommandRecord:
    command_id: str
    fingerprint: str
    command: str
    first_seq: int
    last_seq: int


@dataclass
class Locked:
    """What ``Transaction.lock_games`` read: the games' rows, and per game the commands
    among the asked ids it has already accepted."""

    games: dict[str, GameMeta] = field(default_factory=dict)
    commands: dict[str, dict[str, CommandRecord]] = field(default_factory=dict)
    followed: set[str] = field(default_factory=set)
    """The games of which someone follows an inbox (``schema.follows``): only their
    messages may cause a followed-inbox notification (``Transaction.followed_inboxes``)."""

    def get(self, game_id: str) -> GameMeta | None:
        return self.games.get(game_id)


@dataclass(frozen=True)
class HostCommandRow:
    """One accepted command of a host (the ``audit_log`` read model): who issued it, and
    the seqs of the events it caused."""

    first_seq: int
    last_seq: int
    actor: str
    command_type: str


@dataclass(frozen=True)
class LoadedGame:
    meta: GameMeta
    state: GameState
    snapshot_seq: int
    """0 if the state was replayed from the first event."""
    replayed: int


@dataclass(frozen=True)
class StoredGame:
    """A game as read from the store, before decoding (``Transaction.stored``)."""

    meta: GameMeta
    snapshot: tuple[int, str] | None
    """(seq, payload) of the latest snapshot, if any."""
    rows: list[Row]
    """The events after the snapshot (after 0 without one)."""

    def assemble(self) -> LoadedGame:
        """Decode and replay (CPU only, no I/O). :raises CorruptLog: with the first bad seq."""
        game_id, state, start = self.meta.game_id, None, 0
        if self.snapshot is not None:
            try:
                state = codec.decode_state(codec.loads(self.snapshot[1]))
            except (codec.CodecError, ValueError, TypeError) as exc:
                raise UnreadableSnapshot(game_id) from exc
            start = self.snapshot[0]
        state, replayed = replay_rows(game_id, self.rows, state, start)
        if state is None:
            raise CorruptLog(game_id, 1, "the game has no events")
        if start + replayed != self.meta.version:
            raise CorruptLog(game_id, start + replayed + 1, f"missing events up to {self.meta.version}")
        return LoadedGame(self.meta, state, start, replayed)


@dataclass
class GameWrite:
    """Everything one batch appends for one game."""

    game_id: str
    expected_version: int
    """-1 for a new game (the games row is inserted)."""
    meta: GameMeta
    events: list[Row] = field(default_factory=list)
    commands: list[Row] = field(default_factory=list)
    snapshot: Row | None = None
    leaves: list[Row] = field(default_factory=list)
    heads: list[Row] = field(default_factory=list)
    """The verifiable log's commitments and signed heads (service.transparency)."""
    outbox: list[Row] = field(default_factory=list)
    """Notifications these events cause (store.notify.outbox), in the same transaction."""


class _ReadScope:
    def __init__(self, store: EventStore) -> None:
        self.store = store
        self._opened: Any = None
        self._conn: AsyncConnection | None = None
        self.since = 0
        """``EventStore.commits`` when this read's connection was taken."""
        self.committed: dict[str, int] = {}
        """game -> the version this task's own write committed (see ``note_commit``)."""

    async def connection(self) -> AsyncConnection:
        if self._conn is None:
            self.since = self.store.commits
            opened = self.store.engine.connect()
            self._conn = await opened.__aenter__()  # a failed checkout leaves nothing to close
            self._opened = opened
        return self._conn

    async def release(self) -> None:
        opened, self._opened, self._conn = self._opened, None, None
        if opened is not None:
            await opened.__aexit__(None, None, None)


class _HeldWriter:
    """SQLite: one connection kept for this process's write transactions, instead of a
    checkout from the pool and a check-in (its reset) for each (~0.1 ms of CPU per
    transaction, more on a loop that was idle: issue 17's post at a fixed rate). SQLite
    serializes a file's writers anyway (``BEGIN IMMEDIATE``, sqlite_inline's writer lock),
    so holding one loses no concurrency: writers take ``lock`` in turn, as they took the
    file's lock. A transaction that fails drops the connection.

    SQLAlchemy's transaction on it is begun once, when the connection is taken, and stays
    open while it is held (``HELD_WRITER``: its begin emits nothing to SQLite); each write
    transaction's ``BEGIN IMMEDIATE`` and ``COMMIT`` go to the driver straight from the loop.
    Through SQLAlchemy each cost a greenlet and its switches and the
    transaction's events: an empty write transaction 58.7 µs against 8.9 in SQLite (session
    34). A statement SQLAlchemy still runs inside (a game read on a cache miss) runs on the
    same connection, inside SQLite's transaction, as before."""

    def __init__(self, writer: AsyncEngine, loop: asyncio.AbstractEventLoop) -> None:
        self.writer = writer
        self.loop = loop
        self.lock = asyncio.Lock()
        self._conn: AsyncConnection | None = None

    async def connection(self) -> tuple[AsyncConnection, sqlite_inline.InlineConnection]:
        """The held connection and its driver (a SQLite file's is always ours:
        ``database.create_engine``)."""
        conn = self._conn
        if conn is None or conn.closed or conn.invalidated:
            self._conn = None
            conn = await self.writer.connect()
            try:
                await conn.execution_options(**{HELD_WRITER: True})
                await conn.begin()
            except BaseException:
                await conn.close()
                raise
            self._conn = conn
        driver = conn.sync_connection.connection.driver_connection  # type: ignore[union-attr]
        assert isinstance(driver, sqlite_inline.InlineConnection)
        return conn, driver

    async def drop(self) -> None:
        conn, self._conn = self._conn, None
        if conn is not None:
            with suppress(Exception):
                await conn.close()


_SCOPE: ContextVar[_ReadScope | None] = ContextVar("lepromafia_read_scope", default=None)


Committed = Callable[[str, int, Sequence[tuple[int, Event]]], None]
"""A listener of this process's commits: (game, version before, the events committed)."""


@dataclass
class EventStore:
    config: DatabaseConfig
    engine: AsyncEngine
    writer: AsyncEngine
    listeners: list[Committed] = field(default_factory=list)
    commits: int = 0
    """Write transactions this process has committed through ``transaction``."""
    _held: _HeldWriter | None = field(default=None, init=False, repr=False)

    @classmethod
    def open(cls, config: DatabaseConfig, **options: Any) -> EventStore:
        engine = create_engine(config, **options)
        return cls(config, engine, engine.execution_options(write=True))

    async def close(self) -> None:
        if self._held is not None:
            await self._held.drop()
        await self.engine.dispose()
        if self.config.sqlite_file is not None:  # no connection to the file left behind
            await sqlite_inline.settled(self.config.sqlite_file)

    def on_commit(self, listener: Committed) -> None:
        """Call ``listener`` after each commit of this process's writers, with the events
        it made durable (a cache of events extends itself without reading them back)."""
        self.listeners.append(listener)

    def committed(self, game_id: str, before: int, events: Sequence[tuple[int, Event]]) -> None:
        """A writer's commit of ``events`` (seqs ``before + 1``…) is durable: tell the listeners.
        A failing listener is logged and skipped: the commit stands, and its acknowledgements
        must still leave (a cache that missed the events reads them from the store later)."""
        for listener in self.listeners:
            try:
                listener(game_id, before, events)
            except Exception:
                log.exception("a commit listener failed on game %s", game_id)

    async def ping(self) -> None:
        """One round trip to the database (readiness); raises if it cannot be reached."""
        async with self.engine.connect() as conn:
            await conn.exec_driver_sql("SELECT 1")

    @asynccontextmanager
    async def transaction(self) -> AsyncIterator[Transaction]:
        """A write transaction (``BEGIN IMMEDIATE`` on SQLite). It first ends this task's
        shared read (``read_scope``), so the reads after it see what it wrote."""
        async with self.write_connection() as conn:
            yield Transaction(conn, self.config.is_sqlite)
        self.commits += 1

    @asynccontextmanager
    async def write_connection(self) -> AsyncIterator[AsyncConnection]:
        """A connection in a write transaction, committed at the end (rolled back on an
        error): the writer lanes' (``transaction``), the accounts' and the outbox's. It
        first ends this task's shared read. On a SQLite file, the held one."""
        await self.release_reads()
        held = await self._held_writer()
        if held is None:
            async with self.writer.begin() as conn:
                yield conn
            return
        async with held.lock:
            conn, driver = await held.connection()
            try:
                await driver.begin(True)
                try:
                    yield conn
                except BaseException:
                    await driver.rollback()
                    raise
                await driver.commit()
            except BaseException:
                await held.drop()  # the next transaction starts on a fresh connection
                raise

    async def _held_writer(self) -> _HeldWriter | None:
        """SQLite on a file: the write transactions' one connection in this event loop."""
        if self.config.sqlite_file is None:
            return None
        loop = asyncio.get_running_loop()
        held = self._held
        if held is None or held.loop is not loop:
            if held is not None and not held.lock.locked():
                await held.drop()  # another loop's (tests run several)
            held = self._held = _HeldWriter(self.writer, loop)
        return held

    @asynccontextmanager
    async def reading(self) -> AsyncIterator[Transaction]:
        async with self.connection() as conn:
            yield Transaction(conn, self.config.is_sqlite)

    # --- one read transaction per request ---------------------------------------------

    @asynccontextmanager
    async def read_scope(self) -> AsyncIterator[None]:
        """Inside, every read of this task shares one connection and one transaction (one
        ``BEGIN``, one consistent snapshot), opened at the first read and closed at the end
        or before a write (``release_reads``). The web wraps each HTTP request in one."""
        scope = _ReadScope(self)
        token = _SCOPE.set(scope)
        try:
            yield
        finally:
            _SCOPE.reset(token)
            await scope.release()

    def note_commit(self, game_id: str, version: int) -> None:
        """This task's write left ``game_id`` at ``version``: every commit acknowledged
        before the task's request began is at most that version."""
        scope = _SCOPE.get()
        if scope is not None and scope.store is self:
            scope.committed[game_id] = max(version, scope.committed.get(game_id, 0))

    def committed_in_scope(self, game_id: str) -> int | None:
        """The version this request's own write committed for ``game_id``, if any."""
        scope = _SCOPE.get()
        return scope.committed.get(game_id) if scope is not None and scope.store is self else None

    async def release_reads(self) -> None:
        """End this task's shared read, if any (before waiting for a write)."""
        scope = _SCOPE.get()
        if scope is not None and scope.store is self:
            await scope.release()

    async def refresh_reads(self) -> None:
        """End this task's shared read if it began before this process's latest commit, so
        that its next read sees at least what a writer's state already holds."""
        scope = _SCOPE.get()
        if scope is not None and scope.store is self and scope.since != self.commits:
            await scope.release()

    @asynccontextmanager
    async def single_read(self) -> AsyncIterator[AsyncConnection]:
        """A connection for exactly one read statement, outside the request's shared read
        and without a ``BEGIN``: for the lookup every request makes first (its session),
        which needs no snapshot shared with anything else. On PostgreSQL in autocommit
        mode: the statement alone, not ``BEGIN``, the statement and the pool's ``ROLLBACK``
        — three round trips (session 19: 0.57× the time of a lookup, 0.6× its CPU)."""
        async with self.engine.connect() as conn:
            if self.config.is_sqlite:
                yield await conn.execution_options(single_statement=True)
            else:
                yield await conn.execution_options(isolation_level="AUTOCOMMIT")

    @asynccontextmanager
    async def connection(self) -> AsyncIterator[AsyncConnection]:
        """A read connection for the store's modules: the task's shared one inside a
        ``read_scope``, else a fresh one."""
        scope = _SCOPE.get()
        if scope is None or scope.store is not self:
            async with self.engine.connect() as conn:
                yield conn
            return
        conn = await scope.connection()
        try:
            yield conn
        except BaseException:
            await scope.release()  # a failed statement may leave the transaction unusable
            raise

    # --- convenience reads ---------------------------------------------------------

    async def list_games(self) -> list[GameMeta]:
        async with self.reading() as tx:
            rows = (await tx._conn.execute(select(schema.games).order_by(schema.games.c.game_id))).all()
        return [_meta(r._mapping) for r in rows]

    async def event_rows(self, game_id: str) -> list[Row]:
        async with self.reading() as tx:
            return await tx.event_rows(game_id)

    async def read_model(self, game_id: str) -> dict[str, dict[PK, Row]]:
        async with self.reading() as tx:
            return await tx.read_model(game_id)

    async def command_rows(self, game_id: str) -> list[Row]:
        async with self.reading() as tx:
            c = schema.commands
            rows = await tx._conn.execute(select(c).where(c.c.game_id == game_id).order_by(c.c.first_seq))
            return [dict(r._mapping) for r in rows]


@dataclass(frozen=True)
class MessageRow:
    seq: int
    inbox: str
    author: str
    text: str
    at: str


@dataclass(frozen=True)
class InboxCount:
    """One inbox's messages for one reader: how many, and how many after his read marker."""

    total: int
    unread: int
    last_read: int


def _lock_games_query(for_update: bool) -> Select[Any]:
    """``Transaction.lock_games``'s statement, built once (the games and the command ids
    are expanding parameters): a batch's first statement costs no query building."""
    g, c, f = schema.games, schema.commands, schema.follows
    joined = and_(c.c.game_id == g.c.game_id, c.c.command_id.in_(bindparam("command_ids", expanding=True)))
    followed = select(f.c.game_id).where(f.c.game_id == g.c.game_id).exists()
    query = (select(g, c.c.command_id.label("known_id"), c.c.fingerprint.label("known_fingerprint"),
                    c.c.command.label("known_command"), c.c.first_seq.label("known_first"),
                    c.c.last_seq.label("known_last"), followed.label("followed"))
             .select_from(g.outerjoin(c, joined))
             .where(g.c.game_id.in_(bindparam("game_ids", expanding=True))).order_by(g.c.game_id))
    return query.with_for_update(of=g) if for_update else query


_LOCK_GAMES = _lock_games_query(for_update=False)
_LOCK_GAMES_FOR_UPDATE = _lock_games_query(for_update=True)


def _mark_read_statement(dialect_insert: Any) -> Any:
    """A reader's marker moved forward, never back; built once per dialect (building the
    upsert's ``excluded`` columns was 7% of a loaded server's CPU, issue 17)."""
    r = inbox_reads
    insert = dialect_insert(r)
    return insert.on_conflict_do_update(index_elements=[r.c.game_id, r.c.inbox, r.c.user_id],
                                        set_={"last_seq": insert.excluded.last_seq},
                                        where=r.c.last_seq < insert.excluded.last_seq)


_MARK_READ = {True: _mark_read_statement(sqlite.insert), False: _mark_read_statement(postgresql.insert)}


def _mark_read_arrays_statement() -> Any:
    """PostgreSQL's ``_MARK_READ`` for many markers in one execution: their columns as four
    arrays, ``unnest``ed into rows. An executemany of 200 markers was 200 executions of
    the upsert, each a bind, a plan and a round of the executor in PostgreSQL and a
    parameter set in SQLAlchemy (4,000 markers a second at 200 games: session 19)."""
    r = inbox_reads
    rows = func.unnest(bindparam("game_ids", type_=postgresql.ARRAY(r.c.game_id.type)),
                       bindparam("inboxes", type_=postgresql.ARRAY(r.c.inbox.type)),
                       bindparam("user_ids", type_=postgresql.ARRAY(r.c.user_id.type)),
                       bindparam("seqs", type_=postgresql.ARRAY(r.c.last_seq.type))).table_valued(
        column("game_id", r.c.game_id.type), column("inbox", r.c.inbox.type),
        column("user_id", r.c.user_id.type), column("last_seq", r.c.last_seq.type)
    ).render_derived(name="marks")
    insert = postgresql.insert(r).from_select(
        ["game_id", "inbox", "user_id", "last_seq"],
        select(rows.c.game_id, rows.c.inbox, rows.c.user_id, rows.c.last_seq))
    return insert.on_conflict_do_update(index_elements=[r.c.game_id, r.c.inbox, r.c.user_id],
                                        set_={"last_seq": insert.excluded.last_seq},
                                        where=r.c.last_seq < insert.excluded.last_seq)


_MARK_READ_ARRAYS = _mark_read_arrays_statement()


def _move_game_statement() -> Any:
    g = schema.games
    return (update(g).where(and_(g.c.game_id == bindparam("b_game_id"),
                                 g.c.version == bindparam("b_expected")))
            .values(version=bindparam("b_version"), stage=bindparam("b_stage")))


_MOVE_GAME = _move_game_statement()


def _move_games_arrays_statement() -> Any:
    """PostgreSQL's ``_MOVE_GAME`` for a batch's games in one statement: their ids, expected
    and new versions and stages as arrays, ``unnest``ed; the games it moved are returned.
    One ``UPDATE`` per game was a round trip to the server each (session 19)."""
    g = schema.games
    version = g.c.version.type
    moves = func.unnest(bindparam("m_game_ids", type_=postgresql.ARRAY(g.c.game_id.type)),
                        bindparam("m_expected", type_=postgresql.ARRAY(version)),
                        bindparam("m_versions", type_=postgresql.ARRAY(version)),
                        bindparam("m_stages", type_=postgresql.ARRAY(g.c.stage.type))).table_valued(
        column("game_id", g.c.game_id.type), column("expected", version),
        column("version", version), column("stage", g.c.stage.type)).render_derived(name="moves")
    return (update(g).where(and_(g.c.game_id == moves.c.game_id, g.c.version == moves.c.expected))
            .values(version=moves.c.version, stage=moves.c.stage).returning(g.c.game_id))


_MOVE_GAMES_ARRAYS = _move_games_arrays_statement()
"""A batch's statements are built once per process, not per commit: building a Core
statement and its cache key was several percent of the loop (issue 17, session 9)."""
_INSERTS: dict[str, Any] = {}
_UPSERTS: dict[tuple[bool, str, tuple[str, ...] | None], Any] = {}


def _insert_statement(table: Any) -> Any:
    found = _INSERTS.get(table.name)
    if found is None:
        found = _INSERTS[table.name] = table.insert()
    return found


def _upsert_statement(is_sqlite: bool, table: Any, columns: tuple[str, ...] | None) -> Any:
    """INSERT … ON CONFLICT (its primary key) DO UPDATE the ``columns``; with None, ON
    CONFLICT (``key``) DO NOTHING (the outbox)."""
    key = (is_sqlite, table.name, columns)
    found = _UPSERTS.get(key)
    if found is None:
        insert = (sqlite.insert if is_sqlite else postgresql.insert)(table)
        if columns is None:
            found = insert.on_conflict_do_nothing(index_elements=[table.c.key])
        else:
            found = insert.on_conflict_do_update(
                index_elements=list(PRIMARY_KEYS[table.name]),
                set_=schema.upsert_set(table, columns, insert.excluded))
        _UPSERTS[key] = found
    return found


class Transaction:
    """One connection's work. Its connection is private: every query is a method here."""

    def __init__(self, conn: AsyncConnection, is_sqlite: bool) -> None:
        self._conn = conn
        self.is_sqlite = is_sqlite
        self._raw = sqlite_direct.connection(conn) if is_sqlite else None
        """The ``sqlite3`` connection for the hot statements (``sqlite_direct``), or None."""

    async def meta(self, game_id: str) -> GameMeta | None:
        row = (await self._conn.execute(
            select(schema.games).where(schema.games.c.game_id == game_id))).first()
        return _meta(row._mapping) if row else None

    async def lock_games(self, game_ids: Collection[str],
                         command_ids: Collection[str] = ()) -> Locked:
        """The games' rows, held by this transaction until it ends: one writer per game
        across workers. PostgreSQL locks the rows (``FOR UPDATE OF games``, in game order, so
        two workers' batches never deadlock); SQLite's ``BEGIN IMMEDIATE`` already holds the
        whole database. A game without a row is absent. The same statement finds which of
        ``command_ids`` each game has already accepted (the idempotency keys): a batch's
        whole read before deciding is this one statement."""
        query = _LOCK_GAMES if self.is_sqlite else _LOCK_GAMES_FOR_UPDATE
        # The IN lists padded to powers of two: a few statement texts serve every batch
        # (asyncpg prepares each text once per connection, in a cache of 100; SQLite's
        # direct path compiles each once).
        params = {"game_ids": _padded(sorted(game_ids)), "command_ids": _padded(sorted(set(command_ids)))}
        locked = Locked()
        for m in await self._lock_rows(query, params):
            if m["game_id"] not in locked.games:
                locked.games[m["game_id"]] = _meta(m)
                locked.commands[m["game_id"]] = {}
                if m["followed"]:
                    locked.followed.add(m["game_id"])
            if m["known_id"] is not None:
                locked.commands[m["game_id"]][m["known_id"]] = CommandRecord(
                    m["known_id"], m["known_fingerprint"], m["known_command"], m["known_first"],
                    m["known_last"])
        return locked

    async def _lock_rows(self, query: Select[Any],
                         params: dict[str, list[str]]) -> Sequence[Mapping[str, Any]]:
        raw = self._raw
        direct = sqlite_direct.expanded(query, tuple((k, len(v)) for k, v in params.items())) if raw else None
        if raw is None or direct is None:
            return [row._mapping for row in await self._conn.execute(query, params)]
        return sqlite_direct.mappings(sqlite_direct.execute(raw, direct, sqlite_direct.expand(params)))

    async def followed_inboxes(self, game_ids: Collection[str]) -> set[tuple[str, str]]:
        """The (game, inbox) pairs someone follows, of these games: read in the writer's
        transaction, after ``lock_games``, so a follow committed before it is seen."""
        f = schema.follows
        rows = await self._conn.execute(select(f.c.game_id, f.c.inbox_id).distinct()
                                        .where(f.c.game_id.in_(sorted(game_ids))))
        return {(r.game_id, r.inbox_id) for r in rows}

    async def load(self, game_id: str, use_snapshot: bool = True) -> LoadedGame | None:
        """The game's current state: the latest snapshot plus the events after it.

        :raises CorruptLog: with the first bad seq.
        """
        stored = await self.stored(game_id, use_snapshot)
        if stored is None:
            return None
        try:
            return stored.assemble()
        except UnreadableSnapshot:  # a bad snapshot is only a cache: replay instead
            stored = await self.stored(game_id, use_snapshot=False)
            return stored.assemble() if stored is not None else None

    async def stored(self, game_id: str, use_snapshot: bool = True) -> StoredGame | None:
        """What ``load`` reads (the row, the latest snapshot, the events after it), not yet
        decoded: a reader can give its connection back before the CPU-bound replay."""
        meta = await self.meta(game_id)
        if meta is None:
            return None
        snapshot: tuple[int, str] | None = None
        if use_snapshot:
            s = schema.snapshots
            snap = (await self._conn.execute(
                select(s.c.seq, s.c.payload).where(s.c.game_id == game_id)
                .order_by(s.c.seq.desc()).limit(1))).first()
            if snap is not None:
                snapshot = (snap.seq, snap.payload)
        rows = await self.event_rows(game_id, after=snapshot[0] if snapshot else 0)
        return StoredGame(meta, snapshot, rows)

    async def event_rows(self, game_id: str, after: int = 0) -> list[Row]:
        e = schema.events
        rows = await self._conn.execute(
            select(e.c.seq, e.c.type, e.c.payload, e.c.command_id)
            .where(and_(e.c.game_id == game_id, e.c.seq > after)).order_by(e.c.seq))
        return [dict(r._mapping) for r in rows]

    async def leaf_rows(self, game_id: str, after: int = 0) -> list[Row]:
        t = schema.event_leaves
        rows = await self._conn.execute(
            select(t.c.seq, t.c.salt, t.c.leaf).where(and_(t.c.game_id == game_id, t.c.seq > after))
            .order_by(t.c.seq))
        return [dict(r._mapping) for r in rows]

    async def leaves_after(self, after: Mapping[str, int]) -> dict[str, list[Row]]:
        """For many games at once, each one's leaves after its own seq (``{game: after}``),
        in seq order: one statement for a writer lane's whole batch."""
        if not after:
            return {}
        t = schema.event_leaves
        rows = await self._conn.execute(
            select(t.c.game_id, t.c.seq, t.c.salt, t.c.leaf)
            .where(or_(*(and_(t.c.game_id == g, t.c.seq > a) for g, a in sorted(after.items()))))
            .order_by(t.c.game_id, t.c.seq))
        found: dict[str, list[Row]] = {g: [] for g in after}
        for r in rows:
            found[r.game_id].append({"seq": r.seq, "salt": r.salt, "leaf": r.leaf})
        return found

    async def snapshot_frontiers(self, upto: Mapping[str, int]) -> dict[str, tuple[int, str]]:
        """For many games at once (``{game: seq}``), the verifiable log's frontier kept with
        each one's latest snapshot at or before its seq that kept one: ``{game: (the
        snapshot's seq, merkle.Frontier.dumps)}``."""
        if not upto:
            return {}
        s = schema.snapshots
        latest = (select(s.c.game_id, func.max(s.c.seq).label("seq"))
                  .where(and_(s.c.frontier.is_not(None),
                              or_(*(and_(s.c.game_id == g, s.c.seq <= v) for g, v in sorted(upto.items())))))
                  .group_by(s.c.game_id).subquery())
        rows = await self._conn.execute(
            select(s.c.game_id, s.c.seq, s.c.frontier)
            .join(latest, and_(s.c.game_id == latest.c.game_id, s.c.seq == latest.c.seq)))
        return {r.game_id: (int(r.seq), str(r.frontier)) for r in rows}

    async def heads_of(self, game_ids: Collection[str]) -> dict[str, list[Row]]:
        """For many games at once, their signed heads in size order."""
        if not game_ids:
            return {}
        t = schema.log_heads
        rows = await self._conn.execute(select(t).where(t.c.game_id.in_(sorted(game_ids)))
                                        .order_by(t.c.game_id, t.c.size))
        found: dict[str, list[Row]] = {g: [] for g in game_ids}
        for r in rows:
            found[r.game_id].append(dict(r._mapping))
        return found

    async def head_rows(self, game_id: str) -> list[Row]:
        t = schema.log_heads
        rows = await self._conn.execute(select(t).where(t.c.game_id == game_id).order_by(t.c.size))
        return [dict(r._mapping) for r in rows]

    async def insert_rows(self, table: Any, rows: list[Row]) -> None:
        await self._insert(table, rows)

    async def host_commands(self, game_id: str, *, upto: int | None = None) -> list[HostCommandRow]:
        """The host audit log's commands, in order, each with the range of its events."""
        a, e, c = schema.audit_log, schema.events, schema.commands
        where = [a.c.game_id == game_id]
        if upto is not None:
            where.append(a.c.seq <= upto)
        rows = await self._conn.execute(
            select(a.c.seq, a.c.actor, a.c.command_type, c.c.last_seq)
            .join(e, and_(e.c.game_id == a.c.game_id, e.c.seq == a.c.seq))
            .join(c, and_(c.c.game_id == e.c.game_id, c.c.command_id == e.c.command_id))
            .where(and_(*where)).order_by(a.c.seq))
        return [HostCommandRow(r.seq, max(r.seq, r.last_seq), r.actor, r.command_type) for r in rows]

    async def events_of(self, game_id: str, types: Collection[str] | None, *, after: int = 0,
                        upto: int | None = None, exclude: bool = False) -> list[tuple[int, Event]]:
        """Decoded events after ``after`` (and up to ``upto``) whose type is in ``types``
        (or, with ``exclude``, not in it); every type with ``types=None``."""
        e = schema.events
        where = [e.c.game_id == game_id, e.c.seq > after]
        if upto is not None:
            where.append(e.c.seq <= upto)
        if types is not None:
            names = sorted(types)
            where.append(e.c.type.not_in(names) if exclude else e.c.type.in_(names))
        rows = await self._conn.execute(
            select(e.c.seq, e.c.payload).where(and_(*where)).order_by(e.c.seq))
        return [(r.seq, codec.decode_event(codec.loads(r.payload))) for r in rows]

    async def messages(self, game_id: str, inbox: str, *, after: int = 0, limit: int | None = None,
                       reader: str | None = None) -> tuple[list[MessageRow], int]:
        """An inbox's messages after ``after``, and ``reader``'s read marker there (0 if he
        has none, or there is no message), in one statement."""
        m, r = schema.messages, inbox_reads
        marker = (select(r.c.last_seq).where(and_(r.c.game_id == game_id, r.c.inbox == inbox,
                                                  r.c.user_id == reader))
                  .scalar_subquery())
        query = (select(m.c.seq, m.c.inbox, m.c.author, m.c.text, m.c.at, marker)
                 .where(and_(m.c.game_id == game_id, m.c.inbox == inbox, m.c.seq > after))
                 .order_by(m.c.seq))
        if limit is not None:
            query = query.limit(limit)
        rows = (await self._conn.execute(query)).all()
        return [MessageRow(*row[:5]) for row in rows], int(rows[0][5] or 0) if rows else 0

    async def message_inboxes(self, game_id: str, *, after: int = 0,
                              upto: int | None = None) -> list[tuple[int, str, bool]]:
        """Each message's seq, inbox and whether its text has an ``@`` (a mention may be in
        it), after ``after`` (up to ``upto``), in order: what per-inbox counts and the
        mentions need, no text, nothing decoded (``service.event_index``)."""
        m = schema.messages
        where = [m.c.game_id == game_id, m.c.seq > after]
        if upto is not None:
            where.append(m.c.seq <= upto)
        rows = await self._conn.execute(
            select(m.c.seq, m.c.inbox, case((m.c.text.contains("@", autoescape=True), 1), else_=0))
            .where(and_(*where)).order_by(m.c.seq))
        return [(int(r[0]), str(r[1]), bool(r[2])) for r in rows]

    async def messages_by_seq(self, game_id: str, seqs: Collection[int]) -> list[MessageRow]:
        """The messages with these global seqs, in order (one statement, by key)."""
        if not seqs:
            return []
        m = schema.messages
        rows = await self._conn.execute(
            select(m.c.seq, m.c.inbox, m.c.author, m.c.text, m.c.at)
            .where(and_(m.c.game_id == game_id, m.c.seq.in_(sorted(seqs)))).order_by(m.c.seq))
        return [MessageRow(*row) for row in rows]

    async def read_markers(self, game_id: str, reader: str, inboxes: Collection[str]) -> dict[str, int]:
        """The reader's read marker (a global seq) in each of ``inboxes`` that has one: one
        statement, a key lookup per inbox (not a walk over every marker of the game)."""
        if not inboxes:
            return {}
        r = inbox_reads
        rows = await self._conn.execute(select(r.c.inbox, r.c.last_seq).where(and_(
            r.c.game_id == game_id, r.c.inbox.in_(sorted(inboxes)), r.c.user_id == reader)))
        return {str(row.inbox): int(row.last_seq) for row in rows}

    async def inbox_counts(self, game_id: str, inboxes: Collection[str],
                           reader: str) -> dict[str, InboxCount]:
        """Per inbox: its messages and the reader's unread ones, in one statement."""
        if not inboxes:
            return {}
        m, r = schema.messages, inbox_reads
        last = func.coalesce(r.c.last_seq, 0)
        rows = await self._conn.execute(
            select(m.c.inbox, func.count(), func.sum(case((m.c.seq > last, 1), else_=0)),
                   func.max(last))
            .select_from(m.outerjoin(r, and_(r.c.game_id == m.c.game_id, r.c.inbox == m.c.inbox,
                                             r.c.user_id == reader)))
            .where(and_(m.c.game_id == game_id, m.c.inbox.in_(sorted(inboxes))))
            .group_by(m.c.inbox))
        return {row[0]: InboxCount(int(row[1]), int(row[2] or 0), int(row[3] or 0)) for row in rows}

    async def mark_read(self, game_id: str, inbox: str, reader: str, seq: int) -> None:
        """Move the reader's marker forward to ``seq`` (never back), in one statement."""
        await self._conn.execute(_MARK_READ[self.is_sqlite],
                                 {"game_id": game_id, "inbox": inbox, "user_id": reader, "last_seq": seq})

    async def mark_read_many(self, marks: Sequence[tuple[str, str, str, int]]) -> None:
        """Move many readers' markers forward, each to its ``(game, inbox, reader, seq)``
        (never back), in one statement inside this transaction (PostgreSQL: one execution
        for them all, ``_MARK_READ_ARRAYS``). Each key at most once."""
        if not marks:
            return
        if self.is_sqlite:  # sqlite3's executemany: one statement stepped per row, in C
            await self._conn.execute(
                _MARK_READ[True],
                [{"game_id": g, "inbox": i, "user_id": u, "last_seq": seq} for g, i, u, seq in marks])
            return
        game_ids, inboxes, user_ids, seqs = (list(values) for values in zip(*marks, strict=True))
        await self._conn.execute(_MARK_READ_ARRAYS, {"game_ids": game_ids, "inboxes": inboxes,
                                                      "user_ids": user_ids, "seqs": seqs})

    async def write(self, writes: Sequence[GameWrite], changes: Changes) -> None:
        """Append a batch; raises ConcurrencyConflict naming the first game that moved."""
        g = schema.games
        for w in writes:
            if w.expected_version < 0:
                exists = await self.meta(w.game_id)
                if exists is not None:
                    raise ConcurrencyConflict(w.game_id)
                await self._conn.execute(g.insert().values(
                    game_id=w.game_id, title=w.meta.title, created_at=w.meta.created_at,
                    stage=w.meta.stage, version=w.meta.version, time_scale=w.meta.clock.scale,
                    clock_epoch=w.meta.clock.epoch))
        if not self.is_sqlite and await self._write_at_once(writes, changes):
            return
        await self._move_games([w for w in writes if w.expected_version >= 0])
        try:
            for table, rows in _appended(writes):
                await self._insert(table, rows)
            await self._outbox([r for w in writes for r in w.outbox])
            await self._apply(changes)
        except (IntegrityError, sqlite3.IntegrityError) as exc:
            raise ConcurrencyConflict(writes[0].game_id if writes else "?") from exc

    async def _write_at_once(self, writes: Sequence[GameWrite], changes: Changes) -> bool:
        """PostgreSQL: the moves, rows and changes ``write`` makes, in one statement
        (``postgres_batch``); False, having written nothing, where a part cannot be. A game
        inserted just now "moves" to the version it was inserted at: its rows are written
        like the others'."""
        from .notify import outbox  # the outbox's table lives with the dispatcher's

        batch = postgres_batch.Batch()
        batch.move([w.game_id for w in writes],
                   [w.expected_version if w.expected_version >= 0 else w.meta.version for w in writes],
                   [w.meta.version for w in writes], [w.meta.stage for w in writes])
        for table, rows in _appended(writes):
            batch.rows("insert", table.name, rows)
        batch.rows("ignore", outbox.name, [r for w in writes for r in w.outbox])
        for name, append_only, upserts, deletes in _changed(changes):
            batch.rows("insert" if append_only else "upsert", name, upserts)
            batch.delete(name, deletes)
        if not batch.expressible:
            return False
        if not batch.shape:
            return True
        try:
            moved = {row[0] for row in await self._conn.execute(batch.statement(), batch.params)}
        except IntegrityError as exc:
            raise ConcurrencyConflict(writes[0].game_id if writes else "?") from exc
        for w in writes:
            if w.game_id not in moved:
                raise ConcurrencyConflict(w.game_id)
        return True

    async def _move_games(self, moves: Sequence[GameWrite]) -> None:
        """Each game's row to its new version, if it is still at the expected one; else
        ConcurrencyConflict names the first that moved. PostgreSQL: one statement for the
        batch's games (``_MOVE_GAMES_ARRAYS``); SQLite: one each, in process."""
        if moves and not self.is_sqlite:
            moved = {row[0] for row in await self._conn.execute(_MOVE_GAMES_ARRAYS, {
                "m_game_ids": [w.game_id for w in moves],
                "m_expected": [w.expected_version for w in moves],
                "m_versions": [w.meta.version for w in moves],
                "m_stages": [w.meta.stage for w in moves]})}
            for w in moves:
                if w.game_id not in moved:
                    raise ConcurrencyConflict(w.game_id)
            return
        raw = self._raw
        direct = sqlite_direct.for_params(_MOVE_GAME) if raw is not None else None
        for w in moves:
            params = {"b_game_id": w.game_id, "b_expected": w.expected_version,
                      "b_version": w.meta.version, "b_stage": w.meta.stage}
            if raw is not None and direct is not None:
                changed = sqlite_direct.execute(raw, direct, params).rowcount
            else:
                changed = (await self._conn.execute(_MOVE_GAME, params)).rowcount
            if changed != 1:
                raise ConcurrencyConflict(w.game_id)

    async def _outbox(self, rows: list[Row]) -> None:
        """The transactional outbox: a key already written (a re-scheduled reminder at
        the same moment) is kept once."""
        if rows:
            from .notify import outbox
            await self._rows(_upsert_statement(self.is_sqlite, outbox, None), rows)

    async def _insert(self, table: Any, rows: list[Row]) -> None:
        if rows:
            await self._rows(_insert_statement(table), rows)

    async def _rows(self, statement: Any, rows: list[Row]) -> None:
        """An insert or upsert of ``rows`` (all with the first one's keys on SQLite's
        direct path: the lane builds each table's rows alike)."""
        raw = self._raw
        if raw is not None:
            keys = rows[0].keys()
            direct = sqlite_direct.for_rows(statement, tuple(keys))
            if direct is not None and all(row.keys() == keys for row in rows):
                sqlite_direct.execute_many(raw, direct, rows)
                return
        await self._conn.execute(statement, rows)

    async def _apply(self, changes: Changes) -> None:
        for name, append_only, upserts, deletes in _changed(changes):
            table = schema.metadata.tables[name]
            keys = PRIMARY_KEYS[name]
            if append_only:
                await self._insert(table, upserts)
                continue
            if upserts:
                columns = tuple(c for c in upserts[0] if c not in keys)
                await self._rows(_upsert_statement(self.is_sqlite, table, columns), upserts)
            for chunk in _chunks(deletes, 500):
                await self._conn.execute(delete(table).where(
                    tuple_(*[table.c[k] for k in keys]).in_(chunk)))

    async def read_model(self, game_id: str) -> dict[str, dict[PK, Row]]:
        model: dict[str, dict[PK, Row]] = {}
        for name, keys in PRIMARY_KEYS.items():
            table = schema.metadata.tables[name]
            cols = [c for c in table.c if c.name not in schema.NOT_PROJECTED]
            rows = await self._conn.execute(select(*cols).where(table.c.game_id == game_id))
            model[name] = {tuple(r._mapping[k] for k in keys): dict(r._mapping) for r in rows}
        return model

    async def count(self, table: Any, game_id: str) -> int:
        return int((await self._conn.execute(
            select(func.count()).select_from(table).where(table.c.game_id == game_id))).scalar_one())

    async def claim_due(self, now_real: float, lease_seconds: float, limit: int = 200) -> list[str]:
        """Lease overdue deadline rows for this worker; the games to sweep.

        On PostgreSQL ``FOR UPDATE SKIP LOCKED`` lets several workers claim disjoint rows.
        """
        d = schema.deadlines
        due = and_(d.c.status == "pending", d.c.due_real <= now_real,
                   (d.c.lease_until.is_(None)) | (d.c.lease_until < now_real))
        query = select(d.c.game_id, d.c.key).where(due).order_by(d.c.due_real).limit(limit)
        if not self.is_sqlite:
            query = query.with_for_update(skip_locked=True)
        rows = (await self._conn.execute(query)).all()
        if not rows:
            return []
        await self._conn.execute(
            update(d).where(tuple_(d.c.game_id, d.c.key).in_([(r.game_id, r.key) for r in rows]))
            .values(lease_until=now_real + lease_seconds))
        return list(dict.fromkeys(r.game_id for r in rows))


def _appended(writes: Sequence[GameWrite]) -> list[tuple[Any, list[Row]]]:
    """The rows a batch appends, table by table: events, idempotency keys, snapshots, the
    verifiable log's leaves and heads."""
    return [(schema.events, [r for w in writes for r in w.events]),
            (schema.commands, [r for w in writes for r in w.commands]),
            (schema.snapshots, [w.snapshot for w in writes if w.snapshot]),
            (schema.event_leaves, [r for w in writes for r in w.leaves]),
            (schema.log_heads, [r for w in writes for r in w.heads])]


_APPEND_ONLY = frozenset({"messages"})
"""Read-model tables that only gain rows: inserted, never upserted or deleted."""


def _changed(changes: Changes) -> list[tuple[str, bool, list[Row], list[PK]]]:
    """Each changed read-model table: its name, whether it is append-only, the rows to
    write and (but for an append-only one) the keys to delete."""
    out = []
    for name, rows in changes.items():
        if rows:
            append_only = name in _APPEND_ONLY
            out.append((name, append_only, [row for row in rows.values() if row is not None],
                        [] if append_only else [pk for pk, row in rows.items() if row is None]))
    return out


def replay_rows(game_id: str, rows: Sequence[Row], state: GameState | None,
                start: int) -> tuple[GameState | None, int]:
    """Decode and apply event rows after ``start``; CorruptLog names the first bad seq."""
    expected = start + 1
    for row in rows:
        if row["seq"] != expected:
            raise CorruptLog(game_id, expected, f"seq {row['seq']} found instead")
        try:
            event = codec.decode_event(codec.loads(row["payload"]))
            state = evolve(state, event)
        except Exception as exc:  # any failure is corruption at this seq
            raise CorruptLog(game_id, expected, str(exc)) from exc
        expected += 1
    return state, expected - start - 1


def decode_rows(rows: Sequence[Row]) -> list[tuple[int, Event]]:
    return [(r["seq"], codec.decode_event(codec.loads(r["payload"]))) for r in rows]


def _meta(row: Any) -> GameMeta:
    return GameMeta(row["game_id"], row["title"], row["created_at"], row["stage"], row["version"],
                    GameClock(row["clock_epoch"], row["time_scale"]))


def _padded(values: list[str]) -> list[str]:
    """``values`` with the last repeated up to the next power of two (an ``IN`` list means
    the same)."""
    if not values:
        return []
    size = 1 << (len(values) - 1).bit_length()
    return [*values, *[values[-1]] * (size - len(values))]


def _chunks(items: list[PK], size: int) -> list[list[PK]]:
    return [items[i:i + size] for i in range(0, len(items), size)]


def voters(row: Row) -> list[str]:
    decoded: list[str] = json.loads(row["voters"])
    return decoded
