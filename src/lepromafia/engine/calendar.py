"""Game calendar (RULES.md §3 phase model, TIME-*): Moscow days, long and short days.

Time never comes from a clock here: callers pass ``ctx.now``. Moscow has kept UTC+3
without daylight saving since 2014, so a fixed offset is exact and needs no tz data.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime, time, timedelta, timezone

from .settings import parse_hhmm

MOSCOW = timezone(timedelta(hours=3), "MSK")


def at_local(day: date, hhmm: str) -> datetime:
    """The Moscow wall-clock time ``hhmm`` on ``day`` as an aware datetime."""
    parsed = parse_hhmm(hhmm)
    if parsed is None:
        raise ValueError(f"bad time {hhmm!r}")
    return datetime.combine(day, time(parsed[0], parsed[1]), MOSCOW)


def local_date(moment: datetime) -> date:
    return moment.astimezone(MOSCOW).date()


@dataclass(frozen=True, slots=True)
class DayPlan:
    """The schedule of one game day (TIME-1..3, AMB-7, AMB-30).

    ``end_at`` is the scheduled end of the day (00:00 after its last calendar date,
    or the Procurator's time on a shortened day). Night N runs from the later of
    ``end_at`` and the finality of all executions until the next day's ``start_at``.
    """

    number: int
    first_date: date
    start_at: datetime
    length_days: int = 1
    end_at: datetime | None = None
    next_start_at: datetime | None = None
    decision_offset_minutes: int | None = None
    ambush_window_minutes: int | None = None

    @property
    def scheduled_end(self) -> datetime:
        if self.end_at is not None:
            return self.end_at
        last = self.first_date + timedelta(days=self.length_days)
        return datetime.combine(last, time(0, 0), MOSCOW)

    @property
    def midpoint(self) -> datetime:
        """TIME-7 / AMB-30: the 'first half of the day' ends here."""
        return self.start_at + (self.scheduled_end - self.start_at) / 2

    def next_first_date(self) -> date:
        if self.next_start_at is not None:
            return local_date(self.next_start_at)
        return self.first_date + timedelta(days=self.length_days)


@dataclass(frozen=True, slots=True)
class ShortDay:
    """TIME-2: a shortened day's end, its successor's start and reduced offsets."""

    end_at: datetime
    next_start_at: datetime
    decision_offset_minutes: int
    ambush_window_minutes: int


def plan_day(number: int, first_date: date, start_time: str) -> DayPlan:
    return DayPlan(number=number, first_date=first_date, start_at=at_local(first_date, start_time))


def plan_next(previous: DayPlan, start_time: str) -> DayPlan:
    """Day N+1 follows Day N (TIME-1); a shortened day may fix its successor's start."""
    if previous.next_start_at is not None:
        start = previous.next_start_at
        return DayPlan(number=previous.number + 1, first_date=local_date(start), start_at=start)
    return plan_day(previous.number + 1, previous.next_first_date(), start_time)
