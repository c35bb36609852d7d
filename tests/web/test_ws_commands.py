"""Commands on the socket (issue 17): ``command`` {id, game, name, args} is the route
``POST /api/games/{game}/commands/{name}`` without the HTTP request — the same checks, the
same answer, the same one effect per id — acknowledged on the socket that sent it.

Cast: Лепроград's residents; Anna writes, Boris reads in the same city, a mafioso's inbox
is closed to Anna (INBOX-CITY-1, INBOX-MAFIA-1)."""

from __future__ import annotations

import gc
import time
from typing import Any

from lepromafia.web.ws.endpoint import MAX_MESSAGE
from lepromafia.web.ws.protocol import Command

from .conftest import Api, setup_game_via_api, small_cast

CAST = small_cast()


def position(api: Api, game: str, viewer: str | None) -> int:
    return api.client.portal.call(api.web.queries.position, game, viewer)  # type: ignore[union-attr]


def cast_of(api: Api) -> tuple[Any, str, str, str, str]:
    """The started game; Anna and Boris, honest residents of one city; its city and mafia inboxes."""
    setup_game_via_api(api, "g", CAST)
    s = api.state("g")
    city = next(iter(CAST.cities))
    anna, boris = [u for u in CAST.cities[city] if not s.is_mafia(u)][:2]
    city_inbox, mafia_inbox = s.current_inbox("city", city), s.current_inbox("mafia", city)
    assert city_inbox is not None and mafia_inbox is not None
    return s, anna, boris, city_inbox, mafia_inbox


def texts_in(api: Api, user: str, inbox: str) -> list[str]:
    r = api.get(user, f"/api/games/g/inboxes/{inbox}")
    assert r.status_code == 200, r.text
    return [m["text"] for m in r.json()["messages"]]


def command(cid: str, name: str, game: str = "g", **args: Any) -> dict[str, Any]:
    return {"type": "command", "id": cid, "game": game, "name": name, "args": args}


def test_anna_posts_on_her_socket_and_boris_reads_it_live(api: Api) -> None:
    """INBOX-CITY-1: Anna's message sent on her socket is acknowledged there with her own
    stream's positions, as the route's answer; Boris, subscribed to the game, gets it live;
    it is in the city inbox once."""
    _s, anna, boris, city, _mafia = cast_of(api)
    before = position(api, "g", anna)
    with api.client.websocket_connect("/ws?lang=ru", headers=api.headers(boris)) as reader, \
            api.client.websocket_connect("/ws?lang=ru", headers=api.headers(anna)) as writer:
        reader.send_json({"type": "subscribe", "game": "g", "since_seq": position(api, "g", boris)})
        assert reader.receive_json()["type"] == "subscribed"
        writer.send_json(command("a1", "PostMessage", inbox=city, text="Доброе утро, Лепроград"))
        ack = writer.receive_json()
        assert ack == {"type": "ack", "id": "a1", "game": "g", "first_seq": before + 1,
                       "last_seq": before + 1, "event_count": 1}
        live = reader.receive_json()
        assert live["type"] == "event" and live["payload"]["text"] == "Доброе утро, Лепроград"
        assert live["payload"]["author"] == anna
    assert texts_in(api, boris, city).count("Доброе утро, Лепроград") == 1


def test_the_same_id_sent_again_after_a_reconnect_is_one_message(api: Api) -> None:
    """A client that lost its socket before the ack sends the command again with the same id
    on a new socket: the same ack, one message (idempotent, as a retried request)."""
    _s, anna, boris, city, _mafia = cast_of(api)
    acks = []
    for _ in range(2):
        with api.client.websocket_connect("/ws", headers=api.headers(anna)) as ws:
            ws.send_json(command("once", "PostMessage", inbox=city, text="Только один раз"))
            acks.append(ws.receive_json())
    assert acks[0]["type"] == "ack" and acks[0] == acks[1]
    assert texts_in(api, boris, city).count("Только один раз") == 1


def test_a_refusal_is_the_route_s_in_words_with_the_command_id(api: Api) -> None:
    """INBOX-MAFIA-1: Anna may not write in the mafia inbox: the socket refuses with the
    route's code and message, in the socket's language, naming the command; nothing is
    posted, and the socket goes on serving her."""
    _s, anna, _boris, city, mafia = cast_of(api)
    route = api.cmd(anna, "g", "PostMessage", inbox=mafia, text="Я знаю, кто вы")
    assert route.status_code >= 400
    with api.client.websocket_connect("/ws?lang=en", headers=api.headers(anna)) as ws:
        ws.send_json(command("m1", "PostMessage", inbox=mafia, text="Я знаю, кто вы"))
        refused = ws.receive_json()
        assert refused["type"] == "error" and refused["id"] == "m1" and refused["game"] == "g"
        assert refused["code"] == route.json()["error"]["code"]
        assert refused["message"] == api.client.post(
            "/api/games/g/commands/PostMessage?lang=en", headers=api.headers(anna),
            json={"command_id": "m1-en", "inbox": mafia, "text": "Я знаю, кто вы"}).json()["error"]["message"]
        ws.send_json(command("c1", "PostMessage", inbox=city, text="Тогда в городе"))
        assert ws.receive_json()["type"] == "ack"
    assert "Я знаю, кто вы" not in texts_in(api, anna, city)


def test_bad_arguments_and_unknown_commands_are_refused_by_name(api: Api) -> None:
    """A missing text names its field (a form shows the message there); a command the API
    does not offer — made up, or the scheduler's own deadline — is refused; the id is
    always the frame's."""
    _s, anna, _boris, city, _mafia = cast_of(api)
    with api.client.websocket_connect("/ws?lang=en", headers=api.headers(anna)) as ws:
        ws.send_json(command("b1", "PostMessage", inbox=city))
        missing = ws.receive_json()
        assert (missing["code"], missing["field"], missing["id"]) == ("bad_json", "text", "b1")
        assert "text" in missing["message"]
        ws.send_json(command("b2", "PostMessage", inbox=city, text="x", actor="someone-else"))
        assert ws.receive_json()["code"] == "bad_json"  # the actor is always the session's
        for name in ("MakeMeProcurator", "FireDeadline", "OfferCommissar"):
            ws.send_json(command("b3", name))
            refused = ws.receive_json()
            assert (refused["code"], refused["id"]) == ("unknown_command", "b3"), name
            assert name in refused["message"]
        ws.send_json({"type": "command", "id": "bad id!", "game": "g", "name": "PostMessage"})
        assert ws.receive_json()["code"] == "bad_json"


def test_a_visitor_a_ticket_socket_and_a_logged_out_socket_cannot_act(api: Api) -> None:
    """Acting needs a live session, checked at every command as at every request: a visitor
    is asked to log in; a socket opened with a one-time ticket may read but not act; after
    Anna logs out, the socket she opened before refuses her next command."""
    _s, anna, boris, city, _mafia = cast_of(api)
    with api.client.websocket_connect("/ws?lang=en") as ws:
        ws.send_json(command("v1", "PostMessage", inbox=city, text="Гость"))
        assert ws.receive_json()["code"] == "unauthenticated"
    ticket = api.post(anna, "/api/auth/ws-ticket", {}).json()["ticket"]
    with api.client.websocket_connect(f"/ws?ticket={ticket}") as ws:
        ws.send_json(command("t1", "PostMessage", inbox=city, text="По билету"))
        assert ws.receive_json()["code"] == "unauthenticated"
    with api.client.websocket_connect("/ws?lang=en", headers=api.headers(anna)) as ws:
        ws.send_json(command("l1", "PostMessage", inbox=city, text="До выхода"))
        assert ws.receive_json()["type"] == "ack"
        assert api.post(anna, "/api/auth/logout", {}).status_code == 204
        ws.send_json(command("l2", "PostMessage", inbox=city, text="После выхода"))
        assert ws.receive_json()["code"] == "unauthenticated"
    assert texts_in(api, boris, city).count("До выхода") == 1
    assert not {"Гость", "По билету", "После выхода"} & set(texts_in(api, boris, city))


def test_a_long_message_fits_a_command_frame_but_not_another_frame(api: Api) -> None:
    """A chat message may be far longer than the socket's other frames: a 6,000-character
    post is taken; a ping padded to that size is refused as too large."""
    _s, anna, boris, city, _mafia = cast_of(api)
    long_text = "Длинная речь. " * 430
    assert len(long_text) > MAX_MESSAGE
    with api.client.websocket_connect("/ws?lang=en", headers=api.headers(anna)) as ws:
        ws.send_json(command("long", "PostMessage", inbox=city, text=long_text))
        assert ws.receive_json()["type"] == "ack"
        ws.send_text('{"type": "ping", "pad": "' + "x" * MAX_MESSAGE + '"}')
        assert ws.receive_json()["code"] == "too_large"
    assert long_text.strip() in [t.strip() for t in texts_in(api, boris, city)]


def test_a_frame_refused_before_it_is_read_still_names_its_command(api: Api) -> None:
    """F6-2: a message with a NUL byte, or a command frame without its game, is refused in
    words with the command's id, so a page waiting for that command's answer hears it; an
    id no command could carry is not repeated."""
    _s, anna, boris, city, _mafia = cast_of(api)
    with api.client.websocket_connect("/ws?lang=en", headers=api.headers(anna)) as ws:
        ws.send_json(command("nul", "PostMessage", inbox=city, text="до\x00после"))
        refused = ws.receive_json()
        assert (refused["code"], refused["id"], refused["game"]) == ("text_invalid", "nul", "g")
        ws.send_json({"type": "command", "id": "nogame", "name": "PostMessage", "args": {}})
        refused = ws.receive_json()
        assert (refused["code"], refused["id"]) == ("bad_json", "nogame") and "game" not in refused
        ws.send_json({"type": "command", "id": "not an id!", "game": "g", "name": "PostMessage",
                      "args": {}})
        refused = ws.receive_json()  # an id no command may have is not echoed back
        assert (refused["code"], refused["game"]) == ("bad_json", "g") and "id" not in refused
    assert not [t for t in texts_in(api, boris, city) if "после" in t]


def test_a_socket_waiting_after_its_command_holds_nothing_of_it(api: Api) -> None:
    """Issue 17: Anna and Boris each post one line on their sockets and then stay, reading.
    While their sockets wait for their next frames, no command message of theirs is still
    alive in the server (its frame, JSON and model went when it was handled): a hundred
    players who each posted once would otherwise keep a hundred of them for the collector
    to scan until each one's next frame."""
    _s, anna, boris, city, _mafia = cast_of(api)
    with api.client.websocket_connect("/ws", headers=api.headers(anna)) as one, \
            api.client.websocket_connect("/ws", headers=api.headers(boris)) as two:
        for ws, cid in ((one, "anna-1"), (two, "boris-1")):
            ws.send_json(command(cid, "PostMessage", inbox=city, text=f"Строка {cid}"))
            assert ws.receive_json()["type"] == "ack"
        alive: list[Command] = []
        for _ in range(50):  # the acks are out; each loop returns to its receive just after
            gc.collect()
            alive = [o for o in gc.get_objects() if type(o) is Command]
            if not alive:
                break
            time.sleep(0.02)
        assert alive == []
