"""No game can get stuck: the Procurator's calendar may not leave a day that ends before it
starts or after 00:00 (TIME-2, TIME-8; review D7, D11).

After each calendar command the days not yet started are projected as they will be planned
(day starts, long days, shortened days) and every shortened one is checked. A day that ends
before its start never reaches its vote's opening, so no verdict, no night and no next day
is ever scheduled: the game would wait for ever.
"""

from __future__ import annotations

from datetime import datetime, time, timedelta

from ..calendar import MOSCOW, DayPlan, plan_next
from ..errors import ErrorCode, check
from ..evolve import _start_time, _with_overrides
from ..state import GameState, PhaseKind


def projected_plans(s: GameState, upto: int) -> dict[int, DayPlan]:
    """The plans of Days 1..``upto`` as the calendar stands now (planned ones as they are)."""
    plans = dict(s.plans)
    if not plans:
        return plans
    for n in range(max(plans) + 1, upto + 1):
        plans[n] = _with_overrides(s, plan_next(plans[n - 1], _start_time(s, n)))
    return plans


def midnight_after(plan: DayPlan) -> datetime:
    """TIME-8: 00:00 Moscow after the day's last calendar date."""
    return datetime.combine(plan.first_date + timedelta(days=plan.length_days), time(0), MOSCOW)


def check_calendar(s: GameState) -> None:
    """Every shortened day still to come ends after it starts and by 00:00 (TIME-2, TIME-8)."""
    plans = projected_plans(s, max(s.short_days, default=0))
    started = 0 if s.phase is PhaseKind.PREGAME else s.day
    for day in sorted(s.short_days):
        plan = plans.get(day)
        if plan is None or day <= started:
            continue
        start = plan.start_at.astimezone(MOSCOW).strftime("%d.%m %H:%M")
        check(plan.scheduled_end > plan.start_at, ErrorCode.DAY_END_BEFORE_START, "TIME-2",
              day=day, start=start)
        check(plan.scheduled_end <= midnight_after(plan), ErrorCode.DAY_END_AFTER_MIDNIGHT, "TIME-8",
              day=day)
