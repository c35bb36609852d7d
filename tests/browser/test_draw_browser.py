"""The drawn deal in Chromium (issue 14, RANDOM-4 by lot): alice, a player, adds her entropy
with one click — her browser makes the value, keeps it and sends only its SHA-256; after the
Procurator opens the reveals from the same page, her value is filled in and she reveals it.
Screenshots in Russian and English at 1280×800 and 390×844.

Cast: the Procurator «prokurator», the Consigliere «konsil», the Tribune «tribune1»;
residents alice, boris, carol, dmitry, elena."""

from __future__ import annotations

import hashlib
from typing import Any

from lepromafia.engine.commands import REQUIREMENTS

from .conftest import LiveServer, login
from .test_discussion_browser import RESIDENTS, SIZES

GAME = "draw-game"


def recruiting(live: LiveServer) -> None:
    for user in ("prokurator", "konsil", "arbitr", "tribune1", *RESIDENTS):
        live.register(user)
    live.api("prokurator", "/games", {"game_id": GAME, "title": "Лепромафия: жребий",
                                      "settings": {"city_count": 1, "population_per_city": 5,
                                                   "deal_method": "commit_reveal"}})
    for office, host in (("consigliere", "konsil"), ("arbiter", "arbitr")):
        live.api("prokurator", f"/games/{GAME}/commands/AppointHost", {"office": office, "user": host})
    for user in RESIDENTS:
        live.api(user, f"/games/{GAME}/signup", {"accepted": sorted(REQUIREMENTS), "contact": f"skype:{user}"})


def shoot(browser: Any, live: LiveServer, shots: Any, user: str, name: str) -> None:
    for lang in ("ru", "en"):
        for size, (w, h) in SIZES.items():
            page = login(browser, live, user, width=w)
            page.set_viewport_size({"width": w, "height": h})
            page.goto(f"{live.url}/games/{GAME}/draw?lang={lang}")
            page.screenshot(path=str(shots / f"draw-{name}-{lang}-{size}.png"), full_page=True)
            page.context.close()


def test_a_player_commits_and_reveals_from_her_browser(live: LiveServer, browser: Any, shots: Any) -> None:
    recruiting(live)
    alice = login(browser, live, "alice", width=1280)
    alice.goto(f"{live.url}/games/{GAME}")
    alice.click("[data-testid=draw-link]")
    alice.click("[data-testid=commit-form] button[type=submit]")
    alice.wait_for_selector("[data-testid=draw-mine-done]")
    value = alice.evaluate(f"localStorage.getItem('lepromafia-draw:{GAME}:alice')")
    assert value and len(value) == 64
    committed = live.state(GAME).deal.digests["alice"]
    assert committed == hashlib.sha256(value.encode()).hexdigest()  # only the hash left the browser
    assert alice.inner_text("[data-draw-kept] code") == value  # shown to write down
    alice.screenshot(path=str(shots / "draw-committed-own-browser-ru-desktop.png"), full_page=True)
    shoot(browser, live, shots, "alice", "committed")
    for host, seed in (("prokurator", "p-seed"), ("konsil", "k-seed")):
        live.command(host, GAME, "CommitDealEntropy", digest=hashlib.sha256(seed.encode()).hexdigest())
    live.command("prokurator", GAME, "FormCities",
                 cities=[{"name": "Лепроград", "tribune": "tribune1", "residents": list(RESIDENTS)}])
    live.api("konsil", f"/games/{GAME}/random/seal-deal")
    procurator = login(browser, live, "prokurator", width=1280)
    procurator.goto(f"{live.url}/games/{GAME}/draw")
    procurator.click("[data-testid=open-form] button[type=submit]")
    procurator.wait_for_selector("[data-testid=draw-closes]")
    alice.reload()
    assert alice.input_value("[data-testid=reveal-form] input[name=value]") == value
    shoot(browser, live, shots, "alice", "reveal")
    alice.click("[data-testid=reveal-form] button[type=submit]")
    alice.wait_for_selector("[data-testid=flash]")
    assert live.state(GAME).deal.values["alice"] == value
    alice.context.close()
    procurator.context.close()
