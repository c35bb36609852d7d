"""A notary inbox in Chromium (INBOX-NOTARY-1..3): carol certifies a secret from her inboxes
page, lands on it with its digest, and lets the Arbiter verify it. Screenshots in Russian
and English at 1280×800 and 390×844."""

from __future__ import annotations

from typing import Any

from .conftest import LiveServer, login
from .test_discussion_browser import GAME, SIZES, started


def test_certify_a_secret_and_grant_access(live: LiveServer, browser: Any, shots: Any) -> None:
    started(live)
    carol = login(browser, live, "carol", width=1280)
    carol.goto(f"{live.url}/games/{GAME}/inboxes")
    form = carol.locator("[data-testid=notary-create] form")
    form.locator("input[name=title]").fill("Моя проверка")
    form.locator("textarea[name=content]").fill("Ночью 2 я проверила dmitry: честный.")
    form.locator("button[type=submit]").click()
    carol.wait_for_selector("[data-testid=notary-card]")
    assert "Ночью 2 я проверила dmitry" in carol.inner_text("[data-testid=thread]")
    digest = carol.inner_text("[data-testid=notary-digest]")
    assert len(digest) == 64
    carol.fill("#ng-user", "arbitr")
    carol.click("[data-testid=notary-grant] button[type=submit]")
    carol.wait_for_selector("[data-testid=notary-granted] >> text=arbitr")
    url = carol.url
    for lang in ("ru", "en"):
        for size, (w, h) in SIZES.items():
            for who in ("carol", "arbitr"):
                page = login(browser, live, who, width=w)
                page.set_viewport_size({"width": w, "height": h})
                page.goto(f"{url}?lang={lang}")
                page.wait_for_selector("[data-testid=notary-card]")
                page.screenshot(path=str(shots / f"notary-{who}-{lang}-{size}.png"), full_page=True)
                page.context.close()
    arbiter = login(browser, live, "arbitr")
    arbiter.goto(url)
    assert arbiter.inner_text("[data-testid=notary-digest]") == digest
