"""A diagnostic for the load benchmark's servers: every 3 s, the coroutine chain of each
pooled connection checked out for more than 2 s, on stderr (the server's log).

``LEPROMAFIA_BENCH_POOL_TRACE=1 python bench/load.py …`` installs it in every project
server (``load_server.py``). The pattern it finds is a task holding a pooled connection
while it awaits another task that needs one (session 5's SQLite pool deadlock,
docs/performance.md); on a saturated event loop it prints nothing, which is the point:
it tells waiting from computing (session 6, "several workers on PostgreSQL").
"""

from __future__ import annotations

import asyncio
import sys
import threading
import time
from typing import Any

from sqlalchemy import event
from sqlalchemy.pool import Pool

HELD_S = 2.0
EVERY_S = 3.0

_held: dict[int, tuple[float, asyncio.Task[Any] | None]] = {}


def _checkout(_dbapi: Any, record: Any, _proxy: Any) -> None:
    try:
        task = asyncio.current_task()
    except RuntimeError:
        task = None
    _held[id(record)] = (time.monotonic(), task)


def _checkin(_dbapi: Any, record: Any) -> None:
    _held.pop(id(record), None)


def _report() -> None:
    while True:
        time.sleep(EVERY_S)
        now = time.monotonic()
        items = list(_held.values())
        long = sorted(((now - since, task) for since, task in items if now - since > HELD_S),
                      key=lambda held: -held[0])
        if not long:
            continue
        out = [f"=== pool trace {time.strftime('%H:%M:%S')}: {len(items)} checked out, "
               f"{len(long)} for more than {HELD_S:.0f} s"]
        for age, task in long[:12]:
            out.append(f"--- {age:.1f} s, task {task.get_name() if task else None}")
            try:  # another thread's view of the task: good enough for a diagnostic
                frames = task.get_stack(limit=40) if task else []
            except Exception as exc:
                out.append(f"    ({exc!r})")
                continue
            out.extend(f"    {f.f_code.co_filename.rsplit('/src/', 1)[-1]}:{f.f_lineno} "
                       f"{f.f_code.co_name}" for f in frames)
        sys.stderr.write("\n".join(out) + "\n")
        sys.stderr.flush()


def install() -> None:
    event.listen(Pool, "checkout", _checkout)
    event.listen(Pool, "checkin", _checkin)
    threading.Thread(target=_report, name="pool-trace", daemon=True).start()
