"""The read marker on the WebSocket cannot reach an inbox its viewer may not read (§9,
INBOX-MAFIA-1, issue 17).

Cast: the web tests' small game «g» (Лепроград and a second city of six) and a second game
«h» in Тестоград (q01..q06, no one of «g»). Day 1 of both. A civilian of Лепроград reports
``read`` on the socket for: his city's mafia inbox; «h»'s mafia inbox under «g»'s name (an
inbox id «g» does not have); «h»'s mafia inbox under «h»'s name; and, the mafioso of «g»
in «h». Each report gets an ``error`` frame ``not_found`` and writes no marker; his
legitimate report on the same socket afterwards still moves his own. An anonymous socket
gets ``unauthenticated``. On SQLite and PostgreSQL.
"""

from __future__ import annotations

from typing import Any

from lepromafia.bots.setup import Cast
from tests.web.conftest import at, setup_game_via_api
from tests.web.test_ws_reads_both_backends import day_one, db_api, markers, position, wait_for

__all__ = ["db_api"]

OTHER = Cast("procurator", "consigliere", "arbiter", ("tribune1",),
             {"Тестоград": tuple(f"q{i:02d}" for i in range(1, 7))})


def test_a_civilian_s_read_of_a_mafia_inbox_or_another_game_s_writes_nothing(db_api: Any) -> None:
    api = db_api
    reader, city, mafia = day_one(api)
    setup_game_via_api(api, "h", OTHER)
    api.advance_to(at(1, "10:05"))
    h = api.state("h")
    h_mafia = h.current_inbox("mafia", "Тестоград")
    assert h_mafia and h_mafia not in api.state("g").inboxes
    api.ok(next(u for u in OTHER.cities["Тестоград"] if h.is_mafia(u)), "h", "PostMessage",
           inbox=h_mafia, text="Только для своих.")
    mine = position(api, "g", reader)
    theirs = max(1, position(api, "h", reader))  # what he may see of «h» (its public events)
    attempts = [("g", mafia, mine), ("g", h_mafia, mine), ("h", h_mafia, theirs)]
    with api.client.websocket_connect("/ws", headers=api.headers(reader)) as ws:
        for game, inbox, upto in attempts:
            ws.send_json({"type": "read", "game": game, "inbox": inbox, "upto": upto})
            error = ws.receive_json()
            assert (error["type"], error["code"], error["game"]) == ("error", "not_found", game), error
        ws.send_json({"type": "read", "game": "g", "inbox": city, "upto": mine})
        wait_for(lambda: city in markers(api, "g", reader))
    assert list(markers(api, "g", reader)) == [city]
    assert markers(api, "h", reader) == {}


def test_an_anonymous_socket_s_read_is_refused_before_anything_is_looked_up(db_api: Any) -> None:
    api = db_api
    reader, city, mafia = day_one(api)
    with api.client.websocket_connect("/ws?lang=en") as ws:
        for inbox in (city, mafia):
            ws.send_json({"type": "read", "game": "g", "inbox": inbox, "upto": 1})
            error = ws.receive_json()
            assert (error["code"], error["message"]) == ("unauthenticated", "Please log in")
    assert markers(api, "g", reader) == {}
