"""Live regions in Chromium: an event re-fetches only the regions that show it (issue 9, item 7).

Cast: the Procurator «prokurator2», the Tribune «tribune2», residents anna, boris2, vera,
gleb, dina in Лепроград. On Day 2 the vote on gleb is open; vera watches its voting inbox.
A city chat message reaches her socket and re-fetches nothing; boris2's «казнить»
re-fetches the tally and the inbox's keyword log, which show it (EXEC-5, EXEC-18,
INBOX-VOTE-1). Screenshots of the
watched inbox in Russian and English, 1280×800 and 390×844.
"""

from __future__ import annotations

import time
from datetime import datetime
from typing import Any

from lepromafia.engine.calendar import MOSCOW

from .conftest import Hosts, LiveServer, login

GAME = "live-regions"
CITY = "Лепроград"
RESIDENTS = ("anna", "boris2", "vera", "gleb", "dina")


def at(day: int, hh: int, mm: int = 0) -> datetime:
    return datetime(2026, 12, day, hh, mm, tzinfo=MOSCOW)


def test_a_vote_refreshes_the_tally_and_the_log_and_chat_refreshes_nothing(live: LiveServer, browser: Any,
                                                                     shots: Any) -> None:
    live.start_one_city_game(GAME, "Живые области", CITY, RESIDENTS,
                             hosts=Hosts("prokurator2", "konsil2", "arbitr2", "tribune2"))
    live.advance_to(at(2, 10, 1), GAME, until=lambda s: s.day == 2)
    candidate, voter, watcher = "gleb", "boris2", "vera"
    live.command("anna", GAME, "Nominate", candidate=candidate)
    state = live.advance_to(at(2, 20, 1), GAME, until=lambda s: s.cities[CITY].voting is not None)
    box = state.current[f"voting:{CITY}/{candidate}"]

    page = login(browser, live, watcher, width=1280)
    page.set_viewport_size({"width": 1280, "height": 800})
    fetched: list[str] = []
    page.on("request", lambda r: fetched.append(r.url) if r.url.endswith(("/part", "/tally")) else None)
    page.goto(f"{live.url}/games/{GAME}/inboxes/{box}")
    page.wait_for_selector("#live-status[data-state=open]")
    time.sleep(0.5)
    fetched.clear()
    seq = live.position(GAME, watcher)
    live.command("anna", GAME, "PostMessage", inbox=state.current_inbox("city", CITY), text="Кто за?")
    page.wait_for_function(f"() => window.lepromafiaLive.lastSeq() >= {seq + 1}", timeout=10000)
    time.sleep(0.6)  # past live.js's 150 ms debounce
    assert fetched == [], fetched
    live.command(voter, GAME, "PostMessage", inbox=box, text="казнить")
    page.wait_for_function("() => document.querySelector('[data-testid=tally-count]')?.textContent.trim() === '1'",
                           timeout=10000)
    time.sleep(0.6)
    assert sorted(u.rsplit("/", 1)[-1] for u in fetched) == ["part", "tally"], fetched
    for lang in ("ru", "en"):
        for width, height in ((1280, 800), (390, 844)):
            page.set_viewport_size({"width": width, "height": height})
            page.goto(f"{live.url}/games/{GAME}/inboxes/{box}?lang={lang}")
            page.wait_for_selector("[data-testid=tally]")
            page.screenshot(path=str(shots / f"live-regions-voting-inbox-{lang}-{width}.png"), full_page=True)
