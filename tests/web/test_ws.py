"""The live stream: each viewer's own numbering, gapless, resume, resync, a slow client
dropped alone; nothing of an event a viewer may not see (§9.1.3, security review F3)."""

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


def position(api: Api, game: str, viewer: str | None) -> int:
    return api.client.portal.call(api.web.queries.position, game, viewer)  # type: ignore[union-attr]


def read_until(ws: Any, game: str, version: int, since: int = 0) -> list[dict[str, Any]]:
    """Frames of one game up to the viewer's position ``version``, following ``resync`` as
    a client would."""
    got: list[dict[str, Any]] = []
    last = since
    while last < version:
        msg = ws.receive_json()
        if msg["type"] == "resync":
            ws.send_json({"type": "subscribe", "game": game, "since_seq": msg["since_seq"]})
            got.append(msg)
            continue
        assert msg["type"] != "marker"
        if msg["type"] == "event":
            assert msg["seq"] == last + 1, (msg["seq"], last)
            last = msg["seq"]
        got.append(msg)
    return got


def test_each_viewer_gets_his_own_numbering_and_only_what_he_may_see(api: Api) -> None:
    """§9, SEC-7, §9.1.3: a mafioso sees his city's deal; an honest resident and an anonymous
    visitor get nothing of it, not even a marker or a jump in their numbering."""
    setup_game_via_api(api, "g", CAST)
    s = api.state("g")
    mafioso = next(u for u in s.residents if s.is_mafia(u))
    honest = next(u for u in s.residents if not s.is_mafia(u))
    global_version = api.client.portal.call(api.web.queries.version, "g")  # type: ignore[union-attr]
    seen, mine = {}, {}
    for user in (mafioso, honest, None):
        mine[user] = position(api, "g", user)
        with api.client.websocket_connect("/ws", headers=api.headers(user)) as ws:
            ws.send_json({"type": "subscribe", "game": "g", "since_seq": 0})
            assert ws.receive_json() == {"type": "subscribed", "game": "g", "version": mine[user]}
            seen[user] = read_until(ws, "g", mine[user])
    for user, frames in seen.items():
        assert [f["seq"] for f in frames] == list(range(1, mine[user] + 1))
        assert {f["type"] for f in frames} == {"event"}
        assert all("audience" not in f["payload"] for f in frames)
    assert mine[None] <= mine[honest] < mine[mafioso] < global_version
    dealt = [f for f in seen[mafioso] if f.get("payload", {}).get("type") == "MafiaDealt"]
    assert dealt and mafioso in dealt[0]["payload"]["mafiosi"]
    for user in (honest, None):
        assert not any(f.get("payload", {}).get("type") == "MafiaDealt" for f in seen[user])


def test_a_reconnecting_client_resumes_after_its_last_seq_and_gets_live_events(api: Api) -> None:
    setup_game_via_api(api, "g", CAST)
    s = api.state("g")
    user = CAST.cities[next(iter(CAST.cities))][0]
    version = position(api, "g", user)
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


def test_a_client_that_saw_everything_resumes_without_reading_the_log(api: Api) -> None:
    """A resident reconnects after a restart having seen every event of his: the server
    reads no catch-up from the store (a storm of such sockets is one stream look-up each),
    says «subscribed» at his position, and his next event follows it with no gap."""
    setup_game_via_api(api, "g", CAST)
    s = api.state("g")
    user = CAST.cities[next(iter(CAST.cities))][0]
    version = position(api, "g", user)
    real = api.web.queries.deliveries
    reads: list[tuple[Any, ...]] = []

    async def counted(*args: Any) -> Any:
        reads.append(args)
        return await real(*args)

    api.web.queries.deliveries = counted  # type: ignore[method-assign]
    try:
        with api.client.websocket_connect("/ws", headers=api.headers(user)) as ws:
            ws.send_json({"type": "subscribe", "game": "g", "since_seq": version})
            assert ws.receive_json() == {"type": "subscribed", "game": "g", "version": version}
            assert reads == []
            api.ok(user, "g", "PostMessage", inbox=s.current_inbox("city", s.residents[user].city),
                   text="снова здесь")
            live = ws.receive_json()
            assert live["seq"] == version + 1 and live["payload"]["text"] == "снова здесь"
    finally:
        api.web.queries.deliveries = real  # type: ignore[method-assign]


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
    for api in make_api(tmp_path, ws_buffer=2):
        setup_game_via_api(api, "g", CAST, start=False)
        boss = CAST.procurator
        version = position(api, "g", boss)
        with api.client.websocket_connect("/ws", headers=api.headers(boss)) as ws:
            ws.send_json({"type": "subscribe", "game": "g", "since_seq": version})
            assert ws.receive_json()["type"] == "subscribed"
            plans = [{"name": n, "tribune": CAST.tribunes[i], "residents": list(us)}
                     for i, (n, us) in enumerate(CAST.cities.items())]
            api.ok(CAST.procurator, "g", "FormCities", cities=plans)
            assert position(api, "g", boss) - version > 2  # one batch larger than the buffer
            frames = read_until(ws, "g", position(api, "g", boss), version)
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
    # the bound counts only what the viewer may see: hidden traffic never drops anyone
    async def hidden() -> bool:
        broker = Broker()
        sub = broker.subscribe("g", "u1", maxsize=3)
        at = datetime.fromisoformat("2026-12-01T10:00:00+03:00")
        broker.publish("g", [(i, ev.NightStarted(at=at, audience=only("u2"), night=i)) for i in range(1, 50)])
        return sub.overflowed or not sub.queue.empty()

    assert not asyncio.run(hidden())
