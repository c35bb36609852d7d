"""A chat composer's post in Chromium: sent on the page's socket as a command frame (no
request at all), the message reaches the thread by the socket's push and the ack empties
the composer (issue 17: an htmx post used to re-render up to 500 messages, ~0.5 MB, for its
author alone). A refusal stays beside the composer in words, the text kept, and the thread
is untouched (INBOX-GEN-1, review M9). Without a socket the form posts, its answer is its
own card, and the thread is fetched once after the post. Screenshots in Russian and English at 1280×800 and 390×844 under
var/screenshots/ (not committed).

Cast: residents alice, boris, carol of Лепроград.
"""

from __future__ import annotations

from datetime import datetime
from pathlib import Path
from typing import Any
from urllib.parse import quote

from playwright.sync_api import expect

from lepromafia.engine.calendar import MOSCOW

from .conftest import Hosts, LiveServer, login

GAME = "chat-composer"
TOWN = "Лепроград"
SIZES = {"desktop": (1280, 800), "phone": (390, 844)}
SHOTS = Path(__file__).resolve().parents[2] / "var" / "screenshots"
WAIT = 10_000


def test_a_chat_post_comes_back_by_the_push_and_a_refusal_stays_beside_the_composer(
        live: LiveServer, browser: Any) -> None:
    live.start_one_city_game(GAME, "Лепромафия: чат", TOWN, ("alice", "boris", "carol"))
    live.advance_to(datetime(2026, 12, 1, 10, 5, tzinfo=MOSCOW), GAME)
    box = live.state(GAME).current_inbox("city", TOWN)
    assert box
    inbox = f"{live.url}/games/{GAME}/inboxes/{quote(box, safe='')}"

    alice = login(browser, live, "alice", width=1280)
    alice.goto(inbox)
    expect(alice.locator("#live-status")).to_have_attribute("data-state", "open", timeout=WAIT)
    answers: list[tuple[str, str, int]] = []
    alice.on("response", lambda r: answers.append((r.request.method, r.url, len(r.body()))))

    # Her message goes on her socket: in the thread from the push, the composer and her
    # stored draft emptied by the ack, no request at all (the thread not fetched either).
    alice.fill("#text", "Доброе утро, Лепроград!")
    draft_key = alice.locator("[data-testid=composer]").get_attribute("data-draft-key")
    assert alice.evaluate("k => localStorage.getItem(k)", draft_key) == "Доброе утро, Лепроград!"
    alice.click("[data-testid=composer] button[type=submit]")
    expect(alice.locator("#m1 .text")).to_have_text("Доброе утро, Лепроград!", timeout=WAIT)
    expect(alice.locator("#text")).to_have_value("", timeout=WAIT)
    assert alice.evaluate("k => localStorage.getItem(k)", draft_key) is None
    assert alice.locator("#composer-card").count() == 1
    assert not [a for a in answers if a[0] == "POST" or "/part" in a[1]], answers

    # boris, on the page already, sees it arrive too.
    boris = login(browser, live, "boris", width=1280)
    boris.goto(inbox)
    expect(boris.locator("#m1 .text")).to_have_text("Доброе утро, Лепроград!", timeout=WAIT)

    # A message over the limit: refused beside the composer, in words, the text kept.
    long_text = "слово " * 3400  # 20,400 characters: over the 20,000 a message may hold
    alice.locator("#text").evaluate("(t, v) => { t.removeAttribute('maxlength'); t.value = v; }", long_text)
    alice.click("[data-testid=composer] button[type=submit]")
    error = alice.locator("[data-testid=field-error]")
    expect(error).to_be_visible(timeout=WAIT)
    assert "message_too_long" not in error.inner_text() and error.inner_text().strip()
    expect(alice.locator("#text")).to_have_value(long_text, timeout=WAIT)
    assert alice.locator(".thread > li.msg").count() == 1
    expect(alice.locator("#text")).to_have_attribute("aria-invalid", "true")

    # Shortened, it goes: the refusal leaves with it.
    alice.fill("#text", "Короче: доброе утро.")
    alice.click("[data-testid=composer] button[type=submit]")
    expect(alice.locator("#m2 .text")).to_have_text("Короче: доброе утро.", timeout=WAIT)
    expect(alice.locator("#text")).to_have_value("", timeout=WAIT)  # its ack, after its push
    expect(alice.locator("[data-testid=field-error]")).to_have_count(0)
    assert not [a for a in answers if a[0] == "POST"], answers

    # With her socket down for good, her next message still reaches her thread: the
    # composer's answer has the page fetch the thread once (static/js/live.js).
    alice.evaluate("() => { window.WebSocket = function () { throw new Error('offline'); }; "
                   "window.lepromafiaLive.drop(); }")
    expect(alice.locator("#live-status")).to_have_attribute("data-state", "closed", timeout=WAIT)
    alice.fill("#text", "Связь пропала, но я здесь.")
    alice.click("[data-testid=composer] button[type=submit]")
    expect(alice.locator("#m3 .text")).to_have_text("Связь пропала, но я здесь.", timeout=WAIT)
    expect(alice.locator("#text")).to_have_value("", timeout=WAIT)
    posts = [a for a in answers if a[0] == "POST" and a[1].endswith("/post")]
    assert len(posts) == 1 and posts[0][2] < 20_000, posts  # the form's card, not the thread
    shoot(browser, live, inbox, long_text)
    alice.context.close()
    boris.context.close()


def shoot(browser: Any, live: LiveServer, inbox: str, long_text: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    for lang in ("ru", "en"):
        for size, (w, h) in SIZES.items():
            page = login(browser, live, "carol", width=w)
            page.set_viewport_size({"width": w, "height": h})
            page.goto(f"{inbox}?lang={lang}")
            expect(page.locator("#live-status")).to_have_attribute("data-state", "open", timeout=WAIT)
            page.locator("#text").evaluate("(t, v) => { t.removeAttribute('maxlength'); t.value = v; }",
                                           long_text)
            page.click("[data-testid=composer] button[type=submit]")
            expect(page.locator("[data-testid=field-error]")).to_be_visible(timeout=WAIT)
            page.locator("[data-testid=field-error]").scroll_into_view_if_needed()
            page.screenshot(path=str(SHOTS / f"chat-composer-refused-{lang}-{size}.png"))
            page.context.close()


def inbox_page(live: LiveServer, browser: Any, game: str, title: str, players: tuple[str, str, str],
               hosts: Hosts, script: str | None = None) -> Any:
    """The first of ``players`` on the city inbox of a new one-city game on its Day 1, his
    page's socket open (``script`` run before the page's own)."""
    live.start_one_city_game(game, title, TOWN, players, hosts=hosts)
    live.advance_to(datetime(2026, 12, 1, 10, 5, tzinfo=MOSCOW), game)
    box = live.state(game).current_inbox("city", TOWN)
    assert box
    page = login(browser, live, players[0], width=1280)
    if script:
        page.add_init_script(script)
    page.goto(f"{live.url}/games/{game}/inboxes/{quote(box, safe='')}")
    expect(page.locator("#live-status")).to_have_attribute("data-state", "open", timeout=WAIT)
    return page


def test_a_post_whose_answer_is_lost_with_the_socket_is_sent_again_once(live: LiveServer, browser: Any) -> None:
    """The socket closes right after dora's message leaves, before its answer: once the
    page's socket is back, live.js sends the same frame again (the same id), the answer
    comes, the composer empties — and the thread holds her message once."""
    dora = inbox_page(live, browser, GAME + "-lost", "Лепромафия: обрыв", ("dora", "emil", "fedor"),
                      Hosts("lprok", "lkons", "larb", "ltrib"))
    dora.evaluate("""() => {
        const send = WebSocket.prototype.send;
        window.sentCommands = 0;
        WebSocket.prototype.send = function (data) {
            send.call(this, data);
            if (String(data).includes('"command"') && ++window.sentCommands === 1) { this.close(); }
        };
    }""")
    dora.fill("#text", "Связь рвётся, но письмо дойдёт.")
    dora.click("[data-testid=composer] button[type=submit]")
    expect(dora.locator("#text")).to_have_value("", timeout=WAIT)
    expect(dora.locator("#m1 .text")).to_have_text("Связь рвётся, но письмо дойдёт.", timeout=WAIT)
    assert dora.evaluate("() => window.sentCommands") == 2  # the first, and once more after the reconnect
    dora.reload()
    expect(dora.locator(".thread > li.msg")).to_have_count(1)
    dora.context.close()


def test_a_post_whose_socket_never_comes_back_goes_by_the_api_with_its_id(
        live: LiveServer, browser: Any) -> None:
    """The socket closes right after gleb's message leaves and no socket can be opened
    again: a few seconds on, live.js sends the same message as the API's command with the
    same id (the server had it already: one effect), the composer is free and empty again,
    and the thread, fetched once, holds his message once."""
    game = GAME + "-gone"
    gleb = inbox_page(live, browser, game, "Лепромафия: без связи", ("gleb", "inna", "kira"),
                      Hosts("gprok", "gkons", "garb", "gtrib"))
    posts: list[tuple[str, int]] = []
    gleb.on("response", lambda r: posts.append((r.url, r.status)) if r.request.method == "POST" else None)
    gleb.evaluate("""() => {
        const send = WebSocket.prototype.send;
        WebSocket.prototype.send = function (data) {
            send.call(this, data);
            if (String(data).includes('"command"')) {
                window.WebSocket = function () { throw new Error('offline'); };
                this.close();
            }
        };
    }""")
    gleb.fill("#text", "Пишу в пустоту, но дойдёт.")
    gleb.click("[data-testid=composer] button[type=submit]")
    expect(gleb.locator("#live-status")).to_have_attribute("data-state", "closed", timeout=WAIT)
    expect(gleb.locator("#text")).to_have_value("", timeout=WAIT)
    expect(gleb.locator("#m1 .text")).to_have_text("Пишу в пустоту, но дойдёт.", timeout=WAIT)
    expect(gleb.locator("[data-testid=composer] button[type=submit]")).to_be_enabled()
    assert [p for p in posts if "/commands/PostMessage" in p[0]] == [
        (f"{live.url}/api/games/{game}/commands/PostMessage?lang=ru", 200)], posts
    gleb.reload()
    expect(gleb.locator(".thread > li.msg")).to_have_count(1)
    gleb.context.close()


def test_a_composer_drawn_anew_while_its_message_awaits_its_answer_is_emptied_by_it(
        live: LiveServer, browser: Any) -> None:
    """lida's thread region is drawn anew (a re-fetch) between her message leaving and its
    ack: the ack empties and frees the composer on the page now, not the one it replaced,
    so her sent text does not stay there to be sent twice."""
    hold_acks = """(() => {  // acks held while window.holdAcks is set
        const d = Object.getOwnPropertyDescriptor(WebSocket.prototype, 'onmessage');
        window.heldAcks = [];
        Object.defineProperty(WebSocket.prototype, 'onmessage', {
            get() { return d.get.call(this); },
            set(fn) {
                d.set.call(this, function (m) {
                    if (window.holdAcks && String(m.data).includes('"type":"ack"')) {
                        window.heldAcks.push(() => fn.call(this, m));
                        return;
                    }
                    return fn.call(this, m);
                });
            },
        });
    })();"""
    lida = inbox_page(live, browser, GAME + "-redrawn", "Лепромафия: перерисовка", ("lida", "mark", "nina"),
                      Hosts("rprok", "rkons", "rarb", "rtrib"), script=hold_acks)
    lida.evaluate("() => { window.holdAcks = true; }")
    lida.fill("#text", "Одно и то же дважды не пишу.")
    lida.click("[data-testid=composer] button[type=submit]")
    expect(lida.locator("#m1 .text")).to_have_text("Одно и то же дважды не пишу.", timeout=WAIT)
    lida.wait_for_function("() => window.heldAcks.length === 1", timeout=WAIT)
    lida.evaluate("""() => {  // the region's redraw: a new form, the draft put back
        const old = document.querySelector('[data-testid=composer]');
        const again = old.cloneNode(true);
        again.querySelector('textarea').value = old.querySelector('textarea').value;
        old.replaceWith(again);
    }""")
    expect(lida.locator("#text")).to_have_value("Одно и то же дважды не пишу.")
    lida.evaluate("() => { window.holdAcks = false; window.heldAcks.forEach(f => f()); }")
    expect(lida.locator("#text")).to_have_value("", timeout=WAIT)
    expect(lida.locator("[data-testid=composer] button[type=submit]")).to_be_enabled()
    lida.context.close()


def test_a_refusal_by_the_api_after_the_socket_is_gone_stays_beside_the_composer(
        live: LiveServer, browser: Any) -> None:
    """olga's over-long message leaves on her socket, which dies with it for good: the API
    refuses the message in her page's language, the refusal in words beside the composer,
    her text kept and the button free again — nothing posted."""
    olga = inbox_page(live, browser, GAME + "-refused", "Лепромафия: отказ", ("olga", "petr", "raya"),
                      Hosts("oprok", "okons", "oarb", "otrib"))
    olga.evaluate("""() => {
        const send = WebSocket.prototype.send;
        WebSocket.prototype.send = function (data) {
            if (String(data).includes('"command"')) {  // lost on the way, the socket with it
                window.WebSocket = function () { throw new Error('offline'); };
                this.close();
                return;
            }
            send.call(this, data);
        };
    }""")
    long_text = "слово " * 3400  # over the 20,000 characters a message may hold
    olga.locator("#text").evaluate("(t, v) => { t.removeAttribute('maxlength'); t.value = v; }", long_text)
    olga.click("[data-testid=composer] button[type=submit]")
    error = olga.locator("[data-testid=field-error]")
    expect(error).to_be_visible(timeout=WAIT)
    assert "message_too_long" not in error.inner_text()
    assert any("а" <= ch <= "я" for ch in error.inner_text().lower()), error.inner_text()  # in Russian
    expect(olga.locator("#text")).to_have_value(long_text)
    expect(olga.locator("[data-testid=composer] button[type=submit]")).to_be_enabled()
    assert olga.locator(".thread > li.msg").count() == 0
    olga.context.close()
