"""Slow and stalled WebSockets beside fast ones on one game (issue 16: "send without
awaiting one slow client before the next: bounded per-client buffers, drop and resync").

    python bench/slow_clients.py [--slow 500] [--window 30] [--rate 10] [--backlog 300]
                                 [--reps 2] [--out FILE]

One game of 100 players (``load_setup``) on SQLite, the project's server as ``lepromafia
serve`` runs it (``load_server.py``). Before the runs, ``--backlog`` posts per city fill
the city inboxes, so a socket that subscribes from 0 has a backlog larger than the
socket buffers (a stalled reader blocks the server's send at once). Each repetition runs
two windows on a fresh server each, in turn:

* **baseline**: the 100 players' fast sockets (aiohttp, reading at once), subscribed
  from 0, then ``--rate`` posts per second into the city inboxes for ``--window`` s;
* **slow**: the same, plus ``--slow`` raw sockets of the same players opened *first*,
  each subscribing from the player's position (``--from-zero``: from 0, the whole
  backlog to catch up) with a 4 KiB receive buffer: half never read a byte after the
  handshake (stalled), half read 256 bytes every 0.5 s (slow). The live posts overflow
  their bounded queues, so the server drops them from the game (``resync``).

In the slow window the fast sockets connect once one more socket, opened after the slow
ones, is subscribed (the admission gate serves in arrival order: the slow ones' subscribes
are then done; that time is reported too). Reported per window: the fast sockets' time to
``subscribed`` (p50, p99, how many made
it), the delivery latency of the window's posts to the fast sockets (post sent → frame
received; p50, p99, the share delivered), the server's RSS (max during the window), and
the ratios slow/baseline of the same repetition; the load average.

Bounded: every wait has a timeout, the windows end by themselves, only 127.0.0.1.
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import json
import os
import random
import shutil
import signal
import socket
import sys
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

import aiohttp

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))

from load_setup import create_games  # noqa: E402
from reconnect import Server, raise_file_limit  # noqa: E402

from lepromafia.store.database import DatabaseConfig  # noqa: E402

GAME = "load00"
SUBSCRIBE_TIMEOUT = 60.0
STORM_TIMEOUT = 300.0
DRAIN = 10.0


def pct(xs: list[float], q: float) -> float:
    if not xs:
        return float("nan")
    ys = sorted(xs)
    return ys[min(len(ys) - 1, int(len(ys) * q))]


def masked_text(payload: str) -> bytes:
    """One client frame (text, masked, as RFC 6455 requires of clients)."""
    data = payload.encode()
    mask = os.urandom(4)
    head = bytes([0x81])
    n = len(data)
    head += bytes([0x80 | n]) if n < 126 else bytes([0x80 | 126]) + n.to_bytes(2, "big")
    return head + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(data))


class Laggard:
    """A raw WebSocket that subscribes from 0 and then reads nothing (stalled) or a
    trickle (slow); its receive buffer is small, so the server's sends back up at once."""

    def __init__(self, port: int, token: str, stalled: bool, since: int) -> None:
        self.port, self.token, self.stalled, self.since = port, token, stalled, since
        self.sock: socket.socket | None = None
        self.task: asyncio.Task[None] | None = None

    async def open(self) -> None:
        loop = asyncio.get_running_loop()
        s = socket.socket()
        s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        s.setblocking(False)
        await loop.sock_connect(s, ("127.0.0.1", self.port))
        key = base64.b64encode(os.urandom(16)).decode()
        await loop.sock_sendall(s, (
            f"GET /ws HTTP/1.1\r\nHost: 127.0.0.1:{self.port}\r\nUpgrade: websocket\r\n"
            f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n"
            f"Authorization: Bearer {self.token}\r\n\r\n").encode())
        head = b""
        while b"\r\n\r\n" not in head:
            chunk = await asyncio.wait_for(loop.sock_recv(s, 1), 30)
            if not chunk:
                raise ConnectionError("closed during the handshake")
            head += chunk
        if b" 101 " not in head.split(b"\r\n", 1)[0]:
            raise ConnectionError(head[:80].decode(errors="replace"))
        await loop.sock_sendall(s, masked_text(json.dumps(
            {"type": "subscribe", "game": GAME, "since_seq": self.since})))
        self.sock = s
        if not self.stalled:
            self.task = asyncio.ensure_future(self.trickle())

    async def trickle(self) -> None:
        loop = asyncio.get_running_loop()
        assert self.sock is not None
        while True:
            await asyncio.sleep(0.5)
            try:
                if not await asyncio.wait_for(loop.sock_recv(self.sock, 256), 5):
                    return
            except (TimeoutError, OSError):
                continue

    def close(self) -> None:
        if self.task is not None:
            self.task.cancel()
        if self.sock is not None:
            self.sock.close()


class Fast:
    """A player's socket that reads at once and notes when each benchmark post arrives;
    it subscribes from his position (a reconnecting page), not from 0."""

    def __init__(self, run: Window, user: str, since: int) -> None:
        self.run, self.user, self.since = run, user, since
        self.task: asyncio.Task[None] | None = None
        self.subscribed = asyncio.Event()
        self.took: float | None = None

    async def go(self) -> None:
        url = f"ws://127.0.0.1:{self.run.server.port}/ws"
        began = time.perf_counter()
        try:
            ws = await self.run.http.ws_connect(
                url, headers={"Authorization": f"Bearer {self.run.manifest['tokens'][self.user]}"},
                max_msg_size=2**22)
        except (aiohttp.ClientError, OSError):
            self.subscribed.set()
            return
        await ws.send_str(json.dumps({"type": "subscribe", "game": GAME, "since_seq": self.since}))
        async for msg in ws:
            if msg.type != aiohttp.WSMsgType.TEXT:
                break
            data = json.loads(msg.data)
            if data["type"] == "subscribed":
                self.took = time.perf_counter() - began
                self.subscribed.set()
            elif data["type"] == "event":
                text = data["payload"].get("text", "")
                if text.startswith("sc:"):
                    mid = text.split()[0][3:]
                    if (self.user, mid) in self.run.seen:
                        self.run.duplicates += 1
                    elif mid in self.run.sent:
                        self.run.seen.add((self.user, mid))
                        self.run.latencies.append(time.perf_counter() - self.run.sent[mid])
                        self.run.delivered += 1
            elif data["type"] == "resync":
                self.run.resyncs += 1
        await ws.close()


class Window:
    def __init__(self, server: Server, manifest: dict[str, Any], http: aiohttp.ClientSession) -> None:
        self.server, self.manifest, self.http = server, manifest, http
        self.sent: dict[str, float] = {}
        self.latencies: list[float] = []
        self.delivered = 0
        self.duplicates = 0
        self.seen: set[tuple[str, str]] = set()
        self.resyncs = 0

    async def post(self, city: str, author: str) -> bool:
        mid = uuid.uuid4().hex[:12]
        inbox = self.manifest["games"][GAME]["cities"][city]["inbox"]
        self.sent[mid] = time.perf_counter()
        try:
            async with self.http.post(
                    f"http://127.0.0.1:{self.server.port}/api/games/{GAME}/commands/PostMessage",
                    headers={"Authorization": f"Bearer {self.manifest['tokens'][author]}"},
                    json={"command_id": mid, "inbox": inbox, "text": f"sc:{mid} пишу в город"},
                    timeout=aiohttp.ClientTimeout(total=30)) as resp:
                await resp.read()
                return resp.status == 200
        except (TimeoutError, aiohttp.ClientError, OSError):
            return False


async def fill(server: Server, manifest: dict[str, Any], per_city: int) -> None:
    """The backlog: ``per_city`` posts in every city inbox (16 at a time)."""
    async with aiohttp.ClientSession() as http:
        run = Window(server, manifest, http)
        gate = asyncio.Semaphore(16)
        rng = random.Random(1)

        async def one(city: str) -> None:
            async with gate:
                await run.post(city, rng.choice(manifest["games"][GAME]["cities"][city]["residents"]))

        await asyncio.gather(*(one(city) for city in manifest["games"][GAME]["cities"]
                               for _ in range(per_city)))
        run.sent.clear()


async def positions(server: Server, manifest: dict[str, Any]) -> dict[str, int]:
    """Each player's position after the backlog: the length of his ``GET …/events``."""
    found: dict[str, int] = {}
    async with aiohttp.ClientSession() as http:
        for c in manifest["games"][GAME]["cities"].values():
            for user in c["residents"]:
                since = 0
                while True:
                    async with http.get(
                            f"http://127.0.0.1:{server.port}/api/games/{GAME}/events",
                            params={"since": since, "limit": 5000},
                            headers={"Authorization": f"Bearer {manifest['tokens'][user]}"}) as resp:
                        items = await resp.json()
                    if not items:
                        break
                    since = items[-1]["seq"]
                found[user] = since
    return found


async def probe(server: Server, manifest: dict[str, Any], user: str, since: int) -> float:
    """Seconds until one more socket, opened after the slow ones, is ``subscribed``: the
    admission gate serves in arrival order, so by then every slow socket's subscribe has
    been read and its catch-up is on its way (the fast sockets are measured after that)."""
    began = time.perf_counter()
    async with aiohttp.ClientSession() as http, http.ws_connect(
            f"ws://127.0.0.1:{server.port}/ws",
            headers={"Authorization": f"Bearer {manifest['tokens'][user]}"}) as ws:
        await ws.send_str(json.dumps({"type": "subscribe", "game": GAME, "since_seq": since}))
        while True:
            msg = await ws.receive(timeout=STORM_TIMEOUT)
            if msg.type != aiohttp.WSMsgType.TEXT or json.loads(msg.data)["type"] == "subscribed":
                return time.perf_counter() - began


async def window(mode: str, server: Server, manifest: dict[str, Any], args: argparse.Namespace,
                 rep: int, since: dict[str, int]) -> dict[str, Any]:
    cities = manifest["games"][GAME]["cities"]
    players = [u for c in cities.values() for u in c["residents"]]
    laggards: list[Laggard] = []
    laggard_failures = 0
    storm: float | None = None
    if mode == "slow":
        for n in range(args.slow):
            user = players[n % len(players)]
            laggards.append(Laggard(server.port, manifest["tokens"][user], stalled=n % 2 == 0,
                                    since=0 if args.from_zero else since[user]))

        async def open_one(lag: Laggard) -> None:
            nonlocal laggard_failures
            try:
                await lag.open()
            except (OSError, TimeoutError, ConnectionError):
                laggard_failures += 1

        gate = asyncio.Semaphore(64)

        async def gated(lag: Laggard) -> None:
            async with gate:
                await open_one(lag)

        await asyncio.gather(*(gated(lag) for lag in laggards))
        storm = await probe(server, manifest, players[0], since[players[0]])
    http = aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=0))
    run = Window(server, manifest, http)
    fast = [Fast(run, u, since[u]) for u in players]
    for f in fast:
        f.task = asyncio.ensure_future(f.go())
    waits = [asyncio.ensure_future(f.subscribed.wait()) for f in fast]
    await asyncio.wait(waits, timeout=SUBSCRIBE_TIMEOUT)
    for w in waits:
        w.cancel()
    took = [f.took for f in fast if f.took is not None]
    rss_max = server.rss_kb()
    rng = random.Random(rep)
    end = time.perf_counter() + args.window
    posts: list[asyncio.Task[bool]] = []
    while time.perf_counter() < end:
        await asyncio.sleep(rng.expovariate(args.rate))
        city = rng.choice(sorted(cities))
        posts.append(asyncio.ensure_future(run.post(city, rng.choice(cities[city]["residents"]))))
        rss_max = max(rss_max, server.rss_kb())
    await asyncio.sleep(0.05)  # the last posts' tasks start and note their moment
    expected = len(run.sent) * 20
    drain_end = time.perf_counter() + DRAIN
    while time.perf_counter() < drain_end and run.delivered < expected:
        await asyncio.sleep(0.1)
        rss_max = max(rss_max, server.rss_kb())
    if posts:
        await asyncio.wait(posts, timeout=DRAIN)
    acked = sum(1 for p in posts if p.done() and not p.cancelled() and p.result())
    for f in fast:
        if f.task is not None:
            f.task.cancel()
    await http.close()
    for lag in laggards:
        lag.close()
    return {"mode": mode, "rep": rep, "fast": len(fast), "fast_subscribed": len(took),
            "subscribe_p50_s": round(pct(took, 0.5), 3), "subscribe_p99_s": round(pct(took, 0.99), 3),
            "slow": len(laggards) - laggard_failures, "slow_failed": laggard_failures,
            "slow_subscribes_done_s": None if storm is None else round(storm, 2),
            "posts": len(run.sent), "acked": acked,
            "delivered": round(run.delivered / max(1, expected), 4),
            "p50_ms": round(pct(run.latencies, 0.5) * 1000, 1),
            "p99_ms": round(pct(run.latencies, 0.99) * 1000, 1),
            "fast_resyncs": run.resyncs, "duplicates": run.duplicates, "rss_max_mb": round(rss_max / 1024, 1),
            **server.log_counts(), "load1": round(os.getloadavg()[0], 2)}


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--slow", type=int, default=500)
    parser.add_argument("--window", type=float, default=30.0)
    parser.add_argument("--rate", type=float, default=10.0, help="posts per second")
    parser.add_argument("--backlog", type=int, default=300, help="posts per city before the runs")
    parser.add_argument("--reps", type=int, default=2)
    parser.add_argument("--from-zero", action="store_true",
                        help="the slow sockets subscribe from 0 (each with the whole backlog to catch up)")
    parser.add_argument("--out", default=str(ROOT / "var" / "bench-slow-clients.jsonl"))
    args = parser.parse_args()
    print(f"file limit {raise_file_limit()}; load {os.getloadavg()}", flush=True)
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    workdir = Path(tempfile.mkdtemp(prefix="lm-slow-"))
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))  # stop the server on the way out
    server: Server | None = None
    try:
        db = DatabaseConfig(f"sqlite:///{workdir}/slow.db")
        manifest = await create_games(db, 1)
        server = Server("project", workdir, manifest, db)
        await server.start()
        await fill(server, manifest, args.backlog)
        since = await positions(server, manifest)
        server.stop()
        for rep in range(args.reps):
            rows = {}
            for mode in ("baseline", "slow"):
                await server.start()  # fresh for each window
                try:
                    rows[mode] = await window(mode, server, manifest, args, rep, since)
                finally:
                    server.stop()
                print(json.dumps(rows[mode]), flush=True)
            b, s = rows["baseline"], rows["slow"]
            summary = {"rep": rep, "p99_ratio": round(s["p99_ms"] / max(b["p99_ms"], 1e-3), 2),
                       "subscribe_p99_ratio": round(s["subscribe_p99_s"]
                                                    / max(b["subscribe_p99_s"], 1e-3), 2),
                       "rss_ratio": round(s["rss_max_mb"] / max(b["rss_max_mb"], 1e-3), 2),
                       "load1": round(os.getloadavg()[0], 2), "baseline": b, "slow": s}
            print(json.dumps({k: v for k, v in summary.items() if k not in ("baseline", "slow")}), flush=True)
            with out.open("a", encoding="utf-8") as f:
                f.write(json.dumps(summary) + "\n")
    finally:
        if server is not None:
            server.stop()
        shutil.rmtree(workdir, ignore_errors=True)


if __name__ == "__main__":
    asyncio.run(main())
