"""Issue 17, the fan-out: on a real server (configured as ``lepromafia serve`` configures
it, with the lean transport) a published event is written to each subscribed reader's
socket as it is published, with no task woken per delivery (``_Feed.direct``), and
each reader still gets exactly his own stream: every event he may see, numbered one past
the previous, with the message rendered in the frame; nothing of what he may not see. The
other direction likewise: a read report memory can answer, and a ping, are taken as the
transport reads them (``endpoint.taken_at_once``), with no wake-up of the receive loop.

Cast: a small game of two cities; in the first, Anna and Boris (residents), and the city's
mafia; Vera lives in the other city."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest
from websockets.sync.client import ClientConnection, connect

from lepromafia.cli.serve_cmd import server_config
from lepromafia.service import service as service_module
from lepromafia.service.clock import ManualClock
from lepromafia.web.app import create_app
from lepromafia.web.ws import endpoint
from lepromafia.web.ws.endpoint import Connection
from lepromafia.web.ws.reads import SocketReads
from lepromafia.web.ws.transport import LeanWebSocketProtocol

from ..server_thread import serving
from .conftest import LateCommits, make_api, settings_for, setup_game_via_api, small_cast


@pytest.fixture
def forwarded(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The seqs the pump's ``_forward`` handled (the path a direct write avoids)."""
    seen: list[int] = []
    original = Connection._forward

    async def spy(self: Connection, feed: Any, item: Any, push: bool = True) -> None:
        seen.append(item.seq)
        await original(self, feed, item, push)

    monkeypatch.setattr(endpoint.Connection, "_forward", spy)
    return seen


@pytest.fixture
def served(tmp_path: Path) -> Iterator[tuple[int, dict[str, str], dict[str, Any]]]:
    """The game set up through the API, then served by a real server on the same store."""
    cast = small_cast()
    first, second = sorted(cast.cities)
    for api in make_api(tmp_path):
        state = setup_game_via_api(api, "g", cast)
        mafia = state.living_mafia(first)
        town = [u for u in cast.cities[first] if u not in mafia]
        seats = {"anna": town[0], "boris": town[1], "mafioso": mafia[0], "vera": cast.cities[second][0]}
        inboxes = {"city": state.current_inbox("city", first), "mafia": state.current_inbox("mafia", first)}
        tokens = {name: api.tokens[user] for name, user in seats.items()}
        moment = api.clock.now()
    app = create_app(settings_for(tmp_path), clock=ManualClock(moment))
    with serving(lambda port: server_config(app, "127.0.0.1", port, log_level="warning")) as port:
        yield port, tokens, inboxes


@contextmanager
def _subscribed(port: int, token: str) -> Iterator[ClientConnection]:
    """A socket subscribed to the game and caught up; closed on leaving."""
    with connect(f"ws://127.0.0.1:{port}/ws", compression=None, max_size=2**22,
                 additional_headers={"Authorization": f"Bearer {token}"}) as ws:
        ws.send(json.dumps({"type": "subscribe", "game": "g", "since_seq": 0}))
        hello = json.loads(ws.recv(timeout=10))
        assert hello["type"] == "subscribed", hello
        for _ in range(hello["version"]):  # the catch-up (through the pump)
            ws.recv(timeout=10)
        yield ws


def _post(port: int, token: str, inbox: str, text: str, command_id: str) -> None:
    r = httpx.post(f"http://127.0.0.1:{port}/api/games/g/commands/PostMessage",
                   headers={"Authorization": f"Bearer {token}"},
                   json={"command_id": command_id, "inbox": inbox, "text": text}, timeout=10)
    assert r.status_code == 200, r.text


def _frames(ws: ClientConnection, quiet: float = 0.5) -> list[dict[str, Any]]:
    out = []
    while True:
        try:
            out.append(json.loads(ws.recv(timeout=quiet)))
        except TimeoutError:
            return out


@pytest.mark.timeout(60)
def test_city_messages_are_written_as_published_each_reader_his_own_numbering(
        served: tuple[int, dict[str, str], dict[str, Any]], forwarded: list[int]) -> None:
    """Anna posts three messages in her city's inbox (INBOX-CITY): Anna and Boris get each
    at once, rendered, at positions one past their last; Vera, of the other city, gets
    nothing of them; no live delivery went through the pump."""
    port, tokens, inboxes = served
    with ExitStack() as sockets:
        anna, boris, vera = (sockets.enter_context(_subscribed(port, tokens[n]))
                             for n in ("anna", "boris", "vera"))
        caught_up = len(forwarded)
        for n in range(3):
            _post(port, tokens["anna"], inboxes["city"], f"утро {n}", f"direct-{n}")
        for ws in (anna, boris):
            frames = [f for f in _frames(ws) if f.get("type") == "event"]
            texts = [f["payload"]["text"] for f in frames if f["payload"].get("type") == "MessagePosted"]
            assert texts == ["утро 0", "утро 1", "утро 2"]
            assert all("утро" in (f.get("html") or "") for f in frames
                       if f["payload"].get("type") == "MessagePosted")
            seqs = [f["seq"] for f in frames]
            assert seqs == list(range(seqs[0], seqs[0] + len(seqs)))
        assert not [f for f in _frames(vera, 0.3) if "утро" in json.dumps(f, ensure_ascii=False)]
        assert forwarded[caught_up:] == []  # written as published, not through the pump


@pytest.mark.timeout(60)
def test_the_mafia_inbox_reaches_the_mafia_and_no_one_else(
        served: tuple[int, dict[str, str], dict[str, Any]]) -> None:
    """The mafioso writes in his mafia's inbox (INBOX-MAFIA): he gets it; Anna and Boris,
    his city's town, get no frame of it and their numbering shows no gap when Anna then
    posts in the city."""
    port, tokens, inboxes = served
    with ExitStack() as sockets:
        mafioso, anna, boris = (sockets.enter_context(_subscribed(port, tokens[n]))
                                for n in ("mafioso", "anna", "boris"))
        _post(port, tokens["mafioso"], inboxes["mafia"], "тайный план", "mafia-1")
        _post(port, tokens["anna"], inboxes["city"], "добрый день", "city-1")
        mine = _frames(mafioso)
        assert any("тайный план" in json.dumps(f, ensure_ascii=False) for f in mine)
        for ws in (anna, boris):
            frames = _frames(ws)
            assert not any("тайный план" in json.dumps(f, ensure_ascii=False) for f in frames)
            events = [f for f in frames if f.get("type") == "event"]
            assert [f["payload"].get("text") for f in events][-1] == "добрый день"
            seqs = [f["seq"] for f in events]
            assert seqs == list(range(seqs[0], seqs[0] + len(seqs)))


# --- the other direction: frames the app takes as they are read ---------------------------


@pytest.fixture
def loop_reports(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The ``upto`` of each read report the receive loop handled (the path a frame taken
    at once by ``endpoint.taken_at_once`` avoids)."""
    seen: list[int] = []
    original = SocketReads.report

    def spy(self: SocketReads, msg: Any) -> None:
        seen.append(msg.upto)
        original(self, msg)

    monkeypatch.setattr(SocketReads, "report", spy)
    return seen


def _unread(port: int, token: str, inbox: str) -> int:
    rows = httpx.get(f"http://127.0.0.1:{port}/api/games/g/inboxes",
                     headers={"Authorization": f"Bearer {token}"}, timeout=10).json()
    return int(next(r["unread"] for r in rows if r["inbox"] == inbox))


def _eventually(check: Any, within: float = 5.0) -> bool:
    end = time.monotonic() + within
    while time.monotonic() < end:
        if check():
            return True
        time.sleep(0.05)
    return bool(check())


@pytest.mark.timeout(60)
def test_read_reports_and_pings_are_taken_as_read_without_waking_the_receive_loop(
        served: tuple[int, dict[str, str], dict[str, Any]], loop_reports: list[int]) -> None:
    """Anna posts three messages in her city's inbox; Boris's page shows them and reports
    each on his socket (INBOX-CITY-1). His first report reads the game through the receive
    loop; the next ones are answered from memory as the transport reads them, and the
    loop never wakes. His unread count drops to 0; his ping is answered with a pong."""
    port, tokens, inboxes = served
    with _subscribed(port, tokens["boris"]) as boris:
        for n in range(3):
            _post(port, tokens["anna"], inboxes["city"], f"вечер {n}", f"evening-{n}")
        seqs = [f["seq"] for f in _frames(boris) if f.get("type") == "event"]
        assert len(seqs) == 3
        report = {"type": "read", "game": "g", "inbox": inboxes["city"]}
        boris.send(json.dumps({**report, "upto": seqs[0]}))
        assert _eventually(lambda: _unread(port, tokens["boris"], inboxes["city"]) <= 2)
        for seq in seqs[1:]:
            boris.send(json.dumps({**report, "upto": seq}))
        boris.send(json.dumps({"type": "ping"}))
        assert json.loads(boris.recv(timeout=5)) == {"type": "pong"}
        assert _eventually(lambda: _unread(port, tokens["boris"], inboxes["city"]) == 0)
        assert loop_reports == [seqs[0]]  # the later two never reached the receive loop


@pytest.mark.timeout(60)
def test_a_refused_report_still_gets_its_error_in_words_and_in_order(
        served: tuple[int, dict[str, str], dict[str, Any]], loop_reports: list[int]) -> None:
    """Boris, of the town, reports a read of his city's mafia inbox (INBOX-MAFIA-1): memory
    refuses it, so the receive loop takes it and answers with an error in words; his ping
    sent right after is answered after that error, never before it; no marker moves."""
    port, tokens, inboxes = served
    with _subscribed(port, tokens["boris"]) as boris:
        _post(port, tokens["anna"], inboxes["city"], "разминка", "warm-up")
        seq = next(f["seq"] for f in _frames(boris) if f.get("type") == "event")
        boris.send(json.dumps({"type": "read", "game": "g", "inbox": inboxes["city"], "upto": seq}))
        assert _eventually(lambda: _unread(port, tokens["boris"], inboxes["city"]) == 0)
        boris.send(json.dumps({"type": "read", "game": "g", "inbox": inboxes["mafia"], "upto": seq}))
        boris.send(json.dumps({"type": "ping"}))
        refused, pong = json.loads(boris.recv(timeout=5)), json.loads(boris.recv(timeout=5))
        assert refused["type"] == "error" and refused["code"] == "not_found"
        assert refused["message"] and "_" not in refused["message"]
        assert pong == {"type": "pong"}
        assert loop_reports == [seq, seq]  # the first (game not held yet) and the refused one


@pytest.mark.timeout(60)
def test_a_page_showing_the_thread_reads_what_is_written_to_it_with_no_report(
        served: tuple[int, dict[str, str], dict[str, Any]], forwarded: list[int],
        loop_reports: list[int]) -> None:
    """Boris's page shows his city's thread on screen and says so once (``view``); Anna
    posts three messages (INBOX-CITY-1): each is written to his socket as it is published,
    and his unread count drops to 0 (within the markers' 5-second group) although his page
    sent no read report; the mafia's thread, named too, is never his to read (INBOX-MAFIA-1)."""
    port, tokens, inboxes = served
    with _subscribed(port, tokens["boris"]) as boris:
        caught_up = len(forwarded)
        boris.send(json.dumps({"type": "view", "game": "g", "visible": True,
                               "inboxes": [inboxes["city"], inboxes["mafia"]]}))
        boris.send(json.dumps({"type": "ping"}))
        assert json.loads(boris.recv(timeout=5)) == {"type": "pong"}
        for n in range(3):
            _post(port, tokens["anna"], inboxes["city"], f"ночь {n}", f"night-{n}")
        _post(port, tokens["mafioso"], inboxes["mafia"], "не для него", "mafia-night")
        frames = _frames(boris)
        assert len([f for f in frames if f.get("type") == "event"]) == 3
        assert _eventually(lambda: _unread(port, tokens["boris"], inboxes["city"]) == 0, within=10)
        assert forwarded[caught_up:] == [] and loop_reports == []


@pytest.fixture
def loop_frames(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The ``type`` (and command ``id``) of each frame the receive loop handled, but the
    subscribes (always the loop's)."""
    seen: list[str] = []
    original = endpoint._take

    async def spy(conn: Connection, reads: SocketReads, text: str) -> None:
        frame = json.loads(text)
        if frame.get("type") != "subscribe":
            seen.append(f"{frame.get('type')}:{frame.get('id', '')}")
        await original(conn, reads, text)

    monkeypatch.setattr(endpoint, "_take", spy)
    return seen


def _until_pong(ws: ClientConnection) -> list[dict[str, Any]]:
    out = []
    while not out or out[-1].get("type") != "pong":
        out.append(json.loads(ws.recv(timeout=10)))
    return out


def _post_frame(cid: str, inbox: str, text: str, name: str = "PostMessage") -> str:
    return json.dumps({"type": "command", "id": cid, "game": "g", "name": name,
                       "args": {"inbox": inbox, "text": text}})


@pytest.fixture
def slow_next(monkeypatch: pytest.MonkeyPatch) -> None:
    """The command ``next-0`` takes 0.3 s before it runs (frames sent meanwhile come while it runs)."""
    original = endpoint.commands.run

    async def run(conn: Connection, msg: Any) -> None:
        if msg.id == "next-0":
            await asyncio.sleep(0.3)
        await original(conn, msg)

    monkeypatch.setattr(endpoint.commands, "run", run)


@pytest.mark.timeout(60)
def test_commands_on_the_socket_are_taken_as_read_one_at_a_time_in_order(
        served: tuple[int, dict[str, str], dict[str, Any]], loop_frames: list[str], slow_next: None) -> None:
    """Anna writes in her city's inbox on her socket (INBOX-CITY-1): one command, then three
    more and a ping, sent while the second still runs. Her commands are run as the transport
    reads them, without the receive loop, unless one still runs: the two and the ping that
    come meanwhile wait in the loop, each after the one before it. The acks come in the order
    sent, each after its own message, and the pong after the last ack; Boris reads the four
    messages in that order."""
    port, tokens, inboxes = served
    with _subscribed(port, tokens["boris"]) as boris, _subscribed(port, tokens["anna"]) as anna:
        anna.send(_post_frame("first", inboxes["city"], "раз"))
        frames = [json.loads(anna.recv(timeout=10)) for _ in range(2)]
        assert [f["type"] for f in frames] == ["event", "ack"] and frames[1]["id"] == "first"
        assert loop_frames == []  # taken at once
        for n, word in enumerate(["два", "три", "четыре"]):
            anna.send(_post_frame(f"next-{n}", inboxes["city"], word))
        anna.send(json.dumps({"type": "ping"}))
        frames = _until_pong(anna)
        acks = [f["id"] for f in frames if f["type"] == "ack"]
        assert acks == ["next-0", "next-1", "next-2"]
        texts = [f["payload"]["text"] for f in frames if f["type"] == "event"]
        assert texts == ["два", "три", "четыре"]
        kinds = [f["type"] for f in frames]
        assert kinds == ["event", "ack"] * 3 + ["pong"]
        mine = [f["payload"]["text"] for f in _frames(boris) if f.get("type") == "event"]
        assert mine == ["раз", "два", "три", "четыре"]
        assert loop_frames == ["command:next-1", "command:next-2", "ping:"]


@pytest.mark.timeout(60)
def test_a_command_taken_as_read_is_refused_in_words_with_its_id(
        served: tuple[int, dict[str, str], dict[str, Any]], loop_frames: list[str]) -> None:
    """Anna writes in the mafia's inbox of her city, which she may not (INBOX-MAFIA-1), then
    names a command there is none of: each refusal is an error in words carrying the
    command's id, as the receive loop would answer; neither went through it."""
    port, tokens, inboxes = served
    with _subscribed(port, tokens["anna"]) as anna:
        anna.send(_post_frame("sneak", inboxes["mafia"], "я тоже мафия"))
        refused = json.loads(anna.recv(timeout=10))
        assert refused["type"] == "error" and refused["id"] == "sneak" and refused["game"] == "g"
        assert refused["message"] and "_" not in refused["message"]
        anna.send(_post_frame("odd", inboxes["city"], "?", name="FlyToTheMoon"))
        unknown = json.loads(anna.recv(timeout=10))
        assert unknown["type"] == "error" and unknown["id"] == "odd" and unknown["code"] == "unknown_command"
        assert loop_frames == []


# --- a batch of several events: one write per reader -------------------------------------


@pytest.fixture
def paired_batch(monkeypatch: pytest.MonkeyPatch) -> None:
    """A lane's batch holding the command ``pair-1`` waits (up to 5 s) for the command
    ``pair-2`` and commits the two together (with whatever came between), as a saturated
    lane batches its queue."""
    original = service_module._Lane._run_batch

    async def run_batch(lane: Any, jobs: list[Any]) -> None:
        if any(job.command_id.endswith("pair-1") for job in jobs):
            for _ in range(500):
                if any(job.command_id.endswith("pair-2") for job in jobs):
                    break
                while not lane.queue.empty():
                    jobs = [*jobs, lane.queue.get_nowait()]
                await asyncio.sleep(0.01)
        await original(lane, jobs)

    monkeypatch.setattr(service_module._Lane, "_run_batch", run_batch)


@pytest.fixture
def joined_writes(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """How many frames each joined write of held frames carried."""
    joined: list[int] = []
    original = LeanWebSocketProtocol.write_held

    def spy(protocol: LeanWebSocketProtocol) -> None:
        joined.append(len(protocol.held or ()))
        original(protocol)

    monkeypatch.setattr(LeanWebSocketProtocol, "write_held", spy)
    return joined


@pytest.mark.timeout(60)
def test_two_messages_committed_together_reach_each_reader_in_one_write_in_order(
        served: tuple[int, dict[str, str], dict[str, Any]], paired_batch: None,
        joined_writes: list[int], forwarded: list[int]) -> None:
    """Anna and Boris write in their city's inbox at the same moment and the lane commits the
    two posts together (INBOX-CITY): each of them gets both messages, rendered, in commit
    order and numbered one past his last, written to his socket as one write (issue 17);
    Vera, of the other city, gets nothing of them and no write."""
    port, tokens, inboxes = served
    with ExitStack() as sockets:
        anna, boris, vera = (sockets.enter_context(_subscribed(port, tokens[n]))
                             for n in ("anna", "boris", "vera"))
        caught_up = len(forwarded)
        with ThreadPoolExecutor(2) as pool:
            first = pool.submit(_post, port, tokens["anna"], inboxes["city"], "первая", "pair-1")
            time.sleep(0.2)  # the first is in its lane, waiting for its pair
            second = pool.submit(_post, port, tokens["boris"], inboxes["city"], "вторая", "pair-2")
            first.result(), second.result()
        for ws in (anna, boris):
            frames = [f for f in _frames(ws) if f.get("type") == "event"]
            assert [f["payload"]["text"] for f in frames] == ["первая", "вторая"]
            assert all(f.get("html") for f in frames)
            assert frames[1]["seq"] == frames[0]["seq"] + 1
        assert not [f for f in _frames(vera, 0.3) if f.get("type") == "event"]
        assert joined_writes == [2, 2]  # Anna's socket and Boris's, each one write
        assert forwarded[caught_up:] == []


# --- a slow disk: every commit on the committing thread, late ------------------------------


def _post_all(ws: ClientConnection, inbox: str, texts: list[str], prefix: str) -> list[dict[str, Any]]:
    """Post each text on the socket as live.js does (the next after the last one's ack);
    every frame received meanwhile, acks included."""
    frames: list[dict[str, Any]] = []
    for n, text in enumerate(texts):
        cid = f"{prefix}-{n}"
        ws.send(_post_frame(cid, inbox, text))
        while not (frames and frames[-1].get("type") == "ack" and frames[-1].get("id") == cid):
            frames.append(json.loads(ws.recv(timeout=10)))
            assert frames[-1].get("type") != "error", frames[-1]
    return frames


@pytest.mark.timeout(90)
def test_on_a_slow_disk_every_reader_gets_every_message_once_and_in_order(
        served: tuple[int, dict[str, str], dict[str, Any]], slow_disk: dict[str, LateCommits]) -> None:
    """The disk is slow: each commit runs on the committing thread, 10–60 ms late. Anna and
    Boris each post six lines into their city's inbox on their sockets at the same time
    (INBOX-CITY-1), the mafioso reads along, and Boris opens a second tab while they write
    (its socket subscribes from the start, its catch-up read while commits are under
    way). Each of the four sockets gets all twelve lines once, numbered one past the last,
    each author's in the order he wrote them; Vera, of the other city, none of them."""
    port, tokens, inboxes = served
    with ExitStack() as sockets:
        anna, boris, mafioso, vera = (sockets.enter_context(_subscribed(port, tokens[n]))
                                      for n in ("anna", "boris", "mafioso", "vera"))
        lines = {name: [f"{name} {n}" for n in range(6)] for name in ("anna", "boris")}
        with ThreadPoolExecutor(2) as posting:
            mine = {name: posting.submit(_post_all, ws, inboxes["city"], lines[name], f"slow-{name}")
                    for name, ws in (("anna", anna), ("boris", boris))}
            time.sleep(0.15)  # a few lines in
            tab = sockets.enter_context(connect(
                f"ws://127.0.0.1:{port}/ws", compression=None, max_size=2**22,
                additional_headers={"Authorization": f"Bearer {tokens['boris']}"}))
            tab.send(json.dumps({"type": "subscribe", "game": "g", "since_seq": 0}))
            heard = {name: future.result(timeout=60) for name, future in mine.items()}
        heard["anna"] += _frames(anna)
        heard["boris"] += _frames(boris)
        heard["mafioso"] = _frames(mafioso)
        heard["boris's second tab"] = _frames(tab)
        assert heard["boris's second tab"][0]["type"] == "subscribed"
        for name, frames in heard.items():
            events = [f for f in frames if f.get("type") == "event"]
            texts = [f["payload"]["text"] for f in events if f["payload"].get("type") == "MessagePosted"
                     and f["payload"]["text"].startswith(("anna ", "boris "))]
            assert sorted(texts) == sorted(lines["anna"] + lines["boris"]), name
            for author in ("anna", "boris"):
                assert [t for t in texts if t.startswith(author)] == lines[author], name
            seqs = [f["seq"] for f in events]
            assert seqs == list(range(seqs[0], seqs[0] + len(seqs))), name
        assert not [f for f in _frames(vera, 0.3) if "anna" in json.dumps(f) or "boris" in json.dumps(f)]
    # every line committed late: six commits at least (two authors' lines may share one batch)
    assert sum(pool.submitted for pool in slow_disk.values()) >= 6
