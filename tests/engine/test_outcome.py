"""Victory per city and overall (WIN-1, WIN-2, WIN-3, WIN-4, WIN-5, CITY-6, CITY-7), and the archives opening."""

from dataclasses import replace
from datetime import datetime

import pytest

from lepromafia.engine import events as ev
from lepromafia.engine.commands import DeclareKill, Nominate, VoteGodfather
from lepromafia.engine.deal import verify
from lepromafia.engine.errors import ErrorCode
from lepromafia.engine.rules.outcome import overall, winning_mafia
from lepromafia.engine.settings import GameSettings
from lepromafia.engine.state import Outcome

from .cast import CONSIGLIERE, Game, when


def scoreboard(results, **settings):
    """A state whose cities are decided as given ('m', 'h', 'd', or '.' for playing)."""
    g = Game({f"C{i}": "a b c d e".replace(" ", f"{i} ") + f"{i}" for i in range(len(results))}).form()
    codes = {"m": Outcome.MAFIA, "h": Outcome.HONEST, "d": Outcome.DRAW, ".": None}
    pairs = zip(g.state.cities.items(), results, strict=True)
    cities = {n: replace(c, decided=codes[r]) for (n, c), r in pairs}
    return replace(g.state, cities=cities, settings=GameSettings(city_count=len(results), **settings))


@pytest.mark.parametrize(
    ("results", "expected"),
    [
        ("mmm..", Outcome.MAFIA),  # EX-37: 3 of 5
        ("mmhh", Outcome.HONEST),  # EX-37: an even split goes to the honest side
        ("hh..", Outcome.HONEST),  # WIN-5: 2 honest of 4 fixes it early
        ("mm..", None),
        ("m", Outcome.MAFIA),
        ("d", Outcome.HONEST),  # WIN-4: a draw city is not a mafia win
        ("mdh", Outcome.HONEST),
    ],
)
def test_the_mafia_wins_only_more_than_half_of_the_cities(results, expected):
    """WIN-1, WIN-4, WIN-5, EX-37, CITY-7."""
    assert overall(scoreboard(results)) is expected


@pytest.mark.parametrize(
    ("results", "expected"),
    [("mmhh", Outcome.DRAW), ("hhh.", Outcome.HONEST), ("mmh.", None), ("mhd", Outcome.DRAW)],
)
def test_the_even_split_house_rule_makes_draws(results, expected):
    """WIN-4: even_split_result = draw."""
    assert overall(scoreboard(results, even_split_result="draw")) is expected


def test_the_winning_mafia_has_most_living_mafiosi_then_the_later_last_loss():
    """WIN-2 (AMB-32), EX-38: A 2 (last loss Night 5), B 2 (Day 7), C 1, D 0 → B."""
    g = Game({c: " ".join(f"{c.lower()}{i}" for i in range(1, 11)) for c in "ABCD"},
             mafia={c: f"{c.lower()}1 {c.lower()}2" for c in "ABCD"}).deal()
    s = g.state
    residents = dict(s.residents)
    for user in ("c2", "d1", "d2"):
        residents[user] = replace(residents[user], alive=False)
    deaths = {"A": datetime(2026, 12, 6, 10, 0), "B": datetime(2026, 12, 7, 23, 30),
              "C": datetime(2026, 12, 3, 10), "D": datetime(2026, 12, 4, 10)}
    cities = {n: replace(c, last_mafia_death_at=deaths[n].astimezone()) for n, c in s.cities.items()}
    state = replace(s, residents=residents, cities=cities)
    assert winning_mafia(state) == ("B",)
    spotless = replace(state, cities={**cities, "A": replace(cities["A"], last_mafia_death_at=None)})
    assert winning_mafia(spotless) == ("A",)  # no losses ranks above any loss


def test_a_city_is_decided_when_one_side_is_eliminated_and_stops():
    """WIN-3 (AMB-2), WIN-5, CITY-6: the last mafioso executed → an honest city; nothing more happens."""
    g = Game({"A": "a1 a2 a3 a4 a5", "B": "b1 b2 b3 b4 b5"}, mafia={"A": "a1", "B": "b1"}).start()
    g.to(2, "10:00")
    g.do(Nominate(actor="a2", candidate="a1"), 2, "12:00")
    g.to(2, "23:30")
    (decided,) = g.events_of(ev.CityDecided)
    assert (decided.city, decided.outcome) == ("A", "honest") and decided.audience.public
    g.to(3, "10:00")
    g.reject(Nominate(actor="a2", candidate="a3"), when(3, "12:00"), ErrorCode.CITY_DECIDED)
    assert "vote_open:A:3" not in g.state.deadlines


def test_the_game_ends_when_the_result_is_fixed_and_every_city_is_decided():
    """WIN-5, §9.4, RANDOM-5: at the end factions, the Consigliere and the lists open."""
    g = Game({"A": "a1 a2 a3 a4 a5"}, mafia={"A": "a1"}).start()
    g.to(2, "10:00")
    g.do(Nominate(actor="a2", candidate="a1"), 2, "12:00")
    g.to(2, "23:30")
    (fixed,) = g.events_of(ev.GameResultFixed)
    (ended,) = g.events_of(ev.GameEnded)
    assert fixed.result == ended.result == "honest"
    assert ended.audience.public and ended.consigliere == CONSIGLIERE
    assert dict(ended.factions)["a1"] == "mafia"
    assert verify(dict(ended.deal_lists), ended.deal_salt, ended.commitment)
    assert g.state.deadlines == {}


def test_both_sides_eliminated_in_one_step_is_a_draw_city():
    """WIN-3, EX-39: B's mafia kills B's last honest; A's touring mafia kills B's last mafioso."""
    g = Game({"A": "a1 a2 a3 a4 a5", "B": "b1 b2 b3 b4 b5 b6 b7 b8 b9 b10"},
             mafia={"A": "a1", "B": "b1 b2"}).start()
    s = g.state
    residents = dict(s.residents)
    for user in ("b3", "b4", "b5", "b6", "b7", "b8", "b9", "b2"):
        residents[user] = replace(residents[user], alive=False)
    g.table.state = replace(s, residents=residents)
    g.to_night(1, "01:00")
    g.at_night(VoteGodfather(actor="a1", candidate="a1"), 1, "01:00")
    g.at_night(VoteGodfather(actor="b1", candidate="b1"), 1, "01:00")
    g.to_night(2, "01:00")
    assert g.state.touring_city == "A"
    g.at_night(DeclareKill(actor="a1", target="b1", tour=True), 2, "01:00")
    g.at_night(DeclareKill(actor="b1", target="b10"), 2, "01:00")
    g.to(3, "10:00")
    decided = {e.city: e.outcome for e in g.events_of(ev.CityDecided)}
    assert decided == {"B": "draw"}
