"""Clocks: the real one and a controllable one for tests and demos.

Clocks give real time as Unix seconds. A game's own calendar runs ``time_scale``
times faster from its epoch (``store.projection.GameClock``); rules never change.
"""

from __future__ import annotations

import time
from datetime import datetime, timedelta
from typing import Protocol


class Clock(Protocol):
    def now(self) -> float: ...


class SystemClock:
    def now(self) -> float:
        return time.time()


class ManualClock:
    """Stands still until told to move."""

    def __init__(self, start: datetime | float) -> None:
        self._now = start.timestamp() if isinstance(start, datetime) else float(start)

    def now(self) -> float:
        return self._now

    def set(self, moment: datetime) -> None:
        self._now = moment.timestamp()

    def advance(self, delta: timedelta) -> None:
        self._now += delta.total_seconds()
