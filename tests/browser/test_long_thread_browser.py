"""A long inbox in Chromium: the page shows the last messages, «Show earlier messages» puts
the page before them above without moving the reader, and pushed messages still arrive at
the end (issue 17: a page's cost the same on Day 1 and Day 14; INBOX-GEN-1). Screenshots
in Russian and English at 1280×800 and 390×844 under var/screenshots/ (not committed).

Cast: residents alice, boris, carol of Лепроград; boris writes all morning.
"""

from __future__ import annotations

import asyncio
from datetime import datetime
from pathlib import Path
from typing import Any
from urllib.parse import quote

from playwright.sync_api import expect

from lepromafia.engine.calendar import MOSCOW
from lepromafia.engine.commands import PostMessage

from .conftest import HTTP_TIMEOUT, LiveServer, login

GAME = "long-thread"
TOWN = "Лепроград"
SIZES = {"desktop": (1280, 800), "phone": (390, 844)}
SHOTS = Path(__file__).resolve().parents[2] / "var" / "screenshots"
WAIT = 10_000


def write(live: LiveServer, user: str, box: str, numbers: range) -> None:
    """``user`` posts «Сообщение n» for each n (in-process: a morning's chat in a second)."""
    service = live.app.state.web.service
    for n in numbers:
        command = PostMessage(actor=user, inbox=box, text=f"Сообщение {n}")
        asyncio.run_coroutine_threadsafe(service.execute(GAME, command, f"chat-{n}"),
                                         live._loop()).result(HTTP_TIMEOUT)


def test_earlier_messages_come_above_and_the_reader_stays_where_he_was(
        live: LiveServer, browser: Any) -> None:
    live.start_one_city_game(GAME, "Лепромафия: длинный чат", TOWN, ("alice", "boris", "carol"))
    live.advance_to(datetime(2026, 12, 1, 10, 5, tzinfo=MOSCOW), GAME)
    box = live.state(GAME).current_inbox("city", TOWN)
    assert box
    inbox = f"{live.url}/games/{GAME}/inboxes/{quote(box, safe='')}"
    write(live, "boris", box, range(1, 161))

    alice = login(browser, live, "alice", width=1280)
    alice.goto(inbox)  # all 160 are new to her: all shown, and read
    expect(alice.locator(".thread > li.msg")).to_have_count(160, timeout=WAIT)
    write(live, "boris", box, range(161, 166))
    alice.goto(inbox)  # 5 new: the last 100 (#66–165) and the control for 65 more
    expect(alice.locator("#live-status")).to_have_attribute("data-state", "open", timeout=WAIT)
    expect(alice.locator(".thread > li.msg")).to_have_count(100)
    expect(alice.locator("#m165")).to_be_visible()
    control = alice.locator("[data-testid=earlier]")
    expect(control).to_contain_text("ещё 65 сообщений выше")

    # She scrolls to the top and asks for more: #1–65 come above, #66 stays where it was.
    alice.locator(".thread").evaluate("t => { t.scrollTop = 0; }")
    before = alice.locator("#m66").bounding_box()
    control.get_by_role("link").click()
    expect(alice.locator("#m1")).to_be_attached(timeout=WAIT)
    expect(alice.locator(".thread > li.msg")).to_have_count(165)
    expect(alice.locator("[data-testid=earlier]")).to_have_count(0)
    after = alice.locator("#m66").bounding_box()
    assert before and after and abs(after["y"] - before["y"]) < 2, (before, after)

    # boris writes on: the new message is pushed to the end of her longer thread.
    write(live, "boris", box, range(166, 167))
    expect(alice.locator("#m166 .text")).to_have_text("Сообщение 166", timeout=WAIT)
    expect(alice.locator(".thread > li.msg")).to_have_count(166)
    alice.context.close()
    shoot(browser, live, inbox)


def shoot(browser: Any, live: LiveServer, inbox: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    for lang in ("ru", "en"):
        for size, (w, h) in SIZES.items():
            page = login(browser, live, "carol", width=w)
            page.set_viewport_size({"width": w, "height": h})
            page.goto(f"{inbox}?lang={lang}")  # read once: the next visit shows the last page
            page.goto(f"{inbox}?lang={lang}")
            expect(page.locator("[data-testid=earlier]")).to_be_visible(timeout=WAIT)
            page.locator(".thread").evaluate("t => { t.scrollTop = 0; }")
            page.locator(".thread").scroll_into_view_if_needed()
            page.screenshot(path=str(SHOTS / f"long-thread-{lang}-{size}.png"))
            page.context.close()
