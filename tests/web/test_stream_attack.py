"""The attacker's side of §9.1.3 (security review F3-1, F3-2, F3-4, F3-5): an anonymous
visitor and an honest resident record their whole stream of a bot-played game, through
``GET …/events`` and the WebSocket, and try the review's attacks on it. They must find
nothing: no marker, no jump in the numbering, and no event they may not see."""

from __future__ import annotations

import asyncio
import random
from datetime import timedelta
from pathlib import Path
from typing import Any

from lepromafia.bots.service_bots import ServiceBots
from lepromafia.engine.state import Stage
from lepromafia.engine.visibility import visible_to
from lepromafia.service.outbound import event_json
from lepromafia.store import codec

from .conftest import Api, at, make_api, setup_game_via_api, small_cast
from .test_information_barrier import http_executor

GAME = "attack"
CAST = small_cast()
SECRET_KINDS = {"CommissarVacated", "CommissarAppointed", "CommissarOffered", "GodfatherElected",
                "KillReported", "NightDecisionFixed", "AmbushRightGranted", "AmbushesFixed",
                "MafiaAcknowledged", "MafiaDealt", "CheckAnswered"}


def record(api: Api, viewer: str | None) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The viewer's whole stream: over HTTP, and over a fresh WebSocket."""
    items = api.get(viewer, f"/api/games/{GAME}/events", since=0, limit=5000).json()
    frames = []
    with api.client.websocket_connect("/ws", headers=api.headers(viewer)) as ws:
        ws.send_json({"type": "subscribe", "game": GAME, "since_seq": 0})
        hello = ws.receive_json()
        assert hello == {"type": "subscribed", "game": GAME, "version": len(items)}
        while len(frames) < len(items):
            frames.append(ws.receive_json())
    return items, frames


def test_the_stream_of_a_whole_game_names_no_commissar_godfather_or_offer_answer(tmp_path: Path) -> None:
    """F3-1/F3-2/F3-4/F3-5 (AMB-15, SEC-2, SEC-9, §9.1.3): the review's marker attacks
    find nothing in the anonymous visitor's and an honest resident's streams."""
    for api in make_api(tmp_path):
        setup_game_via_api(api, GAME, CAST)
        bots = ServiceBots(api.web.service, GAME, random.Random(11), activity=0.8,
                           execute=http_executor(api))
        loop = asyncio.new_event_loop()
        api.advance_to(at(1, "10:00"))
        for _ in range(24 * 3):
            s = api.state(GAME)
            if s.stage is Stage.FINISHED:
                break
            loop.run_until_complete(bots.step(s))
            api.advance(timedelta(minutes=60))
        loop.close()
        rows = api.client.portal.call(api.web.service.store.event_rows, GAME)  # type: ignore[union-attr]
        truth = [codec.decode_event(codec.loads(r["payload"])) for r in sorted(rows, key=lambda r: r["seq"])]
        kinds = {type(e).__name__ for e in truth}
        assert "ResidentDied" in kinds and kinds & SECRET_KINDS, kinds  # the game has secrets
        s = api.state(GAME)
        honest = next(u for u in s.residents if not s.is_mafia(u) and u not in
                      {c.commissar for c in s.cities.values()})
        for viewer in (None, honest):
            items, frames = record(api, viewer)
            mine = [e for e in truth if visible_to(e, viewer)]
            assert len(mine) < len(truth)  # there were events hidden from him
            # his stream is exactly what he may see, numbered 1, 2, 3, …: no marker, no jump
            assert [i["seq"] for i in items] == list(range(1, len(mine) + 1))
            assert [f["seq"] for f in frames] == list(range(1, len(mine) + 1))
            assert {f["type"] for f in frames} == {"event"}
            assert [i["event"] for i in items] == [f["payload"] for f in frames] == [event_json(e) for e in mine]
            # F3-1: after each death the next thing he gets is the next visible event, so
            # "a marker right after ResidentDied" cannot be evaluated; no secret kinds either
            ended = next((n for n, i in enumerate(items) if i["event"]["type"] == "GameEnded"), len(items))
            assert not {i["event"]["type"] for i in items[:ended]} & SECRET_KINDS, viewer
            # the stream equals the one of the public log (anonymous): nothing depends on hidden events
            if viewer is None:
                assert [i["event"] for i in items] == [event_json(e) for e in truth if e.audience.public]


def test_inbox_message_ids_are_numbers_within_the_inbox_not_the_global_sequence(tmp_path: Path) -> None:
    """F3-6, §9.1.3: p01_03 reads the city inbox while the mafia posts in secret between the
    public posts; the ids he gets are 1, 2, 3, … whatever happened between them."""
    for api in make_api(tmp_path):
        setup_game_via_api(api, GAME, CAST)
        api.advance_to(at(1, "10:05"))
        s = api.state(GAME)
        city = next(iter(s.cities))
        box, mafia_box = s.current_inbox("city", city), s.current_inbox("mafia", city)
        mafioso = s.living_mafia(city)[0]
        reader = next(u for u in s.living(city) if not s.is_mafia(u))
        for n in range(3):
            api.ok(reader, GAME, "PostMessage", inbox=box, text=f"публично {n}")
            for _ in range(n + 1):  # hidden traffic of varying volume between the posts
                api.ok(mafioso, GAME, "PostMessage", inbox=mafia_box, text="тайно")
        view = api.get(reader, f"/api/games/{GAME}/inboxes/{box}").json()
        assert [m["seq"] for m in view["messages"]] == [1, 2, 3]
        assert view["read_upto"] == 0
        again = api.get(reader, f"/api/games/{GAME}/inboxes/{box}", after=1).json()
        assert [m["text"] for m in again["messages"]] == ["публично 1", "публично 2"]
        assert again["read_upto"] == 3
