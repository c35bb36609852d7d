"""Suite-wide: the longest test files first, so the xdist workers finish together.

`make test` runs xdist with ``--dist loadfile --no-loadscope-reorder``: a whole file goes to
one worker, in collection order. Ordering the files by their last measured duration
(``tests/durations.json``, written by ``tools/test_durations.py``) is the longest-first
rule, which keeps one long file from running alone at the end while the other worker idles.
Tests inside a file keep their order; a file not measured yet runs after the measured ones.

Each included router's flat routes are built once per test process (``tests/route_cache.py``;
``LEPROMAFIA_ROUTE_CACHE=0`` switches that off), and a web app's new SQLite database starts as a
copy of one migrated once (``tests/sqlite_template.py``; ``LEPROMAFIA_SQLITE_TEMPLATE=0``).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from . import route_cache, sqlite_template
from .hang_report import Watchdog, report_for, timeout_of

DURATIONS = Path(__file__).with_name("durations.json")


def pytest_configure(config: pytest.Config) -> None:
    route_cache.install()
    sqlite_template.install()


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None):  # type: ignore[no-untyped-def]
    seconds = timeout_of(item)
    watchdog = Watchdog(item, seconds).start() if seconds else None
    try:
        yield
    finally:
        if watchdog is not None:
            watchdog.cancel()


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]):  # type: ignore[no-untyped-def]
    outcome = yield
    report = outcome.get_result()
    if report.failed and "Timeout (>" in str(report.longrepr):
        report.sections.append(("asyncio tasks at the timeout", report_for(item)))


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    try:
        seconds: dict[str, float] = json.loads(DURATIONS.read_text())
    except (OSError, ValueError):
        return
    first_seen: dict[str, int] = {}
    for item in items:
        first_seen.setdefault(item.nodeid.split("::")[0], len(first_seen))

    def key(pair: tuple[int, pytest.Item]) -> tuple[float, int, int]:
        index, item = pair
        path = item.nodeid.split("::")[0]
        return (-seconds.get(path, 0.0), first_seen[path], index)

    items[:] = [item for _, item in sorted(enumerate(items), key=key)]
