"""Load benchmark: the project's server beside a raw ``websockets`` broadcast server, the
same clients on both, in one run (``make bench-load``; docs/performance.md, issue 17).

    python bench/load.py [--games 1,5,10,25] [--backends sqlite,postgresql] [--reps 3]
                         [--window 10] [--rate 2] [--compare-session-cache] [--two-workers]
                         [--out FILE]

For each backend and game count: create the games (``load_setup``), start the servers
(the project's ``load_server.py``, the raw ``load_raw.py``; with
``--compare-session-cache`` also the project with the session cache off, on its own copy
of the database; with ``--two-workers`` on PostgreSQL also the project as two workers
with Redis, clients and posts alternating between them with no routing by game), connect
100 clients per game to each, then take measurement windows in
turn (project, raw, … three repetitions). In a window every game posts a Poisson stream of
``--rate`` chat messages per second into a random city's inbox from a random resident;
then the harness waits until each message reached its city's 20 residents (at most
``--drain`` seconds).

The clients behave like ``web/static/js/live.js``: one WebSocket per resident, sitting on
his city's inbox page; ``subscribe`` from the page's position; on an event frame: a gap in
his numbering re-subscribes; a message pushed in the frame (``html``) whose number is the
next of the thread on his page is applied with no request, and his read marker follows in
one ``POST …/read {upto}`` at most every ``READ_EVERY`` seconds (a thread that is not
current re-fetches instead); each other ``data-live-src`` region the event matches
(``data-live-kinds``/``-inbox``/``-city``, not already drawn at that position: the
``X-Live-Seq`` of the response that drew it; not ``data-live-shown="skip"`` for a message
the page just showed) is re-fetched coalesced (150 ms debounce, at most one per region per
``WINDOW`` seconds, trailing; with ``HX-Request``); a closed socket reconnects after 0.5 s
doubling to 15 s, with the ±50 % jitter the shipped live.js adds. Raw clients are the same
sockets without pages. ``--live-js refetch`` models the live.js before pushed content
(every matching region re-fetched 150 ms after each event, the read marker moved by the
inbox region's fetch), to measure both client models against one server.

Bounded: every wait has a timeout and the whole run stops after ``--max-minutes``. Only
127.0.0.1 is ever contacted.
"""

from __future__ import annotations

import argparse
import asyncio
import bisect
import html
import json
import os
import random
import re
import resource
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import time
import uuid
import zlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import unquote

import aiohttp

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))

from load_setup import copy_schema, create_games, server_command, until_listening  # noqa: E402

from lepromafia.store.database import DatabaseConfig  # noqa: E402

PG_URL = "postgresql://postgres@127.0.0.1:5432/test"
REDIS_URL = "redis://127.0.0.1:6379/0"
SESSION_COOKIE = "lepromafia_session"
CSRF_COOKIE = "lepromafia_csrf"
DEBOUNCE = 0.150
WINDOW = 2.0
"""live.js: at most one re-fetch per region per this many seconds (trailing)."""
READ_EVERY = 5.0
"""live.js: the batched read marker, at most once per this many seconds."""
NUMBER = re.compile(r'data-seq="(\d+)"')
CONNECT_IN_FLIGHT = 32
TAG = re.compile(r"<[a-z]+\b[^>]*\bdata-live-src=\"[^\"]*\"[^>]*>")
ATTR = re.compile(r"\b(data-live-[a-z]+)=\"([^\"]*)\"")


# --- what a client is doing --------------------------------------------------------------


GC_LINE = re.compile(r"^lepromafia_gc_pause_seconds_(bucket|sum|count)\{([^}]*)\} (\S+)$", re.M)


def longest_bucket(before: dict[tuple[str, str], float], after: dict[tuple[str, str], float]) -> float | None:
    """The smallest histogram bound that every pause of the window fits under."""
    bounds = sorted({float(k) for _, k in after if k not in ("count", "seconds") and k != "+Inf"})
    total = sum(after.get((g, "count"), 0) - before.get((g, "count"), 0) for g in "012")
    for bound in bounds:
        under = sum(after.get((g, key), 0) - before.get((g, key), 0)
                    for g in "012" for key in {k for _, k in after} if key not in ("count", "seconds", "+Inf")
                    and float(key) == bound)
        if total and under >= total:
            return bound
    return None


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


@dataclass
class Target:
    name: str
    kind: str  # "project" | "raw"
    port: int
    proc: subprocess.Popen[bytes] | None = None
    db: DatabaseConfig | None = None
    session_cache: float | None = None
    clients: list[Client] = field(default_factory=list)
    writers: dict[str, Any] = field(default_factory=dict)
    others: list[Target] = field(default_factory=list)
    """More workers of the same project server (with Redis): clients and posts are spread
    over all, with no routing by game (the worst case for one writer per game), or by game."""
    routed: bool = False
    """Each game's clients and posts go to one worker, as nginx's ``hash $game`` does
    (docs/deploy.md); the games are numbered, so game n goes to worker n mod workers."""

    @property
    def workers(self) -> list[Target]:
        return [self, *self.others]

    redis_url: str = REDIS_URL

    def port_for(self, n: int, game: str) -> int:
        """A game's requests: its worker by nginx's ``hash $game consistent`` (routed), else
        in turn. The routed harness sends a game's sockets there too (nginx's ``/ws`` has no
        game in its URL and goes to any worker: that relays every event through Redis)."""
        if self.routed:
            servers = [f"127.0.0.1:{w.port}" for w in self.workers]
            return self.workers[nginx_consistent_hash(game, servers)].port
        return self.workers[n % len(self.workers)].port


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
    def __init__(self, h: Harness, target: Target, game: str, user: str, regions: list[Region],
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
        self.index = len(target.clients)
        """Which of the target's workers this client's socket (and re-fetches) use."""

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
            url, headers = f"ws://127.0.0.1:{t.port}/ws?user={self.user}", {}
        else:
            url = f"ws://127.0.0.1:{t.port_for(self.index, self.game)}/ws?lang=ru"
            headers = {"Cookie": f"{SESSION_COOKIE}={self.token}"}
        timeout = aiohttp.ClientWSTimeout(ws_close=5)
        async with self.h.ws_http.ws_connect(url, headers=headers, timeout=timeout,
                                             max_msg_size=2**22, autoping=True) as ws:
            self.ws = ws
            self.delay = 0.5
            await ws.send_str(json.dumps({"type": "subscribe", "game": self.game, "since_seq": self.last}))
            async for msg in ws:
                if msg.type != aiohttp.WSMsgType.TEXT:
                    break
                await self._frame(json.loads(msg.data))

    async def _frame(self, data: dict[str, Any]) -> None:
        kind = data.get("type")
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


# --- the run -----------------------------------------------------------------------------


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def main_thread_sched(pid: int) -> tuple[float, float]:
    """(seconds on a CPU, seconds runnable but waiting for one) of the process's main
    thread, the event loop (``/proc/<pid>/schedstat``). Over a window, the rest of the wall
    time the loop slept: waiting on the network, the database or a lock, not on the CPU."""
    on_cpu, run_queue = Path(f"/proc/{pid}/schedstat").read_text().split()[:2]
    return int(on_cpu) / 1e9, int(run_queue) / 1e9


def rss_kb(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


def pct(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


class Harness:
    def __init__(self, args: argparse.Namespace, manifest: dict[str, Any], workdir: Path) -> None:
        self.args, self.manifest, self.workdir = args, manifest, workdir
        self.stats = Stats()
        self.refreshes: dict[str, list[tuple[float, float]]] = {}
        self.reads: dict[str, list[tuple[float, float]]] = {}
        """target name -> (start, latency) of every batched read-marker POST"""
        self.csrf: tuple[str, str] = ("", "")
        """A CSRF cookie and a token of a page (bound to the cookie, not to a user)."""
        self.acks: dict[str, list[tuple[float, float]]] = {}
        """target name -> (sent, latency) of every acknowledged post (project only)"""
        """target name -> (start, latency) of every region re-fetch, across windows"""
        self.background: set[asyncio.Task[Any]] = set()
        self.http = aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=256))
        self.ws_http = aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=0))
        self.deadline = time.monotonic() + args.max_minutes * 60

    async def close(self) -> None:
        await self.http.close()
        await self.ws_http.close()

    async def start(self, t: Target) -> None:
        log = open(self.workdir / f"{t.name}.log", "wb")  # noqa: SIM115 - closed with the process
        cmd, env = server_command(t.kind, t.port, self.manifest, self.workdir, t.db, ROOT / "bench")
        if t.kind != "raw":
            env["LEPROMAFIA_SWEEP_INTERVAL"] = "1"
            if t.session_cache is not None:
                cmd += ["--session-cache", str(t.session_cache)]
            if "-2w" in t.name:
                env["LEPROMAFIA_REDIS_URL"] = t.redis_url
        t.proc = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT, env=env)
        await until_listening(t.proc, t.port, t.name, self.workdir / f"{t.name}.log", every=0.5)

    def stop(self, t: Target) -> None:
        if t.proc is not None and t.proc.poll() is None:
            t.proc.send_signal(signal.SIGTERM)
            try:
                t.proc.wait(15)
            except subprocess.TimeoutExpired:
                t.proc.kill()

    async def regions_of(self, t: Target) -> dict[tuple[str, str], tuple[list[Region], int]]:
        """The live regions of each city's inbox page and its position, as one of its
        residents sees it (every resident's page has the same regions)."""
        found: dict[tuple[str, str], tuple[list[Region], int]] = {}
        for game, spec in self.manifest["games"].items():
            for city, c in spec["cities"].items():
                user = c["residents"][0]
                url = f"http://127.0.0.1:{t.port}/games/{game}/inboxes/{c['inbox']}"
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

    async def connect(self, t: Target) -> float:
        regions = await self.regions_of(t) if t.kind == "project" else {}
        gate = asyncio.Semaphore(CONNECT_IN_FLIGHT)
        started = time.perf_counter()

        async def one(c: Client) -> None:
            async with gate:
                c.task = asyncio.ensure_future(c.run())
                await asyncio.wait_for(c.subscribed.wait(), 120)

        for game, spec in self.manifest["games"].items():
            for city, c in spec["cities"].items():
                for user in c["residents"]:
                    drawn, since = regions.get((game, city), ([], 0))
                    t.clients.append(Client(self, t, game, user, drawn, since))
        await asyncio.gather(*(one(c) for c in t.clients))
        if t.kind == "raw":
            for game in self.manifest["games"]:
                t.writers[game] = await self.ws_http.ws_connect(f"ws://127.0.0.1:{t.port}/post")
        return time.perf_counter() - started

    async def post(self, t: Target, game: str, city: str, author: str) -> None:
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
            async with self.http.post(
                    f"http://127.0.0.1:{port}/api/games/{game}/commands/PostMessage",
                    headers={"Authorization": f"Bearer {self.manifest['tokens'][author]}"},
                    json={"command_id": mid, "inbox": inbox, "text": text}) as resp:
                await resp.read()
                if resp.status != 200:
                    self.stats.refused += 1
                    return
            self.acks.setdefault(t.name, []).append((sent, time.perf_counter() - sent))
        except (TimeoutError, aiohttp.ClientError, OSError):
            self.stats.refused += 1

    async def window(self, t: Target, rep: int) -> dict[str, Any]:
        self.stats = Stats()
        args = self.args
        rng = random.Random(rep * 1000 + zlib.crc32(t.name.encode()) % 1000)
        pids = [w.proc.pid for w in t.workers if w.proc]
        pid = pids[0] if pids else 0
        cpu0, own0, wall0 = sum(cpu_seconds(p) for p in pids), time.process_time(), time.perf_counter()
        sched0 = [main_thread_sched(p) for p in pids]
        gc0 = await self.gc_pauses(t)
        posts: list[asyncio.Task[None]] = []
        profilers = self.profile(t, rep)

        async def stream(game: str) -> None:
            end = time.perf_counter() + args.window
            cities = self.manifest["games"][game]["cities"]
            while True:
                await asyncio.sleep(rng.expovariate(args.rate))
                if time.perf_counter() >= end:
                    return
                city = rng.choice(sorted(cities))
                author = rng.choice(cities[city]["residents"])
                posts.append(asyncio.ensure_future(self.post(t, game, city, author)))

        await asyncio.gather(*(stream(g) for g in self.manifest["games"]))
        offered = time.perf_counter() - wall0
        for prof in profilers:
            await asyncio.to_thread(prof.wait, 30)
        expected = {mid: 20 for mid, (_, name) in self.stats.sent.items() if name == t.name}
        drain_end = time.perf_counter() + args.drain
        while time.perf_counter() < drain_end:
            if all(len(self.stats.latencies.get(m, ())) >= n for m, n in expected.items()):
                break
            await asyncio.sleep(0.05)
        await asyncio.wait(posts, timeout=max(0.1, drain_end - time.perf_counter()))
        if self.background:  # the re-fetches this window caused, as far as the drain allows
            await asyncio.wait(list(self.background), timeout=max(0.1, drain_end - time.perf_counter()))
        wall = time.perf_counter() - wall0
        gc1 = await self.gc_pauses(t)
        sched = [main_thread_sched(p) for p in pids]
        loop_cpu = sum(a[0] - b[0] for a, b in zip(sched, sched0, strict=True)) / wall
        loop_queued = sum(a[1] - b[1] for a, b in zip(sched, sched0, strict=True)) / wall
        lat = [x for m in expected for x in self.stats.latencies.get(m, [])]
        refreshes = [x for start, x in self.refreshes.get(t.name, []) if start >= wall0]
        reads = [x for start, x in self.reads.get(t.name, []) if start >= wall0]
        acks = [x for start, x in self.acks.get(t.name, []) if start >= wall0]
        delivered = sum(min(n, len(self.stats.latencies.get(m, []))) for m, n in expected.items())
        clients = len(t.clients)
        return {
            "target": t.name, "kind": t.kind, "backend": args.current_backend,
            "games": len(self.manifest["games"]),
            "clients": clients, "rep": rep, "posts": len(expected), "offered_s": round(offered, 2),
            "p50_ms": round(pct(lat, 0.50) * 1000, 1), "p99_ms": round(pct(lat, 0.99) * 1000, 1),
            "ack_p99_ms": round(pct(acks, 0.99) * 1000, 1),
            "delivered": round(delivered / max(1, sum(expected.values())), 4),
            "refused": self.stats.refused,
            "refreshes_per_s": round(len(refreshes) / wall, 1),
            "refresh_p50_ms": round(pct(refreshes, 0.5) * 1000, 1),
            "refresh_p99_ms": round(pct(refreshes, 0.99) * 1000, 1),
            "reads_per_s": round(len(reads) / wall, 1),
            "read_p99_ms": round(pct(reads, 0.99) * 1000, 1),
            "live_js": args.live_js, "read_via": args.read_via,
            "refresh_errors": self.stats.refresh_errors, "reconnects": self.stats.reconnects,
            "server_cores": round((sum(cpu_seconds(p) for p in pids) - cpu0) / wall, 3) if pid else None,
            # per worker's event loop, summed: on a CPU, waiting for one, asleep (the rest)
            "loop_cpu": round(loop_cpu, 3) if pid else None,
            "loop_queued": round(loop_queued, 3) if pid else None,
            "loop_asleep": round(len(pids) - loop_cpu - loop_queued, 3) if pid else None,
            "loadgen_cores": round((time.process_time() - own0) / wall, 3),
            "rss_kb_per_client": round(sum(rss_kb(p) for p in pids) / max(1, clients), 1) if pid else None,
            "load1": round(os.getloadavg()[0], 2),
            # the garbage collector's pauses in the window (the server's /metrics), by generation
            **{f"gc{g}_{k}": round(gc1.get((g, k), 0) - gc0.get((g, k), 0), 3)
               for g in "012" for k in ("count", "seconds")},
            "gc_longest_bucket_s": longest_bucket(gc0, gc1),
        }

    async def gc_pauses(self, t: Target) -> dict[tuple[str, str], float]:
        """The project workers' ``lepromafia_gc_pause_seconds``, summed over workers:
        (generation, "count" | "seconds" | a bucket's upper bound) → value."""
        if t.kind == "raw":
            return {}
        found: dict[tuple[str, str], float] = {}
        async with aiohttp.ClientSession() as http:
            for w in t.workers:
                try:
                    async with http.get(f"http://127.0.0.1:{w.port}/metrics") as r:
                        text = await r.text()
                except (aiohttp.ClientError, OSError):
                    continue
                for m in GC_LINE.finditer(text):
                    kind, labels, value = m.group(1), m.group(2), float(m.group(3))
                    gen = re.search(r'generation="(\d)"', labels)
                    le = re.search(r'le="([^"]+)"', labels)
                    key = le.group(1) if kind == "bucket" and le else {"sum": "seconds"}.get(kind, kind)
                    if gen:
                        found[(gen.group(1), key)] = found.get((gen.group(1), key), 0) + value
        return found

    def profile(self, t: Target, rep: int) -> list[subprocess.Popen[bytes]]:
        """With LEPROMAFIA_BENCH_PYSPY=<py-spy binary>, sample each project worker through
        the offered window (collapsed stacks next to the run's logs)."""
        spy = os.environ.get("LEPROMAFIA_BENCH_PYSPY")
        if not spy or t.kind == "raw":
            return []
        return [subprocess.Popen(
            [spy, "record", "--pid", str(w.proc.pid), "--duration", str(int(self.args.window)),
             "--rate", "200", "--format", "raw", "--nonblocking",
             "-o", str(self.workdir / f"{w.name}-rep{rep}.pyspy.txt")],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL) for w in t.workers if w.proc]

    async def disconnect(self, t: Target) -> None:
        for c in t.clients:
            c.stopped = True
            if c.ws is not None:
                await c.ws.close()
            if c.task is not None:
                c.task.cancel()
        for ws in t.writers.values():
            await ws.close()
        await asyncio.gather(*(c.task for c in t.clients if c.task), return_exceptions=True)
        t.clients.clear()


async def one_configuration(args: argparse.Namespace, backend: str, games: int,
                            out: Any) -> list[dict[str, Any]]:
    args.current_backend = backend
    workdir = ROOT / "var" / "bench-load" / f"{backend}-{games}"
    shutil.rmtree(workdir, ignore_errors=True)
    workdir.mkdir(parents=True)
    if backend == "sqlite":
        db = DatabaseConfig(f"sqlite:///{workdir}/games.db")
    else:
        db = DatabaseConfig(PG_URL, f"bench_load_{games}_{os.getpid()}")
    t0 = time.perf_counter()
    manifest = await create_games(db, games)
    print(f"# {backend}, {games} games: set up in {time.perf_counter() - t0:.1f} s", flush=True)
    targets = [Target("project", "project", free_port(), db=db)]
    compare = {int(g) for g in args.compare_session_cache.split(",") if g}
    if games in compare and backend == "sqlite":  # a copy of the same games: neither writes the other's
        shutil.copy(workdir / "games.db", workdir / "before.db")
        before = DatabaseConfig(f"sqlite:///{workdir}/before.db")
        targets.insert(0, Target("no-session-cache", "project", free_port(), db=before, session_cache=0))
    if args.two_workers and backend == "postgresql":
        second = Target("project-2w:b", "project", free_port(), db=db)
        targets.append(Target("project-2w", "project", free_port(), db=db, others=[second]))
    if args.two_workers_routed:
        # Its own copy of the games: on one database the other target's posts would be
        # holes in these workers' streams (they are not on its Redis), each one re-fetched.
        if backend == "sqlite":
            shutil.copy(workdir / "games.db", workdir / "routed.db")
            routed_db = DatabaseConfig(f"sqlite:///{workdir}/routed.db")
        else:
            t1 = time.perf_counter()
            routed_db = await copy_schema(db, f"{db.schema}_routed")
            print(f"#   copied for the routed workers in {time.perf_counter() - t1:.1f} s", flush=True)
        # Its own Redis channels too (redis_bus names them after the database number).
        redis_url = f"{REDIS_URL.rsplit('/', 1)[0]}/{1 + os.getpid() % 15}"
        second = Target("project-2w-routed:b", "project", free_port(), db=routed_db, redis_url=redis_url)
        targets.append(Target("project-2w-routed", "project", free_port(), db=routed_db,
                              others=[second], routed=True, redis_url=redis_url))
    targets.append(Target("raw", "raw", free_port()))
    h = Harness(args, manifest, workdir)
    rows: list[dict[str, Any]] = []
    try:
        for t in targets:
            for worker in t.workers:
                await h.start(worker)
            took = await h.connect(t)
            if t.routed:
                split = [sum(t.port_for(0, g) == w.port for g in manifest["games"]) for w in t.workers]
                print(f"#   {t.name}: games per worker {split}", flush=True)
            print(f"#   {t.name}: {len(t.clients)} clients subscribed in {took:.1f} s "
                  f"(failures {h.stats.connect_failures})", flush=True)
        await asyncio.sleep(1)
        for rep in range(args.reps):
            for t in targets:
                if time.monotonic() > h.deadline:
                    print("# time limit reached", flush=True)
                    return rows
                row = await h.window(t, rep)
                rows.append(row)
                out.write(json.dumps(row, ensure_ascii=False) + "\n")
                out.flush()
                print("  " + " ".join(f"{k}={v}" for k, v in row.items()), flush=True)
    finally:
        for t in targets:
            await h.disconnect(t)
        for task in list(h.background):
            task.cancel()
        for t in targets:
            for worker in t.workers:
                h.stop(worker)
        await h.close()
        if backend == "postgresql":
            await drop_schemas([t.db for t in targets if t.db is not None])
    return rows


async def drop_schemas(configs: list[DatabaseConfig]) -> None:
    from sqlalchemy import text

    from lepromafia.store.database import create_engine

    engine = create_engine(DatabaseConfig(PG_URL))
    async with engine.begin() as conn:
        for c in {c.schema for c in configs if c.schema}:
            await conn.execute(text(f'DROP SCHEMA IF EXISTS "{c}" CASCADE'))
    await engine.dispose()


def summary(rows: list[dict[str, Any]]) -> str:
    """Markdown: min / median / max over the repetitions, each p99 as a ratio to the raw
    server's p99 in the same repetition."""
    def mmm(values: list[float], digits: int = 1) -> str:
        values = [v for v in values if v == v]
        if not values:
            return "–"
        return " / ".join(f"{v:.{digits}f}" for v in (min(values), statistics.median(values), max(values)))

    lines = ["| backend | games | clients | server | p50 ms | p99 ms | raw p99 ms | p99 ÷ raw "
             "| delivered in time | raw delivered | refreshes/s | read marks/s | server cores | load1 |",
             "|---|---:|---:|---|---|---|---|---|---|---|---|---|---|---|"]
    keys = sorted({(r["backend"], r["games"]) for r in rows}, key=lambda k: (k[0] != "sqlite", k[1]))
    for backend, games in keys:
        group = [r for r in rows if (r["backend"], r["games"]) == (backend, games)]
        raw = {r["rep"]: r for r in group if r["kind"] == "raw"}
        for name in dict.fromkeys(r["target"] for r in group if r["kind"] == "project"):
            mine = [r for r in group if r["target"] == name]
            ratios = [r["p99_ms"] / raw[r["rep"]]["p99_ms"] for r in mine
                      if r["rep"] in raw and raw[r["rep"]]["p99_ms"] > 0]
            def col(key: str, digits: int = 0, rows: list[dict[str, Any]] = mine) -> str:
                return mmm([r[key] for r in rows], digits)

            same_raw = [raw[r["rep"]] for r in mine if r["rep"] in raw]
            model = f" (live.js {mine[0]['live_js']})" if mine[0].get("live_js") else ""
            lines.append(
                f"| {backend} | {games} | {mine[0]['clients']} | {name}{model} | {col('p50_ms')} "
                f"| {col('p99_ms')} | {col('p99_ms', 0, same_raw)} | **{mmm(ratios)}** "
                f"| {col('delivered', 2)} | {col('delivered', 2, same_raw)} | {col('refreshes_per_s')} "
                f"| {mmm([r.get('reads_per_s', 0) for r in mine], 0)} "
                f"| {col('server_cores', 2)} | {col('load1', 1)} |")
    return "\n".join(lines)


def raise_open_files() -> int:
    """Soft RLIMIT_NOFILE up to the hard one (thousands of sockets); the servers inherit it."""
    _, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    return hard


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", default="1,5,10,25")
    parser.add_argument("--backends", default="sqlite,postgresql")
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--window", type=float, default=10.0, help="seconds of offered load per window")
    parser.add_argument("--drain", type=float, default=10.0, help="seconds to wait for late deliveries")
    parser.add_argument("--rate", type=float, default=2.0, help="chat messages per second per game")
    parser.add_argument("--compare-session-cache", default="",
                        help="game counts (e.g. 1,5) at which the project also runs with the "
                             "session cache off (before/after, SQLite)")
    parser.add_argument("--two-workers", action="store_true",
                        help="on PostgreSQL also run the project as two workers with Redis, clients "
                             "and posts spread over both with no routing by game")
    parser.add_argument("--two-workers-routed", action="store_true",
                        help="also run the project as two workers with Redis, each game's clients "
                             "and posts on one of them (nginx's hash $game), on its own copy of the "
                             "games (SQLite: a copy of the file; PostgreSQL: a copy of the schema) and its "
                             "own Redis channels")
    parser.add_argument("--live-js", choices=("push", "refetch"), default="push",
                        help="the client model: today's live.js (pushed messages, batched read "
                             "marker, coalesced re-fetches) or the one before (a re-fetch per event)")
    parser.add_argument("--read-every", type=float, default=READ_EVERY,
                        help="seconds between a client's batched read-marker reports (live.js: 5)")
    parser.add_argument("--read-via", choices=("ws", "http"), default="ws",
                        help="how a client reports its read marker: on its socket (live.js while "
                             "the socket is open) or by POST …/read (before session 6)")
    parser.add_argument("--max-minutes", type=float, default=60.0)
    parser.add_argument("--out", default=str(ROOT / "var" / "bench-load" / "results.jsonl"))
    parser.add_argument("--summarize", metavar="JSONL", help="only print the table of an earlier run")
    args = parser.parse_args()
    if args.summarize:
        with open(args.summarize, encoding="utf-8") as f:
            print(summary([json.loads(line) for line in f if line.strip()]))
        return
    print(f"# open files: {raise_open_files()} per process", flush=True)
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    rows: list[dict[str, Any]] = []
    started = time.monotonic()
    with open(args.out, "a", encoding="utf-8") as out:
        for games in (int(g) for g in args.games.split(",")):  # the time limit cuts the largest
            for backend in args.backends.split(","):
                if time.monotonic() > started + args.max_minutes * 60:
                    break
                rows += await one_configuration(args, backend, games, out)
    print()
    print(summary(rows))


if __name__ == "__main__":
    asyncio.run(main())
