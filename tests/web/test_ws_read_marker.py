"""The read marker on the socket (issue 17): ``read`` {game, inbox, upto} takes the route's
path and checks, the receive loop never waits for its write, and a flood is one write."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import pytest

from lepromafia.bots.setup import default_cast

from .conftest import Api, at, setup_game_via_api

CAST = default_cast(1, 20)


@pytest.fixture(autouse=True)
def quick_flush(api: Api) -> None:
    api.web.queries.read_marks.period = 0.05


def quiet_day_one(api: Api) -> tuple[Any, str, str, str]:
    """Лепроград's Day 1, nothing written yet: (state, city inbox, mafia inbox, a civilian
    other than p01_01)."""
    setup_game_via_api(api, "g", CAST, {"population_per_city": 20})
    api.advance_to(at(1, "10:05"))
    s = api.state("g")
    city, mafia = s.current_inbox("city", "Лепроград"), s.current_inbox("mafia", "Лепроград")
    assert city is not None and mafia is not None
    civilian = next(u for u in s.living("Лепроград") if not s.is_mafia(u) and u != "p01_01")
    return s, city, mafia, civilian


def day_one(api: Api) -> tuple[Any, str, str, str]:
    """Лепроград's Day 1: p01_01 has written twice in the city inbox; a civilian's view."""
    s, city, mafia, civilian = quiet_day_one(api)
    for text in ("Раз.", "Два."):
        api.ok("p01_01", "g", "PostMessage", inbox=city, text=text)
    return s, city, mafia, civilian


def unread_of(api: Api, user: str, inbox: str) -> Callable[[], int]:
    def unread() -> int:
        rows = api.get(user, "/api/games/g/inboxes").json()
        return int(next(r["unread"] for r in rows if r["inbox"] == inbox))
    return unread


def position(api: Api, viewer: str) -> int:
    return api.client.portal.call(api.web.queries.position, "g", viewer)  # type: ignore[union-attr]


def eventually(check: Callable[[], bool], within: float = 5.0) -> bool:
    end = time.monotonic() + within
    while time.monotonic() < end:
        if check():
            return True
        time.sleep(0.02)
    return check()


def test_a_report_on_the_socket_moves_the_marker_as_the_post_does(api: Api) -> None:
    """INBOX-CITY-1: the civilian's page showed both messages and says so on its socket: his
    unread count for the city inbox drops to 0, with no HTTP request; the same report again
    changes nothing."""
    _s, city, _mafia, civilian = day_one(api)
    unread = unread_of(api, civilian, city)
    assert unread() == 2
    with api.client.websocket_connect("/ws?lang=ru", headers=api.headers(civilian)) as ws:
        for _ in range(2):
            ws.send_json({"type": "read", "game": "g", "inbox": city, "upto": position(api, civilian)})
        assert eventually(lambda: unread() == 0)
        ws.send_json({"type": "ping"})
        assert ws.receive_json() == {"type": "pong"}  # no refusal came before it


def test_a_civilian_s_report_for_the_mafia_inbox_or_another_game_writes_nothing(api: Api) -> None:
    """INBOX-MAFIA-1, §9: a report for an inbox he may not read is refused in words and writes
    no marker; so is one for a game that does not exist."""
    _s, city, mafia, civilian = day_one(api)
    marks = api.web.queries.read_marks
    with api.client.websocket_connect("/ws?lang=en", headers=api.headers(civilian)) as ws:
        upto = position(api, civilian)
        ws.send_json({"type": "read", "game": "g", "inbox": mafia, "upto": upto})
        refused = ws.receive_json()
        assert refused["type"] == "error" and refused["code"] == "not_found" and refused["game"] == "g"
        assert refused["message"].startswith("Not found")
        ws.send_json({"type": "read", "game": "elsewhere", "inbox": city, "upto": upto})
        other = ws.receive_json()
        assert other["code"] == "unknown_game" and other["game"] == "elsewhere"
    assert marks.transactions == 0
    assert unread_of(api, civilian, city)() == 2


def test_an_anonymous_socket_cannot_report(api: Api) -> None:
    """A visitor who is not signed in has no marker to move."""
    _s, city, _mafia, _civilian = day_one(api)
    with api.client.websocket_connect("/ws?lang=ru") as ws:
        ws.send_json({"type": "read", "game": "g", "inbox": city, "upto": 1})
        refused = ws.receive_json()
    assert refused["type"] == "error" and refused["code"] == "unauthenticated"


def test_a_flood_of_reports_is_one_write_and_made_up_inboxes_are_refused_at_once(api: Api) -> None:
    """A client sending 500 reports as fast as it can within one flush period makes one
    marker write, for the highest position; 40 reports for inboxes the game does not have
    are each refused at once (INBOX-GEN-1: the engine names no reader) and write nothing."""
    _s, city, _mafia, civilian = day_one(api)
    marks = api.web.queries.read_marks
    marks.period = 30.0  # the whole flood inside one period
    with api.client.websocket_connect("/ws?lang=ru", headers=api.headers(civilian)) as ws:
        upto = position(api, civilian)
        for n in range(500):
            ws.send_json({"type": "read", "game": "g", "inbox": city, "upto": max(1, upto - 499 + n)})
        ws.send_json({"type": "ping"})
        assert ws.receive_json() == {"type": "pong"}  # all 500 taken, nothing written yet
        assert marks.transactions == 0
        for n in range(40):
            ws.send_json({"type": "read", "game": "g", "inbox": f"made-up-{n}", "upto": upto})
            refused = ws.receive_json()
            assert (refused["code"], refused["game"]) == ("not_found", "g"), refused
    api.client.portal.call(marks.flush)  # type: ignore[union-attr]
    assert marks.transactions == 1 and marks.written == 1
    assert unread_of(api, civilian, city)() == 0


def test_a_report_sent_just_before_the_socket_closes_is_written(api: Api) -> None:
    """The tab is hidden and then closed within the flush period: the marker still moves."""
    _s, city, _mafia, civilian = day_one(api)
    with api.client.websocket_connect("/ws?lang=ru", headers=api.headers(civilian)) as ws:
        ws.send_json({"type": "read", "game": "g", "inbox": city, "upto": position(api, civilian)})
        ws.send_json({"type": "ping"})
        assert ws.receive_json() == {"type": "pong"}  # the report was taken before the close
    assert eventually(lambda: unread_of(api, civilian, city)() == 0)


def test_an_oversized_or_malformed_report_is_refused() -> None:
    """Bounds like the other messages: ``upto`` is a positive 31-bit number."""
    from pydantic import ValidationError

    from lepromafia.web.ws.protocol import client_message

    for bad in ({"upto": 0}, {"upto": 2**31}, {"inbox": ""}, {"inbox": "x" * 201}, {"game": ""}):
        with pytest.raises(ValidationError):
            client_message.validate_python({"type": "read", "game": "g", "inbox": "i", "upto": 1} | bad)
