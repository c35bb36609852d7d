"""A player's day in Chromium, from the today panel (issue 11; review M1, M2, M4, M5, M6, m8).

Лепроград of six is started through the JSON API; the player «vera» (an honest resident)
keeps the game page open. On Day 1 the panel says when nominations come; at 10:00 on Day 2
the panel changes by itself (the WebSocket) to «Nominate…», whose link leads to the form;
her nomination is echoed with its deadline; at 20:01 the panel links today's voting inboxes.
Boris's three messages raise her menu badge and the tab title without a reload. On Day 5 the
inbox list is grouped by day: today's, Day 4's and Day 3's (the renewed city inboxes),
the archive (Day 2's voting inbox, the first city inbox). Screenshots at 1280×800 and 390×844, in Russian and English,
go to var/screenshots/ (not committed); on the phone the header and the game menu stay one
line each and the today panel starts above the fold.

Cast: the Procurator «prokurator», the Consigliere «konsil», the Arbiter «arbitr», the
Tribune «tribune1»; residents vera, boris, carol, dmitry, elena, fedor. Rules: START-1,
EXEC-3, EXEC-5, INBOX-CITY-1.
"""

from __future__ import annotations

import time
from datetime import datetime
from pathlib import Path
from typing import Any

import httpx

from lepromafia.engine.calendar import MOSCOW

from .conftest import PASSWORD, LiveServer

GAME = "today-game"
CITY = "Лепроград"
RESIDENTS = ("vera", "boris", "carol", "dmitry", "elena", "fedor")
REQUIREMENTS = ["active", "rules_read", "voice_contact", "no_insults", "omerta"]
SIZES = {"desktop": (1280, 800), "phone": (390, 844)}
SHOTS = Path(__file__).resolve().parents[2] / "var" / "screenshots"


def at(day: int, hh: int, mm: int = 0) -> datetime:
    return datetime(2026, 12, day, hh, mm, tzinfo=MOSCOW)


def api(live: LiveServer, user: str, path: str, body: dict[str, Any] | None = None) -> None:
    """The JSON API, patient with a busy machine (the pages' live refreshes share the server)."""
    r = httpx.post(f"{live.url}/api{path}", timeout=120,
                   json={"command_id": f"t-{time.monotonic_ns()}", **(body or {})},
                   headers={"Authorization": f"Bearer {live.tokens[user]}"})
    assert r.status_code < 300, r.text


def command(live: LiveServer, actor: str, name: str, /, **fields: Any) -> None:
    api(live, actor, f"/games/{GAME}/commands/{name}", fields)


def started(live: LiveServer) -> tuple[str, str]:
    for user in ("prokurator", "konsil", "arbitr", "tribune1", *RESIDENTS):
        r = httpx.post(f"{live.url}/api/auth/register", json={"login": user, "password": PASSWORD},
                       timeout=120)  # argon2 on a busy machine
        assert r.status_code == 201, r.text
        live.tokens[user] = r.json()["token"]
    api(live, "prokurator", "/games", {"game_id": GAME, "title": "Лепромафия: один день",
                                       "settings": {"city_count": 1, "population_per_city": 6}})
    for office, host in (("consigliere", "konsil"), ("arbiter", "arbitr")):
        command(live, "prokurator", "AppointHost", office=office, user=host)
    for user in RESIDENTS:
        api(live, user, f"/games/{GAME}/signup", {"accepted": REQUIREMENTS, "contact": f"skype:{user}"})
    command(live, "prokurator", "FormCities",
            cities=[{"name": CITY, "tribune": "tribune1", "residents": list(RESIDENTS)}])
    api(live, "konsil", f"/games/{GAME}/random/seal-deal")
    api(live, "prokurator", f"/games/{GAME}/random/mafia-numbers", {"city": CITY})
    state = live.state(GAME)
    for user in RESIDENTS:
        if state.is_mafia(user):
            command(live, user, "AcknowledgeRole")
    command(live, "prokurator", "StartGame", first_day="2026-12-01")
    live.advance_to(at(1, 10, 5), GAME)
    honest = [u for u in RESIDENTS if not state.is_mafia(u)]
    return honest[0], honest[1]


def open_as(browser: Any, live: LiveServer, user: str, size: str = "desktop", lang: str = "ru") -> Any:
    width, height = SIZES[size]
    context = browser.new_context(viewport={"width": width, "height": height}, locale="ru-RU",
                                  device_scale_factor=2 if size == "phone" else 1,
                                  is_mobile=size == "phone", has_touch=size == "phone")
    page = context.new_page()
    page.goto(f"{live.url}/login")
    page.fill("#login", user)
    page.fill("#password", PASSWORD)
    page.click("button[type=submit]")
    page.wait_for_url(f"{live.url}/")
    if lang != "ru":
        page.goto(f"{live.url}/lang/{lang}?next=/")
    return page


def shot(page: Any, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"{name}.png"))


def panel(page: Any) -> Any:
    return page.locator("[data-testid=today]")


def test_a_player_s_day_from_the_today_panel(live: LiveServer, browser: Any) -> None:
    player, other = started(live)
    vera = open_as(browser, live, player)
    vera.goto(f"{live.url}/games/{GAME}")
    vera.wait_for_selector("#live-status[data-state=open]")
    assert "Номинации — со Дня 2." in panel(vera).inner_text()
    assert "День 1" in panel(vera).inner_text()
    shot(vera, "today-day1-desktop-ru")

    # Day 2, 10:00: the panel changes by itself; its link leads to the nomination form.
    live.advance_to(at(2, 10, 0), GAME, until=lambda s: s.day == 2)
    vera.wait_for_selector("[data-testid=today] [data-kind=nominate]", timeout=10000)
    assert "до 20:00 МСК" in panel(vera).inner_text()
    vera.click("[data-testid=today] [data-kind=nominate] a")
    vera.wait_for_url(f"**/games/{GAME}/role#nominate")
    assert vera.locator("#nom").input_value() == ""  # «— выберите —», nobody preselected
    vera.select_option("#nom", other)
    vera.click("[data-testid=nominate-form] button[type=submit]")
    vera.wait_for_selector("[data-testid=flash]")
    assert f"Ваша номинация: {other} (можно заменить до 20:00 МСК)" in vera.inner_text("[data-testid=flash]")

    # 20:01: today's voting inbox is one click away, with the close as clock time.
    vera.goto(f"{live.url}/games/{GAME}")
    vera.wait_for_selector("#live-status[data-state=open]")
    live.advance_to(at(2, 20, 1), GAME, until=lambda s: s.cities[CITY].voting is not None)
    vera.wait_for_selector("[data-testid=today] [data-kind=vote] a.chip", timeout=10000)
    assert "до 23:30 МСК" in panel(vera).inner_text()
    shot(vera, "today-vote-desktop-ru")

    # Boris writes three messages: the menu badge and the tab title follow without a reload.
    before = int(vera.get_attribute("[data-unread-total]", "data-unread-total") or 0)
    city_inbox = live.state(GAME).current[f"city:{CITY}"]
    for text in ("Раз", "Два", "Три"):
        command(live, "boris" if player != "boris" else "carol", "PostMessage", inbox=city_inbox, text=text)
    vera.wait_for_function(f"() => document.title.startsWith('({before + 3}) ')", timeout=10000)
    assert vera.inner_text("[data-testid=unread-total]") == str(before + 3)

    # Days 3–5 pass quietly (each renews the city inbox): the inbox list groups by day.
    for day in (3, 4, 5):
        live.advance_to(at(day, 10, 0), GAME, until=lambda s, d=day: s.day == d)
    vera.goto(f"{live.url}/games/{GAME}/inboxes")
    today_group = vera.locator("[data-testid=inbox-group-today]")
    assert "Сегодня · День 5" in today_group.inner_text()
    day4 = vera.locator("[data-testid=inbox-group-day-4]")
    assert day4.count() == 1 and day4.get_attribute("open") is None  # collapsed
    assert vera.locator("[data-testid=inbox-group-archive]").count() == 1
    day4.locator("summary").click()
    assert "День 4" in day4.inner_text()
    shot(vera, "inboxes-day5-desktop-ru")

    # Every size and language: the phone keeps the header on one line, the panel above the fold.
    for size in SIZES:
        for lang in ("ru", "en"):
            page = open_as(browser, live, player, size, lang)
            page.goto(f"{live.url}/games/{GAME}")
            shot(page, f"game-day5-{size}-{lang}")
            if size == "phone":
                top = page.locator(".topbar").bounding_box()
                nav = page.locator(".gamenav").bounding_box()
                box = panel(page).bounding_box()
                assert top and nav and box
                assert top["height"] < 56 and nav["height"] < 48, (top, nav)
                assert box["y"] < 300, box
            page.goto(f"{live.url}/games/{GAME}/inboxes")
            shot(page, f"inboxes-day5-{size}-{lang}")
            page.goto(f"{live.url}/games/{GAME}/role")
            shot(page, f"role-day5-{size}-{lang}")
            page.context.close()
    vera.context.close()
