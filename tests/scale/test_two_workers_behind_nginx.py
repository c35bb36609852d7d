"""Two ``lepromafia serve`` workers on PostgreSQL + Redis behind a real nginx, one killed
mid-game (issue 17, "Several workers").

Cast: ``default_cast(2, 6)``: Лепроград's and Мафиозово's six residents each, on Day 1 with
both city inboxes open (CHAT-1: a city's residents write and read their city's inbox).
Every resident watches the game through nginx (the WebSocket, as ``live.js`` does: naming
the game, which nginx routes to the game's worker; resume from the last position after a
drop); two residents' clients name no game and land on any worker. Three posters chat at
once, one through nginx, one straight to worker A, one straight to worker B; then the
worker nginx routes the game to is SIGKILLed while the nginx poster and the other direct
poster keep posting. Expected: every
post acknowledged (none refused, none lost: the workers take turns on the game's row
instead of refusing each other's commits, and nginx retries on the survivor what the dead
worker dropped or refused, the command id making that safe); every resident's stream holds
exactly his own city's messages, each once, in the log's order, numbered 1, 2, 3, … with
no gap, although some were served by the dead worker and resumed on the other.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import random
import time
from dataclasses import dataclass, field
from pathlib import Path

import httpx
from websockets.asyncio.client import connect

from lepromafia.bots.setup import default_cast
from lepromafia.engine.events import MessagePosted
from lepromafia.service.clock import ManualClock
from lepromafia.service.service import GameService
from lepromafia.store.database import DatabaseConfig
from lepromafia.store.event_store import EventStore, decode_rows
from lepromafia.store.migrate import upgrade

from ..service.conftest import _drop_schema
from ..service.helpers import pg_config, run
from .cluster import LiveGame, Nginx, Worker, live_game, make_log_key, worker_env

BUDGET = 60.0
"""The scenario, from the workers answering to the last check, must finish within this
(seconds); booting them (importing the app: ~3 CPU-seconds each) has ``BOOT`` more, as a
machine shared with other work can make that alone take a minute."""
BOOT = 90.0
UNNAMED = 2
"""Viewers whose socket names no game (a client other than live.js): nginx sends them to
any worker, and the events reach them through Redis."""
CHAT_BEFORE_KILL = 2.5
CHAT_AFTER_KILL = 2.5


@dataclass
class Viewer:
    """One resident's browser tab: a socket through nginx, resumed like live.js."""

    user: str
    token: str
    game: str
    url: str
    last: int = 0
    texts: list[str] = field(default_factory=list)
    connects: int = 0
    duplicates: int = 0
    gaps: int = 0
    subscribed: asyncio.Event = field(default_factory=asyncio.Event)

    async def watch(self, stop: asyncio.Event) -> None:
        delay = 0.1
        while not stop.is_set():
            with contextlib.suppress(Exception):  # a drop (a killed worker, a refused handshake)
                async with connect(self.url, additional_headers={"Authorization": f"Bearer {self.token}"},
                                   open_timeout=5) as ws:
                    self.connects += 1
                    await ws.send(json.dumps({"type": "subscribe", "game": self.game, "since_seq": self.last}))
                    async for raw in ws:
                        delay = 0.1
                        self._frame(json.loads(raw))
            await asyncio.sleep(delay * (0.5 + random.random()))  # live.js's jittered backoff
            delay = min(delay * 2, 1.0)

    def _frame(self, data: dict[str, object]) -> None:
        if data["type"] == "subscribed":
            self.subscribed.set()
        if data["type"] != "event":
            return
        seq = int(data["seq"])  # type: ignore[call-overload]
        if seq <= self.last:
            self.duplicates += 1
            return
        if seq > self.last + 1:
            self.gaps += 1
            return
        self.last = seq
        payload = data["payload"]
        assert isinstance(payload, dict)
        if payload.get("type") == "MessagePosted":
            self.texts.append(str(payload["text"]))


@dataclass
class Poster:
    """A resident who chats through one route; every answer that is not 200 is kept."""

    name: str
    base: str
    user: str
    token: str
    game: str
    inbox: str
    sent: list[str] = field(default_factory=list)
    refused: list[str] = field(default_factory=list)

    async def chat(self, until: float, client: httpx.AsyncClient) -> None:
        while time.monotonic() < until:
            text = f"{self.name}-{len(self.sent) + len(self.refused) + 1}"
            try:
                r = await client.post(f"{self.base}/api/games/{self.game}/commands/PostMessage",
                                      headers={"Authorization": f"Bearer {self.token}"},
                                      json={"command_id": text, "inbox": self.inbox, "text": text})
                if r.status_code == 200:
                    self.sent.append(text)
                else:
                    self.refused.append(f"{text}: {r.status_code} {r.text[:200]}")
            except httpx.HTTPError as exc:
                self.refused.append(f"{text}: {exc!r}")
            await asyncio.sleep(0.03)


def test_a_worker_killed_mid_game_loses_nothing_and_its_viewers_resume_on_the_other(tmp_path: Path) -> None:
    """CHAT-1, §9.1.3 (each viewer's own gapless stream), issue 17: two workers behind
    nginx, posts through both, SIGKILL of one mid-game."""
    config = pg_config()
    key = tmp_path / "log-key.pem"
    make_log_key(key)
    game_id = f"scale-{random.getrandbits(40):010x}"
    cast = default_cast(2, 6)

    async def prepare() -> LiveGame:
        clock = ManualClock(0.0)
        async with GameService.running(config, clock=clock, sweep=False) as svc:
            return await live_game(svc, game_id, cast, clock)

    run(upgrade(config))
    env = worker_env(config, key)
    a = Worker("a", env, tmp_path / "a.log")
    b = Worker("b", env, tmp_path / "b.log")
    proxy = Nginx(tmp_path / "nginx", [a.port, b.port])
    try:
        a.start()  # the workers boot while the game is set up
        b.start()
        proxy.start()
        game = run(prepare())
        booted = time.monotonic() + BOOT
        a.ready(booted)
        b.ready(booted)
        proxy.ready(booted)
        started = time.monotonic()
        run(_play(game, a, b, proxy, started + BUDGET))
    finally:
        proxy.stop()
        a.stop()
        b.stop()
        run(_drop_schema(config))
    assert time.monotonic() - started < BUDGET


async def _play(game: LiveGame, a: Worker, b: Worker, proxy: Nginx, deadline: float) -> None:
    # live.js names the page's game (nginx sends the socket to the game's worker); the last
    # two viewers' clients name none, and go to any worker
    ws_url = proxy.url.replace("http", "ws", 1) + "/ws"
    residents = [user for users in game.cast.cities.values() for user in users]
    viewers = [Viewer(user, game.tokens[user], game.game_id,
                      ws_url + (f"?game={game.game_id}" if n < len(residents) - UNNAMED else ""))
               for n, user in enumerate(residents)]
    stop = asyncio.Event()
    watching = [asyncio.create_task(v.watch(stop)) for v in viewers]
    await asyncio.wait_for(asyncio.gather(*(v.subscribed.wait() for v in viewers)),
                           timeout=max(5.0, deadline - time.monotonic() - CHAT_BEFORE_KILL - CHAT_AFTER_KILL - 5))
    on_a, on_b = a.metric("lepromafia_connected_clients"), b.metric("lepromafia_connected_clients")
    assert on_a + on_b == len(viewers) and max(on_a, on_b) >= len(viewers) - UNNAMED, (on_a, on_b)
    owner = "a" if on_a >= len(viewers) - UNNAMED else "b"  # the game's worker holds its sockets

    cities = list(game.cast.cities)
    lepro, mafioz = cities[0], cities[1]

    def poster(name: str, base: str, city: str, i: int) -> Poster:
        user = game.cast.cities[city][i]
        return Poster(name, base, user, game.tokens[user], game.game_id, game.inboxes[city])

    workers = {"a": a, "b": b}
    via_nginx = poster("nginx", proxy.url, lepro, 0)
    direct = {"a": poster("a", a.url, mafioz, 0), "b": poster("b", b.url, lepro, 1)}
    async with httpx.AsyncClient(timeout=10.0) as client:
        end = time.monotonic() + CHAT_BEFORE_KILL + CHAT_AFTER_KILL
        nginx_task = asyncio.create_task(via_nginx.chat(end, client))
        phase_one = time.monotonic() + CHAT_BEFORE_KILL
        await asyncio.gather(*(p.chat(phase_one, client) for p in direct.values()))
        # the worker nginx sends the game to (its writes' usual owner) dies mid-post
        served = {n: w.metric("lepromafia_commands_total") - len(direct[n].sent) for n, w in workers.items()}
        victim = max(served, key=lambda n: served[n])
        survivor = "b" if victim == "a" else "a"
        assert served[victim] > 0 and victim == owner, (served, owner)
        workers[victim].kill()
        await direct[survivor].chat(end, client)  # the other keeps taking posts directly
        await nginx_task
        posters = [via_nginx, *direct.values()]

        refused = [r for p in posters for r in p.refused]
        assert refused == [], refused
        assert all(p.sent for p in posters), [(p.name, len(p.sent)) for p in posters]

        store = EventStore.open(_config_of(a))
        try:
            rows = await store.event_rows(game.game_id)
        finally:
            await store.close()
        posted = [(e.inbox, e.text) for _, e in decode_rows(rows) if isinstance(e, MessagePosted)]
        texts = [t for _, t in posted]
        missing = {t for p in posters for t in p.sent} - set(texts)
        assert sorted(texts) == sorted(t for p in posters for t in p.sent), (  # each once: nothing lost
            missing, [(r["seq"], r["type"], r["command_id"]) for r in rows if r["command_id"] in missing])
        expected = {city: [t for inbox, t in posted if inbox == game.inboxes[city]] for city in cities}

        # every resident catches up (bounded), then holds exactly his city's messages in order
        city_of = {u: c for c, users in game.cast.cities.items() for u in users}
        while time.monotonic() < deadline - 5:
            if all(v.texts == expected[city_of[v.user]] for v in viewers):
                break
            await asyncio.sleep(0.2)
        stop.set()
        for task in watching:
            task.cancel()
        for task in watching:
            with contextlib.suppress(asyncio.CancelledError):
                await task
    for v in viewers:  # nothing of the other city's inbox, nothing twice, nothing missing
        assert v.texts == expected[city_of[v.user]], (v.user, len(v.texts), len(expected[city_of[v.user]]))
        assert (v.duplicates, v.gaps) == (0, 0), (v.user, v.duplicates, v.gaps)
    dropped = on_a if victim == "a" else on_b
    assert len([v for v in viewers if v.connects > 1]) >= dropped  # the victim's viewers came back


def _config_of(worker: Worker) -> DatabaseConfig:
    return DatabaseConfig(worker.env["LEPROMAFIA_DATABASE_URL"], worker.env["LEPROMAFIA_DATABASE_SCHEMA"])
