"""The calendar: Moscow days, the phase model, long and shortened days (TIME, §3)."""

from datetime import timedelta

from lepromafia.engine import events as ev
from lepromafia.engine.commands import DeclareLongDay, Nominate, SetDayStart, ShortenDay
from lepromafia.engine.errors import ErrorCode

from .cast import PROCURATOR, Game, night_time, when

TOWN = "Лепроград"
TEN = "alice bob carol dave erin frank gina hugo ivan jane"


def game():
    return Game({TOWN: TEN}, mafia={TOWN: "alice bob"}).start()


def test_a_game_day_is_a_moscow_calendar_day_and_night_follows_at_midnight():
    """TIME-1, TIME-10 (AMB-7): Day 10:00–00:00, Night 00:00–10:00, Day N+1 at 10:00."""
    g = game()
    (day1,) = g.events_of(ev.DayStarted)
    assert day1.start_at == when(1, "10:00") and day1.scheduled_end == when(2, "00:00")
    g.to(1, "23:59")
    assert g.events_of(ev.NightStarted) == []
    g.to(2, "00:00")
    assert g.events_of(ev.NightStarted)[0].at == when(2, "00:00")
    g.to(2, "10:00")
    assert [e.day for e in g.events_of(ev.DayStarted)] == [1, 2]


def test_the_procurator_sets_a_later_day_start():
    """TIME-4: Day 3 starts at 12:00; night deadlines follow it (MAFIA-KILL-8, COMM-7)."""
    g = game()
    g.to(2, "10:00")
    g.reject(SetDayStart(actor="alice", day=3, time="12:00"), when(2, "11:00"), ErrorCode.NOT_PROCURATOR)
    g.reject(SetDayStart(actor=PROCURATOR, day=2, time="12:00"), when(2, "11:00"), ErrorCode.TOO_LATE)
    g.reject(SetDayStart(actor=PROCURATOR, day=3, time="12:61"), when(2, "11:00"),
             ErrorCode.SCHEDULE_INVALID)
    g.do(SetDayStart(actor=PROCURATOR, day=3, time="12:00"), 2, "11:00")
    g.to_night(2, "01:00")
    assert g.state.deadlines["day_start:3"] == when(3, "12:00")
    assert g.state.deadlines["night_decisions:2"] == when(3, "10:00")


def test_a_long_day_has_one_vote_at_its_end():
    """TIME-3, AMB-30: Day 2 spans two dates; its vote is on the last one."""
    g = game()
    g.do(DeclareLongDay(actor=PROCURATOR, day=2, length_days=2), 1, "12:00")
    g.reject(DeclareLongDay(actor=PROCURATOR, day=3, length_days=5), when(1, "12:00"),
             ErrorCode.SCHEDULE_INVALID)
    g.to(2, "10:00")
    assert g.state.deadlines[f"vote_open:{TOWN}:2"] == when(3, "20:00")
    g.do(Nominate(actor="carol", candidate="dave"), 3, "12:00")  # still Day 2
    g.to(4, "00:00")
    assert g.state.phase.value == "night" and g.state.day == 2
    g.to(4, "10:00")
    assert g.state.day == 3


def test_a_shortened_day_ends_early_and_the_next_day_starts_the_same_evening():
    """TIME-2 (AMB-30): Day 3 10:00–14:00, decisions 30 min before Day 4 at 18:00."""
    g = game()
    g.to(2, "10:00")
    g.do(ShortenDay(actor=PROCURATOR, day=3, end_at=when(3, "14:00"), next_start_at=when(3, "18:00"),
                    decision_offset_minutes=30, ambush_window_minutes=15), 2, "12:00")
    g.reject(ShortenDay(actor=PROCURATOR, day=4, end_at=when(4, "14:00"),
                        next_start_at=when(4, "14:10"), decision_offset_minutes=30), when(2, "12:00"),
             ErrorCode.SCHEDULE_INVALID)
    g.to(3, "10:00")
    opens = g.state.deadlines[f"vote_open:{TOWN}:3"]
    assert when(3, "10:00") < opens < when(3, "14:00")
    assert g.state.deadlines[f"vote_close:{TOWN}:3"] == when(3, "14:00")
    g.to(3, "14:00")
    assert g.state.phase.value == "night"
    assert g.state.deadlines["checks_open:3"] == when(3, "14:15")
    assert g.state.deadlines["night_decisions:3"] == when(3, "17:30")
    g.to(3, "18:00")
    assert g.state.day == 4 and g.state.phase.value == "day"


def test_night_deaths_take_effect_in_the_morning():
    """§3 phase model, MAFIA-KILL-8: published with the Day Post at day start."""
    g = game()
    g.to_night(1, "01:00")
    post = [e for e in g.table.advance(night_time(1, "10:00")) if isinstance(e, ev.DayPostPublished)]
    assert post and post[0].day == 2 and post[0].at == when(2, "10:00")
    assert g.state.plans[2].start_at - g.state.plans[1].start_at == timedelta(days=1)
