"""The read marker on the WebSocket on SQLite and PostgreSQL (issue 17; the SQLite-only
cases are tests/web/test_ws_read_marker.py).

Cast: the web tests' small game «g» (Лепроград and a second city, six residents each),
Day 1, Лепроград's city inbox open (INBOX-CITY-1). p01_01 posts twice; a civilian of
Лепроград («the reader») has both unread. His page reports, on the socket it already
holds, his stream position of the last message it shows: his marker moves to that
message's global seq, through the same service path as ``POST …/read`` (his unread
count drops to 0), and only forward (a late report of an older position moves nothing).
A burst of 300 reports costs at most two writes; a write that takes seconds does not
stall the socket's reading (a ping is answered at once). On SQLite and PostgreSQL.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from lepromafia.service.clock import ManualClock
from lepromafia.store.accounts import AccountStore
from lepromafia.web.app import create_app

from ..service.conftest import _drop_schema
from ..service.helpers import pg_config, run
from .conftest import START, Api, at, settings_for, setup_game_via_api, small_cast

CAST = small_cast()
CITY = next(iter(CAST.cities))


@pytest.fixture(params=["sqlite", "postgresql"])
def db_api(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Api]:
    """The web tests' app on SQLite or on a fresh PostgreSQL schema (dropped after)."""
    settings = settings_for(tmp_path)
    config = None
    if request.param == "postgresql":
        config = pg_config()
        settings = settings.model_copy(update={"database_url": config.url, "database_schema": config.schema})
    clock = ManualClock(START)
    with TestClient(create_app(settings, clock=clock)) as client:
        api = Api(client, clock)
        assert api.web.service.store.config.is_sqlite == (config is None)
        yield api
    if config is not None:
        run(_drop_schema(config))


def day_one(api: Api) -> tuple[str, str, str]:
    """Game «g» on Day 1 with two messages in Лепроград's city inbox: (reader, city inbox,
    mafia inbox)."""
    setup_game_via_api(api, "g", CAST)
    api.advance_to(at(1, "10:05"))
    s = api.state("g")
    city, mafia = s.current_inbox("city", CITY), s.current_inbox("mafia", CITY)
    assert city and mafia
    reader = next(u for u in s.living(CITY) if not s.is_mafia(u) and u != CAST.cities[CITY][0])
    for text in ("Раз.", "Два."):
        api.ok(CAST.cities[CITY][0], "g", "PostMessage", inbox=city, text=text)
    return reader, city, mafia


def markers(api: Api, game: str, user: str) -> dict[str, int]:
    found: dict[str, int] = api.client.portal.call(  # type: ignore[union-attr]
        AccountStore(api.web.service.store).read_markers, game, user)
    return found


def position(api: Api, game: str, viewer: str) -> int:
    found: int = api.client.portal.call(api.web.queries.position, game, viewer)  # type: ignore[union-attr]
    return found


def unread(api: Api, user: str, inbox: str) -> int:
    rows = api.get(user, "/api/games/g/inboxes").json()
    return int(next(r["unread"] for r in rows if r["inbox"] == inbox))


def wait_for(check: Any, seconds: float = 10.0) -> None:
    deadline = time.monotonic() + seconds
    while not check():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.05)


def test_a_read_report_on_the_socket_moves_the_marker_like_the_post_route_and_only_forward(
        db_api: Api) -> None:
    """INBOX-CITY-1: the reader's two unread messages are read after one ``read`` frame; a
    later report of his first message's position does not move the marker back."""
    api = db_api
    reader, city, _mafia = day_one(api)
    assert unread(api, reader, city) == 2
    upto = position(api, "g", reader)  # the frame of the last message his page shows
    last_message_seq = api.client.portal.call(  # type: ignore[union-attr]
        api.web.queries.streams.global_seq, "g", reader, upto, api.client.portal.call(
            api.web.queries.version, "g"))  # type: ignore[union-attr]
    with api.client.websocket_connect("/ws", headers=api.headers(reader)) as ws:
        api.web.queries.read_marks.period = 0.05
        ws.send_json({"type": "read", "game": "g", "inbox": city, "upto": upto})
        wait_for(lambda: markers(api, "g", reader).get(city) == last_message_seq)
        assert unread(api, reader, city) == 0
        ws.send_json({"type": "read", "game": "g", "inbox": city, "upto": upto - 1})
        ws.send_json({"type": "ping"})
        assert ws.receive_json() == {"type": "pong"}
    time.sleep(0.3)  # the late report is written with the next group (and moves nothing)
    assert markers(api, "g", reader) == {city: last_message_seq}
    assert unread(api, reader, city) == 0


def test_a_burst_of_reports_is_coalesced_into_at_most_two_writes(db_api: Api) -> None:
    """A client that sends 300 reports as fast as it can: at most one write per
    ``ReadMarks.period`` (the reports meanwhile coalesced), the highest position kept."""
    api = db_api
    reader, city, _mafia = day_one(api)
    upto = position(api, "g", reader)
    marks = api.web.queries.read_marks
    marks.period = 0.5
    groups: list[dict[tuple[str, str, str], int]] = []
    real = marks._write

    async def counted(pending: dict[tuple[str, str, str], int], group: Any) -> None:
        groups.append(dict(pending))
        await real(pending, group)

    marks._write = counted  # type: ignore[method-assign]
    with api.client.websocket_connect("/ws", headers=api.headers(reader)) as ws:
        started = time.monotonic()
        for n in range(300):
            ws.send_json({"type": "read", "game": "g", "inbox": city, "upto": max(1, upto - 299 + n)})
        ws.send_json({"type": "ping"})
        assert ws.receive_json() == {"type": "pong"}
        sent = time.monotonic() - started
        wait_for(lambda: bool(groups) and groups[-1].get(("g", city, reader)) is not None
                 and unread(api, reader, city) == 0)
        time.sleep(marks.period + 0.3)  # no write is left behind either
    assert len(groups) <= 2 + int(sent / marks.period), (len(groups), sent)
    assert all(list(g) == [("g", city, reader)] for g in groups)
    assert unread(api, reader, city) == 0


@pytest.mark.timeout(60)
def test_a_slow_write_does_not_stall_the_socket_s_reading(db_api: Api) -> None:
    """The group commit takes 3 s here: a ping sent after the report is answered at once."""
    api = db_api
    reader, city, _mafia = day_one(api)
    upto = position(api, "g", reader)
    marks = api.web.queries.read_marks
    marks.period = 0.05
    real = marks._write

    async def slow(pending: dict[tuple[str, str, str], int], group: Any) -> None:
        await asyncio.sleep(3)
        await real(pending, group)

    marks._write = slow  # type: ignore[method-assign]
    with api.client.websocket_connect("/ws", headers=api.headers(reader)) as ws:
        ws.send_json({"type": "read", "game": "g", "inbox": city, "upto": upto})
        started = time.monotonic()
        ws.send_json({"type": "ping"})
        assert ws.receive_json() == {"type": "pong"}
        assert time.monotonic() - started < 1.5
        wait_for(lambda: unread(api, reader, city) == 0)


def test_a_report_the_rules_refuse_gets_a_coded_translated_error_and_writes_nothing(db_api: Api) -> None:
    """An anonymous socket: ``unauthenticated``; a position past his stream and an unknown
    game: ``not_found`` / ``unknown_game``, in Russian (and English with ``?lang=en``)."""
    api = db_api
    reader, city, _mafia = day_one(api)
    upto = position(api, "g", reader)
    with api.client.websocket_connect("/ws") as ws:
        ws.send_json({"type": "read", "game": "g", "inbox": city, "upto": 1})
        error = ws.receive_json()
        assert (error["type"], error["code"], error["game"]) == ("error", "unauthenticated", "g")
        assert error["message"] == "Войдите на сайт"
    with api.client.websocket_connect("/ws?lang=en", headers=api.headers(reader)) as ws:
        ws.send_json({"type": "read", "game": "g", "inbox": city, "upto": upto + 50})
        error = ws.receive_json()
        assert (error["code"], error["game"]) == ("not_found", "g") and city in error["message"]
        ws.send_json({"type": "read", "game": "nope", "inbox": city, "upto": 1})
        error = ws.receive_json()
        assert (error["code"], error["game"]) == ("unknown_game", "nope") and "nope" in error["message"]
        for bad in ({"upto": 0}, {"upto": 2**31}, {"inbox": ""}, {"inbox": "x" * 201}):
            ws.send_json({"type": "read", "game": "g", "inbox": city, "upto": 1} | bad)
            assert ws.receive_json()["code"] == "bad_json", bad
    assert markers(api, "g", reader) == {}
    assert unread(api, reader, city) == 2
