"""SEC-2 tested mechanically (security review F3-1…F3-5, §9.1.3: no leak "through counts,
ordering or timing"). Each case plays two games that differ only in one secret, with the same
script of everything public (``tests/security/pairs.py``: a commissar or none, an offer accepted
or refused, a dead Godfather or a dead ordinary mafioso, an ambush right held or not, a check's
answer); every seat the rules do not name must receive the very same sequence — the same
events, in the same order, with the same moments to the second — from the engine's audiences,
from the stored game's per-viewer stream, and live, over the WebSocket and ``GET …/events``."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from pathlib import Path

import pytest

from lepromafia.engine import events as ev
from lepromafia.engine.visibility import visible_to
from lepromafia.service.outbound import event_json
from lepromafia.service.queries import GameQueries
from lepromafia.service.service import GameService
from lepromafia.service.stored_games import store_table
from lepromafia.service.transparency import LogKey
from lepromafia.store.accounts import AccountStore
from lepromafia.store.database import DatabaseConfig
from lepromafia.store.event_store import EventStore
from lepromafia.store.migrate import upgrade
from lepromafia.store.projection import GameClock

from ..engine.cast import ARBITER, CONSIGLIERE, PROCURATOR, TRIBUNES, Game
from ..web.conftest import make_api
from .pairs import MAFIA, PAIRS, SEATS, TEN, TOWN, ambush_right, record


def received(g: Game, seat: str | None) -> list[str]:
    """What ``seat`` receives before the end of the game (the final reveal opens everything)."""
    out = []
    for event in g.table.events:
        if isinstance(event, ev.GameEnded):
            break
        if visible_to(event, seat):
            out.append(json.dumps(event_json(event), sort_keys=True, ensure_ascii=False))
    return out


def seats(g: Game) -> list[str | None]:
    return [None, PROCURATOR, CONSIGLIERE, ARBITER, *TRIBUNES[:1], *g.state.residents]


def served(g: Game, path: Path) -> Callable[[str | None], list[str]]:
    """What ``GET …/events`` serves each seat once the game is stored: the per-viewer stream
    as the service builds it (positions, events and their moments), up to the game's end."""

    async def streams() -> dict[str | None, list[str]]:
        config = DatabaseConfig(f"sqlite+aiosqlite:///{path}")
        await upgrade(config)
        store = EventStore.open(config)
        try:
            await store_table(store, "g", g.table, LogKey.generate(), GameClock(0.0, 1.0))
            queries = GameQueries(GameService(store, verifiable_log=False), AccountStore(store))
            out = {}
            for seat in seats(g):
                items = await queries.events_since("g", seat, 0, 5000)
                ended = next((n for n, i in enumerate(items) if i["event"]["type"] == "GameEnded"),
                             len(items))
                out[seat] = [json.dumps(i, sort_keys=True, ensure_ascii=False) for i in items[:ended]]
            return out
        finally:
            await store.close()

    found = asyncio.run(streams())
    return lambda seat: found[seat]


def unaware_seats_receive_the_same(play: Callable[[bool], Game], named: set[str | None],
                                   tmp_path: Path) -> set[str | None]:
    """Play both variants; return the seats whose streams differ (they must all be named).
    Compared twice: the events each seat may see (the engine's audiences), and the stream
    the service serves each seat (the numbering a marker or a gap would show in)."""
    secret, other = play(True), play(False)
    differ = {s for s in seats(secret) if received(secret, s) != received(other, s)}
    assert differ <= named, f"these seats can tell the games apart: {sorted(map(str, differ - named))}"
    one, two = served(secret, tmp_path / "secret.db"), served(other, tmp_path / "other.db")
    streamed = {s for s in seats(secret) if one(s) != two(s)}
    assert streamed <= named, f"these seats' streams differ: {sorted(map(str, streamed - named))}"
    anonymous = [json.loads(item) for item in one(None)]
    assert [i["seq"] for i in anonymous] == list(range(1, len(anonymous) + 1)), "no marker, no gap"
    assert [json.dumps(i["event"], sort_keys=True, ensure_ascii=False) for i in anonymous] \
        == received(secret, None), "the stream is exactly the visible events"
    return differ | streamed


def town() -> Game:
    g = Game({TOWN: TEN}, mafia={TOWN: " ".join(MAFIA)}).start()
    return g


@pytest.mark.parametrize("pair", list(PAIRS))
def test_two_games_that_differ_only_in_a_secret_give_every_unnamed_seat_the_same_events(
        pair: str, tmp_path: Path) -> None:
    """SEC-2, §9.1.3 (F3-1…F3-5), the engine's half: the events each seat may see
    (their audiences, fixed when made) and the stream the service builds from the stored
    game are the same in both games for every seat the rules do not name."""
    script, named = PAIRS[pair]

    def play(secret: bool) -> Game:
        g = town()
        script(g, secret)
        return g

    differ = unaware_seats_receive_the_same(play, named=named, tmp_path=tmp_path)
    assert differ, "the secret must reach someone: else the pair proves nothing"
    assert differ <= named


@pytest.mark.parametrize("pair", list(PAIRS))
def test_every_unnamed_seat_receives_the_same_frames_at_the_same_moments(pair: str, tmp_path: Path) -> None:
    """SEC-2, §9.1.3 (F3-1…F3-5), the served half: both games of the pair are played live
    in the app, every seat holding a WebSocket from the game's creation and polling
    ``GET …/events`` after every command and every fired deadline. For every seat the
    rules do not name, the frames (types, payloads, numbering, order) and the HTTP items
    are identical, and so is the moment each arrived, to the second."""
    script, named = PAIRS[pair]
    one = record(lambda: make_api(tmp_path / "secret"), script, True, SEATS)
    two = record(lambda: make_api(tmp_path / "other"), script, False, SEATS)
    ws = {s for s in SEATS if one.ws[s] != two.ws[s]}
    http = {s for s in SEATS if one.http[s] != two.http[s]}
    assert ws <= named, f"these seats' frames differ: {sorted(map(str, ws - named))}"
    assert http <= named, f"these seats' HTTP streams differ: {sorted(map(str, http - named))}"
    assert ws & http, "the secret must reach someone: else the pair proves nothing"
    for rec in (one, two):  # the anonymous stream: numbered 1, 2, 3, … with no marker
        items = [json.loads(line.split(" ", 1)[1]) for line in rec.http[None]]
        assert [i["seq"] for i in items] == list(range(1, len(items) + 1))
        assert all("event" in i for i in items)
    if PAIRS[pair][0] is ambush_right:  # the right was held and used: the test can fail
        assert any('"type": "CommissarWarned"' in line for line in one.ws["dave"])  # AMBUSH-8
        assert any('"type": "CommissarExposed"' in line for line in one.ws["alice"])
        assert not any('"type": "AmbushesFixed"' in line for line in two.ws["alice"])
