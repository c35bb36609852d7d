"""Scenario times: "day N HH:MM[:SS]", "night N HH:MM[:SS]" or an ISO datetime.

"day N HH:MM" is Moscow wall-clock on Day N's first calendar date; "night N HH:MM"
is the night after Day N: on Day N's last calendar date, or the next date when
HH < 12. Dates come from the game's own day plans where they exist (long and
shortened days move them), else from ``first_day`` one date per day.
"""

from __future__ import annotations

import re
from datetime import date, datetime, time, timedelta

from ..engine.calendar import MOSCOW
from ..engine.state import GameState

_PHASE_TIME = re.compile(r"^(day|night)\s+(\d+)\s+(\d{1,2}):(\d{2})(?::(\d{2}))?$")


class TimeFormatError(ValueError):
    pass


def day_dates(day: int, first_day: date, state: GameState | None) -> tuple[date, date]:
    """Day N's first and last calendar dates."""
    plans = state.plans if state is not None else {}
    plan = plans.get(day)
    if plan is not None:
        return plan.first_date, plan.first_date + timedelta(days=plan.length_days - 1)
    known = [n for n in plans if n < day]
    if known:
        last = plans[max(known)]
        first = last.next_first_date() + timedelta(days=day - max(known) - 1)
    else:
        first = first_day + timedelta(days=day - 1)
    return first, first


def parse_time(text: object, first_day: date, state: GameState | None) -> datetime:
    if isinstance(text, datetime):
        return text if text.tzinfo else text.replace(tzinfo=MOSCOW)
    if not isinstance(text, str):
        raise TimeFormatError(f"a time must be a string like 'day 2 20:05', not {text!r}")
    match = _PHASE_TIME.match(text.strip())
    if match is None:
        try:
            moment = datetime.fromisoformat(text.strip())
        except ValueError:
            raise TimeFormatError(
                f"bad time {text!r}: write 'day N HH:MM', 'night N HH:MM' or an ISO datetime"
            ) from None
        return moment if moment.tzinfo else moment.replace(tzinfo=MOSCOW)
    phase, number, hh, mm, ss = match.groups()
    hour, minute, second = int(hh), int(mm), int(ss or 0)
    if not (0 <= hour <= 23 and 0 <= minute <= 59 and 0 <= second <= 59) or int(number) < 1:
        raise TimeFormatError(f"bad time {text!r}")
    first, last = day_dates(int(number), first_day, state)
    on = first if phase == "day" else (last + timedelta(days=1) if hour < 12 else last)
    return datetime.combine(on, time(hour, minute, second), MOSCOW)


def show(moment: datetime) -> str:
    return moment.astimezone(MOSCOW).strftime("%Y-%m-%d %H:%M:%S MSK")
