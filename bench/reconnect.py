"""Reconnect storm after a restart: every player's socket comes back at once (issue 17).

    python bench/reconnect.py [--games 20] [--backends sqlite,postgresql] [--reps 3]
                              [--spread 0] [--per-player 1] [--out FILE]

For each backend: create ``--games`` games of 100 players (``load_setup``), learn each
player's position once (one ramped connection each), then per repetition start the
project's server *fresh* (a restart: no game in memory, no session cached) and the raw
``websockets`` baseline (``load_raw.py``), and open every player's socket to it at once
(``--spread 0``; or spread uniformly over that many seconds), each subscribing from his
position. A client that fails (refused, closed, an error frame, 90 s without
``subscribed``) retries as ``web/static/js/live.js`` does: after 0.5 s × (0.5–1.5) jitter,
doubling to 15 s. Reported: the time until every socket is subscribed, p50/p99 of
connect → ``subscribed`` per socket, failed attempts, the server's pool timeouts and
tracebacks in its log, and the ratios to raw in the same repetition; the machine's load.

Bounded: every wait has a timeout; only 127.0.0.1 is contacted.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import resource
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

import aiohttp

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))

from load_setup import create_games, server_command, until_listening  # noqa: E402

from lepromafia.store.database import DatabaseConfig  # noqa: E402

PG_URL = "postgresql://postgres@127.0.0.1:5432/test"
SUBSCRIBE_TIMEOUT = 90.0
"""live.js waits for ``subscribed`` as long as the socket is open; this only bounds the run."""
STORM_TIMEOUT = 180.0


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def raise_file_limit() -> int:
    _, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    return hard


class Server:
    def __init__(self, kind: str, workdir: Path, manifest: dict[str, Any], db: DatabaseConfig | None) -> None:
        self.kind, self.workdir, self.manifest, self.db = kind, workdir, manifest, db
        self.port = free_port()
        self.proc: subprocess.Popen[bytes] | None = None
        self.log = workdir / f"{kind}.log"

    async def start(self) -> None:
        cmd, env = server_command(self.kind, self.port, self.manifest, self.workdir, self.db, ROOT / "bench")
        if self.kind != "raw":
            env["LEPROMAFIA_LOG_LEVEL"] = "warning"
        self.proc = subprocess.Popen(cmd, stdout=self.log.open("wb"), stderr=subprocess.STDOUT, env=env)
        await until_listening(self.proc, self.port, self.kind, self.log)

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(20)
            except subprocess.TimeoutExpired:
                self.proc.kill()

    def rss_kb(self) -> int:
        assert self.proc is not None
        for line in Path(f"/proc/{self.proc.pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
        return 0

    def log_counts(self) -> dict[str, int]:
        text = self.log.read_text(errors="replace") if self.log.exists() else ""
        return {"pool_timeouts": text.count("QueuePool limit"), "tracebacks": text.count("Traceback")}


async def subscribe_once(http: aiohttp.ClientSession, url: str, token: str, game: str,
                         since: int) -> tuple[int, aiohttp.ClientWebSocketResponse]:
    ws = await http.ws_connect(url, headers={"Authorization": f"Bearer {token}"},
                               timeout=aiohttp.ClientWSTimeout(ws_close=10), max_msg_size=2**20)
    await ws.send_str(json.dumps({"type": "subscribe", "game": game, "since_seq": since}))
    end = time.monotonic() + SUBSCRIBE_TIMEOUT
    while True:
        msg = await ws.receive(timeout=max(0.1, end - time.monotonic()))
        if msg.type != aiohttp.WSMsgType.TEXT:
            await ws.close()
            raise ConnectionError(f"closed before subscribed: {msg.type}")
        data = json.loads(msg.data)
        if data["type"] == "subscribed":
            return int(data["version"]), ws
        if data["type"] in ("error", "resync"):
            await ws.close()
            raise ConnectionError(data["type"])


async def positions(server: Server, manifest: dict[str, Any], http: aiohttp.ClientSession) -> dict[str, int]:
    """Each player's position now (one ramped connection each, 64 at a time)."""
    url = f"ws://127.0.0.1:{server.port}/ws"
    found: dict[str, int] = {}
    gate = asyncio.Semaphore(64)

    async def one(game: str, user: str) -> None:
        async with gate:
            version, ws = await subscribe_once(http, url, manifest["tokens"][user], game, 0)
            found[f"{game}/{user}"] = version
            await ws.close()

    await asyncio.gather(*(one(g, u) for g, spec in manifest["games"].items()
                           for c in spec["cities"].values() for u in c["residents"]))
    return found


async def storm(server: Server, manifest: dict[str, Any], since: dict[str, int],
                spread: float, per_player: int = 1) -> dict[str, Any]:
    """Every player's socket at once (or spread over ``spread`` s); live.js's retries."""
    url = f"ws://127.0.0.1:{server.port}/ws"
    http = aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=0, force_close=True))
    took: list[float] = []
    failures = 0
    sockets: list[aiohttp.ClientWebSocketResponse] = []
    started = time.monotonic()

    async def client(game: str, user: str) -> None:
        nonlocal failures
        await asyncio.sleep(random.uniform(0, spread))
        begin, delay = time.monotonic(), 0.5
        target = url if server.kind == "project" else f"{url}?user={user}"
        while time.monotonic() - started < STORM_TIMEOUT:
            try:
                _, ws = await subscribe_once(http, target, manifest["tokens"][user], game,
                                             since[f"{game}/{user}"])
                took.append(time.monotonic() - begin)
                sockets.append(ws)
                return
            except (TimeoutError, aiohttp.ClientError, OSError, ConnectionError):
                failures += 1
                await asyncio.sleep(delay * (0.5 + random.random()))
                delay = min(delay * 2, 15.0)

    players = [(g, u) for g, spec in manifest["games"].items() for c in spec["cities"].values()
               for u in c["residents"]] * per_player
    await asyncio.gather(*(client(g, u) for g, u in players))
    all_in = time.monotonic() - started
    rss = server.rss_kb()
    for ws in sockets:
        await ws.close()
    await http.close()
    took.sort()
    return {"server": server.kind, "sockets": len(players), "subscribed": len(took),
            "all_subscribed_s": round(all_in, 3),
            "p50_s": round(statistics.median(took), 3) if took else None,
            "p99_s": round(took[min(len(took) - 1, int(len(took) * 0.99))], 3) if took else None,
            "failed_attempts": failures, "rss_kb_per_socket": round(rss / max(1, len(took)), 1),
            **server.log_counts()}


async def run_backend(backend: str, args: argparse.Namespace, out: Path, workdir: Path) -> None:
    if backend == "sqlite":
        db = DatabaseConfig(f"sqlite:///{workdir}/reconnect.db")
    else:
        db = DatabaseConfig(PG_URL, f"bench_reconnect_{uuid.uuid4().hex[:8]}")
    t0 = time.monotonic()
    manifest = await create_games(db, args.games)
    print(f"{backend}: {args.games} games set up in {time.monotonic() - t0:.0f} s", flush=True)
    project = Server("project", workdir, manifest, db)
    raw = Server("raw", workdir, manifest, None)
    await project.start()
    async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=0)) as http:
        since = await positions(project, manifest, http)
    project.stop()
    for rep in range(args.reps):
        row: dict[str, Any] = {"backend": backend, "games": args.games, "rep": rep, "spread_s": args.spread}
        for server in (project, raw):
            await server.start()  # fresh: a restart
            result = await storm(server, manifest, since, args.spread, args.per_player)
            server.stop()
            row[server.kind] = result
        p, r = row["project"], row["raw"]
        row["all_subscribed_ratio"] = round(p["all_subscribed_s"] / max(r["all_subscribed_s"], 1e-3), 2)
        row["p99_ratio"] = round((p["p99_s"] or 0) / max(r["p99_s"] or 1e-3, 1e-3), 2)
        row["load1"] = round(os.getloadavg()[0], 2)
        print(json.dumps(row), flush=True)
        with out.open("a", encoding="utf-8") as f:
            f.write(json.dumps(row) + "\n")
    if db.schema:
        from sqlalchemy import text

        from lepromafia.store.database import create_engine

        engine = create_engine(DatabaseConfig(db.url))
        async with engine.begin() as conn:
            await conn.execute(text(f'DROP SCHEMA IF EXISTS "{db.schema}" CASCADE'))
        await engine.dispose()


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=20)
    parser.add_argument("--backends", default="sqlite")
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--spread", type=float, default=0.0)
    parser.add_argument("--per-player", type=int, default=1,
                        help="sockets per player (browser tabs): sockets = games × 100 × this")
    parser.add_argument("--out", default=str(ROOT / "var" / "bench-reconnect.jsonl"))
    args = parser.parse_args()
    print(f"file limit {raise_file_limit()}; load {os.getloadavg()}", flush=True)
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    workdir = Path(tempfile.mkdtemp(prefix="lm-reconnect-"))
    try:
        for backend in args.backends.split(","):
            await run_backend(backend, args, out, workdir)
    finally:
        shutil.rmtree(workdir, ignore_errors=True)


if __name__ == "__main__":
    asyncio.run(main())
