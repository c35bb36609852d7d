"""A test that times out (pytest-timeout) reports, beside the threads' stacks, what every
running event loop's tasks were awaiting: a lifespan or server loop waiting on a future
that never completes shows only ``select()`` in its thread's stack.

The tasks are read by a watchdog thread shortly *before* pytest-timeout fails the test
(``Watchdog``): once the failure has unwound the test, a ``TestClient``'s portal loop has
stopped with it, and a report read then finds no running loop (session 25's hang in a
fixture's ``TestClient`` shutdown said only that)."""

from __future__ import annotations

import asyncio
import gc
import io
import threading
from typing import Any

import pytest

MARGIN = 10.0
"""Seconds before the test's timeout that the watchdog reads the loops."""
TASKS = pytest.StashKey[str]()
"""An item's running tasks, as the watchdog read them."""


def running_tasks() -> str:
    out = io.StringIO()
    loops = [o for o in gc.get_objects() if _is_loop(o)]
    for loop in loops:
        if not loop.is_running():
            continue
        print(f"=== {loop!r} (thread {getattr(loop, '_thread_id', None)})", file=out)
        try:
            tasks = list(asyncio.all_tasks(loop))
        except RuntimeError:  # the set changed while read from this thread: once more
            tasks = list(asyncio.all_tasks(loop))
        for task in tasks:
            print(f"--- {task.get_name()}", file=out)
            for line in awaiting(task.get_coro()):
                print(f"    {line}", file=out)
    return out.getvalue() or "no running event loop"


def _is_loop(o: Any) -> bool:
    """An event loop among the collector's objects; a weak proxy whose referent died
    meanwhile (another test's) raises on any look at it, and is none."""
    try:
        return isinstance(o, asyncio.AbstractEventLoop)
    except ReferenceError:
        return False


def awaiting(coro: Any, limit: int = 40) -> list[str]:
    """The chain of what a task's coroutine awaits, outermost first, down to the innermost
    coroutine or generator (``Task.print_stack`` shows the outermost frame alone)."""
    lines = []
    while coro is not None and len(lines) < limit:
        frame = getattr(coro, "cr_frame", None) or getattr(coro, "gi_frame", None) \
            or getattr(coro, "ag_frame", None)
        where = f" at {frame.f_code.co_filename}:{frame.f_lineno}" if frame is not None else ""
        lines.append(f"{getattr(coro, '__qualname__', type(coro).__name__)}{where}")
        inner = getattr(coro, "cr_await", None) or getattr(coro, "gi_yieldfrom", None) \
            or getattr(coro, "ag_await", None)
        if type(inner).__name__ == "async_generator_asend" and frame is not None:
            inner = _generator_of(frame) or inner
        coro = inner
    return lines


def _generator_of(frame: Any) -> Any:
    """The async generator an ``async with`` of ``@asynccontextmanager`` steps (its
    ``asend`` object does not say which), read from the context manager's frame: an app's
    lifespan is one, and what its shutdown awaits is what a hang needs named."""
    gen = getattr(frame.f_locals.get("self"), "gen", None)
    return gen if getattr(gen, "ag_frame", None) is not None else None


def timeout_of(item: pytest.Item) -> float | None:
    """The item's pytest-timeout: its ``timeout`` marker, else the run's setting."""
    marker = item.get_closest_marker("timeout")
    value: Any = None
    if marker is not None:
        value = marker.args[0] if marker.args else marker.kwargs.get("timeout")
    if value is None:
        value = getattr(item.config, "_env_timeout", None)
    try:
        seconds = float(value) if value is not None else 0.0
    except (TypeError, ValueError):
        return None
    return seconds if seconds > 0 else None


class Watchdog:
    """Reads the running loops' tasks into the item's stash ``MARGIN`` seconds
    before its timeout, while whatever hangs is still hanging."""

    def __init__(self, item: pytest.Item, seconds: float) -> None:
        self.item = item
        self.timer = threading.Timer(max(seconds - MARGIN, seconds * 0.9), self.read)
        self.timer.daemon = True
        self.done = threading.Event()
        """Set once the loops were read (a big test process's heap takes a while to walk)."""

    def start(self) -> Watchdog:
        self.timer.start()
        return self

    def read(self) -> None:
        try:
            self.item.stash[TASKS] = running_tasks()
        finally:
            self.done.set()

    def cancel(self) -> None:
        self.timer.cancel()


def report_for(item: pytest.Item) -> str:
    """What the watchdog read, else what runs now."""
    return item.stash.get(TASKS, None) or running_tasks()
