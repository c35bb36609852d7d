"""The Day Post and the end-of-game reveal in Chromium (issue 10: D13, D14, D15, D17, D18).

Лепроград of five is played to its end through the JSON API: on Day 2 one resident takes his
life, another is executed (a voter changed his mind); on Night 2 the mafioso kills the
commissar, who had checked him; on Day 3 the city is restored and its new deal turns the
survivor into the mafia, who kills the old mafioso on Night 4 — the game ends at dawn on
Day 5. Screenshots of the Day Posts and the reveal, Russian and English, 1280×800 and 390×844.

Cast: the Procurator «prokurator», the Consigliere «konsil», the Arbiter «arbitr», the
Tribune «tribune1»; residents alice, boris, carol, dmitry, elena (one of them dealt the mafia).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from lepromafia.engine.calendar import MOSCOW

from .conftest import LiveServer

GAME = "end-game"
CITY = "Лепроград"
RESIDENTS = ("alice", "boris", "carol", "dmitry", "elena")
SIZES = {"desktop": (1280, 800), "phone": (390, 844)}




def started(live: LiveServer) -> tuple[str, list[str]]:
    state = live.start_one_city_game(GAME, "Лепромафия: до конца", CITY, RESIDENTS)  # DIST-3
    mafioso = next(u for u in RESIDENTS if state.is_mafia(u))
    live.advance_to(datetime(2026, 12, 1, 10, 5, tzinfo=MOSCOW), GAME)
    return mafioso, [u for u in RESIDENTS if u != mafioso]


def vote(live: LiveServer, voter: str, candidate: str, text: str) -> None:
    box = live.state(GAME).current[f"voting:{CITY}/{candidate}"]
    live.command(voter, GAME, "PostMessage", inbox=box, text=text)


def played_to_the_end(live: LiveServer) -> tuple[str, list[str]]:
    m, (commissar, suicide, condemned, survivor) = started(live)
    live.offer_to("prokurator", GAME, CITY, commissar)
    live.command(commissar, GAME, "AnswerCommissarOffer", accept=True)
    live.advance_to(datetime(2026, 12, 2, 1, 0, tzinfo=MOSCOW), GAME)
    live.command(m, GAME, "VoteGodfather", candidate=m)
    live.advance_to(datetime(2026, 12, 2, 11, 0, tzinfo=MOSCOW), GAME)
    live.command(suicide, GAME, "DeclareSuicide")
    live.command(commissar, GAME, "Nominate", candidate=condemned)
    live.advance_to(datetime(2026, 12, 2, 20, 5, tzinfo=MOSCOW), GAME)
    vote(live, commissar, condemned, "казнить")
    vote(live, m, condemned, "Казнить!")
    vote(live, survivor, condemned, "казнить")
    vote(live, survivor, condemned, "не казнить")
    live.advance_to(datetime(2026, 12, 3, 1, 30, tzinfo=MOSCOW), GAME)
    live.command(m, GAME, "DeclareKill", target=commissar)
    live.command(commissar, GAME, "CheckResident", target=m)
    live.advance_to(datetime(2026, 12, 3, 11, 0, tzinfo=MOSCOW), GAME)
    live.command("prokurator", GAME, "ProposeRestoration", city=CITY, new_name="Новоград",
                 reason="утечка: в городе двое")
    live.command("konsil", GAME, "SignRestoration", city=CITY)
    live.command("tribune1", GAME, "SignRestoration", city=CITY)
    live.command("konsil", GAME, "SealRestorationList", city=CITY, order=[survivor, m],
                 salt="f" * 32)
    live.command("prokurator", GAME, "NameRestorationNumbers", city=CITY, numbers=[1])
    live.advance_to(datetime(2026, 12, 5, 1, 0, tzinfo=MOSCOW), GAME)
    live.command(survivor, GAME, "VoteGodfather", candidate=survivor)
    live.command(survivor, GAME, "DeclareKill", target=m)
    live.advance_to(datetime(2026, 12, 5, 10, 5, tzinfo=MOSCOW), GAME,
                    until=lambda s: s.stage.value == "finished")
    return m, [commissar, suicide, condemned, survivor]


def shoot(browser: Any, live: LiveServer, shots: Any, selector: str, name: str) -> None:
    for lang in ("ru", "en"):
        for size, (w, h) in SIZES.items():
            context = browser.new_context(viewport={"width": w, "height": h})
            page = context.new_page()
            page.goto(f"{live.url}/games/{GAME}?lang={lang}")
            element = page.locator(selector)
            element.scroll_into_view_if_needed()
            page.screenshot(path=str(shots / f"{name}-{lang}-{size}.png"))
            element.screenshot(path=str(shots / f"{name}-{lang}-{size}-whole.png"))
            context.close()


def test_the_day_posts_and_the_reveal_show_what_the_rulebook_publishes(live: LiveServer, browser: Any,
                                                                      shots: Any) -> None:
    m, (commissar, suicide, condemned, survivor) = played_to_the_end(live)
    page = browser.new_context(viewport={"width": 1280, "height": 800}).new_page()
    page.goto(f"{live.url}/games/{GAME}?lang=en")
    day3 = page.locator("#daypost-3")
    tally = day3.locator("[data-testid=daypost-tally]").first.inner_text()
    assert condemned in tally and commissar in tally and m in tally and survivor in tally  # D17
    assert suicide in day3.locator("[data-testid=daypost-suicides]").inner_text()
    final = page.locator("#daypost-5")
    assert final.locator("[data-testid=daypost-final]").count() == 1  # D18
    assert m in final.inner_text()
    ended = page.locator("[data-testid=game-ended]")
    assert commissar in ended.locator("[data-testid=ended-commissars]").inner_text()  # D13
    record = ended.locator("[data-testid=ended-record]").inner_text()  # D14
    assert f"check of {m}: mafia" in record and f"kill {commissar}" in record
    restoration = ended.locator("[data-testid=ended-restoration]").inner_text()  # D15
    assert "Новоград" in restoration and survivor in restoration
    page.context.close()
    shoot(browser, live, shots, "#daypost-3", "daypost-results")
    shoot(browser, live, shots, "#daypost-5", "daypost-final")
    shoot(browser, live, shots, "[data-testid=game-ended]", "ending-reveal")
