"""Public discussion in Chromium (POST-1, POST-2): vera, a member of the community with no
seat, comments under the Day 1 post; an anonymous visitor sees it appear live; the
Procurator hides it with a reason. Screenshots in Russian and English, 1280×800 and 390×844.

Cast: the Procurator «prokurator», the Consigliere «konsil», the Arbiter «arbitr», the
Tribune «tribune1»; residents alice, boris, carol, dmitry, elena; vera (no seat).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from lepromafia.engine.calendar import MOSCOW

from .conftest import LiveServer, login

GAME = "talk-game"
RESIDENTS = ("alice", "boris", "carol", "dmitry", "elena")
SIZES = {"desktop": (1280, 800), "phone": (390, 844)}


def started(live: LiveServer) -> None:
    live.start_one_city_game(GAME, "Лепромафия: обсуждение", "Лепроград", RESIDENTS, others=("vera",))
    live.advance_to(datetime(2026, 12, 1, 10, 5, tzinfo=MOSCOW), GAME)


def shoot(browser: Any, live: LiveServer, shots: Any, user: str | None, name: str) -> None:
    for lang in ("ru", "en"):
        for size, (w, h) in SIZES.items():
            if user is None:
                context = browser.new_context(viewport={"width": w, "height": h})
                page = context.new_page()
            else:
                page = login(browser, live, user, width=w)
                page.set_viewport_size({"width": w, "height": h})
            page.goto(f"{live.url}/games/{GAME}?lang={lang}#comments-day-1")
            page.locator("#comments-day-1").scroll_into_view_if_needed()
            page.screenshot(path=str(shots / f"discussion-{name}-{lang}-{size}.png"))
            page.context.close()


def test_a_non_player_comments_live_and_the_procurator_hides_it(live: LiveServer, browser: Any,
                                                                  shots: Any) -> None:
    started(live)
    watcher = browser.new_context(viewport={"width": 390, "height": 844}).new_page()
    watcher.goto(f"{live.url}/games/{GAME}")
    watcher.wait_for_selector("#live-status[data-state=open]")

    # POST-2: vera has no seat and comments under the Day 1 post from its composer.
    vera = login(browser, live, "vera", width=1280)
    vera.goto(f"{live.url}/games/{GAME}")
    composer = vera.locator("#comments-day-1 [data-testid=comment-composer]")
    composer.locator("textarea").fill("Пресса: кто первым выйдет на очную ставку?")
    composer.locator("button[type=submit]").click()
    vera.wait_for_selector("#comments-day-1 [data-testid=comment] >> text=очную ставку")
    # An over-long comment is refused next to the composer, the text kept.
    vera.wait_for_timeout(1000)  # let the live refresh of the first comment settle
    composer = vera.locator("#comments-day-1 [data-testid=comment-composer]")
    composer.locator("textarea").evaluate("(t) => { t.removeAttribute('maxlength'); t.value = 'x'.repeat(4001); }")
    composer.locator("button[type=submit]").click()
    vera.wait_for_selector("#comments-day-1 [data-testid=comment-error]")
    assert len(vera.locator("#comments-day-1 textarea").input_value()) == 4001

    # The anonymous watcher sees it arrive without reloading (the WebSocket).
    watcher.wait_for_selector("#comments-day-1 [data-testid=comment] >> text=очную ставку", timeout=10000)
    live.api("alice", f"/games/{GAME}/posts/day:1/comments", {"text": "Я за честный город!"})
    watcher.wait_for_selector("#comments-day-1 >> text=Я за честный город!", timeout=10000)
    live.api("boris", f"/games/{GAME}/posts/recruitment/comments", {"text": "Спасибо за набор"})
    shoot(browser, live, shots, "vera", "comments")

    # POST-2: the Procurator hides alice's comment with a reason everybody reads.
    proc = login(browser, live, "prokurator", width=1280)
    proc.goto(f"{live.url}/games/{GAME}#comments-day-1")
    item = proc.locator("#comments-day-1 [data-testid=comment]", has_text="честный город")
    item.locator("summary").click()
    item.locator("input[name=reason]").fill("агитация до выдвижений")
    item.locator("button[type=submit]").click()
    proc.wait_for_selector("[data-testid=flash]")
    watcher.wait_for_selector("#comments-day-1 [data-testid=comment-hidden]", timeout=10000)
    assert "Скрыто Прокуратором: агитация до выдвижений" in watcher.inner_text("#comments-day-1")
    assert "Я за честный город!" not in watcher.inner_text("#comments-day-1")
    shoot(browser, live, shots, None, "hidden")
    shoot(browser, live, shots, "prokurator", "procurator")
