"""A newcomer plays Day 2 of the web demo from the today panel, the README's path (issue 11,
"Done when"; review M2, M3, M4, M5, B1).

The demo as ``lepromafia serve --demo`` makes it (``cli.demo_serve``: the cast, the accounts
with the password ``demo-lepromafia``, the game «Демо: идёт игра», the Procurator's 06:00
mornings); no bot moves here, so what happens on Day 2 is the newcomer's doing. She opens the
home page, logs in as «demo» through the form, opens the running demo game and, without the
rules page, follows the today panel: on Day 2 it sends her to nominate (the form starts at
«— выберите —», the nomination is echoed with its deadline); at 15:30 it links the voting inbox,
where «казнить» is confirmed in words; at the close the vote count is in the city inbox, and
Day 3's Day Post reports the vote. Screenshots of the today panel at 1280×800 and 390×844, in
Russian and English, go to var/screenshots/ (not committed).

Cast: ``live_cast()`` — Лепроград (demo, p1_02 … p1_08), Глюкоград, Баянск; the Procurator
«procurator». Rules: START-1, EXEC-3, EXEC-5, EXEC-9, EXEC-14.
"""

from __future__ import annotations

import asyncio
import random
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from playwright.sync_api import expect

from lepromafia.cli import demo_serve
from lepromafia.cli.demo_serve import DEMO_PASSWORD, HUMAN_SEAT, live_cast, live_id
from lepromafia.engine.calendar import MOSCOW

from .conftest import HTTP_TIMEOUT, LiveServer

GAME = live_id(1)
CITY = "Лепроград"
SHOTS = Path(__file__).resolve().parents[2] / "var" / "screenshots"
SIZES = {"desktop": (1280, 800), "phone": (390, 844)}
WAIT = HTTP_TIMEOUT * 1000
"""How long an expectation waits for the page (ms): Playwright's 5 s is short under load."""


def run(live: LiveServer, coro: Any) -> Any:
    """A coroutine on the server's loop (the demo's own set-up functions)."""
    return asyncio.run_coroutine_threadsafe(coro, live._loop()).result(HTTP_TIMEOUT)


def demo_game(live: LiveServer) -> None:
    web = live.app.state.web
    run(live, demo_serve._accounts(web, live_cast(), GAME))
    run(live, demo_serve._new_live_game(web, GAME, 1, random.Random(11)))


def at(day: int, hh: int, mm: int = 0) -> datetime:
    """Day 1 is the day the demo game was created (the clock starts on 30 November)."""
    return datetime(2026, 11, 30, hh, mm, tzinfo=MOSCOW) + timedelta(days=day - 1)


def mornings(live: LiveServer) -> None:
    run(live, demo_serve._mornings(live.app.state.web, GAME, live_cast().procurator))


def newcomer(browser: Any, live: LiveServer, size: str = "desktop", lang: str = "ru") -> Any:
    """The README's path: the home page, «Войти», demo / demo-lepromafia."""
    width, height = SIZES[size]
    context = browser.new_context(viewport={"width": width, "height": height}, locale="ru-RU",
                                  device_scale_factor=2 if size == "phone" else 1,
                                  is_mobile=size == "phone", has_touch=size == "phone")
    page = context.new_page()
    page.goto(f"{live.url}/")
    page.click("header .topnav a[href^='/login']")
    page.fill("#login", HUMAN_SEAT)
    page.fill("#password", DEMO_PASSWORD)
    page.click("main button[type=submit]")
    page.wait_for_url(f"{live.url}/")
    if lang != "ru":
        page.goto(f"{live.url}/lang/{lang}?next=/")
    return page


def panel(page: Any) -> Any:
    return page.locator("[data-testid=today]")


def shot(page: Any, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"{name}.png"))


def shots_of_the_panel(browser: Any, live: LiveServer, moment: str) -> None:
    for size in SIZES:
        for lang in ("ru", "en"):
            page = newcomer(browser, live, size, lang)
            page.goto(f"{live.url}/games/{GAME}")
            panel(page).wait_for()
            shot(page, f"demo-{moment}-{size}-{lang}")
            if size == "phone":
                box = panel(page).bounding_box()
                assert box and box["y"] < 300, box  # the panel starts above the fold
            page.context.close()


def test_a_newcomer_plays_day_2_of_the_demo_from_the_today_panel(live: LiveServer, browser: Any) -> None:
    demo_game(live)
    live.advance_to(at(1, 12, 5), GAME, until=lambda s: s.day == 1)
    mornings(live)  # Day 2 starts at 06:00 (TIME-4)
    me = newcomer(browser, live)
    me.click("[data-testid=game-card] a[href='/games/demo-live']")
    me.wait_for_url(f"**/games/{GAME}")
    assert "Номинации — со Дня 2." in panel(me).inner_text()

    # Day 2, 06:00: the panel says to nominate, and by when; its link leads to the form.
    live.advance_to(at(2, 6, 1), GAME, until=lambda s: s.day == 2)
    mornings(live)
    me.goto(f"{live.url}/games/{GAME}")
    nominate = me.locator("[data-testid=today] [data-kind=nominate]")
    assert "до 15:30 МСК" in nominate.inner_text()
    shots_of_the_panel(browser, live, "day2-nominate")
    nominate.locator("a").first.click()
    me.wait_for_url(f"**/games/{GAME}/role#nominate")
    assert me.locator("#nom").input_value() == ""  # «— выберите —»: nobody preselected
    candidate = next(u for u in live.state(GAME).living(CITY) if u != HUMAN_SEAT)
    me.select_option("#nom", candidate)
    me.click("[data-testid=nominate-form] button[type=submit]")
    expect(me.locator("[data-testid=flash]")).to_contain_text(
        f"Ваша номинация: {candidate} (можно заменить до 15:30 МСК)", timeout=WAIT)

    # 15:30: the vote opens; the panel links the candidate's voting inbox with the close.
    live.advance_to(at(2, 15, 31), GAME, until=lambda s: s.cities[CITY].voting is not None)
    me.goto(f"{live.url}/games/{GAME}")
    vote = me.locator("[data-testid=today] [data-kind=vote]")
    assert "до 23:50 МСК" in vote.inner_text()
    shots_of_the_panel(browser, live, "day2-vote")
    vote.locator("a.chip").first.click()
    me.wait_for_url(f"**/games/{GAME}/inboxes/**")
    me.click("button[data-testid=vote-button][value='казнить']")
    voted = f"Ваш голос «казнить» за {candidate} учтён — 1 голос."
    expect(me.locator("[data-testid=vote-note]")).to_have_text(voted, timeout=WAIT)
    expect(me.locator("button[data-testid=vote-button][value='казнить']")).to_have_attribute("aria-pressed", "true", timeout=WAIT)
    shot(me, "demo-day2-voted-desktop-ru")
    vote_inbox = me.url

    # A typo is refused beside the composer, in view, the text kept (review M9). On a page
    # drawn after the vote and subscribed: the vote's own WebSocket echo, if it beat the
    # htmx answer, re-fetches the inbox once (static/js/live.js), which would wipe a refusal
    # shown meanwhile (the flake seen under load).
    me.goto(vote_inbox)
    expect(me.locator("#live-status")).to_have_attribute("data-state", "open", timeout=WAIT)
    expect(me.locator("[data-testid=vote-note]")).to_have_text(voted, timeout=WAIT)
    me.fill("#text", "казнитъ")
    me.click("[data-testid=composer] button[type=submit]")
    error = me.locator("[data-testid=field-error]")
    expect(error).to_be_visible(timeout=WAIT)
    assert "казнить" in error.inner_text() and "keyword" not in error.inner_text()
    expect(me.locator("#text")).to_have_value("казнитъ", timeout=WAIT)
    box = error.bounding_box()
    assert box and 0 <= box["y"] < 800, box

    # On a phone the vote buttons and the confirmation are above the fold (review m8).
    phone = newcomer(browser, live, "phone")
    phone.goto(vote_inbox)
    button = phone.locator("button[data-testid=vote-button][value='казнить']").bounding_box()
    note = phone.locator("[data-testid=vote-note]").bounding_box()
    assert button and note and button["y"] + button["height"] < 844 and note["y"] < 844, (button, note)
    shot(phone, "demo-day2-voted-phone-ru")
    phone.context.close()

    # 23:50: the count is posted in the city inbox; Day 3's Day Post reports it.
    live.advance_to(at(2, 23, 51), GAME, until=lambda s: s.cities[CITY].voting is None
                    or s.cities[CITY].voting.closed)
    city_box = live.state(GAME).current_inbox("city", CITY)
    me.goto(f"{live.url}/games/{GAME}/inboxes/{city_box}")
    post = me.locator("[data-testid=vote-post]").inner_text()
    assert f"{candidate} — 1 голос: {HUMAN_SEAT}" in post and f"Приговорён: {candidate}" in post
    live.advance_to(at(3, 6, 1), GAME, until=lambda s: s.day == 3)
    me.goto(f"{live.url}/games/{GAME}")
    day3 = me.locator("#daypost-3 [data-testid=daypost-city-votes][data-city='Лепроград']")
    assert f"{candidate} — 1 голос: {HUMAN_SEAT}" in day3.inner_text()
    assert f"Приговорён: {candidate}" in day3.inner_text()
    day3.scroll_into_view_if_needed()
    shot(me, "demo-day3-daypost-desktop-ru")
    me.context.close()
