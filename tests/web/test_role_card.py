"""The role card explains the role's day and night in two sentences (issue 11; review M4),
for each kind of seat, in both languages.

Cast: ``small_cast()`` — Лепроград p01_01 … p01_06 and Лепросицилия p02_01 … p02_06, dealt at
random; Day 1, 10:05. An honest resident, a mafioso (the Godfather is elected later, so none
yet, or he is it) and, once executed on Day 2, a dead resident read their cards. Rules: ROLE-CIT-1,
MAFIA-KILL-1 (kills from Night 2), START-1 (nominations from Day 2).
"""

from __future__ import annotations

import re
from html import unescape

from .conftest import Api, at, setup_game_via_api, small_cast

CAST = small_cast()
CITY = "Лепроград"


def explained(api: Api, user: str, lang: str = "ru") -> list[str]:
    page = api.get(user, "/games/g/role", lang=lang).text
    start = page.index('data-testid="role-explain"')
    block = page[start:page.index("</div>", start)]
    return [re.sub(r"\s+", " ", unescape(re.sub(r"<[^>]+>", "", p))).strip()
            for p in re.findall(r"<p>(.*?)</p>", block, re.S)]


def test_each_seat_reads_its_day_and_night_in_two_sentences(api: Api) -> None:
    setup_game_via_api(api, "g", CAST)
    api.advance_to(at(1, "10:05"))
    s = api.state("g")
    citizen = next(u for u in CAST.cities[CITY] if not s.is_mafia(u) and s.cities[CITY].commissar != u)
    mafioso = next(u for u in CAST.cities[CITY] if s.is_mafia(u))
    day, night = explained(api, citizen)
    assert day.startswith("Днём:") and "номинируйте" in day and "«казнить»" in day
    assert night.startswith("Ночью:") and "мафия может убить" in night
    day, night = explained(api, mafioso)
    assert day.startswith("Днём:") and "притворяетесь честным жителем" in day
    assert night.startswith("Ночью:") and "Ночи 2" in night
    english = explained(api, citizen, "en")
    assert english[0].startswith("By day:") and english[1].startswith("By night:")

    api.advance_to(at(2, "10:05"))
    api.ok(mafioso, "g", "Nominate", candidate=citizen)
    api.advance_to(at(2, "20:05"))
    box = api.state("g").current[f"voting:{CITY}/{citizen}"]
    for voter in [u for u in CAST.cities[CITY] if u != citizen][:3]:
        api.ok(voter, "g", "PostMessage", inbox=box, text="казнить")
    api.advance_to(at(3, "10:05"))
    assert not api.state("g").residents[citizen].alive
    (dead,) = explained(api, citizen)
    assert dead.startswith("Вы мертвы")
