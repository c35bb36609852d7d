"""SEC-2's pairs of whole games, played live through a running app and recorded from
the attacker's side: what each seat *receives*, over the WebSocket and over
``GET …/events``, with the moment (on the server's clock, to the second) it arrived.

The game scripts are the engine tests' transcripts (``tests.engine.cast.Game``), but the
game runs in the service behind the web app: ``LiveTable`` stands in for the in-memory
``Table``, so every command is the service's (``GameService.execute``: overdue deadlines
first, commit, publish) and every deadline fires as the sweeper fires it, at its own due
time. After every command and every fired deadline each seat's socket and its HTTP
stream are read up to date, so a frame arriving at 01:30 in one game and not at all (or
at 01:40) in the other is a difference.

Only the protocol is read (frames as JSON, the HTTP items), never the broker or the
streams' internals: the module also runs against an older tree (``tools/side_channel_check.py``
ports it to the review's commit, where ``{"seq": n}`` markers still went to everyone).
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Callable, Iterator
from datetime import datetime
from types import SimpleNamespace
from typing import Any

import anyio

from lepromafia.engine import commands as cmd
from lepromafia.engine.table import next_deadline
from tests.engine.cast import ARBITER, CONSIGLIERE, PROCURATOR, TRIBUNES, Game

TOWN = "Лепроград"
TEN = "alice bob carol dave erin frank gina hugo ivan jane"
MAFIA = ("alice", "bob")
GAME = "pair"
CONTROL = {"pong", "subscribed", "unread"}
"""Frames that carry no stream item (the sentinel and the handshake)."""


def items_in(frame: dict[str, Any]) -> int:
    """How many stream items one frame carries: an event (or, on the review's commit, a
    marker), or a batch of them."""
    for key in ("items", "events", "frames"):
        if isinstance(frame.get(key), list):
            return len(frame[key])
    return 0 if frame.get("type") in CONTROL else 1


def receive(ws: Any, timeout: float = 20.0) -> dict[str, Any]:
    """One frame, or a failure after ``timeout`` seconds (never a hang)."""

    async def one() -> Any:
        with anyio.fail_after(timeout):
            return await ws._send_rx.receive()

    message = ws.portal.call(one)
    assert message["type"] == "websocket.send", message
    found: dict[str, Any] = json.loads(message["text"])
    return found


class Recorder:
    """Every seat's socket, held open from the game's creation, and its HTTP stream."""

    def __init__(self, api: Any, seats: list[str | None]) -> None:
        self.api = api
        self.seats = seats
        self.stack = contextlib.ExitStack()
        self.sockets: dict[str | None, Any] = {}
        self.ws: dict[str | None, list[str]] = {s: [] for s in seats}
        self.http: dict[str | None, list[str]] = {s: [] for s in seats}
        self.last: dict[str | None, int] = dict.fromkeys(seats, 0)

    def open(self) -> None:
        for seat in self.seats:
            ws = self.stack.enter_context(
                self.api.client.websocket_connect("/ws", headers=self.api.headers(seat)))
            ws.send_json({"type": "subscribe", "game": GAME, "since_seq": 0})
            self.sockets[seat] = ws

    def close(self) -> None:
        self.stack.close()

    def observe(self, moment: datetime) -> None:
        """Read every seat up to date at ``moment``: his new HTTP items, then as many
        stream items from his socket, then whatever else came before a ``pong``."""
        stamp = moment.isoformat(timespec="seconds")
        for seat in self.seats:
            new = self.api.get(seat, f"/api/games/{GAME}/events", since=self.last[seat], limit=5000).json()
            for item in new:
                self.http[seat].append(f"{stamp} {json.dumps(item, sort_keys=True, ensure_ascii=False)}")
            if new:
                self.last[seat] = new[-1]["seq"]
            if seat not in self.sockets:
                continue
            ws, got = self.sockets[seat], 0
            while got < len(new):
                frame = receive(ws)
                got += items_in(frame)
                self.keep(seat, stamp, frame)
            ws.send_json({"type": "ping"})
            while (frame := receive(ws))["type"] != "pong":
                self.keep(seat, stamp, frame)

    def keep(self, seat: str | None, stamp: str, frame: dict[str, Any]) -> None:
        if frame.get("type") == "subscribed":
            frame = {"type": "subscribed"}  # its version is the start, compared by the items
        self.ws[seat].append(f"{stamp} {json.dumps(frame, sort_keys=True, ensure_ascii=False)}")


class LiveTable:
    """What ``Game`` needs of a table, backed by the app's ``GameService``."""

    def __init__(self, api: Any, recorder: Recorder) -> None:
        self.api = api
        self.recorder = recorder
        self.ids = 0

    def _call(self, fn: Callable[..., Any], *args: Any) -> Any:
        return self.api.client.portal.call(fn, *args)

    @property
    def service(self) -> Any:
        return self.api.web.service

    @property
    def game(self) -> Any:
        return self._call(self.service.state, GAME)

    state = game

    @property
    def events(self) -> list[Any]:
        from lepromafia.store import codec

        rows = self._call(self.service.store.event_rows, GAME)
        return [codec.decode_event(codec.loads(r["payload"])) for r in sorted(rows, key=lambda r: r["seq"])]

    def do(self, command: cmd.Command, now: datetime) -> list[Any]:
        self.advance(now)  # the sweeper has fired what was due before (a real server's order)
        self.ids += 1
        if isinstance(command, cmd.CreateGame):
            self._call(self.service.create_game, GAME, command, f"pair-{self.ids}")
            self.recorder.open()
        else:
            self._call(self.service.execute, GAME, command, f"pair-{self.ids}")
        self.recorder.observe(now)
        return []

    def advance(self, until: datetime, seed: Callable[[], int] = lambda: 0) -> list[Any]:
        """Fire every deadline due by ``until`` at its own due time, as the sweeper would."""
        if not self.recorder.sockets:
            self.api.clock.set(until)
            return []
        while (nxt := next_deadline(self.game)) is not None and nxt[1] <= until:
            self.api.clock.set(nxt[1])
            self._call(self.service.sweep)
            assert next_deadline(self.game) != nxt, f"the sweep did not fire {nxt}"
            self.recorder.observe(nxt[1])
        self.api.clock.set(until)
        return []


SEATS = [None, PROCURATOR, CONSIGLIERE, ARBITER, TRIBUNES[0], *TEN.split()]


@contextlib.contextmanager
def pinned_seeds() -> Iterator[None]:
    """The service draws each fired deadline's seed at random (``secrets``); both games
    of a pair get the same seeds, so only the secret differs."""
    from lepromafia.service import service as module

    real = module.secrets  # type: ignore[attr-defined]
    module.secrets = SimpleNamespace(randbits=lambda n: 7, token_hex=real.token_hex)  # type: ignore[attr-defined,assignment]
    try:
        yield
    finally:
        module.secrets = real  # type: ignore[attr-defined]


def live_game(api: Any, seats: list[str | None]) -> tuple[Game, Recorder]:
    """A ``Game`` of the standard town (alice and bob the mafia) that plays in the app."""
    for seat in seats:
        if seat is not None and seat not in api.tokens:
            api.register(seat)
    recorder = Recorder(api, seats)
    g = Game({TOWN: TEN}, mafia={TOWN: " ".join(MAFIA)})
    g.table = LiveTable(api, recorder)  # type: ignore[assignment]
    return g, recorder


# --- the scripts: everything public is the same in both games of a pair -------------------


def offer_answered(g: Game, accepts: bool) -> None:
    """SEC-2, COMM-APPT-2, F3-2: carol is offered the badge and accepts or refuses."""
    g.do(cmd.OfferCommissar(actor=PROCURATOR, city=TOWN, draw=2), 1, "10:05")  # carol, honest
    g.do(cmd.AnswerCommissarOffer(actor="carol", accept=accepts), 1, "10:20")
    g.do(cmd.PostMessage(actor="dave", inbox=g.inbox("city", TOWN), text="Доброе утро"), 1, "12:00")
    g.to_night(1, "01:00")
    for m in MAFIA:
        g.at_night(cmd.VoteGodfather(actor=m, candidate="alice"), 1, "01:00")
    g.to(2, "11:00")
    g.do(cmd.Nominate(actor="erin", candidate="frank"), 2, "11:00")
    g.to_night(2, "01:00")
    g.at_night(cmd.DeclareKill(actor="alice", target="gina"), 2, "01:00")
    if accepts:  # the commissar's check and its answer: his and the Consigliere's secret
        g.at_night(cmd.CheckResident(actor="carol", target="bob"), 2, "01:30")
    g.to(3, "12:00")


def godfather_executed(g: Game, alice_leads: bool) -> None:
    """SEC-2, GODFATHER-1/2, F3-4: alice is executed on Day 2; she was the Godfather, or bob was."""
    g.to_night(1, "01:00")
    for m in MAFIA:
        g.at_night(cmd.VoteGodfather(actor=m, candidate="alice" if alice_leads else "bob"), 1, "01:00")
    g.to(2, "11:00")
    for nominator in ("carol", "dave", "erin"):
        g.do(cmd.Nominate(actor=nominator, candidate="alice"), 2, "11:00")
    g.to(2, "20:30")
    for voter in ("carol", "dave", "erin", "frank", "gina"):
        g.vote(voter, "alice", "казнить", 2, "20:40")
    g.to_night(2, "01:00")
    if alice_leads:  # the mafia elects anew: its own business
        g.at_night(cmd.VoteGodfather(actor="bob", candidate="bob"), 2, "01:00")
    g.at_night(cmd.DeclareKill(actor="bob", target="hugo"), 2, "01:10")
    g.to(3, "12:00")
    assert not g.alive("alice") and not g.alive("hugo")


def carol_killed_on_night_two(g: Game, commissar: bool) -> None:
    """Carol is offered the commissar's post on Day 1 and accepts it (``commissar``) or
    refuses; alice, elected Godfather on Night 1, kills her on Night 2; if she was the
    commissar, dave accepts the Procurator's new offer on Day 3."""
    g.do(cmd.OfferCommissar(actor=PROCURATOR, city=TOWN, draw=2), 1, "10:05")  # carol
    g.do(cmd.AnswerCommissarOffer(actor="carol", accept=commissar), 1, "10:20")
    g.to_night(1, "01:00")
    for m in MAFIA:
        g.at_night(cmd.VoteGodfather(actor=m, candidate="alice"), 1, "01:00")
    g.to_night(2, "01:00")
    g.at_night(cmd.DeclareKill(actor="alice", target="carol"), 2, "01:00")
    g.to(3, "10:30")
    assert not g.alive("carol")
    if commissar:
        g.do(cmd.OfferCommissar(actor=PROCURATOR, city=TOWN, draw=2), 3, "10:40")  # dave
        g.do(cmd.AnswerCommissarOffer(actor="dave", accept=True), 3, "11:00")


def commissar_killed(g: Game, commissar: bool) -> None:
    """SEC-2, AMBUSH-1, COMM-9, F3-1: the mafia kills carol on Night 2; she was the
    commissar (the Procurator then offers anew: dave accepts), or she had refused."""
    carol_killed_on_night_two(g, commissar)
    g.do(cmd.PostMessage(actor="erin", inbox=g.inbox("city", TOWN), text="Кто следующий?"), 3, "12:00")
    g.to(4, "12:00")


def ambush_right(g: Game, held: bool) -> None:
    """SEC-2, AMBUSH-1, AMBUSH-3, AMBUSH-4, AMBUSH-8, AMBUSH-10, F3-5: the mafia kills carol
    on Night 2. If she was the commissar, the mafia holds the right of ambush on Nights 3
    and 4 (dave is appointed on Day 3) and uses it: alice ambushes dave himself on Night 3
    (AMBUSH-8: both learn it at the window's close), bob ambushes erin on Night 4. If she
    had refused, the same mafia's same attempts are refused (NO_AMBUSH_RIGHT, to the
    actor alone). The mafia sends the same commands either way; the town sees the same
    days and nights."""
    carol_killed_on_night_two(g, held)
    attempt(g, cmd.PlaceAmbush(actor="alice", target="dave"), 3, "12:00")
    g.do(cmd.PostMessage(actor="erin", inbox=g.inbox("city", TOWN), text="Тихо сегодня"), 3, "12:30")
    g.to_night(3, "02:00")  # the ambush window closes at 01:00
    g.to(4, "11:00")
    attempt(g, cmd.PlaceAmbush(actor="bob", target="erin"), 4, "11:00")
    g.do(cmd.PostMessage(actor="frank", inbox=g.inbox("city", TOWN), text="Опять тихо"), 4, "12:00")
    g.to_night(4, "02:00")
    g.to(5, "12:00")
    assert not g.alive("carol") and g.alive("dave") and g.alive("erin")


def attempt(g: Game, command: cmd.Command, day: int, hhmm: str) -> None:
    """A mafioso's move that the engine may refuse (to him alone): refused moves are part
    of the script, so both games send the same commands."""
    from lepromafia.engine.errors import RuleViolation

    with contextlib.suppress(RuleViolation):
        g.do(command, day, hhmm)


def check_answer(g: Game, finds_mafia: bool) -> None:
    """SEC-2, COMM-3: the commissar carol checks bob (a mafioso) or dave (honest) on Night 2."""
    g.do(cmd.OfferCommissar(actor=PROCURATOR, city=TOWN, draw=2), 1, "10:05")  # carol
    g.do(cmd.AnswerCommissarOffer(actor="carol", accept=True), 1, "10:20")
    g.to_night(1, "01:00")
    for m in MAFIA:
        g.at_night(cmd.VoteGodfather(actor=m, candidate="alice"), 1, "01:00")
    g.to_night(2, "01:00")
    g.at_night(cmd.CheckResident(actor="carol", target="bob" if finds_mafia else "dave"), 2, "01:30")
    g.at_night(cmd.DeclareKill(actor="alice", target="gina"), 2, "01:40")
    g.to(3, "12:00")
    g.do(cmd.PostMessage(actor="erin", inbox=g.inbox("city", TOWN), text="Доброе утро"), 3, "12:00")
    g.to(3, "13:00")


PAIRS: dict[str, tuple[Callable[[Game, bool], None], set[str | None]]] = {
    "offer accepted or refused (a commissar or none)": (offer_answered, {"carol", PROCURATOR, CONSIGLIERE}),
    "a dead Godfather or a dead ordinary mafioso": (godfather_executed, {*MAFIA, CONSIGLIERE}),
    "a killed commissar or a killed honest resident": (
        commissar_killed, {"carol", "dave", PROCURATOR, CONSIGLIERE, *MAFIA}),
    "an ambush right held (and used) or not": (
        ambush_right, {"carol", "dave", PROCURATOR, CONSIGLIERE, *MAFIA}),
    "a check that finds a mafioso or an honest man": (check_answer, {"carol", CONSIGLIERE}),
}
"""Each pair: its script and the seats the rules let tell the two games apart."""


def record(make_api: Callable[[], Iterator[Any]], script: Callable[[Game, bool], None], secret: bool,
           seats: list[str | None]) -> Recorder:
    """Play one game of a pair in a fresh app; what every seat received."""
    for api in make_api():
        with pinned_seeds():
            g, recorder = live_game(api, seats)
            try:
                g.start()
                script(g, secret)
            finally:
                recorder.close()
        return recorder
    raise AssertionError("no app")
