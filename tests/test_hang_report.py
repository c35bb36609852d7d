"""A hung test's report names what the running event loops await (tests/hang_report.py):
read by a watchdog before pytest-timeout fails the test, while the hang still holds.

Scenario: a loop in a thread (a TestClient's portal) holds a task that awaits a future
nobody completes, inside a lifespan's exit, as the app's shutdown did in sessions 25 and 27
(the dispatcher's stop). The watchdog, armed
for a test of 0.3 s, reads it before that test's time is up and keeps it in the item's
stash; after the loop has stopped, the report still shows the task."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from types import SimpleNamespace
from typing import Any

import pytest

from .hang_report import TASKS, Watchdog, report_for, timeout_of


async def stop_the_dispatcher(never: asyncio.Future[None]) -> None:
    await never


@asynccontextmanager
async def lifespan(never: asyncio.Future[None]) -> AsyncIterator[None]:
    try:
        yield
    finally:
        await stop_the_dispatcher(never)


async def shutdown_that_never_ends(never: asyncio.Future[None]) -> None:
    """A lifespan's shutdown as Starlette runs it: the context manager's exit, which steps
    the generator through an ``asend`` object that does not say which generator it is."""
    async with lifespan(never):
        pass


def test_the_watchdog_reads_a_portal_loops_hung_task_before_the_timeout() -> None:
    loop = asyncio.new_event_loop()
    started = threading.Event()
    held: list[asyncio.Task[None]] = []

    def portal() -> None:
        asyncio.set_event_loop(loop)
        never = loop.create_future()
        held.append(loop.create_task(shutdown_that_never_ends(never), name="lifespan-shutdown"))
        loop.call_soon(started.set)
        loop.run_forever()

    thread = threading.Thread(target=portal, daemon=True)
    thread.start()
    assert started.wait(5)
    item: Any = SimpleNamespace(stash=pytest.Stash(), nodeid="tests/web/test_x.py::test_hangs")
    watchdog = Watchdog(item, 0.3).start()
    assert watchdog.done.wait(60)  # read while the task still hangs
    watchdog.cancel()
    loop.call_soon_threadsafe(loop.stop)
    thread.join(5)
    assert "lifespan-shutdown" in item.stash[TASKS]
    assert "shutdown_that_never_ends" in item.stash[TASKS]
    assert "stop_the_dispatcher" in item.stash[TASKS]  # inside the lifespan's exit
    assert "lifespan-shutdown" in report_for(item)  # the loop is gone; the report is not
    for task in asyncio.all_tasks(loop):
        task.cancel()
    loop.close()


def test_a_test_that_ends_in_time_leaves_nothing_to_report() -> None:
    item: Any = SimpleNamespace(stash=pytest.Stash(), nodeid="t")
    watchdog = Watchdog(item, 30).start()
    watchdog.cancel()
    assert not watchdog.done.wait(0.1)
    assert TASKS not in item.stash


@pytest.mark.timeout(42)
def test_the_watchdog_times_a_test_by_its_own_timeout(request: pytest.FixtureRequest) -> None:
    assert timeout_of(request.node) == 42
