"""Forum basics in a city inbox, in Chromium: formatting, a link, a mention that reaches the
resident named, quote and reply, multi-quote, a draft that survives a reload, and an edit
whose earlier version stays visible (INBOX-GEN-1). Screenshots in Russian and English at
1280×800 and 390×844 under var/screenshots/ (not committed).

Cast: the Procurator «prokurator», the Consigliere «konsil», the Arbiter «arbitr», the
Tribune «tribune1»; residents alice, boris, carol, dmitry, elena of Лепроград.
"""

from __future__ import annotations

from datetime import datetime
from pathlib import Path
from typing import Any
from urllib.parse import quote

from lepromafia.engine.calendar import MOSCOW

from .conftest import LiveServer, login

GAME = "posts-game"
TOWN = "Лепроград"
RESIDENTS = ("alice", "boris", "carol", "dmitry", "elena")
SIZES = {"desktop": (1280, 800), "phone": (390, 844)}
SHOTS = Path(__file__).resolve().parents[2] / "var" / "screenshots"


def started(live: LiveServer) -> str:
    live.start_one_city_game(GAME, "Лепромафия: форум", TOWN, RESIDENTS)
    live.advance_to(datetime(2026, 12, 1, 10, 5, tzinfo=MOSCOW), GAME)
    box = live.state(GAME).current_inbox("city", TOWN)
    assert box
    return f"{live.url}/games/{GAME}/inboxes/{quote(box, safe='')}"


def send(page: Any, text: str) -> None:
    count = page.locator(".thread > li.msg").count()
    page.fill("#text", text)
    page.click("[data-testid=composer] button[type=submit]")
    page.wait_for_selector(f"#m{count + 1}")


def test_a_day_of_forum_talk_in_the_city_inbox(live: LiveServer, browser: Any) -> None:
    inbox = started(live)
    alice = login(browser, live, "alice", width=1280)
    alice.goto(inbox)

    # Formatting, a bare link and a mention of boris.
    send(alice, "**Версия**: @boris молчит слишком *подозрительно*.\nДосье: https://example.com/dossier")
    first = alice.locator("#m1 .text")
    assert first.locator("strong").inner_text() == "Версия"
    assert first.locator("em").inner_text() == "подозрительно"
    assert first.locator("a[href='https://example.com/dossier']").count() == 1
    assert first.locator(".mention[data-user=boris]").inner_text() == "@boris"
    send(alice, "И ещё: carol вчера голосовала против всех.")

    # boris sees the mention marked for him and in his mentions list.
    boris = login(browser, live, "boris", width=1280)
    boris.goto(inbox)
    assert boris.locator("#m1.mentions-me [data-testid=mentions-me]").count() == 1
    assert boris.locator("#m2.mentions-me").count() == 0
    boris.goto(f"{live.url}/games/{GAME}/mentions")
    assert "подозрительно" in boris.locator("[data-testid=mentions]").inner_text()
    boris.goto(inbox)

    # Quote and reply: the reply's quote links to the quoted message.
    boris.locator("#m1 [data-quote]").click()
    assert boris.input_value("#text").startswith("> [alice · #1](#m1)\n> **Версия**")
    boris.locator("#text").press("End")
    boris.locator("#text").type("Я не молчу, я думаю.")
    boris.click("[data-testid=composer] button[type=submit]")
    boris.wait_for_selector("#m3 blockquote a[href='#m1']")
    boris.locator("#m3 blockquote a[href='#m1']").click()
    assert boris.url.endswith("#m1")

    # Multi-quote: two messages picked, both quoted into the composer in order.
    boris.locator("#m1 input[data-pick]").check()
    boris.locator("#m2 input[data-pick]").check()
    assert boris.locator("[data-picked-count]").inner_text() == "2"
    boris.click("[data-testid=quote-picked]")
    text = boris.input_value("#text")
    assert text.index("[alice · #1](#m1)") < text.index("[alice · #2](#m2)")
    assert "> И ещё: carol" in text

    # The draft survives a reload, and is gone once posted.
    boris.locator("#text").press("End")
    boris.locator("#text").type("Вот мой разбор.")
    boris.reload()
    boris.wait_for_selector("#text")
    assert boris.input_value("#text").endswith("Вот мой разбор.")
    boris.click("[data-testid=composer] button[type=submit]")
    boris.wait_for_selector("#m4")
    boris.reload()
    boris.wait_for_selector("#m4")
    assert boris.input_value("#text") == ""

    # alice edits her first message; everyone keeps seeing what it said before.
    alice.reload()
    alice.locator("#m1 details.edit > summary").click()
    alice.fill("#edit-1", "**Версия**: @boris *думает*, а не молчит.")
    alice.locator("#m1 [data-testid=edit-form] button[type=submit]").click()
    alice.wait_for_selector("#m1 [data-testid=edited]")
    boris.reload()
    boris.wait_for_selector("#m1 [data-testid=edited]")
    assert "думает" in boris.locator("#m1 > .text").inner_text()
    boris.locator("#m1 [data-testid=history] > summary").click()
    assert "подозрительно" in boris.locator("#m1 [data-testid=history]").inner_text()
    # boris cannot edit alice's words: no form for him there.
    assert boris.locator("#m1 [data-testid=edit-form]").count() == 0

    shoot(browser, live, inbox)
    alice.context.close()
    boris.context.close()


def shoot(browser: Any, live: LiveServer, inbox: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    for lang in ("ru", "en"):
        for size, (w, h) in SIZES.items():
            page = login(browser, live, "boris", width=w)
            page.set_viewport_size({"width": w, "height": h})
            page.goto(f"{inbox}?lang={lang}")
            page.locator("#m1 [data-testid=history] > summary").click()
            page.locator("#m1").scroll_into_view_if_needed()
            page.screenshot(path=str(SHOTS / f"posts-inbox-{lang}-{size}.png"))
            page.locator("#text").scroll_into_view_if_needed()
            page.screenshot(path=str(SHOTS / f"posts-composer-{lang}-{size}.png"))
            page.goto(f"{live.url}/games/{GAME}/mentions?lang={lang}")
            page.screenshot(path=str(SHOTS / f"posts-mentions-{lang}-{size}.png"))
            page.context.close()
            page = login(browser, live, "alice", width=w)
            page.set_viewport_size({"width": w, "height": h})
            page.goto(f"{inbox}?lang={lang}")
            page.locator("#m2 details.edit > summary").click()
            page.locator("#m2").scroll_into_view_if_needed()
            page.screenshot(path=str(SHOTS / f"posts-edit-{lang}-{size}.png"))
            page.context.close()
