"""§9 end to end: a game played by bots through the HTTP API while every seat (each
resident, each host, an anonymous visitor) reads everything it can over the API and
the WebSocket. Nothing a viewer receives may be something §9 hides from him: roles,
the Consigliere's identity, the commissar's, mafia inbox content, contact details,
check results."""

from __future__ import annotations

import asyncio
import json
import random
from datetime import timedelta
from pathlib import Path
from typing import Any

from lepromafia.bots.service_bots import Rejected, ServiceBots
from lepromafia.bots.setup import Cast
from lepromafia.engine import commands as cmd
from lepromafia.engine.state import Stage
from lepromafia.engine.visibility import visible_to
from lepromafia.service.outbound import event_json
from lepromafia.store import codec

from .conftest import Api, at, make_api, setup_game_via_api, small_cast

GAME = "barrier"
BASE = small_cast()
CAST = Cast(BASE.procurator, "donvito", BASE.arbiter, BASE.tribunes, BASE.cities)
"""A Consigliere login that no other text contains."""


def walk(value: Any) -> Any:
    if isinstance(value, dict):
        yield value
        for v in value.values():
            yield from walk(v)
    elif isinstance(value, list):
        for v in value:
            yield from walk(v)


class Seat:
    def __init__(self, api: Api, user: str | None) -> None:
        self.api = api
        self.user = user
        self.received: list[str] = []
        self.ws_cm = api.client.websocket_connect("/ws", headers=api.headers(user))
        self.ws = self.ws_cm.__enter__()
        self.ws.send_json({"type": "subscribe", "game": GAME, "since_seq": 0})
        self.frames: list[dict[str, Any]] = []
        self.mine: list[int] = []
        """The global seqs of the events this seat may see (the operator's truth)."""

    def read_all(self) -> None:
        """Every API read this seat may make."""
        paths = [f"/api/games/{GAME}", f"/api/games/{GAME}/deadlines", f"/api/games/{GAME}/tallies",
                 "/api/games"]
        if self.user:
            paths += [f"/api/games/{GAME}/role", f"/api/games/{GAME}/duties"]
            inboxes = self.get(f"/api/games/{GAME}/inboxes")
            paths += [f"/api/games/{GAME}/inboxes/{i['inbox']}" for i in inboxes]
        for path in paths:
            self.get(path)

    def get(self, path: str) -> Any:
        r = self.api.get(self.user, path)
        self.received.append(r.text)
        return r.json()

    def drain(self, version: int) -> None:
        last = 0
        while last < version:
            msg = self.ws.receive_json()
            self.received.append(json.dumps(msg, ensure_ascii=False))
            if msg["type"] == "subscribed":  # his own count, never the game's version
                assert msg["game"] == GAME and msg["version"] <= version, (self.user, msg, version)
            elif msg["type"] == "resync":
                self.ws.send_json({"type": "subscribe", "game": GAME, "since_seq": msg["since_seq"]})
            else:
                assert msg["type"] == "event", msg  # no marker: nothing of a hidden event
                assert msg["seq"] == last + 1
                last = msg["seq"]
                self.frames.append(msg)
        self.ws_cm.__exit__(None, None, None)


def http_executor(api: Api) -> Any:
    async def execute(game_id: str, command: cmd.Command, command_id: str) -> Any:
        body = codec.encode_command(command)
        name = body.pop(codec.TYPE_KEY)
        body.pop("actor")
        r = api.post(command.actor, f"/api/games/{game_id}/commands/{name}",
                     {**body, "command_id": command_id})
        if r.status_code != 200:
            raise Rejected(r.text)
        return r.json()

    return execute


def test_no_seat_ever_receives_what_section_9_hides_from_it(tmp_path: Path) -> None:
    for api in make_api(tmp_path):
        play_and_check(api)


def play_and_check(api: Api) -> None:
    setup_game_via_api(api, GAME, CAST)
    users = [CAST.procurator, CAST.consigliere, CAST.arbiter, *CAST.tribunes,
             *(u for us in CAST.cities.values() for u in us)]
    seats = [Seat(api, u) for u in [*users, None]]
    try:
        check_seats(api, seats)
    finally:  # a socket left open keeps the test client's shutdown waiting
        for seat in seats:
            seat.ws_cm.__exit__(None, None, None)


def check_seats(api: Api, seats: list[Seat]) -> None:
    bots = ServiceBots(api.web.service, GAME, random.Random(5), activity=0.7, execute=http_executor(api))
    loop = asyncio.new_event_loop()
    api.advance_to(at(1, "10:00"))
    steps = 0
    while steps < 24 * 3 + 12:
        s = api.state(GAME)
        if s.stage is Stage.FINISHED:
            break
        loop.run_until_complete(bots.step(s))
        for name in s.cities:  # sentinels: what only the mafia of the city may read
            box = s.current_inbox("mafia", name)
            living = s.living_mafia(name)
            if box and living and steps % 3 == 0:
                api.cmd(living[0], GAME, "PostMessage", inbox=box, text=f"MAFIA-SECRET-{name}")
        if steps % 6 == 0:
            for seat in seats:
                seat.read_all()
        api.advance(timedelta(minutes=60))
        steps += 1
    loop.close()
    final = api.state(GAME)
    version = api.client.portal.call(api.web.queries.version, GAME)  # type: ignore[union-attr]
    rows = api.client.portal.call(api.web.service.store.event_rows, GAME)  # type: ignore[union-attr]
    truth = {r["seq"]: codec.decode_event(codec.loads(r["payload"])) for r in rows}
    ended = min((q for q, e in truth.items() if type(e).__name__ == "GameEnded"), default=version + 1)
    assert bots.accepted > 80 and final.day >= 3, (bots.accepted, final.day)  # a real game was played
    for seat in seats:
        seat.read_all()
        # §9.1.3: the seat's stream is exactly the events it may see, numbered 1, 2, 3, …
        seat.mine = [q for q, e in sorted(truth.items()) if visible_to(e, seat.user)]
        assert len(seat.mine) < version  # every seat has events it may not see
        seat.drain(len(seat.mine))
        streamed = seat.get(f"/api/games/{GAME}/events")
        assert [p["seq"] for p in streamed] == list(range(1, min(1000, len(seat.mine)) + 1))
        assert [f["seq"] for f in seat.frames] == list(range(1, len(seat.mine) + 1))
        for frame in [*seat.frames, *({"seq": p["seq"], "payload": p["event"]} for p in streamed)]:
            assert frame["payload"] == event_json(truth[seat.mine[frame["seq"] - 1]]), (seat.user, frame)
            assert "audience" not in frame["payload"]
        check_secrets(seat, final, ended, truth)


def check_secrets(seat: Seat, final: Any, ended: int, truth: dict[int, Any]) -> None:
    viewer = seat.user
    text = "\n".join(t for t in seat.received if '"GameEnded"' not in t)
    assert "SECRET-" not in text.replace("MAFIA-SECRET-", ""), viewer  # contacts: never
    for name in final.cities:
        readers = set(final.mafiosi(name)) | {CAST.consigliere}
        if viewer not in readers:
            assert f"MAFIA-SECRET-{name}" not in text, (viewer, name)
    knows_consigliere = viewer in {CAST.procurator, CAST.consigliere} | {
        u for c in final.cities for u in final.mafiosi(c)}
    if not knows_consigliere:
        assert CAST.consigliere not in text, viewer
    alive = {u for u, r in final.residents.items() if r.alive}
    own_mafia = set(final.mafiosi(final.residents[viewer].city)) if viewer in final.residents \
        and final.is_mafia(viewer) else set()
    for chunk in seat.received:
        if '"GameEnded"' in chunk:
            continue
        for obj in walk(json.loads(chunk)):
            if obj.get("faction") == "mafia" and obj.get("user") in alive:
                assert viewer == CAST.consigliere or obj["user"] in own_mafia | {viewer}, (viewer, obj)
            if obj.get("type") in ("CheckAnswered", "CommissarAppointed", "CommissarOffered"):
                assert viewer is not None and visible_to(truth[_seq_of(seat, obj)], viewer)


def _seq_of(seat: Seat, obj: dict[str, Any]) -> int:
    for frame in seat.frames:
        if frame.get("payload") is obj:
            return seat.mine[int(frame["seq"]) - 1]
    for frame in seat.frames:
        if frame.get("payload") == obj:
            return seat.mine[int(frame["seq"]) - 1]
    raise AssertionError("an event outside the stream")
