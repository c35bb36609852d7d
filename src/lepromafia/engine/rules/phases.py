"""The calendar in motion (§3 phase model, TIME, START, POST-3).

Every timed transition is a deadline the engine scheduled earlier and the service
fires later with ``FireDeadline(key)``. A key not pending (fired, cancelled,
superseded) is stale and yields no events, so late or duplicate timers are harmless.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta

from .. import commands as cmd
from .. import events as ev
from ..audience import PUBLIC, only
from ..errors import N_, ErrorCode, check
from ..inboxes import Kind
from ..progress import Progress
from ..settings import parse_hhmm
from ..state import City, DeathCause, GameState, PhaseKind, Stage
from . import (
    ambush,
    citizens,
    commissar,
    deal_draw,
    deaths,
    execution,
    judges,
    night,
    outcome,
    restoration,
    verdicts,
)
from .common import renew_inbox, require_procurator, require_running, schedule
from .liveness import check_calendar
from .pause import paused


def fire_deadline(p: Progress, c: cmd.FireDeadline) -> None:
    s = p.state
    due = s.deadlines.get(c.key)
    if due is None or s.stage is Stage.FINISHED:
        return  # stale: already fired, cancelled or superseded
    check(p.now >= due, ErrorCode.TOO_EARLY)
    kind, _, rest = c.key.partition(":")
    audience = only(s.procurator) if kind.startswith("offer") else PUBLIC
    p.emit(ev.DeadlineFired, audience, key=c.key, due_at=due)
    handler = _DEADLINES[kind]
    handler(p, rest, c.seed)


def _day_number(rest: str) -> int:
    return int(rest.rsplit(":", 1)[-1])


def _start_day(p: Progress, rest: str, seed: int) -> None:
    number = _day_number(rest)
    if number > 1:
        _apply_night_deaths(p, number - 1)
        outcome.settle(p, end=False)
        if outcome.over(p.state):
            _publish_day_post(p, number, None, final=True)  # D18: the last morning's news
            outcome.end_game(p)
            return
    s = p.state
    plan = s.plans[number]
    p.emit(ev.DayStarted, PUBLIC, day=number, start_at=plan.start_at,
           scheduled_end=plan.scheduled_end)
    restoration.resume_due(p)
    if number > 1 and s.settings.city_inbox_daily_renewal:
        for name, city in p.state.cities.items():
            current = p.state.current_inbox(Kind.CITY.value, name)
            if current and city.decided is None:
                renew_inbox(p, current)  # INBOX-CITY-4
    if number > 1:
        citizens.choose_spirits(p, number)
    touring = night.announce_tour(p, number) if number > 1 else None
    _publish_day_post(p, number, touring)
    if number > 1:
        for name, city in p.state.cities.items():
            if city.decided is None and not paused(city):
                execution.schedule_default_vote(p, name, plan)
    schedule(p, f"day_end:{number}", plan.scheduled_end)
    judges.schedule_vacancies(p)  # START-1, JUDGE-ELECT-1


def _apply_night_deaths(p: Progress, night_number: int) -> None:
    """MAFIA-KILL-8, SEC-8: night kills take effect at day start; one death per victim."""
    seen: set[str] = set()
    for victim, _killer_city in p.state.pending_kills:
        resident = p.state.residents[victim]
        if victim in seen or not resident.alive:
            continue
        seen.add(victim)
        deaths.die(p, victim, DeathCause.NIGHT_KILL, f"night {night_number}")


def _notices(s: GameState, label: str, cause: DeathCause) -> tuple[ev.DeathNotice, ...]:
    return tuple(
        ev.DeathNotice(user=r.user, city=r.city, faction=r.faction.value if r.faction else "honest",
                       cause=cause.value)
        for r in s.residents.values() if r.died_in == label and r.cause is cause
    )


def _publish_day_post(p: Progress, number: int, touring: str | None, final: bool = False) -> None:
    """POST-2, POST-3, HOST-PROC-3, EXEC-16, COURT-7: generated from the record, no killer
    named (SEC-8): deaths, vote results, verdicts, suicides, judge elections (D17)."""
    s = p.state
    executions = _notices(s, f"day {number - 1}", DeathCause.EXECUTION)
    executed_in = {n.city for n in executions}
    yesterday = s.plans.get(number - 1)

    def played_yesterday(c: City) -> bool:
        if number <= 2 or yesterday is None:
            return False
        return c.decided_at is None or c.decided_at > yesterday.start_at

    spared = tuple(
        name for name, c in s.cities.items() if played_yesterday(c) and name not in executed_in
    )
    decided = tuple((n, c.decided.value) for n, c in s.cities.items() if c.decided is not None)
    suicides = (_notices(s, f"day {number - 1}", DeathCause.SUICIDE)
                + _notices(s, f"night {number - 1}", DeathCause.SUICIDE))
    p.emit(ev.DayPostPublished, PUBLIC, day=number,
           night_deaths=_notices(s, f"night {number - 1}", DeathCause.NIGHT_KILL),
           executions=executions, no_execution=spared, touring_city=touring, decided=decided,
           votes=s.news.votes, verdicts=s.news.verdicts, suicides=suicides,
           judge_elections=s.news.judge_elections, final=final)


def _end_day(p: Progress, rest: str, seed: int) -> None:
    """§3: night starts at the later of the scheduled end and all executions final."""
    p.emit(ev.DayEndReached, PUBLIC, day=p.state.day)
    if all(c.execution_final for c in p.state.cities.values()):
        night.start_night(p)


def _open_checks(p: Progress, rest: str, seed: int) -> None:
    """AMBUSH-4, SEC-3: the ambush window closes and checks open, everywhere at once."""
    ambush.close_window(p, _day_number(rest))
    p.emit(ev.ChecksOpened, PUBLIC, night=_day_number(rest))


def _close_checks(p: Progress, rest: str, seed: int) -> None:
    commissar.answer_pending_checks(p)
    p.emit(ev.ChecksClosed, PUBLIC, night=_day_number(rest))  # COMM-7


_DEADLINES: dict[str, Callable[[Progress, str, int], None]] = {
    "day_start": _start_day,
    "day_end": _end_day,
    "vote_open": execution.open_voting,
    "vote_close": execution.close_voting,
    "checks_open": _open_checks,
    "checks_close": _close_checks,
    "night_decisions": night.fix_decisions,
    "poll_open": judges.open_polls,
    "poll_close": judges.close_polls,
    "pardon_close": verdicts.close_window,
    "offer_timeout": commissar.offer_timed_out,
    "offer_reveal": commissar.reveal_answer,
    "deal_reveal": deal_draw.close_reveals,
}


# --- the Procurator's calendar commands (TIME-2, TIME-3, TIME-4) ----------------------


def _require_future_day(s: GameState, day: int) -> None:
    """Only days not yet planned: Day N+1 is planned when Night N starts."""
    if s.stage is not Stage.RUNNING or s.phase is PhaseKind.PREGAME:
        first_open = 1
    elif s.phase is PhaseKind.DAY:
        first_open = s.day + 1
    else:
        first_open = s.day + 2
    check(day >= first_open, ErrorCode.TOO_LATE, "TIME-4")


def set_day_start(p: Progress, c: cmd.SetDayStart) -> None:
    s = p.state
    require_procurator(s, c.actor)
    check(s.stage is not Stage.FINISHED, ErrorCode.GAME_FINISHED)
    check(parse_hhmm(c.time) is not None, ErrorCode.SCHEDULE_INVALID, "TIME-4",
          detail=N_("give the time as HH:MM"))
    _require_future_day(s, c.day)
    p.emit(ev.DayStartSet, PUBLIC, day=c.day, time=c.time)
    check_calendar(p.state)  # D7: a later start must not pass a shortened day's end
    _reschedule_first_day(p, c.day)


def declare_long_day(p: Progress, c: cmd.DeclareLongDay) -> None:
    s = p.state
    require_procurator(s, c.actor)
    check(s.stage is not Stage.FINISHED, ErrorCode.GAME_FINISHED)
    check(c.length_days in (2, 3), ErrorCode.SCHEDULE_INVALID, "TIME-3",
          detail=N_("a long day lasts 2 or 3 days"))
    _require_future_day(s, c.day)
    p.emit(ev.LongDayDeclared, PUBLIC, day=c.day, length_days=c.length_days)
    check_calendar(p.state)  # D7: moving later days' dates must not strand a shortened day


def shorten_day(p: Progress, c: cmd.ShortenDay) -> None:
    s = p.state
    require_procurator(s, c.actor)
    require_running(s)
    check(c.end_at.tzinfo is not None and c.next_start_at.tzinfo is not None,
          ErrorCode.SCHEDULE_INVALID, "TIME-2", detail=N_("times need a timezone"))
    check(c.end_at < c.next_start_at, ErrorCode.SCHEDULE_INVALID, "TIME-2",
          detail=N_("the day must end before the next starts"))
    check(c.decision_offset_minutes >= 0 and c.ambush_window_minutes >= 0,
          ErrorCode.SCHEDULE_INVALID, "TIME-2", detail=N_("the night's offsets must not be negative"))
    check(c.next_start_at - c.end_at > timedelta(minutes=c.decision_offset_minutes),
          ErrorCode.SCHEDULE_INVALID, "TIME-2", detail=N_("the night is shorter than its deadline"))
    _require_future_day(s, c.day)
    p.emit(ev.DayShortened, PUBLIC, day=c.day, end_at=c.end_at, next_start_at=c.next_start_at,
           decision_offset_minutes=c.decision_offset_minutes,
           ambush_window_minutes=c.ambush_window_minutes)
    check_calendar(p.state)  # D7, D11: after its own start, by 00:00


def _reschedule_first_day(p: Progress, day: int) -> None:
    s = p.state
    if day == 1 and s.stage is Stage.RUNNING and s.phase is PhaseKind.PREGAME:
        plan = s.plans[1]
        schedule(p, "day_start:1", plan.start_at)
