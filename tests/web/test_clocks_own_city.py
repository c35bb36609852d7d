"""The game page's clocks: a resident reads his own city's deadlines and the game's, not every
city's (review M2: a Лепроград player read six vote rows); hosts and visitors read them all.

Cast and day as in ``test_vote_record``: Day 2, 20:05 — Лепроград votes on p01_01 and p01_05;
Лепросицилия has nobody nominated.
"""

from __future__ import annotations

from .conftest import Api, small_cast
from .test_vote_record import day_two, section


def test_a_resident_reads_his_city_s_clocks_and_a_visitor_every_city_s(api: Api) -> None:
    day_two(api)
    s = api.state("g")
    keyed = {c for c in s.cities if any(c in key for key in s.deadlines)}
    assert len(keyed) == 2, s.deadlines
    mine = section(api.get("p01_02", "/games/g").text, "clocks")
    theirs = section(api.get("p02_01", "/games/g").text, "clocks")
    everyone = section(api.get(None, "/games/g").text, "clocks")
    host = section(api.get(small_cast().procurator, "/games/g").text, "clocks")
    assert "Лепроград" in mine and "Лепросицилия" not in mine
    assert "Лепросицилия" in theirs and "Лепроград" not in theirs.replace("Лепросицилия", "")
    for seat in (everyone, host):
        assert "Лепроград" in seat and "Лепросицилия" in seat
