"""SEC-2 tested mechanically (security review F3-1…F3-5, §9.1.3: no leak "through counts,
ordering or timing"). Each case plays two games that differ only in one secret, with the same
script of everything public; every seat the rules do not name must receive the very same
sequence — the same events, in the same order, with the same moments to the second, through
the one audience filter (``service.outbound``) that every channel uses."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from pathlib import Path

from lepromafia.engine import events as ev
from lepromafia.engine.commands import (
    AnswerCommissarOffer,
    CheckResident,
    DeclareKill,
    Nominate,
    OfferCommissar,
    PostMessage,
    VoteGodfather,
)
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

TOWN = "Лепроград"
TEN = "alice bob carol dave erin frank gina hugo ivan jane"
MAFIA = ("alice", "bob")


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


def test_an_accepted_and_a_refused_commissar_offer_look_the_same_to_everyone_else(tmp_path: Path) -> None:
    """SEC-2, SEC-1, COMM-APPT-2, F3-2: whether a city has a commissar is known to the
    candidate, the Procurator (at the reveal time) and the Consigliere (his Commissar Line)."""

    def play(accepts: bool) -> Game:
        g = town()
        g.do(OfferCommissar(actor=PROCURATOR, city=TOWN, draw=2), 1, "10:05")  # carol, honest
        g.do(AnswerCommissarOffer(actor="carol", accept=accepts), 1, "10:20")
        g.do(PostMessage(actor="dave", inbox=g.inbox("city", TOWN), text="Доброе утро"), 1, "12:00")
        g.to_night(1, "01:00")
        for m in MAFIA:
            g.at_night(VoteGodfather(actor=m, candidate="alice"), 1, "01:00")
        g.to(2, "11:00")
        g.do(Nominate(actor="erin", candidate="frank"), 2, "11:00")
        g.to_night(2, "01:00")
        g.at_night(DeclareKill(actor="alice", target="gina"), 2, "01:00")
        if accepts:  # the commissar's check and its answer: his and the Consigliere's secret
            g.at_night(CheckResident(actor="carol", target="bob"), 2, "01:30")
        g.to(3, "12:00")
        return g

    differ = unaware_seats_receive_the_same(play, named={"carol", PROCURATOR, CONSIGLIERE}, tmp_path=tmp_path)
    assert "carol" in differ  # the test can fail: the candidate does tell them apart


def test_a_dead_godfather_and_a_dead_ordinary_mafioso_look_the_same_outside_the_mafia(tmp_path: Path) -> None:
    """SEC-2, GODFATHER-1/2, F3-4: alice is killed by the town's vote on Day 2; in one game she
    was the Godfather, in the other bob was. Only the mafia and the Consigliere may tell."""

    def play(alice_leads: bool) -> Game:
        g = town()
        g.to_night(1, "01:00")
        for m in MAFIA:
            g.at_night(VoteGodfather(actor=m, candidate="alice" if alice_leads else "bob"), 1, "01:00")
        g.to(2, "11:00")
        for nominator in ("carol", "dave", "erin"):
            g.do(Nominate(actor=nominator, candidate="alice"), 2, "11:00")
        g.to(2, "20:30")
        for voter in ("carol", "dave", "erin", "frank", "gina"):
            g.vote(voter, "alice", "казнить", 2, "20:40")
        g.to_night(2, "01:00")
        if alice_leads:  # the mafia elects anew: its own business
            g.at_night(VoteGodfather(actor="bob", candidate="bob"), 2, "01:00")
        g.at_night(DeclareKill(actor="bob", target="hugo"), 2, "01:10")
        g.to(3, "12:00")
        assert not g.alive("alice") and not g.alive("hugo")
        return g

    differ = unaware_seats_receive_the_same(play, named={*MAFIA, CONSIGLIERE}, tmp_path=tmp_path)
    assert "bob" in differ


def test_a_killed_commissar_and_a_killed_honest_resident_look_the_same_to_the_town(tmp_path: Path) -> None:
    """SEC-2, AMBUSH-1, AMBUSH-2, COMM-9, F3-1: the mafia kills carol on Night 2; in one game
    she was the commissar (the mafia then gains the right of ambush and the Procurator offers
    anew), in the other she had refused. Only she, the hosts who run it, the mafia (AMBUSH-2)
    and the new candidate may tell."""

    def play(commissar: bool) -> Game:
        g = town()
        g.do(OfferCommissar(actor=PROCURATOR, city=TOWN, draw=2), 1, "10:05")  # carol
        g.do(AnswerCommissarOffer(actor="carol", accept=commissar), 1, "10:20")
        g.to_night(1, "01:00")
        for m in MAFIA:
            g.at_night(VoteGodfather(actor=m, candidate="alice"), 1, "01:00")
        g.to_night(2, "01:00")
        g.at_night(DeclareKill(actor="alice", target="carol"), 2, "01:00")
        g.to(3, "10:30")
        assert not g.alive("carol")
        if commissar:
            g.do(OfferCommissar(actor=PROCURATOR, city=TOWN, draw=2), 3, "10:40")  # dave
            g.do(AnswerCommissarOffer(actor="dave", accept=True), 3, "11:00")
        g.do(PostMessage(actor="erin", inbox=g.inbox("city", TOWN), text="Кто следующий?"), 3, "12:00")
        g.to(4, "12:00")
        return g

    differ = unaware_seats_receive_the_same(play, named={"carol", "dave", PROCURATOR, CONSIGLIERE, *MAFIA},
                                            tmp_path=tmp_path)
    assert {"alice", "dave"} <= differ


def test_a_check_that_finds_a_mafioso_and_one_that_finds_an_honest_man_look_the_same_to_the_rest(
        tmp_path: Path) -> None:
    """SEC-2, COMM-3, §9.1.3: the commissar carol checks bob (a mafioso) or dave (honest) on
    Night 2, and the next day everything public goes on the same. The answer is hers and the
    Consigliere's; the checked man and everyone else receive the same either way."""

    def play(finds_mafia: bool) -> Game:
        g = town()
        g.do(OfferCommissar(actor=PROCURATOR, city=TOWN, draw=2), 1, "10:05")  # carol
        g.do(AnswerCommissarOffer(actor="carol", accept=True), 1, "10:20")
        g.to_night(1, "01:00")
        for m in MAFIA:
            g.at_night(VoteGodfather(actor=m, candidate="alice"), 1, "01:00")
        g.to_night(2, "01:00")
        g.at_night(CheckResident(actor="carol", target="bob" if finds_mafia else "dave"), 2, "01:30")
        g.at_night(DeclareKill(actor="alice", target="gina"), 2, "01:40")
        g.to(3, "12:00")
        g.do(PostMessage(actor="erin", inbox=g.inbox("city", TOWN), text="Доброе утро"), 3, "12:00")
        g.to(3, "13:00")
        return g

    differ = unaware_seats_receive_the_same(play, named={"carol", CONSIGLIERE}, tmp_path=tmp_path)
    assert "carol" in differ
