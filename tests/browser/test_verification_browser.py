"""Issue 14 in Chromium: a game dealt by commit-reveal through the API (the Procurator, the
Consigliere and vera commit; the server commits and reveals as the Procurator opens the
reveals), played to Day 2; the game page says the deal was drawn, each Day Post shows its
signed head, and the verifiable export downloads and verifies. Screenshots at 1280×800 and
390×844, Russian and English."""

from __future__ import annotations

import hashlib
from datetime import datetime
from pathlib import Path
from typing import Any

from lepromafia import verifier
from lepromafia.engine.calendar import MOSCOW

from .conftest import LiveServer

GAME = "proverka"
RESIDENTS = ("vera", "gleb", "dina", "oleg", "yana")
REQUIREMENTS = ["active", "rules_read", "voice_contact", "no_insults", "omerta"]
SIZES = {"desktop": (1280, 800), "phone": (390, 844)}
VALUES = {"prokurator2": "a" * 32, "konsil2": "b" * 32, "vera": "c" * 32}


def _digest(value: str) -> str:
    return hashlib.sha256(value.encode()).hexdigest()


def _drawn_game(live: LiveServer) -> None:
    for user in ("prokurator2", "konsil2", "arbitr2", "tribune2", *RESIDENTS):
        live.register(user)
    live.api("prokurator2", "/games", {"game_id": GAME, "title": "Лепромафия: проверяемая игра",
                                       "settings": {"city_count": 1, "population_per_city": 5,
                                                    "deal_method": "commit_reveal"}})
    for office, host in (("consigliere", "konsil2"), ("arbiter", "arbitr2")):
        live.api("prokurator2", f"/games/{GAME}/commands/AppointHost", {"office": office, "user": host})
    for user in RESIDENTS:
        live.api(user, f"/games/{GAME}/signup", {"accepted": REQUIREMENTS, "contact": f"skype:{user}"})
    for user, value in VALUES.items():
        live.command(user, GAME, "CommitDealEntropy", digest=_digest(value))
    live.command("prokurator2", GAME, "FormCities",
                 cities=[{"name": "Лепроград", "tribune": "tribune2", "residents": list(RESIDENTS)}])
    live.command("konsil2", GAME, "SealDeal", lists=[["Лепроград", list(RESIDENTS)]], salt="s" * 32)
    live.command("prokurator2", GAME, "OpenDealReveals")
    for user, value in VALUES.items():
        live.command(user, GAME, "RevealDealEntropy", value=value)
    state = live.state(GAME)
    assert state.stage.value == "dealt"
    for user in RESIDENTS:
        if state.is_mafia(user):
            live.command(user, GAME, "AcknowledgeRole")
    live.command("prokurator2", GAME, "StartGame", first_day="2026-12-01")
    live.advance_to(datetime(2026, 12, 2, 10, 5, tzinfo=MOSCOW), GAME)


def test_the_game_page_shows_the_drawn_deal_and_the_signed_heads(live: LiveServer, browser: Any,
                                                                  shots: Any) -> None:
    _drawn_game(live)
    for lang in ("ru", "en"):
        for size, (w, h) in SIZES.items():
            context = browser.new_context(viewport={"width": w, "height": h}, accept_downloads=True)
            page = context.new_page()
            page.goto(f"{live.url}/games/{GAME}?lang={lang}")
            section = page.locator("#verification")
            assert section.is_visible()
            drawn = "жребию" if lang == "ru" else "drawn"
            assert drawn in page.locator('[data-testid="deal-method"]').inner_text()
            head = page.locator('[data-testid="daypost-head"]').first
            head.locator("summary").click()
            assert '"signature"' in head.inner_text()
            head.scroll_into_view_if_needed()
            page.screenshot(path=str(shots / f"verification-daypost-{lang}-{size}.png"))
            section.scroll_into_view_if_needed()
            page.screenshot(path=str(shots / f"verification-section-{lang}-{size}.png"))
            if lang == "en" and size == "desktop":
                with page.expect_download() as download:
                    section.get_by_text("Download the verifiable export").click()
                raw = Path(download.value.path()).read_bytes()
                report = verifier.verify(raw, "en")
                assert report.verified, report.text()
                assert "still running" in report.text()
            context.close()
