"""The Sound Library and the archives in Chromium.

Cast: the Procurator «procurator», the Tribunes «tribune1»/«tribune2», residents p01_…/p02_…
of a 2×6 game the bots played until the first death (``sound_library_visibility:
city_only``), and a second game the bots played to its end. Rules proved: SOUND-3,
SOUND-CONF-4, SOUND-2 (city_only), HOST-PROC-4, SOUND-SEANCE-1, RANDOM-5, INBOX-PERS-3.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest

from lepromafia.service.media import LocalBlobStore, MediaLibrary

from ..service import audio_files as audio
from ..service.finished_game import PERSONAL_TEXT, import_game, play_finished_game
from ..web.test_sound_pages import game_with_the_dead
from .conftest import LiveServer, login

GAME = "sound-game"
AUDIO_READY = """() => { const a = document.querySelector('%s');
  return a && a.readyState >= 1 && isFinite(a.duration) && a.duration > 0 }"""


def shot(page: Any, shots: Path, name: str) -> None:
    page.screenshot(path=str(shots / f"{name}.png"), full_page=True)


def run(live: LiveServer, coro: Any) -> Any:
    return asyncio.run_coroutine_threadsafe(coro, live._loop()).result(30)


@pytest.fixture(scope="module")
def sound_game(live: LiveServer, tmp_path_factory: pytest.TempPathFactory) -> tuple[Any, str]:
    live.app.state.media = MediaLibrary(LocalBlobStore(tmp_path_factory.mktemp("media")))
    table, dead = game_with_the_dead({"sound_library_visibility": "city_only"})
    run(live, import_game(live.app.state.web.service.store, GAME, table))
    live.clock.set(table.events[-1].at)
    for user in ("procurator", "tribune1", "tribune2", *table.game.residents):
        live.register(user)
    return table.game, dead


def test_upload_playback_and_rejections_in_chromium(live: LiveServer, browser: Any, shots: Path,
                                                     sound_game: Any, tmp_path: Path) -> None:
    """SOUND-3, HOST-PROC-4: the Procurator uploads a 4-second séance, hears the draft,
    publishes it; the <audio> element loads and reports its duration. SOUND-CONF-4: a 3:01
    confrontation is refused with its code and rule; a text file named .ogg is not audio."""
    state, dead = sound_game
    city = state.residents[dead].city
    proc = login(browser, live, "procurator")
    library = f"{live.url}/games/{GAME}/sound?city={quote(city)}"
    proc.goto(library)

    proc.select_option("#up-kind", "confrontation")
    proc.set_input_files("#up-file", str(audio.wav(tmp_path / "long.wav", 181)))
    proc.click("[data-testid=upload]")
    error = proc.wait_for_selector("[data-testid=upload-error]")
    assert error.get_attribute("data-code") == "media_too_long"
    assert error.get_attribute("data-rule") == "SOUND-CONF-4"
    assert "3:01" in error.inner_text() and "media_too_long" not in error.inner_text()
    fake = tmp_path / "speech.ogg"
    fake.write_text("казнить p01_02\n" * 40)
    proc.set_input_files("#up-file", str(fake))
    proc.click("[data-testid=upload]")
    proc.wait_for_function("() => document.querySelector('[data-testid=upload-error]')"
                           "?.getAttribute('data-code') === 'media_not_audio'")
    shot(proc, shots, "sound-01-upload-refused")

    proc.select_option("#up-kind", "seance")
    proc.set_input_files("#up-file", str(audio.wav(tmp_path / "seance.wav", 4)))
    proc.click("[data-testid=upload]")
    proc.wait_for_selector("[data-testid=draft]")
    proc.wait_for_function(AUDIO_READY % "[data-testid=draft-player]")
    proc.select_option("#pub-kind", "seance")
    proc.select_option("#pub-participant", dead)
    proc.click("[data-testid=publish]")
    proc.wait_for_selector("[data-testid=flash]")
    entry = proc.locator("[data-testid=sound-entry][data-kind=seance]")
    assert dead in entry.inner_text() and "procurator" in entry.inner_text() and "0:04" in entry.inner_text()
    proc.wait_for_function(AUDIO_READY % "[data-testid=sound-entry] audio")
    duration = proc.evaluate("document.querySelector('[data-testid=sound-entry] audio').duration")
    assert abs(duration - 4.0) < 0.1
    shot(proc, shots, "sound-02-library")
    proc.context.close()


def test_a_take_recorded_in_the_browser_is_measured_and_heard(live: LiveServer, browser: Any,
                                                              sound_game: Any) -> None:
    """SOUND-3, SOUND-LW-3: MediaRecorder (Chromium's fake microphone) records a take; the
    server measures the WebM it receives (no duration header) and the draft plays it back."""
    state, dead = sound_game
    city = state.residents[dead].city
    proc = login(browser, live, "procurator")
    proc.context.grant_permissions(["microphone"], origin=live.url)
    proc.goto(f"{live.url}/games/{GAME}/sound?city={quote(city)}")
    proc.select_option("#up-kind", "interrogation")
    proc.click("[data-testid=record]")
    proc.wait_for_selector("[data-role=stop]:not([hidden])")
    proc.wait_for_timeout(2500)
    proc.click("[data-role=stop]")
    proc.wait_for_function("() => document.querySelector('[data-role=status]').textContent.includes('KB')")
    proc.click("[data-testid=upload]")
    draft = proc.wait_for_selector("[data-testid=draft]")
    assert "0:02" in draft.inner_text() or "0:03" in draft.inner_text(), draft.inner_text()
    # A MediaRecorder WebM has no duration header, so the player reports Infinity until played
    # through; the server's measurement above is the one that counts. It must still load.
    proc.wait_for_function("() => document.querySelector('[data-testid=draft-player]').readyState >= 1")
    proc.context.close()


def test_a_city_only_seance_is_seen_only_in_its_city(live: LiveServer, browser: Any, shots: Path,
                                                     sound_game: Any) -> None:
    """SOUND-2 (city_only), SOUND-SEANCE-3: the séance published above is in its city's
    library for a neighbour of the dead, and closed to a resident of the other city."""
    state, dead = sound_game
    city = state.residents[dead].city
    neighbour = next(u for u in state.living(city))
    stranger = next(u for name in state.cities if name != city for u in state.living(name))
    url = f"{live.url}/games/{GAME}/sound?city={quote(city)}"
    near = login(browser, live, neighbour)
    near.goto(url)
    assert near.locator("[data-testid=sound-entry][data-kind=seance]").count() == 1
    near.context.close()
    far = login(browser, live, stranger)
    far.goto(url)
    far.wait_for_selector("[data-testid=library-closed]")
    assert far.locator("[data-testid=sound-entry]").count() == 0
    shot(far, shots, "sound-03-city-only-closed")
    far.context.close()


def test_the_archive_page_and_a_consent_in_chromium(live: LiveServer, browser: Any, shots: Path) -> None:
    """RANDOM-5: the deal check mark; INBOX-PERS-3: the resident gives his consent and his
    personal inbox opens to an anonymous visitor."""
    played = play_finished_game()
    run(live, import_game(live.app.state.web.service.store, "done", played.table))
    if played.writer not in live.tokens:
        live.register(played.writer)
    writer = login(browser, live, played.writer)
    writer.goto(f"{live.url}/games/done/archive")
    row = writer.locator(f"[data-testid=archive-inbox][data-inbox='{played.personal}']")
    row.locator("[data-testid=consent-give]").click()
    writer.wait_for_selector("[data-testid=flash]")
    writer.context.close()
    context = browser.new_context(viewport={"width": 1200, "height": 900}, locale="ru-RU")
    anonymous = context.new_page()
    anonymous.goto(f"{live.url}/games/done/archive")
    assert anonymous.get_attribute("[data-testid=deal-check]", "data-verified") == "true"
    assert "✓" in anonymous.inner_text("[data-testid=deal-check]")
    shot(anonymous, shots, "archive-01-page")
    anonymous.locator(f"[data-testid=archive-inbox][data-inbox='{played.personal}'] [data-testid=read]").click()
    anonymous.wait_for_selector("[data-testid=archive-thread]")
    assert PERSONAL_TEXT in anonymous.inner_text("[data-testid=archive-thread]")
    context.close()
