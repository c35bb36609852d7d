"""No game can get stuck (issue 10; review D7, D11): the Procurator's calendar commands may
not leave a shortened day that ends before it starts or after 00:00 (TIME-2, TIME-8)."""

from datetime import timedelta

from lepromafia.engine import events as ev
from lepromafia.engine.commands import DeclareLongDay, SetDayStart, ShortenDay
from lepromafia.engine.errors import ErrorCode
from lepromafia.engine.state import Stage

from .cast import PROCURATOR, Game, when

TOWN = "Лепроград"


def game() -> Game:
    return Game({TOWN: "alice bob carol dave erin frank gina hugo"}, mafia={TOWN: "alice bob"}).start()


def test_d7_time2_a_shortened_day_ending_before_it_starts_is_refused():
    """D7 (probe P31): Day 3 starts at 10:00; an end at 09:00 (next start 14:00) is refused
    with ``day_end_before_start`` and nothing changes; the game plays on to Day 4."""
    g = game()
    refused = g.reject(ShortenDay(actor=PROCURATOR, day=3, end_at=when(3, "09:00"),
                                  next_start_at=when(3, "14:00")), when(1, "12:00"),
                       ErrorCode.DAY_END_BEFORE_START)
    assert "10:00" in refused.message() and refused.rule == "TIME-2"
    g.to(4, "10:30")
    assert g.state.day == 4 and g.state.deadlines


def test_d11_time8_a_shortened_day_may_not_end_after_midnight():
    """D11 (probe P18): «голосование … не позднее 00:00 по Московскому времени» — an end at
    02:00 the next morning is refused; 23:59 is accepted."""
    g = game()
    g.reject(ShortenDay(actor=PROCURATOR, day=3, end_at=when(4, "02:00"), next_start_at=when(4, "09:00")),
             when(1, "12:00"), ErrorCode.DAY_END_AFTER_MIDNIGHT)
    g.do(ShortenDay(actor=PROCURATOR, day=3, end_at=when(3, "23:59"), next_start_at=when(4, "09:00")),
         1, "12:01")


def test_d7_a_later_day_start_cannot_strand_a_shortened_day():
    """D7 via SetDayStart: Day 3 is shortened to end at 14:00; moving its start to 15:00 is
    refused (the day would end before it starts)."""
    g = game()
    g.do(ShortenDay(actor=PROCURATOR, day=3, end_at=when(3, "14:00"), next_start_at=when(3, "18:00")),
         1, "12:00")
    g.reject(SetDayStart(actor=PROCURATOR, day=3, time="15:00"), when(1, "12:05"),
             ErrorCode.DAY_END_BEFORE_START)


def test_d7_a_long_day_before_cannot_push_a_shortened_day_past_its_end():
    """D7 via DeclareLongDay: Day 4 is shortened (ends 14:00 on its date); declaring Day 3 a
    three-day day moves Day 4 two dates later — its fixed end would lie before its start."""
    g = game()
    g.do(ShortenDay(actor=PROCURATOR, day=4, end_at=when(4, "14:00"), next_start_at=when(4, "18:00")),
         1, "12:00")
    g.reject(DeclareLongDay(actor=PROCURATOR, day=3, length_days=3), when(1, "12:05"),
             ErrorCode.DAY_END_BEFORE_START)


def test_the_inverted_day_of_probe_p31b_would_have_stuck_the_game():
    """P31b, the other half of D7: with a valid shortened Day 3 the game reaches Night 3 and
    Day 4 with deadlines pending at every rest (the liveness invariant, bots/invariants)."""
    from lepromafia.bots.invariants import liveness_problems

    g = game()
    g.do(ShortenDay(actor=PROCURATOR, day=3, end_at=when(3, "16:00"), next_start_at=when(3, "20:00")),
         1, "12:00")
    moment = when(1, "12:00")
    while g.state.stage is Stage.RUNNING and moment < when(5, "10:00"):
        moment += timedelta(minutes=30)
        g.table.advance(moment, seed=lambda: 0)
        assert liveness_problems(g.state) == []
    assert g.events_of(ev.NightStarted)
