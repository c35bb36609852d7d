"""The Tribune's console the morning after a vote (EXEC-14, EXEC-16), in Chromium at
1280×800 and 390×844, in Russian and English: under «The vote» he reads the previous day's
count — the condemned with his votes and voters, what followed, a link to the votes page —
with no critical or serious axe finding; the screenshots go to var/screenshots/.

Cast and game: ``test_today_browser.started`` — Лепроград of six, the Tribune «tribune1»;
on Day 2 two honest residents nominate and condemn a third.
"""

from __future__ import annotations

from typing import Any

from .conftest import PASSWORD, LiveServer
from .test_hosts_game import serious_axe_violations
from .test_today_browser import CITY, GAME, RESIDENTS, SIZES, at, command, shot, started


def test_the_tribune_reads_yesterday_s_count_on_his_console(live: LiveServer, browser: Any) -> None:
    first, second = started(live)
    state = live.state(GAME)
    candidate = next(u for u in RESIDENTS if u not in (first, second) and not state.is_mafia(u))
    live.advance_to(at(2, 10, 5), GAME)
    for nominator in (first, second):
        command(live, nominator, "Nominate", candidate=candidate)
    live.advance_to(at(2, 20, 1), GAME)
    box = live.state(GAME).current[f"voting:{CITY}/{candidate}"]
    for voter in (first, second):
        command(live, voter, "PostMessage", inbox=box, text="казнить")
    live.advance_to(at(2, 23, 31), GAME)
    live.advance_to(at(3, 10, 5), GAME)
    words = {"ru": ("Предыдущее голосование: День 2", "Приговорён"),
             "en": ("The previous vote: Day 2", "Condemned")}
    for lang, (title, condemned) in words.items():
        for size in ("desktop", "phone"):
            page = open_as(browser, live, "tribune1", size, lang)
            page.goto(f"{live.url}/games/{GAME}/console/tribune")
            section = page.locator("[data-testid=previous-vote]")
            section.scroll_into_view_if_needed()
            text = section.inner_text()
            assert title in text and condemned in text and candidate in text, text
            assert section.locator(f"a[href='/games/{GAME}/votes/{CITY}/2']").count() == 1
            assert serious_axe_violations(page) == [], (lang, size)
            shot(page, f"tribune-previous-vote-{lang}-{size}")
            page.screenshot(path=str(_full(f"tribune-console-day3-{lang}-{size}")), full_page=True)
            page.context.close()


def open_as(browser: Any, live: LiveServer, user: str, size: str, lang: str) -> Any:
    """``test_today_browser.open_as``, with the CSP bypassed for axe-core's injection."""
    width, height = SIZES[size]
    context = browser.new_context(viewport={"width": width, "height": height}, locale="ru-RU",
                                  device_scale_factor=2 if size == "phone" else 1,
                                  is_mobile=size == "phone", has_touch=size == "phone",
                                  bypass_csp=True)
    page = context.new_page()
    page.goto(f"{live.url}/login")
    page.fill("#login", user)
    page.fill("#password", PASSWORD)
    page.click("button[type=submit]")
    page.wait_for_url(f"{live.url}/")
    if lang != "ru":
        page.goto(f"{live.url}/lang/{lang}?next=/")
    return page


def _full(name: str) -> Any:
    from .test_today_browser import SHOTS

    SHOTS.mkdir(parents=True, exist_ok=True)
    return SHOTS / f"{name}.png"
