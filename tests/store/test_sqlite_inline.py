"""The inline SQLite driver (store/sqlite_inline.py): statements on the loop thread, yet
no lost write, no interleaved read-modify-write, and a loop that keeps running while
another process holds the write lock."""

from __future__ import annotations

import asyncio
import sqlite3
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import pytest
from sqlalchemy import text

from lepromafia.store import sqlite_inline
from lepromafia.store.database import DatabaseConfig, create_engine


def _engine(tmp_path):
    return create_engine(DatabaseConfig(f"sqlite:///{tmp_path}/inline.db"))


async def _counter_table(engine) -> None:
    async with engine.execution_options(write=True).begin() as conn:
        await conn.execute(text("CREATE TABLE counter (n INTEGER NOT NULL)"))
        await conn.execute(text("INSERT INTO counter VALUES (0)"))


def test_fifty_writers_in_one_process_each_add_one(tmp_path) -> None:
    """Fifty coroutines each read the counter, yield to the loop, and write it plus one, in
    a write transaction on connections of their own: every increment survives, because
    write transactions of one process queue on the writer lock (no SQLITE_BUSY spin)."""

    async def main() -> int:
        engine = _engine(tmp_path)
        await _counter_table(engine)
        writer = engine.execution_options(write=True)

        async def add_one() -> None:
            async with writer.begin() as conn:
                n = (await conn.execute(text("SELECT n FROM counter"))).scalar_one()
                await asyncio.sleep(0)
                await conn.execute(text("UPDATE counter SET n = :n"), {"n": n + 1})

        await asyncio.gather(*(add_one() for _ in range(50)))
        async with engine.connect() as conn:
            total = (await conn.execute(text("SELECT n FROM counter"))).scalar_one()
        await engine.dispose()
        return total

    assert asyncio.run(main()) == 50


def test_the_loop_runs_while_another_process_holds_the_write_lock(tmp_path) -> None:
    """Another connection (standing in for a second worker) holds the write lock for 0.3 s.
    Our write waits for it and then commits, and meanwhile the loop keeps ticking: the wait
    is an asyncio.sleep back-off, not a blocking busy_timeout."""

    async def main() -> tuple[int, int]:
        engine = _engine(tmp_path)
        await _counter_table(engine)
        other = sqlite3.connect(f"{tmp_path}/inline.db", isolation_level=None, check_same_thread=False)
        other.execute("BEGIN IMMEDIATE")
        other.execute("UPDATE counter SET n = n + 10")
        release = threading.Timer(0.3, other.commit)
        release.start()
        ticks = 0

        async def ticker() -> None:
            nonlocal ticks
            while True:
                ticks += 1
                await asyncio.sleep(0.01)

        beat = asyncio.create_task(ticker())
        async with engine.execution_options(write=True).begin() as conn:
            await conn.execute(text("UPDATE counter SET n = n + 1"))
        beat.cancel()
        async with engine.connect() as conn:
            total = (await conn.execute(text("SELECT n FROM counter"))).scalar_one()
        await engine.dispose()
        release.join()
        other.close()
        return total, ticks

    total, ticks = asyncio.run(main())
    assert total == 11, "both writes committed, ours after the other's"
    assert ticks >= 10, "the loop ran while the write waited"


def test_a_write_that_gives_up_on_the_lock_frees_it_for_the_next(tmp_path, monkeypatch) -> None:
    """Another process holds the lock past BUSY_TIMEOUT: our write fails with 'database is
    locked' (nothing half-done), and the in-process writer lock it took is released, so
    the next write succeeds once the other process lets go."""
    monkeypatch.setattr(sqlite_inline, "BUSY_TIMEOUT", 0.1)

    async def main() -> int:
        engine = _engine(tmp_path)
        await _counter_table(engine)
        other = sqlite3.connect(f"{tmp_path}/inline.db", isolation_level=None)
        other.execute("BEGIN IMMEDIATE")
        started = time.monotonic()
        with pytest.raises(Exception, match="locked"):
            async with engine.execution_options(write=True).begin() as conn:
                await conn.execute(text("UPDATE counter SET n = n + 1"))
        assert time.monotonic() - started < 5
        other.rollback()
        other.close()
        async with engine.execution_options(write=True).begin() as conn:
            await conn.execute(text("UPDATE counter SET n = n + 1"))
        async with engine.connect() as conn:
            total = (await conn.execute(text("SELECT n FROM counter"))).scalar_one()
        await engine.dispose()
        return total

    assert asyncio.run(main()) == 1


class _OnTheThread:
    """A commit place that sends every commit to the committing thread (a slow disk's)."""

    def inline(self, now: float) -> bool:
        return False


def test_a_request_cancelled_while_its_commit_runs_closes_nothing_under_it(tmp_path, monkeypatch) -> None:
    """A client goes away while his write's COMMIT is on the committing thread: the task
    is cancelled, yet the connection is handed back (and may be closed) only after the
    commit ended, and the write is durable; the next write goes through."""
    committing = threading.Event()
    events: list[str] = []

    class SlowCommitter(ThreadPoolExecutor):
        def submit(self, fn, /, *args, **kwargs):  # type: ignore[no-untyped-def,override]
            def slow():  # type: ignore[no-untyped-def]
                committing.set()
                time.sleep(0.3)
                result = fn(*args, **kwargs)
                events.append("committed")
                return result

            return super().submit(slow)

    slow_pool = SlowCommitter(1)
    monkeypatch.setattr(sqlite_inline, "_committer", lambda path: slow_pool)
    monkeypatch.setattr(sqlite_inline, "_commit_place", lambda path: _OnTheThread())

    async def main() -> int:
        engine = _engine(tmp_path)
        await _counter_table(engine)
        committing.clear()
        events.clear()

        async def write() -> None:
            async with engine.execution_options(write=True).begin() as conn:
                await conn.execute(text("UPDATE counter SET n = n + 1"))

        task = asyncio.create_task(write())
        while not committing.is_set():
            await asyncio.sleep(0.01)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        events.append("cancel raised")
        await engine.dispose()
        engine = _engine(tmp_path)
        await write()
        async with engine.connect() as conn:
            total = (await conn.execute(text("SELECT n FROM counter"))).scalar_one()
        await engine.dispose()
        return total

    assert asyncio.run(main()) == 2
    assert events[:2] == ["committed", "cancel raised"]
    slow_pool.shutdown()


class _HeldCheckpoints:
    """The checkpointing thread, held: what is submitted waits until ``run``."""

    def __init__(self) -> None:
        self.calls: list = []

    def submit(self, call) -> None:
        self.calls.append(call)

    def run(self) -> None:
        calls, self.calls = self.calls, []
        for call in calls:
            call()


def test_commits_leave_the_checkpoint_to_the_background_thread(tmp_path, monkeypatch) -> None:
    """Two hundred write transactions of 40 KB each take the WAL far past SQLite's own
    1,000-page checkpoint, which would run inside a commit while the process's writers wait
    behind it (issue 17). Here no commit copies a page into the database file: after the
    first commit one checkpoint is handed to the background thread, and none more while it
    runs; when it has run, the pages are in the database file and the next commit after
    ``CHECKPOINT_EVERY`` hands over the next."""
    held = _HeldCheckpoints()
    monkeypatch.setattr(sqlite_inline, "_checkpointing", lambda: held)
    monkeypatch.setattr(sqlite_inline, "CHECKPOINT_EVERY", 0.2)  # the test's waits, shorter
    db = tmp_path / "inline.db"

    async def write(engine, rows: int) -> None:
        for _ in range(rows):
            async with engine.execution_options(write=True).begin() as conn:
                await conn.execute(text("INSERT INTO blob VALUES (:b)"), {"b": b"x" * 40_000})

    async def main() -> None:
        engine = _engine(tmp_path)
        async with engine.execution_options(write=True).begin() as conn:
            await conn.execute(text("CREATE TABLE blob (b BLOB NOT NULL)"))
        held.run()  # the table's pages into the database file
        before = db.stat().st_size
        await asyncio.sleep(sqlite_inline.CHECKPOINT_EVERY)  # inline commits are fast: the
        # 200 writes may all fall within one period of the table's checkpoint otherwise
        await write(engine, 200)  # ~2,000 pages of WAL
        assert db.stat().st_size == before  # no commit checkpointed
        assert len(held.calls) == 1  # handed over once, running all along
        held.run()
        assert db.stat().st_size > before + 200 * 40_000
        await asyncio.sleep(sqlite_inline.CHECKPOINT_EVERY)
        await write(engine, 1)
        assert len(held.calls) == 1
        await engine.dispose()

    asyncio.run(main())


class _CountingCommitter(ThreadPoolExecutor):
    """The committing thread, counting what it is handed."""

    def __init__(self) -> None:
        super().__init__(1)
        self.commits = 0

    def submit(self, fn, /, *args, **kwargs):  # type: ignore[no-untyped-def,override]
        self.commits += 1
        return super().submit(fn, *args, **kwargs)


async def _writes(engine, n: int) -> None:
    for _ in range(n):
        async with engine.execution_options(write=True).begin() as conn:
            await conn.execute(text("UPDATE counter SET n = n + 1"))


def test_on_a_fast_disk_commits_run_on_the_loop_and_no_thread_is_handed_one(tmp_path, monkeypatch) -> None:
    """Twenty writes on this machine's disk (an fsync well under ``SLOW_COMMIT``) commit
    inline: the committing thread is never handed one, and every write is there."""
    committer = _CountingCommitter()
    monkeypatch.setattr(sqlite_inline, "_committer", lambda path: committer)
    monkeypatch.setattr(sqlite_inline, "SLOW_COMMIT", 1.0)  # a loaded CI disk is still "fast"

    async def main() -> int:
        engine = _engine(tmp_path)
        await _counter_table(engine)
        await _writes(engine, 20)
        async with engine.connect() as conn:
            total = (await conn.execute(text("SELECT n FROM counter"))).scalar_one()
        await engine.dispose()
        return total

    assert asyncio.run(main()) == 20
    assert committer.commits == 0
    committer.shutdown()


def test_a_slow_disk_sends_the_next_commits_to_the_thread_for_a_spell(tmp_path, monkeypatch, caplog) -> None:
    """A slow disk (here: every commit counts as slow, and the loop's budget for slow
    commits is nil): the first commit runs inline, is found slow and logged; the writes
    after it go to the committing thread for the spell, and every write is there."""
    committer = _CountingCommitter()
    monkeypatch.setattr(sqlite_inline, "_committer", lambda path: committer)
    monkeypatch.setattr(sqlite_inline, "SLOW_COMMIT", -1.0)
    monkeypatch.setattr(sqlite_inline, "SLOW_BUDGET", 0.0)
    monkeypatch.setattr(sqlite_inline, "_commit_places", {})

    async def main() -> int:
        engine = _engine(tmp_path)
        await _counter_table(engine)  # inline, slow: the spell begins
        await _writes(engine, 5)
        async with engine.connect() as conn:
            total = (await conn.execute(text("SELECT n FROM counter"))).scalar_one()
        await engine.dispose()
        return total

    with caplog.at_level("WARNING", logger="lepromafia.store.sqlite_inline"):
        assert asyncio.run(main()) == 5
    assert committer.commits == 5
    assert "committing on a thread for 10 s" in caplog.text
    committer.shutdown()


def test_the_committing_thread_ends_with_its_spell(tmp_path, monkeypatch) -> None:
    """A slow disk sends the commits to the file's committing thread; once the spell is
    over, the next commit runs inline again and the thread ends: no idle thread stays
    behind per file."""
    monkeypatch.setattr(sqlite_inline, "_commit_places", {})
    monkeypatch.setattr(sqlite_inline, "_committers", {})
    path = str(tmp_path / "inline.db")

    def committing_threads() -> int:
        return sum(1 for t in threading.enumerate() if t.name.startswith("sqlite-commit") and t.is_alive())

    async def main() -> tuple[int, int, int]:
        engine = _engine(tmp_path)
        await _counter_table(engine)
        before = committing_threads()
        sqlite_inline._commit_place(path).thread_until = float("inf")  # a slow disk's spell
        await _writes(engine, 2)
        during = committing_threads()
        sqlite_inline._commit_place(path).thread_until = float("-inf")  # the spell is over
        await _writes(engine, 1)
        await asyncio.sleep(0.05)
        after = committing_threads()
        await engine.dispose()
        return before, during, after

    before, during, after = asyncio.run(main())
    assert during == before + 1, "the spell's commits ran on the file's thread"
    assert after == before, "that thread ended with the spell"
    assert path not in sqlite_inline._committers


def test_the_committing_thread_ends_when_the_store_closes_during_its_spell(tmp_path, monkeypatch) -> None:
    """A slow disk sent a file's commits to its thread, and the store is closed before the
    spell is over (a test's database, a finished import): the thread ends with it instead
    of idling for the rest of the process (the suite's workers kept dozens)."""
    monkeypatch.setattr(sqlite_inline, "_commit_places", {})
    monkeypatch.setattr(sqlite_inline, "_committers", {})
    path = str(tmp_path / "inline.db")

    def committing_threads() -> int:
        return sum(1 for t in threading.enumerate() if t.name.startswith("sqlite-commit") and t.is_alive())

    async def main() -> tuple[int, int]:
        engine = _engine(tmp_path)
        await _counter_table(engine)
        sqlite_inline._commit_place(path).thread_until = float("inf")  # a spell that never ends
        before = committing_threads()
        await _writes(engine, 2)
        during = committing_threads() - before
        await engine.dispose()
        return during, before

    during, before = asyncio.run(main())
    assert during == 1, "the spell's commits ran on the file's thread"
    for _ in range(100):  # the thread notices the shutdown as it wakes
        if committing_threads() == before:
            break
        time.sleep(0.01)
    assert committing_threads() == before, "the thread ended with the store"
    assert path not in sqlite_inline._committers


def test_a_slow_commit_now_and_then_is_the_disk_s_tail_and_keeps_the_commits_inline() -> None:
    """A commit of 10 ms every few seconds (a shared disk's tail, ~0.2 % of the loop) starts
    no spell: every commit stays on the loop. Slow commits that hold the loop for
    ``SLOW_BUDGET`` of a ``SLOW_WINDOW`` do (the 19th of 11 ms within 6 s); so does a single
    commit that stalled past ``STALLED_COMMIT``."""
    slow, fast = 0.010, sqlite_inline.SLOW_COMMIT / 2
    place = sqlite_inline._CommitPlace("games.db")
    for n in range(60):
        now = 5.0 * n
        place.took(now, slow)
        for step in range(1, 50):
            assert place.inline(now + step * 0.05)
            place.took(now + step * 0.05, fast)
    now = 400.0
    for step in range(19):
        assert place.inline(now + step * 0.3)
        place.took(now + step * 0.3, 0.011)
    assert not place.inline(now + 19 * 0.3)
    stalled = sqlite_inline._CommitPlace("other.db")
    stalled.took(10.0, sqlite_inline.STALLED_COMMIT * 2)
    assert not stalled.inline(10.001)
    assert stalled.inline(10.0 + sqlite_inline.THREAD_SPELL)


def test_the_thread_spell_doubles_while_the_disk_stays_slow_and_ends_with_a_fast_commit() -> None:
    """Once the disk is found slow (here: a commit stalled), the spells after slow inline
    tries: 10 s, 20 s, 40 s … up to 320 s; a commit inside a spell is not inline; one fast
    inline commit after a spell starts the next slow one's spell at 10 s again."""
    slow, fast = sqlite_inline.SLOW_COMMIT * 2, sqlite_inline.SLOW_COMMIT / 2
    place = sqlite_inline._CommitPlace("games.db")
    now, spells = 0.0, []
    for took in [sqlite_inline.STALLED_COMMIT * 2] + [slow] * 6:
        assert place.inline(now)
        place.took(now, took)
        spells.append(place.thread_until - now)
        assert not place.inline(now + spells[-1] - 0.001)
        now += spells[-1]
    assert spells == [10, 20, 40, 80, 160, 320, 320]
    place.took(now, fast)
    assert place.inline(now)
    place.took(now, slow)
    assert place.thread_until - now == 10


def test_a_closed_store_leaves_no_checkpoint_connection_open_on_its_file(tmp_path, monkeypatch) -> None:
    """A write starts the file's background checkpoint, slow here (its own connection open
    for 0.3 s), and the store is closed at once: ``close`` returns only once the checkpoint
    has closed its connection. A process that forks next (the crash test's doomed child)
    then hands its child no open connection's lock state: with one, the child's commits
    went to a WAL the parent's checkpoint reset, and acknowledged votes were lost."""
    from lepromafia.store.event_store import EventStore

    monkeypatch.setattr(sqlite_inline, "_checkpointers", {})
    real = sqlite_inline._Checkpointer._checkpoint
    open_now: list[bool] = []

    def slow(self: sqlite_inline._Checkpointer) -> None:
        open_now.append(True)
        time.sleep(0.3)
        real(self)
        open_now.pop()

    monkeypatch.setattr(sqlite_inline._Checkpointer, "_checkpoint", slow)
    config = DatabaseConfig(f"sqlite:///{tmp_path}/inline.db")

    async def main() -> None:
        store = EventStore.open(config)
        await _counter_table(store.engine)
        for _ in range(50):  # the checkpoint has begun on its thread
            if open_now:
                break
            await asyncio.sleep(0.01)
        assert open_now, "the write started a checkpoint"
        await store.close()
        assert not open_now, "close waited for the checkpoint's connection"

    asyncio.run(main())
