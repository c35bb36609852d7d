"""The Day Post reports each city's vote (issue 11, B1; EXEC-9, EXEC-10, EXEC-14, COURT-7).

Cast as in ``test_vote_record``: Лепроград p01_01..p01_06, Лепросицилия p02_01..p02_06. Day 2's
vote in Лепроград: p01_03 «казнить» p01_01 at 20:05, p01_04 at 20:10, p01_03 «не казнить» at
20:20 and «казнить» again at 20:40, p01_06 «казнить» p01_05 at 21:00; p01_01 is condemned
with 2 votes and executed at 23:30 (no Court in a two-city game). Day 3's Day Post, read by
anyone, says so city by city.
"""

from __future__ import annotations

import re
from datetime import datetime
from types import SimpleNamespace
from typing import Any
from urllib.parse import unquote

from lepromafia.engine import events as ev
from lepromafia.engine.audience import Audience
from lepromafia.engine.calendar import MOSCOW
from lepromafia.web.i18n import ntranslate, translate
from lepromafia.web.pages.render import env, rule_link

from .conftest import Api, at
from .test_vote_record import CITY, cast_the_day, day_two, section, text_of


def day_post(api: Api, viewer: str | None, day: int, lang: str = "ru") -> str:
    page = api.get(viewer, "/games/g", lang=lang).text
    found = re.search(rf'<article[^>]*id="daypost-{day}".*?</article>', page, re.S)
    assert found is not None, f"no Day Post {day}"
    return found.group(0)


def test_the_day_post_gives_each_city_s_count_with_voters_in_order_and_the_execution(api: Api) -> None:
    """EXEC-9, EXEC-14, EXEC-16: Day 3's post, for a resident of the other city and for an
    anonymous visitor: p01_01's tally with his voters in the order of their counted vote,
    p01_03 as having changed his mind, the condemned first, p01_05 after him, the execution
    with the faction, and a link to the whole vote count. No lot was drawn."""
    cast_the_day(api)
    api.advance_to(at(3, "10:05"))
    for viewer in (None, "p02_01"):
        post = day_post(api, viewer, 3)
        city = section(post, "daypost-city-votes")
        assert city.startswith("Лепроград · День 2")
        tallies = re.findall(r'data-testid="daypost-tally" data-candidate="([^"]+)"', post)
        assert tallies == ["p01_01", "p01_05"], "in the order of the count: the condemned first"
        assert "p01_01 — 2 голоса: p01_04, p01_03 · Сменили мнение: p01_03" in city
        assert "p01_05 — 1 голос: p01_06" in city
        assert "Приговорён: p01_01" in city
        assert re.search(r"p01_01 казнён: он был (мафиози|честным жителем)\.", city)
        assert 'data-testid="daypost-lot"' not in post
        link = re.search(r'<a href="([^"]+)" data-testid="daypost-count-link"', post)
        assert link is not None and unquote(link.group(1)) == f"/games/g/votes/{CITY}/2"
        assert api.get(viewer, link.group(1)).status_code == 200
    english = text_of(day_post(api, None, 3, lang="en"))
    assert "p01_01 — 2 votes: p01_04, p01_03 · Changed their mind: p01_03" in english
    assert "Condemned: p01_01" in english


def test_a_tie_names_the_lot_it_was_drawn_among(api: Api) -> None:
    """EXEC-10: p01_03 votes for p01_01 and p01_04 for p01_05 in the same second; each has
    one vote cast at the same moment, so a logged lot picks the condemned. Day 3's post
    names the two the lot was drawn among, and the condemned is one of them."""
    box, other = day_two(api)
    api.ok("p01_03", "g", "PostMessage", inbox=box, text="казнить")
    api.ok("p01_04", "g", "PostMessage", inbox=other, text="казнить")
    api.advance_to(at(3, "10:05"))
    post = day_post(api, "p01_02", 3)
    assert section(post, "daypost-lot").startswith("Ничья: жребий тянули среди p01_01, p01_05.")
    condemned = section(post, "daypost-condemned")
    assert condemned in ("Приговорён: p01_01", "Приговорён: p01_05")
    english = text_of(day_post(api, None, 3, lang="en"))
    assert "A tie: the lot was drawn among p01_01, p01_05." in english


def test_a_court_verdict_stands_under_its_city_s_vote() -> None:
    """COURT-7, EXEC-17: a Day Post carrying a city's vote and the Court's verdict on it
    shows the verdict with its votes under that city, and the execution that followed;
    a verdict on an earlier day's vote is listed on its own."""
    at9 = datetime(2026, 12, 4, 10, 0, tzinfo=MOSCOW)
    tally = ev.Tally(candidate="gena", votes=3, last_vote_at=at9, voters=("ira", "kim", "lev"),
                     changed_minds=())
    post = ev.DayPostPublished(
        at=at9, audience=Audience(public=True), day=4, night_deaths=(),
        executions=(ev.DeathNotice(user="gena", city="Баянск", faction="mafia", cause="execution"),),
        no_execution=(), touring_city=None, decided=(),
        votes=(ev.VoteResult(city="Баянск", day=3, tallies=(tally,), condemned="gena",
                             ranking=("gena",)),),
        verdicts=(ev.VerdictNotice(city="Баянск", day=3, candidate="gena", pardoned=False,
                                   pardon_votes=1, no_pardon_votes=3),
                  ev.VerdictNotice(city="Лепроград", day=2, candidate="olya", pardoned=True,
                                   pardon_votes=3, no_pardon_votes=1)))
    html = render_day_post(post, "ru")
    city = section(html, "daypost-city-votes")
    assert "gena — 3 голоса: ira, kim, lev" in city
    assert "Суд не помиловал gena: 1 за, 3 против." in city
    assert section(html, "daypost-executed") == "gena казнён: он был мафиози."
    assert "olya" in section(html, "daypost-verdicts") and "olya" not in city
    english = text_of(render_day_post(post, "en"))
    assert "The Court did not pardon gena: 1 for, 3 against." in english


def render_day_post(post: Any, lang: str) -> str:
    """The Day Post partial as the game page renders it (its helpers in ``lang``)."""
    return env.get_template("partials/daypost.html").render(
        post=post, game=SimpleNamespace(id="g"), lang=lang,
        _=lambda msgid, **f: translate(lang, msgid, **f),
        ngettext=lambda s, p, n, **f: ntranslate(lang, s, p, n, **f),
        rule_link=lambda rule, anchor=None: rule_link(lang, rule, anchor),
        local=lambda dt: dt.astimezone(MOSCOW).strftime("%d.%m %H:%M"))


def test_the_city_header_counts_the_dead_mafiosi_and_puts_the_outcome_beside_the_name(api: Api) -> None:
    """Review m3, EXEC-16: after p01_01's execution the city's header still gives the deal's
    mafia count and, if he was a mafioso (his faction is announced), says one of them is
    dead; no city is decided yet, so no outcome stands next to any Tribune."""
    cast_the_day(api)
    s = api.state("g")
    mafioso = s.is_mafia("p01_01")
    page = api.get("p02_01", "/games/g").text
    counts = section(page, "city-counts")
    assert ("(из них погиб 1)" in counts) is mafioso, counts
    assert 'data-testid="city-outcome"' not in page
    english = section(api.get(None, "/games/g", lang="en").text, "city-counts")
    assert ("(1 of them dead)" in english) is mafioso, english
