"""The vote record in Chromium (issue 11, B1; review M2, M3): two residents' browsers.

Cast: the Procurator «vprok», the Tribune «vtrib», residents olga, petr, roma, sveta, timur2
in Лепроград (one city, so no Court: EX-12). On Day 2 olga nominates roma and petr
nominates sveta; the vote runs 20:00–23:30 MSK. petr presses «казнить» for roma in his
browser: he sees his vote confirmed and the button pressed; sveta, watching the same voting
inbox in hers, sees the timestamped line and the tally change live (EXEC-18). At 23:30 the
vote closes and the count appears live in sveta's city inbox (EXEC-14). Screenshots at
1280×800 and 390×844 in Russian and English go to var/screenshots/ (not committed).
"""

from __future__ import annotations

from datetime import datetime
from pathlib import Path
from typing import Any
from urllib.parse import quote

from lepromafia.engine.calendar import MOSCOW

from .conftest import Hosts, LiveServer, login

GAME = "vote-record"
CITY = "Лепроград"
RESIDENTS = ("olga", "petr", "roma", "sveta", "timur2")
SHOTS = Path(__file__).resolve().parents[2] / "var" / "screenshots"
SIZES = ((1280, 800), (390, 844))


def at(day: int, hh: int, mm: int = 0, ss: int = 0) -> datetime:
    return datetime(2026, 12, day, hh, mm, ss, tzinfo=MOSCOW)


def start_game(live: LiveServer) -> None:
    live.start_one_city_game(GAME, "Вечер в Лепрограде", CITY, RESIDENTS,
                             hosts=Hosts("vprok", "vkons", "varb", "vtrib"))
    live.advance_to(at(2, 10, 1), GAME, until=lambda s: s.day == 2)


def shoot(page: Any, url: str, name: str, ready: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    for lang in ("ru", "en"):
        for width, height in SIZES:
            page.set_viewport_size({"width": width, "height": height})
            page.goto(f"{url}{'&' if '?' in url else '?'}lang={lang}")
            page.wait_for_selector(ready)
            page.screenshot(path=str(SHOTS / f"{name}-{lang}-{width}.png"))


def test_a_vote_appears_live_in_another_browser_and_the_count_after_the_close(
        live: LiveServer, browser: Any) -> None:
    start_game(live)
    live.command("olga", GAME, "Nominate", candidate="roma")
    live.command("petr", GAME, "Nominate", candidate="sveta")
    state = live.advance_to(at(2, 20, 1), GAME, until=lambda s: s.cities[CITY].voting is not None)
    box = state.current[f"voting:{CITY}/roma"]
    live.command("timur2", GAME, "PostMessage", inbox=box, text="казнить")
    live.command("olga", GAME, "PostMessage", inbox=state.current[f"voting:{CITY}/sveta"], text="казнить")
    live.clock.set(at(2, 20, 5, 12))

    voter = login(browser, live, "petr", width=1280)
    watcher = login(browser, live, "sveta", width=1280)
    for page in (voter, watcher):
        page.goto(f"{live.url}/games/{GAME}/inboxes/{box}")
        page.wait_for_selector("#live-status[data-state=open]")
    assert watcher.locator("[data-testid=vote-line]").count() == 1
    deadline = voter.locator("[data-testid=vote-deadline]").inner_text()
    assert deadline.startswith("Голосование закрывается через") and deadline.endswith("(23:30 МСК)")

    voter.click("button[data-testid=vote-button][value='казнить']")
    voter.wait_for_selector("[data-testid=vote-note]")
    assert voter.locator("[data-testid=vote-note]").inner_text() == "Ваш голос «казнить» за roma учтён — 2 голоса."
    assert voter.get_attribute("button[value='казнить']", "aria-pressed") == "true"
    assert voter.get_attribute("button[value='не казнить']", "aria-pressed") == "false"

    watcher.wait_for_function("() => document.querySelectorAll('[data-testid=vote-line]').length === 2",
                              timeout=10000)
    line = watcher.locator("[data-testid=vote-line]").nth(1).inner_text()
    assert "20:05:12" in line and "petr" in line and "«казнить»" in line and "2 голоса" in line
    watcher.wait_for_function(
        "() => document.querySelector('[data-candidate=roma] [data-testid=tally-count]')"
        "?.textContent.trim() === '2'", timeout=10000)
    shoot(voter, f"{live.url}/games/{GAME}/inboxes/{box}", "vote-inbox-voted", "[data-testid=vote-note]")

    city_box = state.current_inbox("city", CITY)
    watcher.set_viewport_size({"width": 1280, "height": 800})
    watcher.goto(f"{live.url}/games/{GAME}/inboxes/{city_box}")
    watcher.wait_for_selector("#live-status[data-state=open]")
    assert watcher.locator("[data-testid=vote-post]").count() == 0
    live.command("olga", GAME, "PostMessage", inbox=city_box, text="Голосуем за roma, он молчит весь день.")
    live.advance_to(at(2, 23, 30, 1), GAME, until=lambda s: s.cities[CITY].voting is None
                    or s.cities[CITY].voting.closed)
    watcher.wait_for_selector("[data-testid=vote-post]", timeout=10000)
    post = watcher.locator("[data-testid=vote-post]").inner_text()
    assert "Итоги голосования · Лепроград · День 2" in post
    assert "roma — 2 голоса: timur2, petr" in post and "Приговорён: roma" in post
    shoot(watcher, f"{live.url}/games/{GAME}/inboxes/{city_box}", "vote-count-city-inbox",
          "[data-testid=vote-post]")
    shoot(watcher, f"{live.url}/games/{GAME}/inboxes/{box}", "vote-inbox-closed", "[data-testid=vote-count]")

    anonymous = browser.new_context(locale="ru-RU").new_page()
    day_page = f"{live.url}/games/{GAME}/votes/{quote(CITY)}/2"
    anonymous.goto(day_page)
    assert "petr" in anonymous.locator("[data-testid=vc-log]").inner_text()
    shoot(anonymous, day_page, "votes-page", "[data-testid=vc-log]")
    anonymous.emulate_media(media="print")
    anonymous.set_viewport_size({"width": 1280, "height": 800})
    anonymous.goto(day_page)
    assert not anonymous.locator("nav.gamenav").is_visible(), "print CSS hides the navigation"
    anonymous.screenshot(path=str(SHOTS / "votes-page-print.png"), full_page=True)
    for page in (voter, watcher, anonymous):
        page.context.close()
