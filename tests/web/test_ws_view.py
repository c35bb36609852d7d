"""What a page shows, on its socket (issue 17): ``view`` {game, inboxes, visible}.

A page that shows a thread on screen says so once on its socket; from then on each message
of that inbox the socket delivers moves the reader's marker, as his page's own report
(``read`` {upto}) did every few seconds — a report per reader per message, now none. Cast:
Лепроград's twenty residents on Day 1; p01_01 writes in the city inbox; a civilian reads.
"""

from __future__ import annotations

from typing import Any

import pytest

from .conftest import Api
from .test_pushed_content import next_event
from .test_ws_read_marker import eventually, position, quiet_day_one, unread_of


@pytest.fixture(autouse=True)
def quick_flush(api: Api) -> None:
    api.web.queries.read_marks.seen_period = 0.05


def day_one(api: Api) -> tuple[Any, str, str, str, str]:
    """Лепроград's Day 1, nothing written yet: (state, city inbox, mafia inbox, a civilian,
    a mafioso)."""
    s, city, mafia, civilian = quiet_day_one(api)
    mafioso = next(u for u in s.living("Лепроград") if s.is_mafia(u) and u != "p01_01")
    return s, city, mafia, civilian, mafioso


def subscribed(api: Api, ws: Any, viewer: str | None) -> None:
    ws.send_json({"type": "subscribe", "game": "g", "since_seq": position(api, viewer)})
    assert ws.receive_json()["type"] == "subscribed"


def test_a_message_delivered_to_a_page_showing_its_thread_is_read(api: Api) -> None:
    """INBOX-CITY-1: the civilian's page shows the city thread on screen; p01_01 writes twice;
    both reach his socket and his unread count for the city inbox stays 0 — his page sent
    no report. Another resident, whose socket said nothing of what it shows, has 2 unread."""
    _s, city, _mafia, civilian, _mafioso = day_one(api)
    other = next(u for u in api.state("g").living("Лепроград") if u not in (civilian, "p01_01"))
    with api.client.websocket_connect("/ws?lang=ru", headers=api.headers(civilian)) as ws, \
            api.client.websocket_connect("/ws?lang=ru", headers=api.headers(other)) as quiet:
        subscribed(api, ws, civilian)
        subscribed(api, quiet, other)
        ws.send_json({"type": "view", "game": "g", "inboxes": [city], "visible": True})
        for text in ("Раз.", "Два."):
            api.ok("p01_01", "g", "PostMessage", inbox=city, text=text)
            assert next_event(ws)["payload"]["text"] == text
            assert next_event(quiet)["payload"]["text"] == text
        assert eventually(lambda: unread_of(api, civilian, city)() == 0)
    assert unread_of(api, other, city)() == 2


def test_what_arrives_while_the_page_is_hidden_stays_unread(api: Api) -> None:
    """The tab is hidden: a message delivered then is not read (his page reports it when it
    is shown again); once shown, the next one moves the marker past both."""
    _s, city, _mafia, civilian, _mafioso = day_one(api)
    marks = api.web.queries.read_marks
    unread = unread_of(api, civilian, city)
    with api.client.websocket_connect("/ws?lang=ru", headers=api.headers(civilian)) as ws:
        subscribed(api, ws, civilian)
        ws.send_json({"type": "view", "game": "g", "inboxes": [city], "visible": True})
        ws.send_json({"type": "view", "game": "g", "inboxes": [city], "visible": False})
        api.ok("p01_01", "g", "PostMessage", inbox=city, text="Пока вас не было.")
        assert next_event(ws)["payload"]["text"] == "Пока вас не было."
        api.client.portal.call(marks.flush)  # type: ignore[union-attr]
        assert marks.written == 0 and unread() == 1
        ws.send_json({"type": "view", "game": "g", "inboxes": [city], "visible": True})
        api.ok("p01_01", "g", "PostMessage", inbox=city, text="С возвращением.")
        assert next_event(ws)["payload"]["text"] == "С возвращением."
        assert eventually(lambda: unread() == 0)


def test_naming_the_mafia_inbox_reads_nothing_of_it(api: Api) -> None:
    """INBOX-MAFIA-1, §9: a civilian's socket that claims to show the mafia thread is sent
    none of its messages, so no marker of it is written; the mafioso's page that shows it
    marks his. A thread the page does not show (the city's) is not read either."""
    _s, city, mafia, civilian, mafioso = day_one(api)
    marks = api.web.queries.read_marks
    with api.client.websocket_connect("/ws?lang=ru", headers=api.headers(civilian)) as nosy, \
            api.client.websocket_connect("/ws?lang=ru", headers=api.headers(mafioso)) as ws:
        subscribed(api, nosy, civilian)
        subscribed(api, ws, mafioso)
        nosy.send_json({"type": "view", "game": "g", "inboxes": [mafia], "visible": True})
        ws.send_json({"type": "view", "game": "g", "inboxes": [mafia], "visible": True})
        api.ok("p01_01", "g", "PostMessage", inbox=city, text="Всем привет.")
        assert next_event(nosy)["payload"]["inbox"] == city
        assert next_event(ws)["payload"]["inbox"] == city
        api.ok(mafioso, "g", "PostMessage", inbox=mafia, text="Сегодня ночью.")
        assert next_event(ws)["payload"]["inbox"] == mafia
        nosy.send_json({"type": "ping"})
        assert nosy.receive_json() == {"type": "pong"}  # nothing of the mafia's before it
        api.client.portal.call(marks.flush)  # type: ignore[union-attr]
        assert marks.written == 1
    assert unread_of(api, mafioso, mafia)() == 0
    assert unread_of(api, civilian, city)() == 1 and unread_of(api, mafioso, city)() == 1


def test_a_visitor_s_view_is_taken_without_a_word(api: Api) -> None:
    """Someone not signed in has no marker: his page's view is neither refused nor kept."""
    _s, city, _mafia, _civilian, _mafioso = day_one(api)
    with api.client.websocket_connect("/ws?lang=ru") as ws:
        subscribed(api, ws, None)
        ws.send_json({"type": "view", "game": "g", "inboxes": [city], "visible": True})
        ws.send_json({"type": "ping"})
        assert ws.receive_json() == {"type": "pong"}


def test_a_malformed_view_is_refused() -> None:
    """Bounds like the other messages: at most 16 inboxes, each named, ≤ 200 characters."""
    from pydantic import ValidationError

    from lepromafia.web.ws.protocol import client_message

    ok = {"type": "view", "game": "g", "inboxes": ["i"], "visible": True}
    client_message.validate_python(ok)
    for bad in ({"inboxes": [""]}, {"inboxes": ["x" * 201]}, {"inboxes": ["i"] * 17},
                {"visible": "maybe"}, {"game": ""}, {"extra": 1}):
        with pytest.raises(ValidationError):
            client_message.validate_python(ok | bad)


def test_a_socket_keeps_views_of_at_most_eight_games() -> None:
    """A page shows one game; a client naming a ninth game at once is not remembered for it
    (the server holds no unbounded state per socket), and a hidden page's view is dropped."""
    from lepromafia.web.ws.endpoint import MAX_VIEWS, Connection
    from lepromafia.web.ws.protocol import View

    conn = Connection(ws=None, web=None, viewer="p01_02", lang="ru")  # type: ignore[arg-type]
    for n in range(MAX_VIEWS + 1):
        conn.view(View(type="view", game=f"g{n}", inboxes=["city"]))
    assert len(conn.reading) == MAX_VIEWS and f"g{MAX_VIEWS}" not in conn.reading
    conn.view(View(type="view", game="g0", inboxes=["city", "mafia"]))  # one already named
    assert conn.reading["g0"] == {"city", "mafia"}
    conn.view(View(type="view", game="g0", inboxes=["city"], visible=False))
    assert "g0" not in conn.reading
    visitor = Connection(ws=None, web=None, viewer=None, lang="ru")  # type: ignore[arg-type]
    visitor.view(View(type="view", game="g", inboxes=["city"]))
    assert visitor.reading == {}
