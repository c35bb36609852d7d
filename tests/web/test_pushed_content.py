"""A new message rides in its frame as content, rendered once per audience (issue 17).

Cast: one city of 20 (default_cast(1, 20): Лепроград p01_01..p01_20), the hosts. Day 1,
the city inbox is open (INBOX-CITY-1). p01_02 posts; every one of the 20 residents' sockets
gets the message's thread item in the frame, the same bytes, from one render per
language. A mafioso's mafia-inbox message reaches no civilian's socket in any form (§9).
The pushed item is the server-rendered item of a reader's page, modulo his own classes.
The batched read marker and the edit form on demand are refused to whoever the rules
refuse (a civilian's marker on the mafia inbox; a form to edit another's message, only the author edits, INBOX-GEN-1).
"""

from __future__ import annotations

import re
from contextlib import ExitStack
from typing import Any

from lepromafia.bots.setup import default_cast
from lepromafia.web.ws.content import pushed_content

from .conftest import Api, at, setup_game_via_api

CAST = default_cast(1, 20)


def position(api: Api, game: str, viewer: str | None) -> int:
    return api.client.portal.call(api.web.queries.position, game, viewer)  # type: ignore[union-attr]


def next_event(ws: Any) -> dict[str, Any]:
    while True:
        msg = ws.receive_json()
        if msg["type"] == "event":
            return msg


def neutral(item: str) -> str:
    item = re.sub(r'\sclass="msg[^"]*"', "", item)
    item = re.sub(r'<span class="mention-flag"[^>]*>.*?</span>', "", item)
    return re.sub(r"\s+", " ", re.sub(r">\s+<", "><", item)).strip()


def item_of(page: str, number: int) -> str:
    """The ``<li id="m<number>">`` of a thread as the page has it (nested items counted)."""
    start = page.index(f'<li id="m{number}"')
    depth = 0
    for tag in re.finditer(r"<(/?)li\b", page[start:]):
        depth += -1 if tag.group(1) else 1
        if depth == 0:
            return page[start:start + page.index(">", start + tag.start()) - start + 1]
    raise AssertionError(f"no end of item {number}")


def game_on_day_one(api: Api) -> tuple[Any, str]:
    setup_game_via_api(api, "g", CAST, {"population_per_city": 20})
    api.advance_to(at(1, "10:05"))
    s = api.state("g")
    city = s.current_inbox("city", "Лепроград")
    assert city is not None
    return s, city


def test_one_message_to_twenty_readers_is_rendered_once_per_language(api: Api) -> None:
    """INBOX-CITY-1: p01_02's message reaches the 20 residents' sockets with its item; 20 Russian
    sockets and 5 English ones cost two renders, and every socket of a language gets the
    same bytes."""
    _s, city = game_on_day_one(api)
    residents = list(CAST.cities["Лепроград"])
    cache = pushed_content(api.web)
    with ExitStack() as stack:
        sockets = []
        for i, user in enumerate(residents + residents[:5]):
            lang = "ru" if i < len(residents) else "en"
            ws = stack.enter_context(api.client.websocket_connect(f"/ws?lang={lang}", headers=api.headers(user)))
            ws.send_json({"type": "subscribe", "game": "g", "since_seq": position(api, "g", user)})
            assert ws.receive_json()["type"] == "subscribed"
            sockets.append((lang, ws))
        renders = cache.renders
        api.ok("p01_02", "g", "PostMessage", inbox=city, text="**Всем** привет, @p01_03")
        frames = [(lang, next_event(ws)) for lang, ws in sockets]
    assert cache.renders - renders == 2
    assert all(f["payload"]["type"] == "MessagePosted" for _, f in frames)
    by_lang = {lang: {f["html"] for lang2, f in frames if lang2 == lang} for lang in ("ru", "en")}
    assert all(len(found) == 1 for found in by_lang.values()), by_lang
    ru = next(iter(by_lang["ru"]))
    assert ru.startswith('<li id="m1" class="msg"') and 'data-author="p01_02"' in ru
    assert 'data-mentions="p01_03"' in ru and "<strong>Всем</strong>" in ru
    assert "mine" not in ru and " new" not in ru and "csrf" not in ru  # no viewer's own parts
    assert "Цитировать" in ru and "Quote" in next(iter(by_lang["en"]))


def test_a_mafia_inbox_message_reaches_no_civilian_socket_in_any_form(api: Api) -> None:
    """INBOX-MAFIA-1, §9: the mafioso's message goes to the mafia's sockets only; a civilian's
    next frame is the city message after it, numbered one past his previous position."""
    s, city = game_on_day_one(api)
    mafioso = next(u for u in s.living("Лепроград") if s.is_mafia(u))
    civilian = next(u for u in s.living("Лепроград") if not s.is_mafia(u))
    mafia = s.current_inbox("mafia", "Лепроград")
    assert mafia is not None
    since = position(api, "g", civilian)
    with api.client.websocket_connect("/ws?lang=ru", headers=api.headers(civilian)) as ws, \
            api.client.websocket_connect("/ws?lang=ru", headers=api.headers(mafioso)) as mine:
        for sock, user in ((ws, civilian), (mine, mafioso)):
            sock.send_json({"type": "subscribe", "game": "g", "since_seq": position(api, "g", user)})
            assert sock.receive_json()["type"] == "subscribed"
        api.ok(mafioso, "g", "PostMessage", inbox=mafia, text="Ночью — к дому семь.")
        api.ok(civilian, "g", "PostMessage", inbox=city, text="Доброе утро.")
        theirs = next_event(mine)
        assert theirs["payload"]["inbox"] == mafia and "дому семь" in theirs["html"]
        frame = next_event(ws)
    assert frame["seq"] == since + 1 and frame["payload"]["inbox"] == city
    assert "дому семь" not in str(frame) and mafia not in str(frame)


def test_the_pushed_item_is_the_item_a_reader_s_page_renders(api: Api) -> None:
    """INBOX-CITY-1: the frame's item for p01_02's message equals the item p01_05's page renders
    for it after a reload, apart from p01_05's own classes and flags."""
    _s, city = game_on_day_one(api)
    with api.client.websocket_connect("/ws?lang=ru", headers=api.headers("p01_05")) as ws:
        ws.send_json({"type": "subscribe", "game": "g", "since_seq": position(api, "g", "p01_05")})
        assert ws.receive_json()["type"] == "subscribed"
        api.ok("p01_01", "g", "PostMessage", inbox=city, text="Первое.")
        first = next_event(ws)
        api.ok("p01_02", "g", "PostMessage", inbox=city, text="> Первое.\n\nВторое, @p01_05 — _курсив_")
        second = next_event(ws)
        api.ok("p01_02", "g", "EditMessage", inbox=city, number=2, text="Второе, исправлено")
        edited = next_event(ws)
    page = api.get("p01_05", f"/games/g/inboxes/{city}").text
    assert 'data-mentions="p01_05"' in second["html"]  # the reader's mark is his page's to add
    assert 'class="msg new"' in item_of(page, 1) and 'class="msg"' in first["html"]
    assert neutral(first["html"]) == neutral(item_of(page, 1))
    assert 'data-seq="2"' in second["html"] and "<em>курсив</em>" in second["html"]
    assert edited["payload"]["type"] == "MessageEdited" and "исправлено" in edited["html"]
    assert 'data-testid="history"' in edited["html"]  # the earlier version stays visible
    assert neutral(edited["html"]) == neutral(item_of(page, 2))


def test_the_batched_read_marker_moves_forward_and_only_where_the_rules_allow(api: Api) -> None:
    """INBOX-CITY-1: p01_05 reports the position of the last message his page shows; his unread
    count for the city inbox drops to 0. Without the page's CSRF token, or for the mafia's
    inbox he may not read, nothing moves."""
    s, city = game_on_day_one(api)
    civilian = next(u for u in s.living("Лепроград") if not s.is_mafia(u) and u != "p01_01")
    mafia = s.current_inbox("mafia", "Лепроград")
    for text in ("Раз.", "Два."):
        api.ok("p01_01", "g", "PostMessage", inbox=city, text=text)

    def unread() -> int:
        rows = api.get(civilian, "/api/games/g/inboxes").json()
        return int(next(r["unread"] for r in rows if r["inbox"] == city))

    assert unread() == 2
    page = api.get(civilian, "/games/g/inboxes").text  # any page: the body carries the token
    token = re.search(r'data-live-csrf="([^"]+)"', page)
    assert token is not None
    upto = position(api, "g", civilian)
    refused = api.client.post(f"/games/g/inboxes/{city}/read", json={"upto": upto}, headers=api.headers(civilian))
    assert refused.status_code == 403 and unread() == 2
    headers = api.headers(civilian) | {"X-CSRF-Token": token.group(1)}
    hidden = api.client.post(f"/games/g/inboxes/{mafia}/read", json={"upto": upto}, headers=headers)
    assert hidden.status_code == 404
    for _ in range(2):  # the same report twice: the same effect
        ok = api.client.post(f"/games/g/inboxes/{city}/read", json={"upto": upto}, headers=headers)
        assert ok.status_code == 204, ok.text
    assert unread() == 0


def test_the_edit_form_of_a_pushed_message_comes_on_demand_to_its_author_only(api: Api) -> None:
    """only the author edits, INBOX-GEN-1: p01_02 fetches the form for his message 1; p01_03 is refused it."""
    _s, city = game_on_day_one(api)
    api.ok("p01_02", "g", "PostMessage", inbox=city, text="Моё.")
    mine = api.get("p01_02", f"/games/g/inboxes/{city}/messages/1/edit")
    assert mine.status_code == 200 and 'data-testid="edit-form"' in mine.text and "Моё." in mine.text
    assert 'name="csrf_token"' in mine.text and " open" in mine.text
    theirs = api.get("p01_03", f"/games/g/inboxes/{city}/messages/1/edit")
    assert theirs.status_code >= 400 and "edit-form" not in theirs.text
    missing = api.get("p01_02", f"/games/g/inboxes/{city}/messages/9/edit")
    assert missing.status_code == 404
