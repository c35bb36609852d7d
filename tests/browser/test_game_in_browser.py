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

from .conftest import LiveServer, login, wait_live

GAME = "browser-game"
RESIDENTS = ("alice", "boris", "carol", "dmitry", "elena")
REQUIREMENTS = ["active", "rules_read", "voice_contact", "no_insults", "omerta"]


def at(day: int, hh: int, mm: int = 0) -> datetime:
    return datetime(2026, 12, day, hh, mm, tzinfo=MOSCOW)


def shot(page: Any, shots: Any, name: str) -> None:
    page.screenshot(path=str(shots / f"{name}.png"), full_page=True)


def test_a_game_day_cycle_live_in_three_browsers(live: LiveServer, browser: Any, shots: Any) -> None:
    for user in ("prokurator", "konsil", "arbitr", "tribune1", *RESIDENTS):
        live.register(user)
    live.api(
        "prokurator",
        "/games",
        {
            "game_id": GAME,
            "title": "Лепромафия: браузерная",
            "settings": {"city_count": 1, "population_per_city": 5},
        },
    )

    # The Procurator appoints the Consigliere from his console.
    proc = login(browser, live, "prokurator")
    proc.goto(f"{live.url}/games/{GAME}/console/procurator")
    proc.select_option("#ap-office", "consigliere")
    proc.fill("#ap-user", "konsil")
    proc.click("form[action$='/do/appoint'] button[type=submit]")
    proc.wait_for_selector("[data-testid=flash]")
    live.api("prokurator", f"/games/{GAME}/commands/AppointHost", {"office": "arbiter", "user": "arbitr"})

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
    proc.fill("#fc-name-1", "Лепроград")
    proc.fill("#fc-tribune-1", "tribune1")  # HOST-TRIB-1: no Tribune is preselected
    proc.fill("#fc-residents-1", ", ".join(RESIDENTS))
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
    proc.select_option("#st-day", "2026-12-01")
    proc.click("form[action$='/do/start'] button[type=submit]")
    proc.wait_for_selector("[data-testid=flash]")
    assert live.state(GAME).stage.value == "running"
    shot(proc, shots, "03-console-procurator")

    # START-1: Day 1 is set-up only; Day 2 brings nominations (EXEC-3) and the vote.
    live.advance_to(at(1, 10, 1), GAME)
    # COMM-APPT-1/2: the badge is offered to an honest resident, who accepts on his role card.
    commissar = next(u for u in ("carol", "alice") if u != mafioso)
    live.offer_to("prokurator", GAME, "Лепроград", commissar)
    comm = login(browser, live, commissar)
    comm.goto(f"{live.url}/games/{GAME}/role")
    comm.click("[data-testid=offer-accept]")
    comm.wait_for_selector("[data-testid=flash]")
    live.advance_to(at(2, 10, 1), GAME, until=lambda s: s.day == 2)
    honest = [u for u in RESIDENTS if u != mafioso]
    candidate = next(u for u in ("dmitry", "elena") if u != mafioso)
    alice.goto(f"{live.url}/games/{GAME}/role")
    shot(alice, shots, "04-role-card")
    alice.select_option("#nom", candidate)
    alice.click("[data-testid=nominate-form] button[type=submit]")
    alice.wait_for_selector("[data-testid=flash]")
    live.command("boris", GAME, "Nominate", candidate=candidate)
    state = live.advance_to(at(2, 20, 1), GAME, until=lambda s: s.cities["Лепроград"].voting is not None)
    box = state.current[f"voting:Лепроград/{candidate}"]

    # EXEC-5, INBOX-VOTE-1: two residents type «казнить»; carol watches the tally live.
    boris = login(browser, live, "boris")
    carol = login(browser, live, "carol", width=420)
    inbox_url = f"{live.url}/games/{GAME}/inboxes/{box}"
    for page in (alice, boris, carol):
        page.goto(inbox_url)
    carol.wait_for_selector("#live-status[data-state=open]")
    for page in (alice, boris):
        page.fill("#text", "казнить")
        page.click("[data-testid=composer] button[type=submit]")
    wait_live(carol, "() => document.querySelector('[data-testid=tally-count]')?.textContent.trim() === '2'",
              "carol's tally of two votes", server=lambda: live.state(GAME).cities["Лепроград"].voting)
    shot(carol, shots, "05-voting-inbox-mobile")
    # EXEC-8: a second «казнить» from alice is refused in words (the code stays an attribute).
    alice.fill("#text", "казнить")
    alice.click("[data-testid=composer] button[type=submit]")
    refusal = alice.wait_for_selector("[data-testid=error]")
    assert refusal.get_attribute("data-code") == "vote_already_active"
    assert "vote_already_active" not in refusal.inner_text() and "EXEC-8" not in refusal.inner_text()
    assert alice.input_value("#text") == "казнить"  # the input is kept
    shot(alice, shots, "06-voting-inbox-error")

    # Results: the vote closes, the candidate is executed, everyone sees it.
    state = live.advance_to(at(2, 23, 31), GAME, until=lambda s: not s.residents[candidate].alive)
    carol.reload()
    assert candidate in carol.inner_text("[data-testid=result]")

    # MAFIA-KILL-1: at night the mafioso kills; Day 3's Day Post reports it (POST-2).
    victim = next(u for u in honest if u not in (candidate, "carol", "alice"))
    live.advance_to(at(3, 2, 35), GAME, until=lambda s: s.checks_open)
    night = login(browser, live, mafioso)
    night.goto(f"{live.url}/games/{GAME}/role")
    night.select_option("#kill-target", victim)
    night.click("[data-testid=kill-form] button[type=submit]")
    night.wait_for_selector("[data-testid=flash]")
    assert victim in night.inner_text("[data-testid=declarations]")
    shot(night, shots, "10-mafia-night")
    # COMM-4: the commissar checks from a structured form; the answer lands in his log.
    comm.goto(f"{live.url}/games/{GAME}/role")
    comm.select_option("#chk", mafioso)
    comm.click("[data-testid=check-form] button[type=submit]")
    comm.wait_for_selector("[data-testid=check-log]")
    shot(comm, shots, "11-commissar-check")
    arb = login(browser, live, "arbitr")
    arb.goto(f"{live.url}/games/{GAME}/console/arbiter")
    shot(arb, shots, "12-console-arbiter")
    carol.goto(f"{live.url}/games/{GAME}")
    carol.wait_for_selector("#live-status[data-state=open]")
    live.advance_to(at(3, 10, 1), GAME, until=lambda s: s.day == 3)
    expected = victim
    carol.wait_for_function(
        f"() => document.querySelector('#posts').innerText.includes('{expected}')", timeout=10000
    )
    shot(carol, shots, "07-day-post")

    # A reconnect resumes from the last position of carol's own stream without gaps.
    city = live.state(GAME).current["city:Лепроград"]
    carol.goto(f"{live.url}/games/{GAME}/inboxes/{city}")
    carol.wait_for_selector("#live-status[data-state=open]")
    carol.evaluate("window.lepromafiaLive.drop()")
    live.command("alice", GAME, "PostMessage", inbox=city, text="Пока ты был офлайн")
    carol.wait_for_function(
        "() => document.querySelector('[data-testid=thread]').innerText.includes('Пока ты был офлайн')",
        timeout=10000,
    )
    mine = live.position(GAME, "carol")
    assert mine < live.version(GAME)  # her numbering counts only what she may see
    carol.wait_for_function(f"() => window.lepromafiaLive.lastSeq() === {mine}", timeout=10000)
    shot(carol, shots, "08-city-inbox")
    tribune = login(browser, live, "tribune1")
    tribune.goto(f"{live.url}/games/{GAME}/console/tribune")
    shot(tribune, shots, "09-console-tribune")
