"""The live stream: gapless per viewer, resume, resync, a slow client dropped alone."""

from __future__ import annotations

import asyncio
from datetime import datetime
from pathlib import Path
from typing import Any

from lepromafia.engine import events as ev
from lepromafia.engine.audience import PUBLIC, only
from lepromafia.service.pubsub import Broker

from .conftest import Api, make_api, setup_game_via_api, small_cast

CAST = small_cast()


def read_until(ws: Any, game: str, version: int, since: int = 0) -> list[dict[str, Any]]:
    """Frames of one game up to ``version``, following ``resync`` as a client would."""
    got: list[dict[str, Any]] = []
    last = since
    while last < version:
        msg = ws.receive_json()
        if msg["type"] == "resync":
            ws.send_json({"type": "subscribe", "game": game, "since_seq": msg["since_seq"]})
            got.append(msg)
            continue
        if msg["type"] in ("event", "marker"):
            assert msg["seq"] == last + 1, (msg["seq"], last)
            last = msg["seq"]
        got.append(msg)
    return got


def test_each_viewer_gets_every_seq_once_and_only_what_he_may_see(api: Api) -> None:
    """§9, SEC-7: a mafioso sees his city's deal, an honest resident only a marker there."""
    setup_game_via_api(api, "g", CAST)
    s = api.state("g")
    mafioso = next(u for u in s.residents if s.is_mafia(u))
    honest = next(u for u in s.residents if not s.is_mafia(u))
    version = api.client.portal.call(api.web.queries.version, "g")  # type: ignore[union-attr]
    seen = {}
    for user in (mafioso, honest, None):
        with api.client.websocket_connect("/ws", headers=api.headers(user)) as ws:
            ws.send_json({"type": "subscribe", "game": "g", "since_seq": 0})
            assert ws.receive_json() == {"type": "subscribed", "game": "g", "version": version}
            frames = read_until(ws, "g", version)
            seen[user] = frames
    for frames in seen.values():
        assert [f["seq"] for f in frames] == list(range(1, version + 1))
        assert all("audience" not in f.get("payload", {}) for f in frames)
    dealt = [f for f in seen[mafioso] if f.get("payload", {}).get("type") == "MafiaDealt"]
    assert dealt and mafioso in dealt[0]["payload"]["mafiosi"]
    for user in (honest, None):
        assert not any(f.get("payload", {}).get("type") == "MafiaDealt" for f in seen[user])


def test_a_reconnecting_client_resumes_after_its_last_seq_and_gets_live_events(api: Api) -> None:
    setup_game_via_api(api, "g", CAST)
    s = api.state("g")
    user = CAST.cities[next(iter(CAST.cities))][0]
    version = api.client.portal.call(api.web.queries.version, "g")  # type: ignore[union-attr]
    bearer = {"authorization": f"Bearer {api.tokens[user]}"}
    with api.client.websocket_connect("/ws", headers=bearer) as ws:
        ws.send_json({"type": "subscribe", "game": "g", "since_seq": version - 3})
        assert ws.receive_json()["type"] == "subscribed"
        resumed = read_until(ws, "g", version, version - 3)
        assert [f["seq"] for f in resumed] == [version - 2, version - 1, version]
        api.ok(user, "g", "PostMessage", inbox=s.current_inbox("city", s.residents[user].city), text="живой")
        live = ws.receive_json()
        assert live["seq"] == version + 1 and live["payload"]["text"] == "живой"
        ws.send_json({"type": "ping"})
        assert ws.receive_json() == {"type": "pong"}


def test_a_client_ahead_of_the_server_or_speaking_nonsense_is_told_so(api: Api) -> None:
    setup_game_via_api(api, "g", CAST, start=False)
    with api.client.websocket_connect("/ws") as ws:
        ws.send_json({"type": "subscribe", "game": "g", "since_seq": 10_000})
        assert ws.receive_json() == {"type": "resync", "game": "g", "since_seq": 0,
                                     "reason": "ahead_of_server"}
        ws.send_text("{oops")
        assert ws.receive_json()["code"] == "bad_json"
        ws.send_json({"type": "subscribe", "game": "nope", "since_seq": 0})
        assert ws.receive_json()["code"] == "unknown_game"


def test_a_slow_client_is_dropped_with_resync_and_resumes_from_the_store(tmp_path: Path) -> None:
    for api in make_api(tmp_path, ws_buffer=3):
        setup_game_via_api(api, "g", CAST, start=False)
        version = api.client.portal.call(api.web.queries.version, "g")  # type: ignore[union-attr]
        with api.client.websocket_connect("/ws") as ws:
            ws.send_json({"type": "subscribe", "game": "g", "since_seq": version})
            assert ws.receive_json()["type"] == "subscribed"
            plans = [{"name": n, "tribune": CAST.tribunes[i], "residents": list(us)}
                     for i, (n, us) in enumerate(CAST.cities.items())]
            ack = api.ok(CAST.procurator, "g", "FormCities", cities=plans)
            assert ack["event_count"] > 3  # one batch larger than the client's buffer
            frames = read_until(ws, "g", ack["last_seq"], version)
            assert any(f["type"] == "resync" and f["reason"] == "slow_client" for f in frames)


def test_the_broker_drops_only_the_subscriber_that_fell_behind() -> None:
    async def scenario() -> tuple[bool, int, bool, int]:
        broker = Broker()
        slow = broker.subscribe("g", "u1", maxsize=3)
        fast = broker.subscribe("g", "u2")
        at = datetime.fromisoformat("2026-12-01T10:00:00+03:00")
        events = [(i, ev.NightStarted(at=at, audience=PUBLIC if i % 2 else only("u2"), night=i))
                  for i in range(1, 11)]
        broker.publish("g", events)
        return slow.overflowed, slow.queue.qsize(), fast.overflowed, fast.queue.qsize()

    slow_dropped, slow_size, fast_dropped, fast_size = asyncio.run(scenario())
    assert slow_dropped and slow_size == 3 and not fast_dropped and fast_size == 10
