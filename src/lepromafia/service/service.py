"""The durable game service: commands in, committed events out.

Each game belongs to one writer lane (an asyncio queue and task): its commands are
decided one after another on the lane's cached state. A lane takes every command
waiting in its queue as one batch and commits the batch in one transaction (group
commit: one fsync for many acknowledged commands). Acknowledgements and published
events leave only after that commit.

Several workers: each batch first holds its games' rows (``Transaction.lock_games``:
``FOR UPDATE`` on PostgreSQL, ``BEGIN IMMEDIATE`` on SQLite), so one writer per game at a
time across every worker, and applies whatever another worker committed since the lane's
last commit before deciding: a worker never refuses another's commands (issue 17). The
version check and the ``(game_id, seq)`` key stay as the backstop: a conflicting commit
reloads the game and retries the batch once.

Before any command the game's overdue deadlines fire, in ``deadline_order``, late,
each with its due time logged; a sweeper does the same for idle games.
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
import secrets
import time
import zlib
from collections import OrderedDict
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager, suppress
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime, timedelta
from typing import Any

from ..engine.commands import (
    Command,
    CreateGame,
    FireDeadline,
    GiveArchiveConsent,
    OpenDealReveals,
    RequestArchive,
    RevealDealEntropy,
)
from ..engine.deal import value_digest
from ..engine.decide import decide_and_evolve
from ..engine.errors import CodedError, RuleViolation
from ..engine.events import Event
from ..engine.progress import Context
from ..engine.state import GameState, Stage
from ..engine.table import next_deadline
from ..store import codec
from ..store.database import DatabaseConfig
from ..store.event_store import (
    CommandRecord,
    ConcurrencyConflict,
    CorruptLog,
    EventStore,
    GameMeta,
    GameWrite,
    StoredGame,
    Transaction,
    UnreadableSnapshot,
    replay_rows,
)
from ..store.projection import Changes, GameClock, Projector, Row, Step, merge
from .clock import Clock, SystemClock
from .errors import ServiceError, ServiceErrorCode, storage_full
from .notify.causes import asks_followers, causes, only_followed
from .observer import NullObserver, ServiceObserver
from .pubsub import Broker
from .transparency import HEAD_EVENTS, GameLog, LogKey, head_reason, load_logs
from .transparency_keys import KeyRing

log = logging.getLogger(__name__)

MAX_COMMAND_ID = 120
SYSTEM = "system"
SLACK = timedelta(milliseconds=1)
AFTER_GAME = (GiveArchiveConsent, RequestArchive)
"""The only commands a finished game accepts: the archives' consents and requests (§9.4)."""


@dataclass(frozen=True)
class Ack:
    """A committed command: its events are ``first_seq..last_seq`` (none if last < first)."""

    game_id: str
    command_id: str
    first_seq: int
    last_seq: int

    @property
    def event_count(self) -> int:
        return max(0, self.last_seq - self.first_seq + 1)


@dataclass
class Handle:
    """A game as its lane knows it after the last commit."""

    meta: GameMeta
    state: GameState
    projector: Projector
    snapshot_seq: int
    log: GameLog | None = None


@dataclass(frozen=True)
class Current:
    """A game as of the store's latest commit: its ``games`` row, its state, and the
    game time at which it was read (the ``now`` of every rule question a read asks)."""

    meta: GameMeta
    state: GameState
    now: datetime

    @property
    def version(self) -> int:
        return self.meta.version


@dataclass
class _Job:
    game_id: str
    command: Command | None
    """None: only fire the game's overdue deadlines (the sweeper)."""
    command_id: str
    future: asyncio.Future[Any]
    time_scale: float = 1.0
    queued_at: float = field(default_factory=time.perf_counter)
    committed: int | None = None
    """The game's version after the batch that wrote this job's game, if one did."""


@dataclass
class _Draft:
    """A game's state inside one batch; becomes the Handle only after commit."""

    meta: GameMeta
    state: GameState | None
    version: int
    expected: int
    projector: Projector
    snapshot_seq: int
    pending: dict[str, tuple[str, Ack]] = field(default_factory=dict)
    write: GameWrite | None = None
    published: list[tuple[int, Event]] = field(default_factory=list)
    log: GameLog | None = None
    followed: bool = True
    """Someone follows an inbox of the game (``lock_games`` read it): without, its messages
    make no followed-inbox notice (``causes``)."""


def fingerprint(command: Command, encoded: str | None = None) -> str:
    """The command's digest, of its stored encoding (``encoded``, if the caller has it)."""
    if encoded is None:
        encoded = codec.dumps(codec.encode_command(command))
    return hashlib.sha256(encoded.encode()).hexdigest()


LEASE_SECONDS = 30.0
"""How long a sweep's claim on an overdue deadline keeps other workers off it: a worker that
claims and dies before firing leaves it to the next sweep after that."""


class GameService:
    def __init__(self, store: EventStore, clock: Clock | None = None, *, snapshot_every: int = 500,
                 lanes: int | None = None, max_batch: int = 512, sweep_interval: float = 1.0,
                 lease_seconds: float = LEASE_SECONDS, broker: Broker | None = None,
                 read_cache: int = 256, verifiable_log: bool = True,
                 log_key: LogKey | KeyRing | None = None, sole_writer: bool = False) -> None:
        self.store = store
        self.sole_writer = sole_writer
        """No other process writes games to this store (one worker, no Redis): the lanes'
        states after their own commits are the latest, and a read needs no ``games`` row."""
        self.log_key: KeyRing | None = None
        if verifiable_log:  # docs/verification.md: salted leaves and signed heads
            self.log_key = KeyRing.coerce(log_key) if log_key else KeyRing.from_env()
        self.clock = clock or SystemClock()
        self.broker = broker or Broker()
        self.snapshot_every = snapshot_every
        self.max_batch = max_batch
        self.sweep_interval = sweep_interval
        self.lease_seconds = lease_seconds
        count = lanes or 1  # one per worker: the biggest batches (docs/decisions.md, session 13)
        self._lanes = [_Lane(self) for _ in range(count)]
        self._sweeper: asyncio.Task[None] | None = None
        self._closed = False
        self._reads: OrderedDict[str, Current] = OrderedDict()
        self._read_cache = read_cache
        self._flights: dict[tuple[str, int], asyncio.Future[Current]] = {}
        """Loads in progress, by game and version: concurrent readers share one."""
        self.observer: ServiceObserver = NullObserver()
        self._written: OrderedDict[str, float] = OrderedDict()
        """The games this process committed to, with the time (monotonic) of its latest
        commit of each, oldest first."""
        self._to_hold: dict[str, None] = {}
        """Games a socket subscribed to that this worker's lane should take (``hold``)."""
        self._holder: asyncio.Task[None] | None = None

    def written_since(self, since: float) -> tuple[str, ...]:
        """The games this process committed to at or after ``since`` (``time.monotonic``):
        with several workers, the games this worker writes (its notifications' games).
        The games last written before ``since`` are forgotten, so every caller must use the
        same horizon (the dispatcher's ``own_for``)."""
        while self._written and next(iter(self._written.values())) < since:
            self._written.popitem(last=False)
        return tuple(self._written)

    @classmethod
    @asynccontextmanager
    async def running(cls, config: DatabaseConfig, *, sweep: bool = True,
                      **options: Any) -> AsyncIterator[GameService]:
        """Open the store, start the lanes, fire what is overdue, sweep periodically."""
        service = cls(EventStore.open(config), **options)
        await service.start(sweep=sweep)
        try:
            yield service
        finally:
            await service.close()

    async def start(self, sweep: bool = True) -> None:
        for lane in self._lanes:
            lane.start()
        if sweep:
            await self.sweep()
            self._sweeper = asyncio.create_task(self._sweep_forever())

    async def close(self) -> None:
        self._closed = True
        for task in (self._sweeper, self._holder):
            if task:
                task.cancel()
                with suppress(asyncio.CancelledError):
                    await task
        for lane in self._lanes:
            await lane.stop()
        await self.store.close()

    # --- commands ------------------------------------------------------------------

    async def create_game(self, game_id: str, command: CreateGame, command_id: str,
                          time_scale: float = 1.0) -> Ack:
        if not game_id or len(game_id) > MAX_COMMAND_ID or time_scale <= 0:
            raise ServiceError(ServiceErrorCode.UNKNOWN_GAME, game=game_id)
        ack: Ack = await self._submit(game_id, command, command_id, time_scale)
        return ack

    async def execute(self, game_id: str, command: Command, command_id: str) -> Ack:
        """Decide, commit, acknowledge, publish. The same ``command_id`` twice: one effect,
        the same Ack. Raises RuleViolation or ServiceError, having changed nothing."""
        started, code = time.perf_counter(), "ok"
        try:
            ack: Ack = await self._submit(game_id, command, command_id)
        except CodedError as exc:
            code = str(exc.code.value)
            raise
        except Exception:
            code = "internal"
            raise
        finally:
            self.observer.command(game_id, command.actor, code, time.perf_counter() - started)
        return ack

    async def take(self, game_ids: Sequence[str], chunk: int = 16) -> int:
        """Have the writer lanes load these games now (their state and verifiable log),
        ``chunk`` games to a batch, rather than at each game's first command: after a
        start those first commands come together, and one batch loading every game held
        every player's command behind it (issue 17). Each is the sweep's job: a deadline
        already overdue fires, as it would at the game's next command. Only a sole writer
        (with several workers a game is taken by the worker its commands reach: ``hold``).
        The number of games taken."""
        return await self._take(game_ids, chunk) if self.sole_writer else 0

    async def _take(self, game_ids: Sequence[str], chunk: int = 16) -> int:
        taken = 0
        for start in range(0, len(game_ids), chunk):
            part = game_ids[start:start + chunk]
            outcomes = await asyncio.gather(*(self._submit(g, None, "") for g in part),
                                            return_exceptions=True)
            for game_id, outcome in zip(part, outcomes, strict=True):
                if isinstance(outcome, (ServiceError, RuleViolation)):
                    log.warning("taking %s failed: %s", game_id, outcome)
                elif isinstance(outcome, BaseException):
                    raise outcome
                else:
                    taken += 1
        return taken

    def hold(self, game_id: str) -> None:
        """Have this worker's writer lane take a game in the background (``take``) because a
        socket subscribed to it here, if the lane does not hold it yet. With several
        workers a game's viewers and commands reach the worker its proxy routes the game to:
        its first subscriptions (the reconnections after a start) come before its first
        command, and the command then finds the game and its verifiable log held instead of
        a first batch that reads a hundred games' logs (issue 17). A sole writer took every
        game at its warm-up. Unrouted, the other worker's lane follows what this one did."""
        if self.sole_writer or self._closed or game_id in self._lane(game_id).handles:
            return
        self._to_hold[game_id] = None
        if self._holder is None or self._holder.done():
            self._holder = asyncio.create_task(self._hold_all())

    async def _hold_all(self, chunk: int = 16) -> None:
        while self._to_hold and not self._closed:
            part = list(self._to_hold)[:chunk]
            for game_id in part:
                del self._to_hold[game_id]
            try:
                await self._take([g for g in part if g not in self._lane(g).handles], chunk)
            except Exception:  # a failed load is the game's next command's to meet
                log.exception("taking subscribed games failed")

    def lane_depths(self) -> list[int]:
        """Jobs queued in each writer lane now."""
        return [lane.queue.qsize() for lane in self._lanes]

    async def _submit(self, game_id: str, command: Command | None, command_id: str,
                      time_scale: float = 1.0) -> Any:
        if self._closed:
            raise ServiceError(ServiceErrorCode.SERVICE_CLOSED)
        if command is not None and (not isinstance(command_id, str) or not command_id
                                    or len(command_id) > MAX_COMMAND_ID):
            raise ServiceError(ServiceErrorCode.COMMAND_ID_INVALID)
        await self.store.release_reads()  # hold no read connection while the lane writes
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        job = _Job(game_id, command, command_id, future, time_scale)
        self._lane(game_id).queue.put_nowait(job)
        result = await future
        if job.committed is not None:
            self.store.note_commit(game_id, job.committed)
        return result

    def _lane(self, game_id: str) -> _Lane:
        return self._lanes[zlib.crc32(game_id.encode()) % len(self._lanes)]

    # --- deadlines -----------------------------------------------------------------

    async def sweep(self) -> int:
        """Fire every overdue deadline of every game once; the number of deadlines fired."""
        async with self.store.transaction() as tx:
            games = await tx.claim_due(self.clock.now(), self.lease_seconds)
        fired = 0
        for game_id in games:
            try:
                fired += await self._submit(game_id, None, "")
            except (ServiceError, RuleViolation) as exc:
                log.warning("sweep of %s failed: %s", game_id, exc)
        return fired

    async def _sweep_forever(self) -> None:
        while True:
            await asyncio.sleep(self.sweep_interval)
            try:
                await self.sweep()
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("sweeper pass failed")

    # --- reads ---------------------------------------------------------------------

    async def state(self, game_id: str) -> GameState:
        return (await self.current(game_id)).state

    def held_state(self, game_id: str, seq: int) -> GameState | None:
        """This process's copy of the game if it includes the event at ``seq``, from
        memory (the lane's handle or the read cache), else None: a caller that cannot wait
        (the fan-out rendering a message as it is published) asks ``current`` otherwise."""
        handle = self._lane(game_id).handles.get(game_id)
        if handle is not None and handle.meta.version >= seq:
            return handle.state
        cached = self._reads.get(game_id)
        if cached is not None and cached.version >= seq:
            return cached.state
        return None

    async def current(self, game_id: str) -> Current:
        """The game as of the latest commit in the store, whichever worker made it.

        One cheap read of the ``games`` row compares the store's version with this
        process's cached copies (the lane's handle after its own commits, or the read
        cache); a copy that is behind catches up by applying only the missing events.
        So a page served by any worker reflects every commit acknowledged before it. A
        sole writer skips that read for a game its lane holds: nobody else commits.
        """
        lane = self._lane(game_id)
        handle = lane.handles.get(game_id)
        if self.sole_writer:
            # A read this request began before this process's latest commit would lack
            # what the lane's state holds: end it. With a handle, the lane made every
            # commit of this game: its handle is the latest.
            await self.store.refresh_reads()
            if handle is not None:
                return Current(handle.meta, handle.state, handle.meta.clock.to_game(self.clock.now()))
        commits = self.store.commits
        committed = self.store.committed_in_scope(game_id)
        if handle is not None and handle.meta.version == committed:
            # this request's own write found no later commit: its handle is the latest (and
            # the request's reads after that write began after it: ``transaction``)
            return Current(handle.meta, handle.state, handle.meta.clock.to_game(self.clock.now()))
        async with self.store.reading() as tx:
            meta = await tx.meta(game_id)
            if meta is None:
                raise ServiceError(ServiceErrorCode.UNKNOWN_GAME, game=game_id)
            handle = self._lane(game_id).handles.get(game_id)
            now = meta.clock.to_game(self.clock.now())
            if handle is not None and handle.meta.version >= meta.version:
                latest = Current(handle.meta, handle.state, now)
                if handle.meta.version > meta.version:
                    # The request's read began before this worker's lane committed more:
                    # its snapshot (SQLite) lacks what the state holds. End it, so every
                    # read after this one (events, messages) sees at least this version.
                    await self.store.release_reads()
                return latest
            cached = self._reads.get(game_id)
            if cached is not None and cached.version == meta.version:
                self._reads.move_to_end(game_id)
                return replace(cached, now=now)
            flight = self._flights.get((game_id, meta.version))
            if flight is None:
                known = [cached, Current(handle.meta, handle.state, now) if handle else None]
                base = max((c for c in known if c is not None and c.version <= meta.version),
                           key=lambda c: c.version, default=None)
                key = (game_id, meta.version)
                flight = self._flights[key] = asyncio.get_running_loop().create_future()
                flight.add_done_callback(lambda f: f.cancelled() or f.exception())  # waiters may go
                try:
                    read = await _read_missing(tx, meta, base)
                except BaseException as exc:
                    self._land(key, exc)
                    raise
                mine = True
            else:
                mine = False
        if not mine:
            # Another task is loading this very version: wait for it holding no connection
            # (a reconnect storm of a cold game is one load, not one per socket: issue 17).
            await self.store.release_reads()
            return replace(await asyncio.shield(flight), now=now)
        # The read's connection is back in the pool (outside a request's own read scope):
        # the CPU-bound decoding and replay hold none (issue 17, the reconnect storm).
        try:
            current = await self._replayed(meta, base, read, now)
        except BaseException as exc:
            self._land(key, exc)
            raise
        self._land(key, current)
        self._remember(current)
        if self.sole_writer and self.store.commits == commits:  # nothing newer can exist
            lane.adopt(current)
        return current

    def _land(self, key: tuple[str, int], outcome: Current | BaseException) -> None:
        flight = self._flights.pop(key, None)
        if flight is None or flight.done():
            return
        if isinstance(outcome, Current):
            flight.set_result(outcome)
        else:
            flight.set_exception(outcome if isinstance(outcome, Exception) else ServiceError(
                ServiceErrorCode.SERVICE_CLOSED))

    async def _replayed(self, meta: GameMeta, base: Current | None, read: list[Row] | StoredGame,
                        now: datetime) -> Current:
        """``base`` brought to ``meta.version`` with the events read after it, or the game
        assembled from what was read (a full load without a base, or if the tail is not
        exactly the missing events: then read again)."""
        game_id = meta.game_id
        if isinstance(read, list) and base is not None:
            try:
                state, applied = replay_rows(game_id, read, base.state, base.version)
            except CorruptLog as exc:
                raise ServiceError(ServiceErrorCode.CORRUPT_LOG, game=game_id, seq=exc.seq) from exc
            if state is not None and base.version + applied == meta.version:
                return Current(meta, state, now)
            read = await self._stored(game_id, use_snapshot=True)
        assert isinstance(read, StoredGame)
        try:
            try:
                loaded = read.assemble()
            except UnreadableSnapshot:  # only a cache: read the game without it
                loaded = (await self._stored(game_id, use_snapshot=False)).assemble()
        except CorruptLog as exc:
            raise ServiceError(ServiceErrorCode.CORRUPT_LOG, game=game_id, seq=exc.seq) from exc
        return Current(loaded.meta, loaded.state, now)

    async def _stored(self, game_id: str, use_snapshot: bool) -> StoredGame:
        async with self.store.reading() as tx:
            stored = await tx.stored(game_id, use_snapshot)
        if stored is None:
            raise ServiceError(ServiceErrorCode.UNKNOWN_GAME, game=game_id)
        return stored

    def _remember(self, current: Current) -> None:
        game_id = current.meta.game_id
        self._reads[game_id] = current
        self._reads.move_to_end(game_id)
        while len(self._reads) > self._read_cache:
            self._reads.popitem(last=False)


async def _read_missing(tx: Transaction, meta: GameMeta, base: Current | None) -> list[Row] | StoredGame:
    """What a read needs from the store to reach ``meta.version``: the events after
    ``base``, or (without one) the whole game as stored. Reads only; nothing decoded."""
    if base is not None:
        return [r for r in await tx.event_rows(meta.game_id, after=base.version)
                if r["seq"] <= meta.version]
    stored = await tx.stored(meta.game_id)
    if stored is None:
        raise ServiceError(ServiceErrorCode.UNKNOWN_GAME, game=meta.game_id)
    return stored


async def _load(tx: Transaction, game_id: str) -> Handle:
    try:
        loaded = await tx.load(game_id)
    except CorruptLog as exc:
        raise ServiceError(ServiceErrorCode.CORRUPT_LOG, game=game_id, seq=exc.seq) from exc
    if loaded is None:
        raise ServiceError(ServiceErrorCode.UNKNOWN_GAME, game=game_id)
    projector = Projector.resume(game_id, loaded.meta.clock, loaded.state)
    return Handle(loaded.meta, loaded.state, projector, loaded.snapshot_seq)


def _handle_of(current: Current) -> Handle:
    """A lane's handle for a game as a read loaded it (the next snapshot is due at the next
    multiple of ``snapshot_every`` after its version, as if one had just been taken)."""
    meta, state = current.meta, current.state
    return Handle(meta, state, Projector.resume(meta.game_id, meta.clock, state), meta.version)


class _Lane:
    """One writer: a queue of jobs, committed in batches."""

    def __init__(self, service: GameService) -> None:
        self.service = service
        self.queue: asyncio.Queue[_Job | None] = asyncio.Queue()
        self.handles: dict[str, Handle] = {}
        self.task: asyncio.Task[None] | None = None

    def start(self) -> None:
        self.task = asyncio.create_task(self._run())

    def adopt(self, current: Current) -> None:
        """Keep a game a read loaded as this lane's handle, unless the lane moved it on (a
        sole writer's, when this process committed nothing since the read: nobody else
        can have moved it)."""
        game_id = current.meta.game_id
        kept = self.handles.get(game_id)
        if kept is None or kept.meta.version < current.version:
            self.handles[game_id] = _handle_of(current)

    async def stop(self) -> None:
        if self.task:
            self.queue.put_nowait(None)
            await self.task

    async def _run(self) -> None:
        while True:
            job = await self.queue.get()
            if job is None:
                return
            await asyncio.sleep(0)  # let clients just acknowledged queue their next command
            batch = [job]
            stop = False
            while not self.queue.empty() and len(batch) < self.service.max_batch:
                nxt = self.queue.get_nowait()
                if nxt is None:
                    stop = True
                    break
                batch.append(nxt)
            began = time.perf_counter()
            for queued in batch:
                self.service.observer.queue_wait(began - queued.queued_at)
            await self._run_batch(batch)
            if stop:
                return

    async def _run_batch(self, jobs: list[_Job]) -> None:
        """Commit ``jobs`` together. A batch the store refuses for one command's sake (a
        value one backend cannot hold) is split in halves, down to that command alone, so
        one player's bad command never fails another's (F6-1). A full disk fails the whole
        batch at once (nothing is written): ``storage_full``, retried by the clients."""
        for attempt in (1, 2):
            try:
                results, drafts = await self._attempt(jobs)
            except ConcurrencyConflict as exc:
                # Another writer moved a game of this batch: nothing was committed, so every
                # copy the attempt derived (state, projector, verifiable-log tail) is dropped
                # for every game of the batch, and the retry reads them afresh in its own
                # transaction (the store may name only the first game that moved).
                self._forget(jobs)
                if attempt == 1:
                    continue
                moved = [job for job in jobs if job.game_id == exc.game_id]
                if moved and len(moved) < len(jobs):
                    # Only the game that moved twice is refused: the batch's other games
                    # commit without it (one game's contention never fails another's).
                    await self._run_batch([job for job in jobs if job.game_id != exc.game_id])
                    await self._run_batch(moved)
                    return
                err = ServiceError(ServiceErrorCode.CONCURRENCY_CONFLICT, game=exc.game_id)
                self._resolve(jobs, [err] * len(jobs))
                return
            except Exception as exc:  # the store failed: nothing was committed
                self._forget(jobs)
                if storage_full(exc):
                    log.error("store is full: %s", exc)
                    self._resolve(jobs, [ServiceError(ServiceErrorCode.STORAGE_FULL)] * len(jobs))
                elif len(jobs) > 1:
                    half = len(jobs) // 2
                    await self._run_batch(jobs[:half])
                    await self._run_batch(jobs[half:])
                else:
                    log.error("command %s of %s failed at commit: %r", jobs[0].command_id,
                              jobs[0].game_id, exc)
                    self._resolve(jobs, [exc])
                return
            published = False
            for game_id, draft in drafts.items():
                kept = self.handles.get(game_id)
                if draft.write is None and kept is not None and kept.log is None \
                        and draft.log is not None and draft.version == kept.meta.version:
                    kept.log = draft.log  # read in a transaction that committed: keep it
                if draft.state is not None and draft.write is not None:
                    self.handles[game_id] = Handle(draft.meta, draft.state, draft.projector,
                                                   draft.snapshot_seq, draft.log)
                    self.service._written.pop(game_id, None)
                    self.service._written[game_id] = time.monotonic()
                    if draft.published:
                        self.service.store.committed(game_id, draft.expected, draft.published)
                        self.service.broker.publish(game_id, draft.published)
                        published = True
                    for job in jobs:
                        if job.game_id == game_id:
                            job.committed = draft.version
            if published:
                await self.service.broker.relayed()  # other workers' viewers first, then the ack
            self._resolve(jobs, results)
            return

    def _forget(self, jobs: Sequence[_Job]) -> None:
        """Drop the cached handles of the jobs' games (after an attempt that committed nothing)."""
        for job in jobs:
            self.handles.pop(job.game_id, None)

    @staticmethod
    def _resolve(jobs: Sequence[_Job], results: Sequence[Any]) -> None:
        for job, result in zip(jobs, results, strict=True):
            if job.future.done():
                continue
            if isinstance(result, BaseException):
                job.future.set_exception(result)
            else:
                job.future.set_result(result)

    async def _attempt(self, jobs: list[_Job]) -> tuple[list[Any], dict[str, _Draft]]:
        service = self.service
        drafts: dict[str, _Draft] = {}
        changes: Changes = {}
        results: list[Any] = []
        async with service.store.transaction() as tx:
            # One writer per game across workers: hold the batch's games' rows, then follow
            # whatever another worker committed since this lane's last commit (issue 17).
            # The same statement finds which of the batch's command ids are already
            # accepted (idempotency): the batch reads nothing else before deciding.
            stored = await tx.lock_games({job.game_id for job in jobs},
                                         [job.command_id for job in jobs if job.command is not None])
            known: dict[str, dict[str, CommandRecord]] = stored.commands
            failed: dict[str, Exception] = {}
            found: dict[str, Handle | _Draft] = {}
            for job in jobs:
                if job.game_id in found or job.game_id in failed:
                    continue
                try:
                    await self._follow(tx, job.game_id, stored.get(job.game_id))
                    found[job.game_id] = await self._handle(tx, job, stored.get(job.game_id))
                except ServiceError as exc:
                    failed[job.game_id] = exc
            logs = await self._logs(tx, found)
            for game_id, handle in found.items():
                drafts[game_id] = handle if isinstance(handle, _Draft) else \
                    self._draft(game_id, handle, logs.get(game_id))
                drafts[game_id].followed = game_id in stored.followed
            for job in jobs:
                if job.game_id in failed:
                    results.append(failed[job.game_id])
                    continue
                try:
                    results.append(self._one(drafts[job.game_id], job, known.get(job.game_id, {}),
                                                changes))
                except (RuleViolation, ServiceError) as exc:
                    results.append(exc)
            writes = []
            for draft in drafts.values():
                if draft.write is not None and draft.state is not None:
                    self._maybe_snapshot(draft)
                    draft.write.meta = replace(draft.meta, version=draft.version,
                                               stage=draft.state.stage.value)
                    draft.meta = draft.write.meta
                    writes.append(draft.write)
            if writes:
                await self._only_followed(tx, writes, stored.followed)
                await tx.write(writes, changes)
        return results, drafts

    @staticmethod
    async def _only_followed(tx: Transaction, writes: list[GameWrite], followed: set[str]) -> None:
        """Drop the followed-inbox notices of inboxes nobody follows (``causes.only_followed``),
        asking the store only for games someone follows anything in (``lock_games`` knew)."""
        asked = {w.game_id for w in writes if w.game_id in followed and asks_followers(w.outbox)}
        pairs = await tx.followed_inboxes(asked) if asked else set()
        for write in writes:
            if write.outbox:
                write.outbox = only_followed(write.outbox, pairs)

    async def _follow(self, tx: Transaction, game_id: str, stored: GameMeta | None) -> None:
        """Bring this lane's handle to the store's locked version: the events another
        worker (or process) committed are applied to it, so its commit cannot conflict.
        A handle that cannot follow (ahead of the store, or a tail that does not fit) is
        dropped and the game loads afresh."""
        handle = self.handles.get(game_id)
        if handle is None or (stored is not None and stored.version == handle.meta.version):
            return
        self.handles.pop(game_id, None)
        if stored is None or stored.version < handle.meta.version:
            return
        rows = await tx.event_rows(game_id, after=handle.meta.version)
        try:
            state, applied = replay_rows(game_id, rows, handle.state, handle.meta.version)
        except CorruptLog as exc:
            raise ServiceError(ServiceErrorCode.CORRUPT_LOG, game=game_id, seq=exc.seq) from exc
        if state is None or handle.meta.version + applied != stored.version:
            return
        self.service.observer.followed(len(rows))
        # The verifiable log reloads from its stored leaves (the other worker salted them).
        self.handles[game_id] = Handle(stored, state, Projector.resume(game_id, stored.clock, state),
                                       handle.snapshot_seq)

    async def _handle(self, tx: Transaction, job: _Job, stored: GameMeta | None) -> Handle | _Draft:
        """The lane's handle of the job's game (kept, taken from a read, or loaded), or the
        draft of a game its ``CreateGame`` makes."""
        handle = self.handles.get(job.game_id)
        read = self.service._reads.get(job.game_id)
        if handle is None and read is not None and stored is not None and read.version == stored.version:
            handle = self.handles[job.game_id] = _handle_of(read)  # a read loaded it already
        if handle is None and isinstance(job.command, CreateGame):
            meta = await tx.meta(job.game_id)
            if meta is None:
                clock = GameClock(self.service.clock.now(), job.time_scale)
                meta = GameMeta(job.game_id, job.command.title, "", Stage.RECRUITING.value, 0, clock)
                log = GameLog(job.game_id) if self.service.log_key else None
                return _Draft(meta, None, 0, -1, Projector(job.game_id, clock), 0, log=log)
        if handle is None:
            handle = await _load(tx, job.game_id)
            self.handles[job.game_id] = handle
        return handle

    async def _logs(self, tx: Transaction, found: dict[str, Handle | _Draft]) -> dict[str, GameLog]:
        """The verifiable logs the batch's handles lack (a game this lane has not written
        since it started), read together: after a start the first batch holds the first
        command of many games. Read here, kept by the handles only once this batch commits
        (a failed commit must not leave a tail whose backfilled leaves were rolled back)."""
        if self.service.log_key is None:
            return {}
        wanted = {g: h.meta.version for g, h in found.items() if isinstance(h, Handle) and h.log is None}
        return await load_logs(tx, wanted) if wanted else {}

    def _draft(self, game_id: str, handle: Handle, loaded: GameLog | None) -> _Draft:
        m = handle.meta
        log = handle.log.copy() if handle.log else loaded
        if log is not None and log.frontier.size != m.version:
            # The tree is not the state's: the leaves were read after another writer's
            # commit the state does not hold (READ COMMITTED, no row lock). Never append
            # to it ("leaf N appended after N"): reload both, in the retry.
            raise ConcurrencyConflict(game_id)
        return _Draft(m, handle.state, m.version, m.version,
                      Projector(game_id, m.clock, handle.projector.members), handle.snapshot_seq,
                      log=log)

    def _one(self, draft: _Draft, job: _Job, known: dict[str, CommandRecord],
             changes: Changes) -> Any:
        command = job.command
        now = draft.meta.clock.to_game(self.service.clock.now())
        if command is None:
            return self._fire_overdue(draft, now, changes)
        encoded = codec.dumps(codec.encode_command(command))  # its record's and its digest's
        mark = fingerprint(command, encoded)
        seen = draft.pending.get(job.command_id)
        if seen is None and job.command_id in known:
            rec = known[job.command_id]
            seen = (rec.fingerprint, Ack(job.game_id, job.command_id, rec.first_seq, rec.last_seq))
        if seen is not None:
            if seen[0] != mark:
                raise ServiceError(ServiceErrorCode.COMMAND_ID_REUSED, command_id=job.command_id)
            return seen[1]
        if isinstance(command, CreateGame):
            if draft.state is not None:
                raise ServiceError(ServiceErrorCode.GAME_EXISTS, game=job.game_id)
        else:
            assert draft.state is not None
            self._fire_overdue(draft, now, changes)
            if draft.state.stage is Stage.FINISHED and not isinstance(command, AFTER_GAME):
                raise ServiceError(ServiceErrorCode.GAME_FINISHED, game=job.game_id)
        if isinstance(command, OpenDealReveals):
            ack = self._open_deal_reveals(draft, command, job.command_id, mark, now, changes)
        else:
            ack = self._apply(draft, command, job.command_id, mark, now, changes, encoded)
        draft.pending[job.command_id] = (mark, ack)
        return ack

    def _open_deal_reveals(self, draft: _Draft, command: OpenDealReveals, command_id: str,
                           mark: str, now: datetime, changes: Changes) -> Ack:
        """The commit-reveal deal (docs/verification.md): the server commits to a fresh value
        as the commitments close and reveals it at once, in the same transaction, before
        any other party can reveal; whatever digest the client sent is replaced."""
        value = secrets.token_hex(32)
        opened = replace(command, server_digest=value_digest(value))
        ack = self._apply(draft, opened, command_id, mark, now, changes)
        reveal = RevealDealEntropy(actor=SYSTEM, value=value)
        self._apply(draft, reveal, f"{command_id}:server", fingerprint(reveal), now, changes)
        return ack

    def _fire_overdue(self, draft: _Draft, now: datetime, changes: Changes) -> int:
        """Fire, in order and late, every deadline due by ``now`` (exactly once each:
        the command id is the key and due time, so a second worker's copy conflicts)."""
        fired = 0
        while draft.state is not None and draft.state.stage is not Stage.FINISHED:
            nxt = next_deadline(draft.state)
            if nxt is None or nxt[1] > now + SLACK:
                break
            key, due = nxt
            command = FireDeadline(actor=SYSTEM, key=key, seed=secrets.randbits(31))
            command_id = f"deadline:{key}@{due.isoformat()}"
            # The engine sees the deadline's own time, so a late fire plays out exactly as an
            # on-time one; the real firing time is recorded on the deadline row.
            self._apply(draft, command, command_id, fingerprint(command), due, changes)
            self.service.observer.deadline_fired((now - due).total_seconds() / draft.meta.clock.scale)
            fired += 1
        return fired

    def _apply(self, draft: _Draft, command: Command, command_id: str, mark: str,
               now: datetime, changes: Changes, encoded: str | None = None) -> Ack:
        before = draft.state
        # Deciding folds each event as it is made: evolve once per event (issue 9).
        events, state = decide_and_evolve(before, command, Context(now))  # may raise RuleViolation
        first = draft.version + 1
        assert state is not None
        numbered = tuple(zip(range(first, first + len(events)), events, strict=True))
        game_id = draft.meta.game_id
        if draft.write is None:
            draft.write = GameWrite(game_id, draft.expected, draft.meta)
        if before is None:
            draft.meta = replace(draft.meta, title=state.title, created_at=state.created_at.isoformat())
            draft.write.meta = draft.meta
        for seq, event in numbered:
            payload = codec.dumps(codec.encode_event(event))
            kind = type(event).__name__
            draft.write.events.append({
                "game_id": game_id, "seq": seq, "type": kind,
                "at": event.at.isoformat(), "payload": payload, "command_id": command_id,
            })
            if draft.log is not None and self.service.log_key is not None:
                draft.write.leaves.append(draft.log.append(seq, payload))
                if kind in HEAD_EVENTS:
                    head = draft.log.sign(self.service.log_key,
                                          datetime.fromtimestamp(self.service.clock.now(), UTC),
                                          head_reason(kind, getattr(event, "day", None)))
                    if head is not None:
                        draft.write.heads.append(head)
        last = first + len(events) - 1
        draft.write.commands.append({
            "game_id": game_id, "command_id": command_id, "fingerprint": mark,
            "command": encoded or codec.dumps(codec.encode_command(command)), "first_seq": first,
            "last_seq": last, "accepted_real": self.service.clock.now(),
        })
        merge(changes, draft.projector.project(Step(command_id, command, before, state, numbered)))
        draft.write.outbox.extend(causes(game_id, draft.meta.clock, before, state, numbered,
                                         followed=draft.followed))
        draft.state = state
        draft.version = last
        draft.published.extend(numbered)
        return Ack(game_id, command_id, first, last)

    def _maybe_snapshot(self, draft: _Draft) -> None:
        every = self.service.snapshot_every
        if every <= 0 or draft.state is None or draft.write is None:
            return
        if draft.version // every > draft.snapshot_seq // every:
            log = draft.log
            draft.write.snapshot = {
                "game_id": draft.meta.game_id, "seq": draft.version,
                "payload": codec.dumps(codec.encode_state(draft.state)),
                # the log's frontier at the same seq: a later load reads the leaves after it only
                "frontier": log.frontier.dumps() if log and log.frontier.size == draft.version else None,
            }
            draft.snapshot_seq = draft.version
