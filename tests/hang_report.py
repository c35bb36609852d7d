"""A test that times out (pytest-timeout) reports, beside the threads' stacks, what every
running event loop's tasks were awaiting: a lifespan or server loop waiting on a future
that never completes shows only ``select()`` in its thread's stack."""

from __future__ import annotations

import asyncio
import gc
import io


def running_tasks() -> str:
    out = io.StringIO()
    loops = [o for o in gc.get_objects() if isinstance(o, asyncio.AbstractEventLoop)]
    for loop in loops:
        if not loop.is_running():
            continue
        try:
            tasks = list(asyncio.all_tasks(loop))
        except RuntimeError:  # the set changed while read from this thread: once more
            tasks = list(asyncio.all_tasks(loop))
        for task in tasks:
            print(f"--- {task!r}", file=out)
            task.print_stack(limit=12, file=out)
    return out.getvalue() or "no running event loop"
