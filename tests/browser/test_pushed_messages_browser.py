"""Pushed messages in Chromium: a new message arrives as content in the frame (issue 17).

Cast: the Procurator «prokurator7», the Tribune «tribune7», five residents of Лепроград
(ana7, boris7, vera7, gleb7, dina7). The deal is drawn, so the scene takes its people from
it: «Ana» is the first honest resident, «Boris» the second, «the mafioso» the first mafioso.

Day 1, the city inbox (INBOX-CITY-1): Ana and Boris sit on it. Boris posts, with @ana; Ana's page
shows the message — Boris's label, his text, marked as mentioning her, not hers — without a
single request to the inbox region's URL, and her read marker advances within seconds
with no report at all: her page told its socket once that it shows the city's thread on
screen (``view``), and the server counts what it sends her there as read. Boris's own page marks it his (with an "Edit" that fetches his
form when opened). The mafioso writes in the mafia inbox (INBOX-MAFIA-1, §9): not one byte of
it reaches Ana's socket. A reload of Ana's page shows the same list as the pushed one, no
duplicates, no gaps: each pushed item is the server-rendered item modulo Ana's own classes.
Screenshots 1280×800 and 390×844, ru and en, of the inbox after pushed messages.
"""

from __future__ import annotations

import re
import time
from datetime import datetime
from typing import Any

from lepromafia.engine.calendar import MOSCOW

from .conftest import LiveServer, login

GAME = "pushed"
CITY = "Лепроград"
RESIDENTS = ("ana7", "boris7", "vera7", "gleb7", "dina7")
REQUIREMENTS = ["active", "rules_read", "voice_contact", "no_insults", "omerta"]
SET_VISIBILITY = """state => {
    Object.defineProperty(document, "visibilityState", {value: state, configurable: true});
    document.dispatchEvent(new Event("visibilitychange"));
}"""
ITEMS = "() => Array.from(document.querySelectorAll('ol.thread > li[data-seq]')).map(li => li.outerHTML)"


def at(day: int, hh: int, mm: int = 0) -> datetime:
    return datetime(2026, 12, day, hh, mm, tzinfo=MOSCOW)


def neutral(item: str) -> str:
    """A thread item without the viewer's own parts (classes, the "mentions you" flag, the
    edit control), whitespace collapsed: what must be equal pushed and reloaded."""
    item = re.sub(r'\sclass="msg[^"]*"', "", item)
    item = re.sub(r'<span class="mention-flag"[^>]*>.*?</span>', "", item)
    item = re.sub(r'<details class="edit".*?</details>', "", item, flags=re.S)
    item = re.sub(r"\s(hidden|hidden=\"\")(?=[\s>])", "", item)  # composer.js reveals quote controls
    return re.sub(r"\s+", " ", re.sub(r">\s+<", "><", item)).strip()


def start_game(live: LiveServer) -> Any:
    for user in ("prokurator7", "konsil7", "arbitr7", "tribune7", *RESIDENTS):
        live.register(user)
    live.api("prokurator7", "/games", {"game_id": GAME, "title": "Живые сообщения",
                                       "settings": {"city_count": 1, "population_per_city": 5}})
    for office, user in (("consigliere", "konsil7"), ("arbiter", "arbitr7")):
        live.api("prokurator7", f"/games/{GAME}/commands/AppointHost", {"office": office, "user": user})
    for user in RESIDENTS:
        live.api(user, f"/games/{GAME}/signup", {"accepted": REQUIREMENTS, "contact": f"skype:{user}"})
    live.command("prokurator7", GAME, "FormCities",
                 cities=[{"name": CITY, "tribune": "tribune7", "residents": list(RESIDENTS)}])
    live.api("konsil7", f"/games/{GAME}/random/seal-deal", {})
    live.api("prokurator7", f"/games/{GAME}/random/mafia-numbers", {"city": CITY})
    state = live.state(GAME)
    for user in RESIDENTS:
        if state.is_mafia(user):
            live.command(user, GAME, "AcknowledgeRole")
    live.command("prokurator7", GAME, "StartGame", first_day="2026-12-01")
    return live.advance_to(at(1, 10, 5), GAME, until=lambda s: s.current_inbox("city", CITY) is not None)


def unread_of(live: LiveServer, user: str, inbox: str) -> int:
    import httpx

    r = httpx.get(f"{live.url}/api/games/{GAME}/inboxes", timeout=30,
                  headers={"Authorization": f"Bearer {live.tokens[user]}"})
    assert r.status_code == 200, r.text
    rows = r.json()
    rows = rows.get("inboxes", rows) if isinstance(rows, dict) else rows
    return int(next(row["unread"] for row in rows if row["inbox"] == inbox))


def test_a_message_arrives_pushed_marked_for_each_reader_and_the_mafia_s_stays_away(
        live: LiveServer, browser: Any, shots: Any) -> None:
    state = start_game(live)
    honest = [u for u in RESIDENTS if not state.is_mafia(u)]
    ana, boris = honest[0], honest[1]
    mafioso = next(u for u in RESIDENTS if state.is_mafia(u))
    city = state.current_inbox("city", CITY)
    mafia_inbox = state.current_inbox("mafia", CITY)
    assert city and mafia_inbox
    live.command(ana, GAME, "PostMessage", inbox=city, text="Доброе утро, город.")
    url = f"{live.url}/games/{GAME}/inboxes/{city}"

    page = login(browser, live, ana, width=1280)
    page.set_viewport_size({"width": 1280, "height": 800})
    region_requests: list[str] = []
    read_posts: list[str] = []
    frames: list[str] = []
    page.on("request", lambda r: region_requests.append(r.url) if r.url.endswith("/part") else None)
    page.on("request", lambda r: read_posts.append(r.post_data or "") if r.url.endswith("/read") else None)
    sent: list[str] = []
    page.on("websocket", lambda ws: ws.on("framereceived", lambda payload: frames.append(str(payload))))
    page.on("websocket", lambda ws: ws.on("framesent", lambda payload: sent.append(str(payload))))
    sockets: list[str] = []
    page.on("websocket", lambda ws: sockets.append(ws.url))
    page.goto(url)
    page.wait_for_selector("#live-status[data-state=open]")
    assert page.get_attribute("body", "data-live-user") == ana
    other = login(browser, live, boris, width=1280)
    other.goto(url)
    other.wait_for_selector("#live-status[data-state=open]")
    time.sleep(0.3)
    region_requests.clear()

    # the mafia's inbox: the mafioso writes; then Boris writes in the city inbox, with @ana
    secret = "Сегодня ночью — к дому 7."
    live.command(mafioso, GAME, "PostMessage", inbox=mafia_inbox, text=secret)
    live.command(boris, GAME, "PostMessage", inbox=city, text=f"**Привет**, @{ana}! Кто за кого?")
    page.wait_for_selector(f"ol.thread > li[data-author={boris}]", timeout=10000)
    pushed = page.locator(f"ol.thread > li[data-author={boris}]")
    assert pushed.locator(".who").inner_text() == boris
    assert pushed.locator(".text strong").inner_text() == "Привет"
    classes = pushed.get_attribute("class") or ""
    assert "mentions-me" in classes and "mine" not in classes and "new" in classes, classes
    assert pushed.locator("[data-testid=mentions-me]").count() == 1
    assert pushed.locator("[data-quote]").is_visible()  # she may post: quote controls
    other.wait_for_selector(f"ol.thread > li.mine[data-author={boris}]", timeout=10000)
    assert other.locator(f"ol.thread > li.mine[data-author={boris}] details.edit summary").count() == 1

    # her read marker: within seconds the server counts nothing unread, and her page sent
    # no report for it, only what it shows, once (her socket went to the game's worker)
    deadline = time.monotonic() + 15
    while time.monotonic() < deadline and unread_of(live, ana, city) != 0:
        page.wait_for_timeout(300)
    assert unread_of(live, ana, city) == 0
    views = [f for f in sent if '"type":"view"' in f]
    assert len(views) == 1 and city in views[0] and '"visible":true' in views[0], sent
    assert not any('"type":"read"' in f for f in sent), sent
    assert read_posts == [], read_posts  # no request either
    live_sockets = [u for u in sockets if "lang=" in u]  # live.js's (badge.js has its own)
    assert live_sockets and all(f"/ws?game={GAME}&" in u for u in live_sockets), sockets
    assert region_requests == [], region_requests  # nothing fetched for it

    # no byte of the mafia's message in any frame Ana's socket received
    assert any(boris in f and "Кто за кого" in f for f in frames)
    assert not any(secret in f or "дому 7" in f for f in frames)
    assert all(mafia_inbox not in f for f in frames)

    # Ana's tab is hidden: her page tells its socket so; what Boris writes then is pushed
    # onto her page but stays unread until the tab is shown again, when her page reports it
    # (page.wait_for_timeout, not time.sleep: Playwright hands over the frames it saw only
    # while it is called)
    page.evaluate(SET_VISIBILITY, "hidden")
    page.wait_for_timeout(300)  # the server has it before Boris writes
    assert any('"type":"view"' in f and '"visible":false' in f for f in sent), sent
    live.command(boris, GAME, "PostMessage", inbox=city, text="Пока тебя не было.")
    page.wait_for_selector("ol.thread > li:has-text('Пока тебя не было')", timeout=10000)
    assert not any('"type":"read"' in f for f in sent), sent
    page.evaluate(SET_VISIBILITY, "visible")
    deadline = time.monotonic() + 15
    while time.monotonic() < deadline and unread_of(live, ana, city) != 0:
        page.wait_for_timeout(300)
    assert unread_of(live, ana, city) == 0
    assert any('"type":"read"' in f and city in f for f in sent), sent

    # Boris opens "Edit" of his pushed message: his form comes on demand
    his = other.locator(f"ol.thread > li.mine[data-author={boris}]").filter(has_text="Кто за кого")
    his.locator("details.edit summary").click()
    his.locator("form[data-testid=edit-form] textarea").wait_for()

    # a reload shows the same list: no duplicates, no gaps, the same items
    before = [neutral(i) for i in page.evaluate(ITEMS)]
    page.reload()
    page.wait_for_selector("#live-status[data-state=open]")
    after = [neutral(i) for i in page.evaluate(ITEMS)]
    numbers = [int(n) for n in page.eval_on_selector_all("ol.thread > li[data-seq]",
                                                          "els => els.map(e => e.dataset.seq)")]
    assert numbers == list(range(1, len(numbers) + 1))
    assert before == after

    for lang in ("ru", "en"):
        page.goto(f"{url}?lang={lang}")
        page.wait_for_selector("#live-status[data-state=open]")
        n = len(page.evaluate(ITEMS))
        word = "Согласен" if lang == "ru" else "Agreed"
        live.command(boris, GAME, "PostMessage", inbox=city, text=f"{word}: _голосуем завтра_, @{ana}.")
        page.wait_for_function(f"() => document.querySelectorAll('ol.thread > li[data-seq]').length > {n}",
                               timeout=10000)
        for width, height in ((1280, 800), (390, 844)):
            page.set_viewport_size({"width": width, "height": height})
            time.sleep(0.2)
            page.screenshot(path=str(shots / f"pushed-inbox-{lang}-{width}.png"), full_page=True)
    assert region_requests == [], region_requests
