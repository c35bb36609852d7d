"""The notification pages in Chromium, as a resident sees them: the list after Day 1's
Day Post and the hosts' duties, the badge and tab title counting the unread, the settings
page; screenshots at 1280×800 and 390×844 in Russian and English."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator
from datetime import datetime
from typing import Any

import pytest

from lepromafia.engine.calendar import MOSCOW

from ..browser.conftest import LiveServer, login


@pytest.fixture(scope="module")
def live(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    server = LiveServer(tmp_path_factory.mktemp("notify-live"))
    server.start()
    yield server
    server.stop()

GAME = "notify-b"
RESIDENTS = ("ana", "boris", "vasya", "galya", "dima")
SIZES = {"desktop": (1280, 800), "phone": (390, 844)}


def started(live: LiveServer) -> None:
    live.start_one_city_game(GAME, "Лепромафия: уведомления", "Лепроград", RESIDENTS)
    live.advance_to(datetime(2026, 12, 2, 10, 5, tzinfo=MOSCOW), GAME)


def until_true(page: Any, js: str, timeout: float) -> Any:
    """Poll ``js`` from here (the site's CSP forbids the page-side eval of wait_for_function)."""
    deadline = time.monotonic() + timeout
    while True:
        value = page.evaluate(js)
        if value or time.monotonic() > deadline:
            assert value, f"{js} within {timeout} s"
            return value
        page.wait_for_timeout(100)


def test_the_list_the_badge_and_the_settings_in_a_browser(live: LiveServer, browser: Any, shots: Any) -> None:
    started(live)
    web = live.app.state.web
    dispatcher = web.notify.dispatcher
    loop = live._loop()
    for _ in range(5):
        asyncio.run_coroutine_threadsafe(dispatcher.step(), loop).result(30)
    page = login(browser, live, "ana", width=1280)
    page.goto(f"{live.url}/notifications")
    items = page.locator("[data-testid=notifications] li")
    assert items.count() >= 1
    until_true(page, "document.title.startsWith('(')", 10)
    badge = page.locator("[data-testid=notify-badge] a")
    assert badge.get_attribute("data-unread") not in (None, "0")
    page.click("text=Отметить все как прочитанные")
    page.wait_for_url(f"{live.url}/notifications")
    until_true(page, "!document.title.startsWith('(')", 20)
    page.context.close()
    for lang in ("ru", "en"):
        for size, (w, h) in SIZES.items():
            page = login(browser, live, "ana", width=w)
            page.set_viewport_size({"width": w, "height": h})
            for path, name in (("/notifications", "list"), ("/account/notifications", "settings")):
                page.goto(f"{live.url}{path}?lang={lang}")
                page.screenshot(path=str(shots / f"notify-{name}-{lang}-{size}.png"), full_page=False)
            page.context.close()
