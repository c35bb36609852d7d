"""The socket's read reports are checked from memory (issue 17, ``web.ws.reads.ReadGate``).

Cast: the web tests' small game «g» (Лепроград and a second city, six residents each) and a
second game «h» in Тестоград (q01..q06). Day 1 of «g»: p01_01 posts twice in Лепроград's city
inbox; «the reader» is a civilian of Лепроград, «the suicide» another one, who declares his
suicide on Day 1 (SUICIDE-1; on Day 1 it takes effect at night: SUICIDE-4).

The gate reads «g» once, on its first report; everything after (new messages, a death, the
night) reaches it as published events, which it applies with the engine: the rule answers
stay the engine's (``can_read``), and no report reads the game again. On SQLite and
PostgreSQL.
"""

from __future__ import annotations

from typing import Any

from lepromafia.bots.setup import Cast
from lepromafia.engine.inboxes import Kind
from lepromafia.web.ws.reads import read_gate
from tests.web.conftest import Api, at, setup_game_via_api
from tests.web.test_ws_reads_both_backends import CAST, CITY, day_one, db_api, markers, position, wait_for

__all__ = ["db_api"]

OTHER = Cast("procurator", "consigliere", "arbiter", ("tribune1",),
             {"Тестоград": tuple(f"q{i:02d}" for i in range(1, 7))})


def report(api: Api, user: str, game: str, inbox: str, upto: int,
           refused: bool = False) -> dict[str, Any] | None:
    """One ``read`` frame on a fresh socket: the refusal, or None (taken; a ping is answered).
    ``refused``: wait for the refusal (of a game the gate does not hold yet, it comes from
    a task, after the ping's answer)."""
    with api.client.websocket_connect("/ws?lang=en", headers=api.headers(user)) as ws:
        ws.send_json({"type": "read", "game": game, "inbox": inbox, "upto": upto})
        if not refused:
            ws.send_json({"type": "ping"})
        answer: dict[str, Any] = ws.receive_json()
        return None if answer == {"type": "pong"} else answer


def test_the_gate_reads_the_game_once_and_follows_its_events(db_api: Api) -> None:
    """INBOX-CITY-1: the reader's first report reads «g» once; after two more messages his
    next reports are checked from memory (no second read) and move his marker forward
    only: a late report of an older position leaves it where it is."""
    api = db_api
    api.web.queries.read_marks.period = 0.05
    reader, city, _mafia = day_one(api)
    gate = read_gate(api.web)
    first = position(api, "g", reader)
    assert report(api, reader, "g", city, first) is None
    wait_for(lambda: city in markers(api, "g", reader))
    assert gate.loads == 1
    for text in ("Три.", "Четыре."):
        api.ok(CAST.cities[CITY][0], "g", "PostMessage", inbox=city, text=text)
    latest = position(api, "g", reader)
    assert latest == first + 2
    assert report(api, reader, "g", city, latest) is None
    wait_for(lambda: markers(api, "g", reader)[city] > 0 and unread_is_zero(api, reader, city))
    moved = markers(api, "g", reader)[city]
    assert report(api, reader, "g", city, first) is None  # older: moves nothing
    assert report(api, reader, "g", city, latest + 1) == {  # not in his stream
        "type": "error", "code": "not_found", "game": "g", "message": report_message(api, city)}
    api.client.portal.call(api.web.queries.read_marks.flush)  # type: ignore[union-attr]
    assert markers(api, "g", reader)[city] == moved
    assert gate.loads == 1


def test_a_suicide_keeps_his_city_inbox_and_never_reads_the_cemetery(db_api: Api) -> None:
    """SUICIDE-1, SUICIDE-2, SUICIDE-4, INBOX-CITY-1, INBOX-CEM-1: the suicide's death reaches
    the gate as events (it does not read «g» again). Dead, he still reads his city inbox (a
    banned member), so his report moves his marker; his report for the Cemetery inbox is
    refused: a suicide does not go to the Cemetery. The gate's answer is the engine's."""
    api = db_api
    api.web.queries.read_marks.period = 0.05
    reader, city, _mafia = day_one(api)
    s = api.state("g")
    suicide = next(u for u in s.living(CITY) if not s.is_mafia(u) and u not in (reader, CAST.cities[CITY][0]))
    assert report(api, suicide, "g", city, position(api, "g", suicide)) is None  # the gate holds «g»
    gate = read_gate(api.web)
    wait_for(lambda: city in markers(api, "g", suicide))  # checked in a task: the first read
    assert gate.loads == 1
    api.ok(suicide, "g", "DeclareSuicide")
    api.advance_to(at(2, "00:30"))
    s = api.state("g")
    assert not s.residents[suicide].alive
    cemetery = next(i.id for i in s.inboxes.values() if i.kind == Kind.CEMETERY)
    upto = position(api, "g", suicide)
    refused = report(api, suicide, "g", cemetery, upto)
    assert refused is not None and (refused["code"], refused["game"]) == ("not_found", "g")
    assert report(api, suicide, "g", city, upto) is None
    wait_for(lambda: city in markers(api, "g", suicide))
    assert cemetery not in markers(api, "g", suicide)
    assert gate.loads == 1


def test_another_game_s_inbox_under_this_game_s_name_is_refused(db_api: Api) -> None:
    """INBOX-GEN-1: «h»'s mafia inbox is no inbox of «g»: the reader's report naming it in
    «g» is refused, and so is a report on «h»'s mafia inbox in «h», where he is no resident
    (each game is read once); nothing is written in either game."""
    api = db_api
    reader, _city, _mafia = day_one(api)
    setup_game_via_api(api, "h", OTHER)
    api.advance_to(at(1, "10:05"))
    h_mafia = api.state("h").current_inbox("mafia", "Тестоград")
    assert h_mafia and h_mafia not in api.state("g").inboxes
    for game in ("g", "h"):
        refused = report(api, reader, game, h_mafia, max(1, position(api, game, reader)), refused=True)
        assert refused is not None and (refused["code"], refused["game"]) == ("not_found", game)
    api.client.portal.call(api.web.queries.read_marks.flush)  # type: ignore[union-attr]
    assert markers(api, "g", reader) == {} and markers(api, "h", reader) == {}
    assert read_gate(api.web).loads == 2


def unread_is_zero(api: Api, user: str, inbox: str) -> bool:
    rows = api.get(user, "/api/games/g/inboxes").json()
    return int(next(r["unread"] for r in rows if r["inbox"] == inbox)) == 0


def report_message(api: Api, inbox: str) -> str:
    from lepromafia.web.errors import WebError, WebErrorCode, describe

    info = describe(WebError(WebErrorCode.NOT_FOUND, what=inbox), "en")
    assert info is not None
    return info.message


def test_a_city_reporting_at_once_reads_the_game_once(db_api: Api) -> None:
    """INBOX-CITY-1: after a restart Лепроград's six residents report their city inbox at
    the same moment, before the gate holds «g»: one of them reads the game, the others wait
    for that read instead of each reading the game's row (a hundred sockets of a game after
    a restart, on every worker), and each gets his own answer."""
    import asyncio

    api = db_api
    _reader, city, _mafia = day_one(api)
    residents = CAST.cities[CITY]
    positions = {u: position(api, "g", u) for u in residents}
    gate = read_gate(api.web)

    async def everyone_at_once() -> list[int]:
        return list(await asyncio.gather(*(gate.check("g", city, u, positions[u]) for u in residents)))

    queries, reads = api.web.queries, []
    plain = queries.current

    async def a_read_that_takes_a_while(game_id: str) -> Any:  # as the game's row on another worker's store
        reads.append(game_id)
        await asyncio.sleep(0.05)
        return await plain(game_id)

    queries.current = a_read_that_takes_a_while  # type: ignore[method-assign]
    try:
        seqs = api.client.portal.call(everyone_at_once)  # type: ignore[union-attr]
    finally:
        queries.current = plain  # type: ignore[method-assign]
    assert reads == ["g"] and gate.loads == 1
    assert all(seq > 0 for seq in seqs) and len(set(seqs)) == 1  # the same last message, in each stream
