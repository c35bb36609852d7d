"""Strategy bots (issue 15): they play whole games by the rules, deterministically, and
each seat decides only from what ``visible_to`` lets it see (RULES.md §9)."""

from __future__ import annotations

import random

import pytest

from lepromafia.bots.strategy import Skills
from lepromafia.bots.strategy.beliefs import suspicions, town_view
from lepromafia.bots.strategy.knowledge import Ledger, SeatView
from lepromafia.bots.strategy.match import play
from lepromafia.engine import events as ev
from lepromafia.engine.visibility import visible_to


@pytest.fixture(scope="module")
def game():
    """Seed 3: three cities of twelve, strategy bots at 2 vs 2, every invariant checked."""
    return play(3, cities=3, population=12, skills=Skills(2, 2), check="full")


def seats(game):
    """Anna (an honest resident), the commissar Boris, and Viktor of the mafia, all of city 1."""
    s = game.table.game
    city = next(iter(s.cities))
    commissars = [e.commissar for e in game.table.events
                  if isinstance(e, ev.CommissarAppointed) and e.city == city]
    mafia = [u for u in s.cities[city].residents if s.is_mafia(u)]
    honest = [u for u in s.cities[city].residents if not s.is_mafia(u) and u not in commissars]
    return city, honest[0], commissars[0], mafia[0]


def only_visible(events, seat):
    ledger = Ledger()
    ledger.feed(e for e in events if visible_to(e, seat))
    return ledger


def test_strategy_bots_play_whole_games_that_keep_every_invariant(game):
    """WIN-1..5: the game ends with a result; the per-step and whole-log checks find nothing."""
    assert game.result in ("honest", "mafia", "draw")
    assert game.violations == []
    assert game.days >= 3


def test_the_same_seed_plays_the_same_game():
    """Deterministic by seed: two runs give the same event log."""
    first = play(5, cities=2, population=10, check="cheap")
    again = play(5, cities=2, population=10, check="cheap")
    assert first.table.events == again.table.events
    other = play(6, cities=2, population=10, check="cheap")
    assert other.table.events != first.table.events


@pytest.mark.parametrize("who", ["honest", "commissar", "mafioso"])
def test_a_seat_decides_the_same_from_only_the_events_it_may_see(game, who):
    """§9, SEC-1: Anna's, Boris's and Viktor's judgements computed from the whole log equal
    those computed from a log holding only what ``visible_to`` lets each of them see — so no
    fact hidden from the seat (roles, checks, the mafia inbox, kills) reaches its decision."""
    city, anna, boris, viktor = seats(game)
    seat = {"honest": anna, "commissar": boris, "mafioso": viktor}[who]
    events = game.table.events
    full, filtered = Ledger(), only_visible(events, seat)
    full.feed(events[: len(events) * 2 // 3])
    filtered = only_visible(events[: len(events) * 2 // 3], seat)
    hidden = len(full.events) - len(filtered.events)
    assert hidden > 100  # there was plenty the seat could not see
    whole, own = SeatView(full, seat), SeatView(filtered, seat)
    assert suspicions(whole, city, 2, random.Random(1)) == suspicions(own, city, 2, random.Random(1))
    assert town_view(whole, city) == town_view(own, city)
    assert whole.team() == own.team() and whole.checks() == own.checks()
    assert whole.exposed_commissars() == own.exposed_commissars()


def test_an_honest_seat_knows_no_living_mafioso_it_was_not_told_of(game):
    """ROLE-3, SEC-1: Anna's view has no team, no checks; Viktor's has his team; Boris his answers."""
    city, anna, boris, viktor = seats(game)
    ledger = Ledger()
    ledger.feed(game.table.events)
    s = game.table.game
    assert SeatView(ledger, anna).team() == frozenset()
    assert SeatView(ledger, anna).checks() == {}
    assert SeatView(ledger, viktor).team() == frozenset(s.mafiosi(city))
    answers = SeatView(ledger, boris).checks()
    assert answers and all(s.is_mafia(t) == m for t, m in answers.items())  # COMM-4: truthful


def test_every_event_a_view_returns_is_visible_to_its_seat(game):
    """The one gate: ``SeatView.seen`` returns no event outside the seat's audience."""
    _city, anna, _boris, _viktor = seats(game)
    ledger = Ledger()
    ledger.feed(game.table.events)
    view = SeatView(ledger, anna)
    kinds = {type(e) for e in game.table.events}
    for kind in kinds:
        assert all(visible_to(e, anna) for e in view.seen(kind))
    assert any(not visible_to(e, anna) for e in ledger.of(ev.MessagePosted))  # the mafia inbox


def test_skill_levels_are_parsed_and_bad_ones_refused():
    assert Skills.parse("honest=3,mafia=1") == Skills(3, 1)
    assert Skills.parse("mafia=0") == Skills(2, 0)
    for bad in ("honest=4", "town=2", "honest=two"):
        with pytest.raises(ValueError):
            Skills.parse(bad)


def test_skill_zero_is_todays_random_play_and_still_ends_games():
    """Skill 0 on both sides: the random moves, the game still ends with no violation."""
    report = play(2, cities=2, population=10, skills=Skills(0, 0), check="full")
    assert report.result is not None and report.violations == []


def test_stronger_honest_bots_win_more_often_than_random_ones():
    """The point of skill: honest at 2 against a random mafia beat honest at 0 against it."""
    def wins(skills):
        return sum(play(seed, cities=3, population=10, skills=skills, check="cheap").result == "honest"
                   for seed in range(12))
    assert wins(Skills(2, 0)) > wins(Skills(0, 0))
