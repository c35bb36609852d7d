"""The load benchmark's clients, in a generator process of their own (``bench/load.py``
starts ``--client-procs`` of them; docs/performance.md, issue 17).

    python bench/load_clients.py --manifest MANIFEST.json --games load00,load01 --options JSON

A generator owns whole games: their 100 clients per game on every target and the games'
posting. It answers one JSON line on stdout for each JSON line on stdin:

- ``{"op": "hello", "t": PARENT_CLOCK}`` → ``{"t": its time.perf_counter(), "clock": ..., "nofile": ...}``
  (the parent checks that both processes read the same clock: CLOCK_MONOTONIC is system-wide);
- ``{"op": "connect", "target": {"name", "kind", "ports", "routed"}}`` → ``{"took", "clients", ...}``;
- ``{"op": "window", "target": NAME, "rep": N, "start": T}`` → the window's raw measurements
  (every latency, ack, re-fetch and read mark; counts; its own CPU): sleeps until ``T`` on the
  shared clock, posts its games' Poisson streams for ``--window`` seconds, waits up to
  ``--drain`` seconds for their deliveries;
- ``{"op": "disconnect", "target": NAME}``, ``{"op": "quit"}``.

Everything it prints otherwise goes to stderr (its log). Only 127.0.0.1 is contacted.
"""

from __future__ import annotations

import argparse
import asyncio
import bisect
import gc
import hashlib
import hmac
import html
import json
import os
import random
import re
import resource
import sys
import time
import uuid
import zlib
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import quote, unquote

import aiohttp

SESSION_COOKIE = "lepromafia_session"
CSRF_COOKIE = "lepromafia_csrf"
DEBOUNCE = 0.150
WINDOW = 2.0
"""live.js: at most one re-fetch per region per this many seconds (trailing)."""
READ_EVERY = 5.0
"""live.js: the batched read marker, at most once per this many seconds."""
NUMBER = re.compile(r'data-seq="(\d+)"')
CONNECT_IN_FLIGHT = 32
"""Sockets connecting at once, over all generators (each takes its share)."""
TAG = re.compile(r"<[a-z]+\b[^>]*\bdata-live-src=\"[^\"]*\"[^>]*>")
ATTR = re.compile(r"\b(data-live-[a-z]+)=\"([^\"]*)\"")
HTTP_LIMIT = 256
"""Pooled HTTP connections (posts, re-fetches, read marks) over all generators (each takes
its share, as with the connecting sockets: the servers see as many as from one process)."""
BENCH_SECRET = "lepromafia-bench-signing-key"
"""The benchmarked servers' signing key (``load_setup.server_command`` sets it): a generator
mints each post's form token with it (``form_token``), as the composer a browser was served
would carry one."""
SPARE_FILES = 64
"""Files a process holds besides its sockets (interpreter, logs, pipes, the event loop)."""


@dataclass
class Region:
    src: str
    kinds: str
    inbox: str | None
    city: str | None
    shown: str | None = None
    """``data-live-shown``: "skip" for a region a message shown on the page does not change."""
    thread: int | None = None
    """For the region holding the inbox's thread: the last message number it shows."""
    rendered: int = 0
    timer: asyncio.TimerHandle | None = None
    fetched_at: float = 0.0
    inflight: bool = False

    def matches(self, event: dict[str, Any], seq: int) -> bool:
        """live.js ``matches``, line for line."""
        if self.rendered and seq <= self.rendered:
            return False
        if not self.kinds:
            return True
        if event.get("type") not in self.kinds.split():
            return False
        if self.inbox and "inbox" in event and event["inbox"] != self.inbox:
            return False
        return not (self.city and "city" in event and event["city"] != self.city)




def nginx_consistent_hash(key: str, servers: list[str]) -> int:
    """The server nginx's ``hash KEY consistent`` picks (ngx_http_upstream_hash_module's
    ketama ring: 160 points per server of weight 1, each the CRC32 of "host\\0port" and the
    previous point's 4 little-endian bytes; the key's CRC32 goes to the first point at or
    above it, wrapping), all servers up."""
    points: list[tuple[int, int]] = []
    for index, server in enumerate(servers):
        host, _, port = server.rpartition(":")
        base, prev = f"{host}\0{port}".encode(), 0
        for _ in range(160):
            prev = zlib.crc32(base + prev.to_bytes(4, "little"))
            points.append((prev, index))
    points.sort()
    wanted = zlib.crc32(key.encode())
    hashes = [h for h, _ in points]
    at = bisect.bisect_left(hashes, wanted)
    return points[at % len(points)][1]


def upstream_names(workers: int) -> list[str]:
    """The names nginx hashes a routed target's workers by: those of one machine's workers
    on ports 8001, 8002, … (``server 127.0.0.1:8001;`` …), whatever ports they really
    listen on. Every routed target of a run, and every run, then splits the games alike
    (200 games: 93 and 107): the ring of the ephemeral ports split them anywhere from
    100/100 to 123/77, a different way for each target of an A/B."""
    return [f"127.0.0.1:{8001 + i}" for i in range(workers)]


@dataclass
class Route:
    """A target as its clients see it: the ports of its workers and which one each game's
    sockets and requests use."""

    name: str
    kind: str  # "project" | "raw"
    ports: list[int]
    routed: bool = False
    """Each game's clients and posts go to one worker, as nginx's ``hash $game consistent``
    does (docs/deploy.md); otherwise in turn, with no routing by game."""
    clients: list[Client] = field(default_factory=list)
    writers: dict[str, Any] = field(default_factory=dict)
    owner: dict[str, int] = field(default_factory=dict)
    post_via: str = ""
    """How this target's posts are sent, if not ``--post-via`` (``fanout.py --post-via api,ws``)."""
    by_user: dict[tuple[str, str], Client] = field(default_factory=dict)
    """(game, user) -> his client: ``--post-via ws`` posts on the author's own socket."""
    views: bool = False
    """Its server takes a page's ``view`` (live.js since session 18): a page on screen then
    reports no read marker over ``--read-via ws``; the server marks what it delivers."""

    def port_for(self, n: int, game: str) -> int:
        """A game's requests: its worker by nginx's ``hash $game consistent`` (routed), else
        in turn. Its sockets too, as nginx routes live.js's ``/ws?game=…`` (docs/deploy.md)."""
        if self.routed:
            if game not in self.owner:
                self.owner[game] = nginx_consistent_hash(game, upstream_names(len(self.ports)))
            return self.ports[self.owner[game]]
        return self.ports[n % len(self.ports)]


@dataclass
class Stats:
    sent: dict[str, tuple[float, str]] = field(default_factory=dict)
    """message id -> (send time, target name)"""
    latencies: dict[str, list[float]] = field(default_factory=dict)
    refused: int = 0
    refresh_errors: int = 0
    reconnects: int = 0
    connect_failures: int = 0


class Client:
    def __init__(self, h: Generator, target: Route, game: str, user: str, regions: list[Region],
                 since: int) -> None:
        self.h, self.target, self.game, self.user = h, target, game, user
        self.regions = [Region(r.src, r.kinds, r.inbox, r.city, r.shown, r.thread) for r in regions]
        self.unread: dict[str, int] = {}
        """Read URL -> the stream position of the last message shown, not yet reported."""
        self.read_timer: asyncio.TimerHandle | None = None
        self.read_at = 0.0
        self.last = since
        """Where his page was drawn (the city's page position, a few events early: the
        catch-up brings him to his own)."""
        self.drawn = False
        self.ws: aiohttp.ClientWebSocketResponse | None = None
        self.subscribed = asyncio.Event()
        self.due: list[Region] = []
        self.pending = False
        self.delay = 0.5
        self.stopped = False
        self.task: asyncio.Task[None] | None = None
        self.acks: dict[str, asyncio.Future[dict[str, Any]]] = {}
        """Command id -> the ``ack`` or ``error`` frame it awaits (``--post-via ws``)."""
        self.index = len(target.clients)
        """Which of the target's workers this client's socket (and re-fetches) use."""

    @property
    def viewing(self) -> bool:
        """The page says on its socket what it shows (live.js against a server that takes it)."""
        return self.target.views and self.h.args.read_via == "ws" and self.h.args.live_js == "push"

    @property
    def token(self) -> str:
        return str(self.h.manifest["tokens"][self.user])

    async def run(self) -> None:
        while not self.stopped:
            try:
                await self._session()
            except (TimeoutError, aiohttp.ClientError, OSError):
                self.h.stats.connect_failures += 1
            if self.stopped:
                return
            self.subscribed.clear()
            self.h.stats.reconnects += 1
            await asyncio.sleep(self.delay * random.uniform(0.5, 1.5))
            self.delay = min(self.delay * 2, 15.0)

    async def _session(self) -> None:
        t = self.target
        if t.kind == "raw":
            url, headers = f"ws://127.0.0.1:{t.port_for(self.index, self.game)}/ws?user={self.user}", {}
        else:
            url = f"ws://127.0.0.1:{t.port_for(self.index, self.game)}/ws?lang=ru"
            headers = {"Cookie": f"{SESSION_COOKIE}={self.token}"}
        timeout = aiohttp.ClientWSTimeout(ws_close=5)
        async with self.h.ws_http.ws_connect(url, headers=headers, timeout=timeout,
                                             max_msg_size=2**22, autoping=True) as ws:
            self.ws = ws
            self.delay = 0.5
            await ws.send_str(json.dumps({"type": "subscribe", "game": self.game, "since_seq": self.last}))
            if self.viewing:  # live.js: what the page shows, on screen
                shown = [r.inbox for r in self.regions if r.thread is not None]
                await ws.send_str(json.dumps({"type": "view", "game": self.game, "inboxes": shown,
                                              "visible": True}))
            async for msg in ws:
                if msg.type != aiohttp.WSMsgType.TEXT:
                    break
                await self._frame(json.loads(msg.data))

    async def command(self, name: str, args: dict[str, Any], cid: str) -> dict[str, Any]:
        """An engine command on this client's own socket, as a page's script would send it;
        its ``ack`` or ``error`` frame (the server answers a socket's commands in order)."""
        if self.ws is None or self.ws.closed:
            raise ConnectionError("the socket is not open")
        answer = self.acks[cid] = asyncio.get_running_loop().create_future()
        try:
            await self.ws.send_str(json.dumps({"type": "command", "id": cid, "game": self.game,
                                               "name": name, "args": args}))
            return await asyncio.wait_for(answer, 30)
        finally:
            self.acks.pop(cid, None)

    async def _frame(self, data: dict[str, Any]) -> None:
        kind = data.get("type")
        if kind in ("ack", "error") and data.get("id") in self.acks:
            self.acks[data["id"]].set_result(data)
            return
        if kind == "subscribed":
            if not self.drawn:  # the page was just drawn at this position
                self.drawn = True
                for r in self.regions:
                    r.rendered = int(data["version"])
            elif int(data["version"]) > self.last:
                self.refresh_legacy(None, 0) if self.h.args.live_js == "refetch" else self.refresh(None, 0)
            self.subscribed.set()
        elif kind == "event":
            seq = int(data["seq"])
            if seq <= self.last:
                return
            if seq > self.last + 1:
                assert self.ws is not None
                await self.ws.send_str(json.dumps({"type": "subscribe", "game": self.game,
                                                   "since_seq": self.last}))
                return
            self.last = seq
            payload = data.get("payload", {})
            text = payload.get("text", "")
            if payload.get("type") == "MessagePosted" and text.startswith("lg:"):
                mid = text[3:].split(" ", 1)[0]
                sent = self.h.stats.sent.get(mid)
                if sent is not None:
                    self.h.stats.latencies.setdefault(mid, []).append(time.perf_counter() - sent[0])
            if self.h.args.live_js == "refetch":
                self.refresh_legacy(payload, seq)
                return
            shown = self.pushed(payload, seq, data["html"]) if data.get("html") else None
            self.refresh(payload, seq, shown)
        elif kind == "resync":
            self.last = 0 if data.get("reason") == "ahead_of_server" else int(data["since_seq"])
            self.refresh_legacy(None, 0) if self.h.args.live_js == "refetch" else self.refresh(None, 0)
            assert self.ws is not None
            await self.ws.send_str(json.dumps({"type": "subscribe", "game": self.game,
                                               "since_seq": self.last}))

    def pushed(self, event: dict[str, Any], seq: int, fragment: str) -> Region | None:
        """live.js ``applyPushed``: the region the message was put in, or None."""
        region = next((r for r in self.regions if r.thread is not None and r.inbox == event.get("inbox")),
                      None)
        found = NUMBER.search(fragment)
        if region is None or region.timer is not None or region.inflight or found is None \
                or region.thread is None:
            return None
        number = int(found.group(1))
        if event.get("type") == "MessageEdited":
            if number > region.thread:
                return None
        elif number == region.thread + 1:
            region.thread = number
            if not self.viewing:  # on screen, told to the socket: the server marks it
                self.read(region, seq)
        elif number > region.thread:
            return None  # not current: the region re-fetches
        region.rendered = max(region.rendered, seq)
        return region

    def read(self, region: Region, seq: int) -> None:
        url = region.src[:-len("/part")] + "/read"
        self.unread[url] = max(seq, self.unread.get(url, 0))
        if self.read_timer is None:
            wait = max(0.0, self.read_at + self.h.args.read_every - time.monotonic())
            self.read_timer = asyncio.get_running_loop().call_later(wait, self._flush_read)

    def _flush_read(self) -> None:
        self.read_timer = None
        self.read_at = time.monotonic()
        unread, self.unread = self.unread, {}
        for url, upto in unread.items():
            if self.h.args.read_via == "ws" and self.ws is not None and not self.ws.closed:
                self._spawn(self._send_read(url, upto))  # live.js: on the open socket
            else:
                self._spawn(self._post_read(url, upto))

    async def _send_read(self, url: str, upto: int) -> None:
        game, _, inbox = url[len("/games/"):-len("/read")].partition("/inboxes/")
        started = time.perf_counter()
        try:
            assert self.ws is not None
            await self.ws.send_str(json.dumps({"type": "read", "game": unquote(game),
                                               "inbox": unquote(inbox), "upto": upto}))
        except (ConnectionError, RuntimeError, AssertionError):
            self.h.stats.refresh_errors += 1
            return
        self.h.reads.setdefault(self.target.name, []).append((started, time.perf_counter() - started))

    def http_url(self, path: str) -> str:
        return f"http://127.0.0.1:{self.target.port_for(self.index, self.game)}{path}"

    async def _post_read(self, url: str, upto: int) -> None:
        started = time.perf_counter()
        cookie, token = self.h.csrf
        try:
            async with self.h.http.post(
                    self.http_url(url), json={"upto": upto},
                    headers={"Cookie": f"{SESSION_COOKIE}={self.token}; {CSRF_COOKIE}={cookie}",
                             "X-CSRF-Token": token}) as resp:
                await resp.read()
                if resp.status != 204:
                    self.h.stats.refresh_errors += 1
                    return
        except (TimeoutError, aiohttp.ClientError, OSError):
            self.h.stats.refresh_errors += 1
            return
        self.h.reads.setdefault(self.target.name, []).append((started, time.perf_counter() - started))

    def refresh(self, event: dict[str, Any] | None, seq: int, shown: Region | None = None) -> None:
        """live.js ``refresh``: each matching region re-fetched, coalesced."""
        for r in self.regions:
            if event is not None and not r.matches(event, seq):
                continue
            if shown is not None and (r.shown == "skip" or r is shown):
                continue
            if r.timer is None:
                wait = max(DEBOUNCE, r.fetched_at + WINDOW - time.monotonic() if r.fetched_at else 0.0)
                r.timer = asyncio.get_running_loop().call_later(wait, self._fetch_one, r)

    def _fetch_one(self, r: Region) -> None:
        r.timer = None
        r.fetched_at = time.monotonic()
        self._spawn(self._fetch(r))

    def _spawn(self, coro: Any) -> None:
        task = asyncio.ensure_future(coro)
        self.h.background.add(task)
        task.add_done_callback(self.h.background.discard)

    def refresh_legacy(self, event: dict[str, Any] | None, seq: int) -> None:
        """The live.js before pushed content: every matching region, 150 ms after the event."""
        for r in self.regions:
            if (event is None or r.matches(event, seq)) and r not in self.due:
                self.due.append(r)
        if self.pending or not self.due:
            return
        self.pending = True
        asyncio.get_running_loop().call_later(DEBOUNCE, self._fetch_due)

    def _fetch_due(self) -> None:
        self.pending = False
        regions, self.due = self.due, []
        for r in regions:
            task = asyncio.ensure_future(self._fetch(r))
            self.h.background.add(task)
            task.add_done_callback(self.h.background.discard)

    async def _fetch(self, r: Region) -> None:
        started = time.perf_counter()
        r.inflight = True
        try:
            async with self.h.http.get(self.http_url(r.src),
                                       headers={"Cookie": f"{SESSION_COOKIE}={self.token}",
                                                "HX-Request": "true"}) as resp:
                body = await resp.read()
                if resp.status != 200:
                    self.h.stats.refresh_errors += 1
                    return
                if r.thread is not None:
                    r.thread = max([int(n) for n in NUMBER.findall(body.decode())] or [0])
                seq = resp.headers.get("X-Live-Seq")
                if seq:
                    r.rendered = int(seq)
        except (TimeoutError, aiohttp.ClientError, OSError):
            self.h.stats.refresh_errors += 1
            return
        finally:
            r.inflight = False
        self.h.refreshes.setdefault(self.target.name, []).append((started, time.perf_counter() - started))


def pct(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def raise_open_files() -> int:
    """Soft RLIMIT_NOFILE up to the hard one (thousands of sockets); children inherit it."""
    _, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    return hard


def since(entries: list[tuple[float, float]], start: float) -> list[float]:
    return [round(x, 6) for at, x in entries if at >= start]


def form_token(key: str, seed: str, nonce: str, expires: int) -> str:
    """The CSRF token a rendered composer carries (``web.deps.csrf_token``): its nonce, its
    expiry and their MAC under the server's key, bound to the browser's CSRF cookie
    ``seed``. A browser gets a fresh one with each composer it is served; a generator
    mints it, so a post costs what a browser's post costs and no page load more."""
    mac = hmac.new(key.encode(), f"{seed}|{nonce}|{expires}".encode(), hashlib.sha256).hexdigest()[:40]
    return f"{nonce}.{expires}.{mac}"


async def post_form(http: aiohttp.ClientSession, base: str, game: str, inbox: str, session: str,
                    seed: str, text: str, target: str = "composer-card") -> tuple[int, bytes]:
    """An inbox's form as the browser's htmx sends it: the session and CSRF cookies, a
    fresh form token (``form_token``) whose nonce is the command id, ``HX-Target``
    (``composer-card``: a chat's composer; ``inbox-live``: a vote button). The answer's
    status and body (a refusal is a 200 with an error box, or a 403)."""
    nonce = uuid.uuid4().hex
    token = form_token(BENCH_SECRET, seed, nonce, int(time.time()) + 30 * 86400)
    async with http.post(f"{base}/games/{game}/inboxes/{quote(inbox, safe='')}/post",
                         headers={"Cookie": f"{SESSION_COOKIE}={session}; {CSRF_COOKIE}={seed}",
                                  "HX-Request": "true", "HX-Target": target},
                         data={"csrf_token": token, "command_id": nonce, "text": text}) as resp:
        return resp.status, await resp.read()


def refused(status: int, body: bytes) -> bool:
    """Whether a form's answer is a refusal."""
    return status != 200 or b'data-testid="error"' in body


class Generator:
    """One generator process's games: their clients on every target and their posting."""

    def __init__(self, options: dict[str, Any], manifest: dict[str, Any], games: list[str]) -> None:
        self.args = argparse.Namespace(**options)
        self.manifest = {**manifest, "games": {g: manifest["games"][g] for g in games}}
        self.stats = Stats()
        self.refreshes: dict[str, list[tuple[float, float]]] = {}
        """target name -> (start, latency) of every region re-fetch"""
        self.reads: dict[str, list[tuple[float, float]]] = {}
        """target name -> (start, latency) of every batched read mark"""
        self.acks: dict[str, list[tuple[float, float]]] = {}
        """target name -> (sent, latency) of every acknowledged post (project only)"""
        self.pages: dict[str, list[tuple[float, float]]] = {}
        """target name -> (start, latency) of every page load (``--pages``, project only)"""
        self.csrf: tuple[str, str] = ("", "")
        """A CSRF cookie and a token of a page (bound to the cookie, not to a user)."""
        self.background: set[asyncio.Task[Any]] = set()
        self.routes: dict[str, Route] = {}
        self.pauses: list[tuple[float, float]] = []
        """(start, seconds) of each of this process's own garbage collections"""
        self._gc_started = 0.0
        gc.callbacks.append(self._on_gc)

    def _on_gc(self, phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            self._gc_started = time.perf_counter()
        else:
            self.pauses.append((self._gc_started, time.perf_counter() - self._gc_started))

    async def open(self) -> None:
        limit = int(getattr(self.args, "http_limit", HTTP_LIMIT))
        self.http = aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=limit))
        self.ws_http = aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=0))

    async def close(self) -> None:
        for name in list(self.routes):
            await self.disconnect(name)
        await self.http.close()
        await self.ws_http.close()

    def files_needed(self, more: int) -> int:
        """Sockets (and spare files) this process holds with ``more`` clients connected."""
        held = sum(len(r.clients) + len(r.writers) for r in self.routes.values())
        return held + more + HTTP_LIMIT + SPARE_FILES

    async def regions_of(self, t: Route) -> dict[tuple[str, str], tuple[list[Region], int]]:
        """The live regions of each city's inbox page and its position, as one of its
        residents sees it (every resident's page has the same regions)."""
        found: dict[tuple[str, str], tuple[list[Region], int]] = {}
        for game, spec in self.manifest["games"].items():
            for city, c in spec["cities"].items():
                user = c["residents"][0]
                url = f"http://127.0.0.1:{t.port_for(0, game)}/games/{game}/inboxes/{c['inbox']}"
                async with self.http.get(url, headers={"Cookie": f"{SESSION_COOKIE}="
                                                       f"{self.manifest['tokens'][user]}"}) as resp:
                    page = await resp.text()
                    assert resp.status == 200, (url, resp.status, page[:300])
                    cookie = resp.cookies.get(CSRF_COOKIE)
                token = re.search(r'data-live-csrf="([^"]+)"', page)
                if cookie is not None and token is not None:
                    self.csrf = (cookie.value, token.group(1))
                regions = []
                last = max([int(n) for n in NUMBER.findall(page)] or [0])
                for tag in TAG.findall(page):
                    attrs = {k: html.unescape(v) for k, v in ATTR.findall(tag)}
                    src, inbox = attrs["data-live-src"], attrs.get("data-live-inbox")
                    holds = bool(inbox) and src.endswith("/part") and 'class="thread"' in page
                    regions.append(Region(src, attrs.get("data-live-kinds", ""), inbox,
                                          attrs.get("data-live-city"), attrs.get("data-live-shown"),
                                          last if holds else None))
                seq = re.search(r'data-live-seq="(\d+)"', page)
                found[(game, city)] = (regions, max(0, int(seq.group(1)) - 5) if seq else 0)
        return found

    async def connect(self, spec: dict[str, Any]) -> dict[str, Any]:
        t = Route(spec["name"], spec["kind"], list(spec["ports"]), bool(spec["routed"]),
                  post_via=str(spec.get("post_via", "")), views=bool(spec.get("views")))
        games = self.manifest["games"]
        wanted = sum(len(c["residents"]) for g in games.values() for c in g["cities"].values())
        need = self.files_needed(wanted + (len(games) if t.kind == "raw" else 0))
        limit = resource.getrlimit(resource.RLIMIT_NOFILE)[0]
        if need > limit:
            raise RuntimeError(f"{t.name}: this generator would hold {need} open files, a process "
                               f"may open {limit}: run more --client-procs")
        self.routes[t.name] = t
        regions = await self.regions_of(t) if t.kind == "project" else {}
        gate = asyncio.Semaphore(max(1, int(self.args.in_flight)))
        started = time.perf_counter()
        failures = self.stats.connect_failures

        async def one(c: Client) -> None:
            async with gate:
                c.task = asyncio.ensure_future(c.run())
                await asyncio.wait_for(c.subscribed.wait(), 120)

        for game, spec_ in games.items():
            for city, c in spec_["cities"].items():
                for user in c["residents"]:
                    drawn, position = regions.get((game, city), ([], 0))
                    t.clients.append(Client(self, t, game, user, drawn, position))
                    t.by_user[(game, user)] = t.clients[-1]
        await asyncio.gather(*(one(c) for c in t.clients))
        if t.kind == "raw":
            for game in games:
                t.writers[game] = await self.ws_http.ws_connect(
                    f"ws://127.0.0.1:{t.port_for(len(t.writers), game)}/post")
        took = time.perf_counter() - started
        gc.collect()
        gc.freeze()  # the clients live through the run: out of every later collection's scan
        return {"took": took, "clients": len(t.clients),
                "connect_failures": self.stats.connect_failures - failures}

    async def post(self, t: Route, game: str, city: str, author: str) -> None:
        mid = uuid.uuid4().hex[:12]
        text = f"lg:{mid} сообщение в городской чат"
        sent = time.perf_counter()
        self.stats.sent[mid] = (sent, t.name)
        try:
            if t.kind == "raw":
                ws = t.writers[game]
                await ws.send_str(json.dumps({"game": game, "city": city, "author": author, "text": text,
                                              "id": mid}))
                return  # the raw ack is not awaited per post (one writer socket per game)
            inbox = self.manifest["games"][game]["cities"][city]["inbox"]
            port = t.port_for(len(self.stats.sent), game)  # several workers: in turn, or by game
            via = t.post_via or getattr(self.args, "post_via", "api")
            if via == "ws":  # on the author's own subscribed socket (web/ws/commands.py)
                frame = await t.by_user[(game, author)].command(
                    "PostMessage", {"inbox": inbox, "text": text}, mid)
                if frame.get("type") != "ack":
                    self.stats.refused += 1
                    return
                self.acks.setdefault(t.name, []).append((sent, time.perf_counter() - sent))
                return
            if via == "form":
                answer = await post_form(self.http, f"http://127.0.0.1:{port}", game, inbox,
                                         self.manifest["tokens"][author], self.csrf[0], text)
                if refused(*answer):
                    self.stats.refused += 1
                    return
                self.acks.setdefault(t.name, []).append((sent, time.perf_counter() - sent))
                return
            async with self.http.post(
                    f"http://127.0.0.1:{port}/api/games/{game}/commands/PostMessage",
                    headers={"Authorization": f"Bearer {self.manifest['tokens'][author]}"},
                    json={"command_id": mid, "inbox": inbox, "text": text}) as resp:
                await resp.read()
                if resp.status != 200:
                    self.stats.refused += 1
                    return
            self.acks.setdefault(t.name, []).append((sent, time.perf_counter() - sent))
        except (TimeoutError, aiohttp.ClientError, OSError, ConnectionError):
            self.stats.refused += 1

    async def load_page(self, t: Route, game: str, city: str, user: str) -> None:
        """A resident opens (or reloads) his city's inbox page, as a person navigating does:
        the whole page with his session, its read marker moved (``--pages``)."""
        inbox = self.manifest["games"][game]["cities"][city]["inbox"]
        url = f"http://127.0.0.1:{t.port_for(len(self.stats.sent), game)}/games/{game}/inboxes/{inbox}"
        started = time.perf_counter()
        try:
            async with self.http.get(url, headers={"Cookie": f"{SESSION_COOKIE}="
                                                   f"{self.manifest['tokens'][user]}"}) as resp:
                await resp.read()
                if resp.status != 200:
                    self.stats.refresh_errors += 1
                    return
        except (TimeoutError, aiohttp.ClientError, OSError):
            self.stats.refresh_errors += 1
            return
        self.pages.setdefault(t.name, []).append((started, time.perf_counter() - started))

    async def window(self, name: str, rep: int, start: float) -> dict[str, Any]:
        """From ``start`` (the parent's clock, which is this one's): the games' Poisson
        streams for ``--window`` seconds, then up to ``--drain`` seconds for their deliveries;
        the raw measurements of both."""
        t, args = self.routes[name], self.args
        self.stats = Stats()
        gc.collect()
        gc.freeze()  # what survived the last window: out of this window's collections
        await asyncio.sleep(max(0.0, start - time.perf_counter()))
        own0 = time.process_time()
        posts: list[asyncio.Task[None]] = []

        async def poisson(game: str, rate: float, seed: str,
                          act: Callable[[str, str], Awaitable[None]]) -> None:
            """``rate`` a second for ``--window`` seconds: ``act(city, resident)``, each a
            random city's random resident, as a task of its own."""
            rng = random.Random(f"{seed}{rep}:{name}:{game}")
            end = time.perf_counter() + args.window
            cities = self.manifest["games"][game]["cities"]
            while True:
                await asyncio.sleep(rng.expovariate(rate))
                if time.perf_counter() >= end:
                    return
                city = rng.choice(sorted(cities))
                posts.append(asyncio.ensure_future(act(city, rng.choice(cities[city]["residents"]))))

        def posting(game: str) -> Callable[[str, str], Awaitable[None]]:
            return lambda city, author: self.post(t, game, city, author)

        def opening(game: str) -> Callable[[str, str], Awaitable[None]]:  # --pages
            return lambda city, user: self.load_page(t, game, city, user)

        pages = float(getattr(args, "pages", 0.0) or 0.0) if t.kind == "project" else 0.0
        await asyncio.gather(*(poisson(g, args.rate, "", posting(g)) for g in self.manifest["games"]),
                             *(poisson(g, pages, "pages:", opening(g)) for g in self.manifest["games"]
                               if pages > 0))
        offered = time.perf_counter() - start
        expected = {mid: 20 for mid, (_, target) in self.stats.sent.items() if target == name}
        drain_end = time.perf_counter() + args.drain
        while time.perf_counter() < drain_end:
            if all(len(self.stats.latencies.get(m, ())) >= n for m, n in expected.items()):
                break
            await asyncio.sleep(0.05)
        if posts:
            await asyncio.wait(posts, timeout=max(0.1, drain_end - time.perf_counter()))
        if self.background:  # the re-fetches this window caused, as far as the drain allows
            await asyncio.wait(list(self.background), timeout=max(0.1, drain_end - time.perf_counter()))
        pauses = [x for at, x in self.pauses if at >= start]
        self.pauses = []
        return {
            "posts": len(expected), "expected": sum(expected.values()),
            "delivered": sum(min(n, len(self.stats.latencies.get(m, []))) for m, n in expected.items()),
            "latencies": [round(x, 6) for m in expected for x in self.stats.latencies.get(m, [])],
            "acks": since(self.acks.pop(name, []), start),
            "pages": since(self.pages.pop(name, []), start),
            "refreshes": since(self.refreshes.pop(name, []), start),
            "reads": since(self.reads.pop(name, []), start),
            "refused": self.stats.refused, "refresh_errors": self.stats.refresh_errors,
            "reconnects": self.stats.reconnects, "offered": offered,
            "cpu": time.process_time() - own0, "wall": time.perf_counter() - start,
            "gc_max": max(pauses, default=0.0), "gc_total": sum(pauses),
        }

    async def disconnect(self, name: str) -> dict[str, Any]:
        t = self.routes.pop(name, None)
        if t is None:
            return {}
        for c in t.clients:
            c.stopped = True
        await asyncio.gather(*(c.ws.close() for c in t.clients if c.ws is not None), return_exceptions=True)
        for c in t.clients:
            if c.task is not None:
                c.task.cancel()
        for ws in t.writers.values():
            await ws.close()
        await asyncio.gather(*(c.task for c in t.clients if c.task), return_exceptions=True)
        return {"clients": len(t.clients)}


def clock_name() -> str:
    return time.get_clock_info("perf_counter").implementation


async def serve(gen: Generator) -> None:
    """Answer the parent's requests, one JSON line each, until ``quit`` or end of input."""
    await gen.open()
    out = sys.stdout
    try:
        while True:
            line = await asyncio.to_thread(sys.stdin.readline)
            if not line:
                return
            msg = json.loads(line)
            op = msg["op"]
            try:
                if op == "hello":
                    reply: dict[str, Any] = {"t": time.perf_counter(), "clock": clock_name(),
                                             "nofile": resource.getrlimit(resource.RLIMIT_NOFILE)[0]}
                elif op == "connect":
                    reply = await gen.connect(msg["target"])
                elif op == "window" and os.environ.get("LEPROMAFIA_BENCH_CLIENT_PROFILE"):
                    import cProfile  # where a generator's CPU goes, window by window

                    profile = cProfile.Profile()
                    profile.enable()
                    reply = await gen.window(msg["target"], int(msg["rep"]), float(msg["start"]))
                    profile.disable()
                    profile.dump_stats(f"{os.environ['LEPROMAFIA_BENCH_CLIENT_PROFILE']}-{os.getpid()}-"
                                       f"{msg['target']}-{msg['rep']}.prof")
                elif op == "window":
                    reply = await gen.window(msg["target"], int(msg["rep"]), float(msg["start"]))
                elif op == "disconnect":
                    reply = await gen.disconnect(msg["target"])
                elif op == "quit":
                    out.write("{}\n")
                    out.flush()
                    return
                else:
                    reply = {"error": f"unknown op {op!r}"}
            except Exception as e:  # the parent stops the run with this message
                import traceback
                traceback.print_exc()
                reply = {"error": f"{type(e).__name__}: {e}"}
            out.write(json.dumps(reply) + "\n")
            out.flush()
    finally:
        for task in list(gen.background):
            task.cancel()
        await gen.close()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--manifest", required=True)
    parser.add_argument("--games", required=True, help="this generator's games, comma-separated")
    parser.add_argument("--options", required=True, help="JSON: live_js, read_every, read_via, "
                                                          "window, drain, rate, in_flight")
    args = parser.parse_args()
    raise_open_files()
    with open(args.manifest, encoding="utf-8") as f:
        manifest = json.load(f)
    gen = Generator(json.loads(args.options), manifest, args.games.split(","))
    if os.environ.get("LEPROMAFIA_BENCH_CLIENT_LOOP", "uvloop") == "asyncio":
        asyncio.run(serve(gen))
        return
    import uvloop

    uvloop.run(serve(gen))


if __name__ == "__main__":
    main()
