"""SQLite on the event loop's own thread, for SQLAlchemy's aiosqlite dialect.

aiosqlite runs every statement on a thread of its own and hands the answer back through the
event loop: two thread hops and two loop wake-ups per statement, several per command. Our
statements are small (an indexed row, a page of an inbox) and SQLite answers them in
microseconds from the page cache, so the hops cost more than the work (measured: a post
into a game 4.5–5.3 ms of CPU with aiosqlite, 1.7–1.9 ms inline; docs/performance.md).

This module gives SQLAlchemy (through ``async_creator``) an object with aiosqlite's
connection and cursor interface whose coroutines run the statement at once, on the loop
thread. Two things may not block the loop and are handled here:

* **Waiting for the write lock.** The connection's ``busy_timeout`` is 0; a write
  transaction (``BEGIN IMMEDIATE``, see database.py) first takes an ``asyncio.Lock`` per
  (loop, database file), so writers of one process queue without spinning, and a
  ``SQLITE_BUSY`` from another process (a second worker, the CLI) is retried with
  ``asyncio.sleep`` back-off for up to ``BUSY_TIMEOUT`` seconds. ``SQLITE_BUSY_SNAPSHOT``
  is never retried: that read snapshot can no longer write, and retrying cannot help.
* **The fsync.** ``synchronous=FULL`` makes a write's ``COMMIT`` wait for the disk. On a
  disk that answers in well under a millisecond the commit runs inline: handing it to a
  thread cost more than the fsync (the hand-off, and the thread's wait for the interpreter
  while the loop is busy: 0.9 ms median and 9–22 ms p99 against 0.7 and 1.8 inline, issue 17).
  A disk that is slow sends the file's next commits to a single committing thread, for
  ``THREAD_SPELL`` seconds, doubled at each slow inline try up to ``LONGEST_THREAD_SPELL``:
  a slow or stalling disk then stops the loop at most once a spell. A disk is slow when its
  commits over ``SLOW_COMMIT`` have held the loop for ``SLOW_BUDGET`` of a ``SLOW_WINDOW``,
  when one commit stalled past ``STALLED_COMMIT``, or when a commit is slow again within a
  window of a spell's end. A slow commit now and then is the disk's tail, not a slow disk:
  the hand-off to the thread costs every commit of a spell more than the tail costs the
  loop (issue 17, session 35).

And one thing may not hold the write lock: **the checkpoint** (the WAL's committed pages
copied into the database file, and its fsync). SQLite runs it inside the commit that takes
the WAL past 1,000 pages, while this process's writers wait behind the lock: at 200 games
that was one or two commits a second per worker taking 8–38 ms instead of 0.7 (issue 17).
Here a passive checkpoint runs on a thread of its own after a commit, at most every
``CHECKPOINT_EVERY`` seconds, and the commit's own starts only past
``AUTOCHECKPOINT_PAGES``, should that thread ever fall behind.

``:memory:`` databases (tests) keep aiosqlite: they need one shared connection.
"""

from __future__ import annotations

import asyncio
import functools
import logging
import os
import sqlite3
import time
import weakref
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any, TypeVar

log = logging.getLogger(__name__)

BUSY_TIMEOUT = 30.0  # seconds a statement waits for another process's lock
MAX_BUSY_POLL = 0.002
"""The longest pause between two tries for another process's write lock. Two workers on one
file hand the lock back and forth hundreds of times a second, each holding it a few
milliseconds: a waiter that slept up to 50 ms between tries (SQLite's own busy handler
sleeps up to 100) found it free only by chance, and lost to the other process's next
transaction. A try costs microseconds (issue 17)."""
_SQLITE_BUSY = 5
_SQLITE_BUSY_SNAPSHOT = 517

SLOW_COMMIT = 0.005
"""Seconds an inline commit may take; a slower one counts against ``SLOW_BUDGET``."""
SLOW_WINDOW = 10.0
SLOW_BUDGET = 0.2
"""Seconds of slow inline commits within ``SLOW_WINDOW`` (2 % of the loop) that make a slow
disk. A shared machine's disk took 6–14 ms for one commit in 5–20 s at 20 posts a second
(~0.2 % of the loop): a spell for each such commit (as until session 35) kept the commits on
the thread for most of a minute, and there a post's commit took 1.21 ms at the median
against 0.92 inline, its way from frame to published 4.76 against 3.86 (issue 17)."""
STALLED_COMMIT = 0.1
"""Seconds past which one commit alone makes a slow disk: it stalled."""
THREAD_SPELL = 10.0
LONGEST_THREAD_SPELL = 320.0

CHECKPOINT_EVERY = 1.0
"""Seconds between two background checkpoints (one after a write commit, if none runs).
Every 0.2 s was measured worse (session 25): at 200 games p99 89–167 ms against 79–96,
at 20 posts a second p99 0.83× with one checkpoint a second; each one opens a connection
and fsyncs the database file beside the commits' fsyncs of the WAL."""
AUTOCHECKPOINT_PAGES = 10_000
"""The WAL's length (pages, ~40 MB) past which a commit checkpoints itself, as SQLite does
by default past 1,000: a backstop only. Skipping checkpoints instead is no answer: a long
WAL slows every read (a probe at 200 games with none: p50 27 → 45 ms)."""

T = TypeVar("T")

_writer_locks: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, dict[str, asyncio.Lock]] = (
    weakref.WeakKeyDictionary())
_committers: dict[str, ThreadPoolExecutor] = {}


class _CommitPlace:
    """Where a database file's write commits run: inline on the loop unless the disk is
    slow, then on its committing thread for a spell (see the module's docstring)."""

    __slots__ = ("path", "slow_seconds", "spell", "thread_until", "window_start")

    def __init__(self, path: str) -> None:
        self.path = path
        self.spell = THREAD_SPELL
        self.thread_until = float("-inf")
        self.window_start = float("-inf")
        self.slow_seconds = 0.0
        """The slow inline commits' time since ``window_start``."""

    def inline(self, now: float) -> bool:
        return now >= self.thread_until

    def took(self, now: float, seconds: float) -> None:
        """An inline commit ended ``now`` after ``seconds``."""
        if seconds <= SLOW_COMMIT:
            self.spell = THREAD_SPELL
            return
        if now - self.window_start > SLOW_WINDOW:
            self.window_start, self.slow_seconds = now, 0.0
        self.slow_seconds += seconds
        if (seconds < STALLED_COMMIT and self.slow_seconds < SLOW_BUDGET
                and now - self.thread_until > SLOW_WINDOW):
            return  # the disk's tail
        self.window_start, self.slow_seconds = now, 0.0
        self.thread_until = now + self.spell
        log.warning("a commit to %s took %.0f ms; committing on a thread for %.0f s",
                    self.path, seconds * 1000, self.spell)
        self.spell = min(self.spell * 2, LONGEST_THREAD_SPELL)


_commit_places: dict[str, _CommitPlace] = {}


def _of_file(registry: dict[str, T], path: str, make: Callable[[str], T]) -> T:
    """The database file's entry in one of the per-file registries, made at first use."""
    found = registry.get(path)
    if found is None:
        found = registry[path] = make(path)
    return found


def _commit_place(path: str) -> _CommitPlace:
    return _of_file(_commit_places, path, _CommitPlace)


class _Checkpointer:
    """A database file's passive checkpoints, one at a time on the process's checkpointing
    thread, each on a connection of its own: no writer or reader waits for one, and one
    that finds another process's checkpoint running gives way until the next."""

    __slots__ = ("last", "path", "running", "work")

    def __init__(self, path: str) -> None:
        self.path = path
        self.running = False
        self.last = float("-inf")
        self.work: Future[None] | None = None

    def after_commit(self, now: float) -> None:
        if self.running or now - self.last < CHECKPOINT_EVERY:
            return
        self.running, self.last = True, now
        self.work = _checkpointing().submit(self._checkpoint)

    def _checkpoint(self) -> None:
        try:
            conn = sqlite3.connect(self.path, timeout=0, isolation_level=None)
            try:
                conn.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchall()
            finally:
                conn.close()
        except sqlite3.Error:
            pass  # busy (another process checkpoints) or gone (a closed test database)
        finally:
            self.running = False


_checkpointers: dict[str, _Checkpointer] = {}


async def settled(path: str) -> None:
    """The file's background checkpoint, if one runs, has ended and closed its connection.
    A store that closes waits for it, so it leaves no connection to the file open behind
    it: a process that forks next (a test's doomed child, a pre-fork server) must not hand
    its child SQLite's lock state of a connection still open, or the child's commits can go
    to a WAL the parent's checkpoint then resets (lost after the child is killed:
    ``tests/service/test_crash.py`` saw it once in hundreds of runs)."""
    checkpointer = _checkpointers.get(path)
    work = checkpointer.work if checkpointer is not None else None
    if work is not None and not work.done():
        await asyncio.wrap_future(work)


@functools.cache
def _checkpointing() -> ThreadPoolExecutor:
    """The one thread of the process that checkpoints, whatever the file."""
    return ThreadPoolExecutor(1, thread_name_prefix="sqlite-checkpoint")


def _checkpointer(path: str) -> _Checkpointer:
    return _of_file(_checkpointers, path, _Checkpointer)


def _forget_committers() -> None:  # a forked child has none of its parent's threads
    _committers.clear()
    _commit_places.clear()
    _checkpointers.clear()
    _checkpointing.cache_clear()


os.register_at_fork(after_in_child=_forget_committers)


def _writer_lock(path: str) -> asyncio.Lock:
    locks = _writer_locks.setdefault(asyncio.get_running_loop(), {})
    lock = locks.get(path)
    if lock is None:
        lock = locks[path] = asyncio.Lock()
    return lock


def _committer(path: str) -> ThreadPoolExecutor:
    return _of_file(_committers, path, lambda _: ThreadPoolExecutor(1, thread_name_prefix="sqlite-commit"))


def _retire_committer(path: str) -> None:
    """The file's commits are inline again, or a connection to it closed: its committing
    thread, if a spell started one, ends once its work is done (a process that opens many
    files, a test run, kept one idle thread per file). A later slow commit starts another."""
    committer = _committers.pop(path, None)
    if committer is not None:
        committer.shutdown(wait=False)


def _is_busy(error: sqlite3.OperationalError) -> bool:
    code = getattr(error, "sqlite_errorcode", None)
    return code is not None and code & 0xFF == _SQLITE_BUSY and code != _SQLITE_BUSY_SNAPSHOT


async def _patiently(call: Callable[..., T], *args: Any) -> T:
    """``call(*args)``, retried with back-off while another process holds the lock."""
    delay = 0.0005
    deadline: float | None = None
    loop = asyncio.get_running_loop()
    while True:
        try:
            return call(*args)
        except sqlite3.OperationalError as error:
            if not _is_busy(error):
                raise
            now = loop.time()
            deadline = deadline if deadline is not None else now + BUSY_TIMEOUT
            if now >= deadline:
                raise
        await asyncio.sleep(delay)
        delay = min(delay * 2, MAX_BUSY_POLL)


async def _uncancelled(work: asyncio.Future[T]) -> T:
    """``work``'s result, waited for to its end even if the awaiting task is cancelled (a
    cancelled request's connection is closed at once: never while a thread commits on it);
    the cancellation is raised afterwards."""
    cancelled = False
    while True:
        try:
            result = await asyncio.shield(work)
            break
        except asyncio.CancelledError:
            if work.done():
                if work.cancelled():
                    raise
                result = work.result()
                cancelled = True
                break
            cancelled = True
    if cancelled:
        raise asyncio.CancelledError
    return result


async def connect(path: str) -> InlineConnection:
    """A WAL connection with ``synchronous=FULL`` in autocommit mode (we emit BEGIN)."""
    raw = sqlite3.connect(path, timeout=0, isolation_level=None, check_same_thread=False)
    await _patiently(raw.execute, "PRAGMA busy_timeout=0")
    await _patiently(raw.execute, "PRAGMA journal_mode=WAL")
    await _patiently(raw.execute, "PRAGMA synchronous=FULL")
    await _patiently(raw.execute, f"PRAGMA wal_autocheckpoint={AUTOCHECKPOINT_PAGES}")
    return InlineConnection(path, raw)


class InlineConnection:
    """What SQLAlchemy's aiosqlite adapter calls on an ``aiosqlite.Connection``."""

    __slots__ = ("_conn", "_connection", "_lock", "_path", "_writing")

    def __init__(self, path: str, raw: sqlite3.Connection) -> None:
        self._path = path
        self._conn = raw
        self._connection: sqlite3.Connection | None = raw  # the adapter tests it for "open"
        self._lock: asyncio.Lock | None = None
        self._writing = False

    @property
    def raw(self) -> sqlite3.Connection:
        """The ``sqlite3`` connection (``store/sqlite_direct.py`` runs statements on it)."""
        return self._conn

    @property
    def isolation_level(self) -> str | None:
        return self._conn.isolation_level

    def cursor(self) -> InlineCursor:
        return InlineCursor(self)

    async def execute(self, sql: str, parameters: Sequence[Any] = ()) -> InlineCursor:
        cursor = self.cursor()
        await cursor.execute(sql, parameters)
        return cursor

    async def create_function(self, *args: Any, **kwargs: Any) -> None:
        self._conn.create_function(*args, **kwargs)

    async def begin(self, write: bool) -> None:
        """``BEGIN IMMEDIATE`` for a write (the file's writer lock first), else ``BEGIN``."""
        if write:
            await self.begin_write("BEGIN IMMEDIATE", ())
        else:
            await _patiently(self._conn.execute, "BEGIN")

    async def begin_write(self, sql: str, parameters: Sequence[Any]) -> None:
        lock = _writer_lock(self._path)
        await lock.acquire()
        self._lock = lock
        try:
            await _patiently(self._conn.execute, sql, parameters)
        except BaseException:
            self._release()
            raise
        self._writing = True

    async def commit(self) -> None:
        try:
            if self._conn.in_transaction:
                if self._writing:  # the fsync: inline while the disk is fast
                    loop = asyncio.get_running_loop()
                    place = _commit_place(self._path)
                    began = time.perf_counter()  # not loop.time(): uvloop's is the iteration's
                    if place.inline(began):
                        _retire_committer(self._path)
                        self._conn.commit()
                        ended = time.perf_counter()
                        place.took(ended, ended - began)
                    else:
                        await _uncancelled(loop.run_in_executor(_committer(self._path), self._conn.commit))
                    _checkpointer(self._path).after_commit(loop.time())
                else:
                    self._conn.commit()
        finally:
            self._release()

    async def rollback(self) -> None:
        try:
            if self._conn.in_transaction:
                self._conn.rollback()
        finally:
            self._release()

    async def close(self) -> None:
        try:
            if self._connection is not None:
                self._connection = None
                self._conn.close()
        finally:
            self._release()
            _retire_committer(self._path)

    def stop(self) -> None:
        self._connection = None
        self._conn.close()
        self._release()
        _retire_committer(self._path)

    def _release(self) -> None:
        self._writing = False
        lock, self._lock = self._lock, None
        if lock is not None and lock.locked():
            lock.release()


class InlineCursor:
    """What SQLAlchemy's aiosqlite adapter calls on an ``aiosqlite.Cursor``."""

    __slots__ = ("_cursor", "_owner")

    def __init__(self, owner: InlineConnection) -> None:
        self._owner = owner
        self._cursor = owner._conn.cursor()

    async def __aenter__(self) -> InlineCursor:
        return self

    async def __aexit__(self, *exc: object) -> None:
        self._cursor.close()

    @property
    def description(self) -> Any:
        return self._cursor.description

    @property
    def rowcount(self) -> int:
        return self._cursor.rowcount

    @property
    def lastrowid(self) -> int | None:
        return self._cursor.lastrowid

    @property
    def arraysize(self) -> int:
        return self._cursor.arraysize

    @arraysize.setter
    def arraysize(self, value: int) -> None:
        self._cursor.arraysize = value

    async def execute(self, sql: str, parameters: Sequence[Any] = ()) -> InlineCursor:
        if sql.startswith("BEGIN IMMEDIATE"):
            await self._owner.begin_write(sql, parameters)
        else:
            await _patiently(self._cursor.execute, sql, parameters)
        return self

    async def executemany(self, sql: str, rows: Iterable[Sequence[Any]]) -> InlineCursor:
        await _patiently(self._cursor.executemany, sql, list(rows))
        return self

    async def fetchone(self) -> Any:
        return self._cursor.fetchone()

    async def fetchmany(self, size: int | None = None) -> list[Any]:
        return self._cursor.fetchmany(self._cursor.arraysize if size is None else size)

    async def fetchall(self) -> list[Any]:
        return self._cursor.fetchall()

    async def close(self) -> None:
        self._cursor.close()
