"""A live tally on a slow disk (issue 17; EXEC-5, INBOX-VOTE-1): what a watcher's socket
hears and what his page then fetches agree. live.js re-fetches the tally region after a
vote's frame and skips frames up to the answer's ``X-Live-Seq``: a region that answered
with a position past a vote it does not count would show a stale tally until the next
vote. So every answer fetched after a vote's frame must count that vote and carry a
position at least its own — also while every commit runs late on the committing thread
(the disk slow, as on CI's machine when session 39's browser test saw a tally stay at one).

Cast: the small game's first city on Day 2's evening vote: a candidate, his nominator, two
voters and a watcher."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import httpx
import pytest

from lepromafia.cli.serve_cmd import server_config
from lepromafia.service.clock import ManualClock
from lepromafia.web.app import create_app

from ..server_thread import serving
from .conftest import at, make_api, settings_for, setup_game_via_api, small_cast
from .test_ws_direct_fanout import _subscribed

COUNT = re.compile(r'data-testid="tally-count">\s*(\d+)')


@pytest.fixture
def vote_open(tmp_path: Path) -> Iterator[tuple[int, dict[str, str], str]]:
    """Day 2, 20:05: the first city's vote on the candidate is open; a real server on the
    store. The port, the tokens of the voters and the watcher, the voting inbox."""
    for api in make_api(tmp_path):
        setup_game_via_api(api, "g", small_cast())
        api.advance_to(at(2, "10:05"))
        s = api.state("g")
        city = sorted(s.cities)[0]
        candidate, nominator, first, second, watcher = s.living(city)[:5]
        api.ok(nominator, "g", "Nominate", candidate=candidate)
        api.advance_to(at(2, "20:05"))
        box = api.state("g").current[f"voting:{city}/{candidate}"]
        tokens = {"first": api.tokens[first], "second": api.tokens[second], "watcher": api.tokens[watcher]}
        moment = api.clock.now()
    app = create_app(settings_for(tmp_path), clock=ManualClock(moment))
    with serving(lambda port: server_config(app, "127.0.0.1", port, log_level="warning")) as port:
        yield port, tokens, box


def _vote(port: int, token: str, box: str, cid: str) -> dict[str, Any]:
    """«казнить» posted on the voter's own socket; its answer."""
    with _subscribed(port, token) as ws:
        ws.send(json.dumps({"type": "command", "id": cid, "game": "g", "name": "PostMessage",
                            "args": {"inbox": box, "text": "казнить"}}))
        while True:
            frame: dict[str, Any] = json.loads(ws.recv(timeout=10))
            if frame.get("id") == cid:
                return frame


def _tally(port: int, token: str, box: str) -> tuple[int, int]:
    """The watcher's tally region as live.js fetches it: its count and its X-Live-Seq."""
    r = httpx.get(f"http://127.0.0.1:{port}/games/g/inboxes/{box}/tally",
                  headers={"Authorization": f"Bearer {token}", "HX-Request": "true"}, timeout=10)
    assert r.status_code == 200, r.text
    found = COUNT.search(r.text)
    return (int(found.group(1)) if found else 0), int(r.headers["x-live-seq"])


@pytest.mark.timeout(90)
@pytest.mark.parametrize("disk", ["fast", "slow"])
def test_the_tally_fetched_after_each_vote_s_frame_counts_it(
        vote_open: tuple[int, dict[str, str], str], disk: str, request: pytest.FixtureRequest) -> None:
    """Two voters say «казнить» at once on their sockets (EXEC-5); the watcher's socket
    hears two VoteCast frames. Fetched right after each, his tally counts at least the
    votes heard so far, and its position is at least the frame's; after both, it is 2."""
    port, tokens, box = vote_open
    if disk == "slow":
        request.getfixturevalue("slow_disk")
    with _subscribed(port, tokens["watcher"]) as watcher:
        with ThreadPoolExecutor(2) as voting:
            answers = [voting.submit(_vote, port, tokens[who], box, f"vote-{who}") for who in ("first", "second")]
            heard = 0
            while heard < 2:
                frame = json.loads(watcher.recv(timeout=10))
                if frame.get("type") != "event" or frame["payload"].get("type") != "VoteCast":
                    continue
                heard += 1
                count, position = _tally(port, tokens["watcher"], box)
                assert count >= heard and position >= frame["seq"], (heard, frame["seq"], count, position)
            assert [a.result(timeout=30)["type"] for a in answers] == ["ack", "ack"]
        assert _tally(port, tokens["watcher"], box)[0] == 2
