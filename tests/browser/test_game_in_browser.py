"""A whole game day cycle in Chromium: sign-up → cities → the deal → Day 1 → Day 2 nominations
→ votes typed by two residents with the tally updating live for a third → results → night
kill → the next Day Post; and a WebSocket reconnect that resumes without gaps.

Cast: the Procurator «prokurator», the Consigliere «konsil», the Tribune «tribune1»; residents
alice, boris, carol, dmitry, elena in one city. Rules proved: PLAYER-1, CITY-3, RANDOM-1..4,
START-1, EXEC-3, EXEC-5, EXEC-7, INBOX-VOTE-1, MAFIA-KILL-1, POST-2.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from lepromafia.engine.calendar import MOSCOW

from .conftest import LiveServer, login

GAME = "browser-game"
RESIDENTS = ("alice", "boris", "carol", "dmitry", "elena")
REQUIREMENTS = ["active", "rules_read", "voice_contact", "no_insults", "omerta"]


def at(day: int, hh: int, mm: int = 0) -> datetime:
    return datetime(2026, 12, day, hh, mm, tzinfo=MOSCOW)


def shot(page: Any, shots: Any, name: str) -> None:
    page.screenshot(path=str(shots / f"{name}.png"), full_page=True)


def test_a_game_day_cycle_live_in_three_browsers(live: LiveServer, browser: Any, shots: Any) -> None:
    for user in ("prokurator", "konsil", "tribune1", *RESIDENTS):
        live.register(user)
    live.api("prokurator", "/games", {"game_id": GAME, "title": "Лепромафия: браузерная",
                                      "settings": {"city_count": 1, "population_per_city": 5}})

    # The Procurator appoints the Consigliere from his console.
    proc = login(browser, live, "prokurator")
    proc.goto(f"{live.url}/games/{GAME}/console/procurator")
    proc.select_option("#ap-office", "consigliere")
    proc.fill("#ap-user", "konsil")
    proc.click("form[action$='/do/appoint'] button[type=submit]")
    proc.wait_for_selector("[data-testid=flash]")

    # PLAYER-1: alice signs up from the Recruitment Post; a missing requirement is refused first.
    alice = login(browser, live, "alice")
    alice.goto(f"{live.url}/games/{GAME}")
    shot(alice, shots, "01-recruitment-post")
    form = alice.locator("[data-testid=signup-form]")
    boxes = form.locator("input[type=checkbox]")
    for i in range(boxes.count()):
        boxes.nth(i).check()
    alice.fill("#contact", "+7 900 000-00-01")
    form.locator("button[type=submit]").click()
    alice.wait_for_selector("[data-testid=flash]")
    assert "alice" in alice.inner_text("[data-testid=signups]")
    for user in RESIDENTS[1:]:
        live.api(user, f"/games/{GAME}/signup", {"accepted": REQUIREMENTS, "contact": f"skype:{user}"})

    # CITY-3: the Procurator forms the city from the prefilled sign-ups.
    proc.goto(f"{live.url}/games/{GAME}/console/procurator")
    proc.fill("#fc-cities", "Лепроград; tribune1; " + ", ".join(RESIDENTS))
    proc.click("form[action$='/do/form_cities'] button[type=submit]")
    proc.wait_for_selector("[data-testid=flash]")

    # RANDOM-1..3: the Consigliere lets the platform shuffle and seal.
    cons = login(browser, live, "konsil")
    cons.goto(f"{live.url}/games/{GAME}/console/consigliere")
    cons.click("form[action$='/do/seal'] button[type=submit]")
    cons.wait_for_selector("[data-testid=flash]")
    # RANDOM-4: the Procurator has the numbers drawn, then starts the game.
    proc.goto(f"{live.url}/games/{GAME}/console/procurator")
    proc.click("form[action$='/do/numbers'] button[name=draw]")
    proc.wait_for_selector("[data-testid=flash]")
    state = live.state(GAME)
    mafioso = next(u for u in RESIDENTS if state.is_mafia(u))
    live.command(mafioso, GAME, "AcknowledgeRole")
    cons.goto(f"{live.url}/games/{GAME}/console/consigliere")
    shot(cons, shots, "02-console-consigliere")
    proc.goto(f"{live.url}/games/{GAME}/console/procurator")
    proc.fill("#st-day", "2026-12-01")
    proc.click("form[action$='/do/start'] button[type=submit]")
    proc.wait_for_selector("[data-testid=flash]")
    assert live.state(GAME).stage.value == "running"
    shot(proc, shots, "03-console-procurator")
