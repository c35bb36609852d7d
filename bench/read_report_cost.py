"""Server CPU per read-marker report: ``POST …/read`` against a ``read`` frame on the
socket (issue 17), one server, interleaved blocks, the cost from the server's own CPU time
(/proc), which a machine busy with other work inflates far less than latency.

    python bench/read_report_cost.py [--games 1] [--blocks 6] [--settle 1.5]
                                     [--vias http,ws] [--per-socket 1]

Every resident of the games holds a subscribed socket. A block: one message is posted in
every city (before the count starts), every socket has received it (his new position);
then every resident reports that position at once — over HTTP (his session cookie, the
page's CSRF token) or on his socket — and the server is left ``--settle`` seconds for the
group commits. An ``idle`` block sends nothing for as long: its CPU (sweeper, keepalives)
is subtracted. The cost per report is (block CPU − idle CPU) / reports. ``--per-socket K``
sends K reports per socket in a ``ws`` block (one frame each, one write apart: the server
reads them one by one, as from K clients): /proc's 10 ms ticks over more reports resolve
a few microseconds per frame (the receive path, session 8).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import shutil
import statistics
import time
import uuid
from typing import Any

import aiohttp
from load import CSRF_COOKIE, ROOT, SESSION_COOKIE, Harness, Target, cpu_seconds, free_port
from load_setup import create_games

from lepromafia.store.database import DatabaseConfig


class Reader:
    def __init__(self, game: str, city: str, inbox: str, user: str, token: str) -> None:
        self.game, self.city, self.inbox, self.user, self.token = game, city, inbox, user, token
        self.position = 0
        self.ws: aiohttp.ClientWebSocketResponse | None = None
        self.moved = asyncio.Event()

    async def listen(self) -> None:
        assert self.ws is not None
        async for msg in self.ws:
            if msg.type != aiohttp.WSMsgType.TEXT:
                return
            data = json.loads(msg.data)
            if data.get("type") == "subscribed":
                self.position = int(data["version"])
            elif data.get("type") == "event":
                self.position = int(data["seq"])
                self.moved.set()
            elif data.get("type") == "error":
                print("error frame:", data, flush=True)


async def report(h: Harness, t: Target, r: Reader, via: str, per_socket: int = 1) -> None:
    if via == "ws":
        assert r.ws is not None
        frame = json.dumps({"type": "read", "game": r.game, "inbox": r.inbox, "upto": r.position})
        for n in range(per_socket):
            if n:
                await asyncio.sleep(0.005)
            await r.ws.send_str(frame)
        return
    cookie, token = h.csrf
    async with h.http.post(f"http://127.0.0.1:{t.port}/games/{r.game}/inboxes/{r.inbox}/read",
                           json={"upto": r.position}, headers={
                               "Cookie": f"{SESSION_COOKIE}={r.token}; {CSRF_COOKIE}={cookie}",
                               "X-CSRF-Token": token}) as resp:
        await resp.read()
        assert resp.status == 204, resp.status


async def block(h: Harness, t: Target, readers: list[Reader], via: str, settle: float,
                per_socket: int = 1) -> float:
    """Server CPU milliseconds of the block (``via`` "idle": no reports)."""
    assert t.proc is not None
    for r in readers:
        r.moved.clear()
    for game, spec in h.manifest["games"].items():
        for c in spec["cities"].values():
            author = h.manifest["tokens"][c["residents"][0]]
            async with h.http.post(f"http://127.0.0.1:{t.port}/api/games/{game}/commands/PostMessage",
                                   headers={"Authorization": f"Bearer {author}"},
                                   json={"command_id": uuid.uuid4().hex, "inbox": c["inbox"],
                                         "text": "сообщение для замера"}) as resp:
                await resp.read()
                assert resp.status == 200, resp.status
    await asyncio.wait_for(asyncio.gather(*(r.moved.wait() for r in readers)), 30)
    await asyncio.sleep(0.5)  # the deliveries' own work is done
    before = cpu_seconds(t.proc.pid)
    if via != "idle":
        await asyncio.gather(*(report(h, t, r, via, per_socket) for r in readers))
    await asyncio.sleep(settle)
    return (cpu_seconds(t.proc.pid) - before) * 1000


async def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--games", type=int, default=1)
    parser.add_argument("--blocks", type=int, default=6)
    parser.add_argument("--settle", type=float, default=1.5)
    parser.add_argument("--vias", default="http,ws", help="the blocks besides idle: http, ws")
    parser.add_argument("--per-socket", type=int, default=1, help="reports per socket per ws block")
    args = parser.parse_args()
    workdir = ROOT / "var" / "bench-load" / "read-cost"
    shutil.rmtree(workdir, ignore_errors=True)
    workdir.mkdir(parents=True)
    db = DatabaseConfig(f"sqlite:///{workdir}/games.db")
    manifest = await create_games(db, args.games)
    h = Harness(argparse.Namespace(max_minutes=30), manifest, workdir)
    t = Target("project", "project", free_port(), db=db)
    readers = [Reader(g, city, c["inbox"], u, manifest["tokens"][u])
               for g, spec in manifest["games"].items() for city, c in spec["cities"].items()
               for u in c["residents"]]
    results: dict[str, list[float]] = {}
    tasks: list[asyncio.Task[None]] = []
    try:
        await h.start(t)
        await h.regions_of(t)  # a page's CSRF token for the POSTs
        for r in readers:
            r.ws = await h.ws_http.ws_connect(f"ws://127.0.0.1:{t.port}/ws?lang=ru",
                                              headers={"Cookie": f"{SESSION_COOKIE}={r.token}"})
            await r.ws.send_str(json.dumps({"type": "subscribe", "game": r.game, "since_seq": 0}))
            tasks.append(asyncio.create_task(r.listen()))
        await asyncio.sleep(2)
        vias = args.vias.split(",")
        for via in vias:  # warm
            await block(h, t, readers, via, args.settle, args.per_socket)
        for _ in range(args.blocks):
            for via in ("idle", *vias):
                results.setdefault(via, []).append(
                    await block(h, t, readers, via, args.settle, args.per_socket))
    finally:
        for r in readers:
            if r.ws is not None:
                await r.ws.close()
        for task in tasks:
            task.cancel()
        h.stop(t)
        await h.close()
    n = len(readers)
    idle = results["idle"]
    per = {via: [(b - i) / (n * (args.per_socket if via == "ws" else 1))
                 for b, i in zip(results[via], idle, strict=True)] for via in vias}
    ratios = ([w / x for x, w in zip(per["http"], per["ws"], strict=True) if x > 0]
              if "http" in per and "ws" in per else [])

    def mmm(values: list[float], digits: int = 3) -> str:
        return " / ".join(f"{v:.{digits}f}" for v in (min(values), statistics.median(values), max(values)))

    print("| report | server CPU ms/report (min / median / max) |")
    print("|---|---|")
    if "http" in per:
        print(f"| POST …/read | {mmm(per['http'])} |")
    if "ws" in per:
        print(f"| read frame | {mmm(per['ws'], 4)} |")
    if ratios:
        print(f"| ws ÷ http | {mmm(ratios, 2)} |")
    with open("/proc/loadavg") as f:
        load = " ".join(f.read().split()[:3])
    print(f"{n} sockets, {args.per_socket} frame(s) per socket per ws block, {args.blocks} blocks "
          f"interleaved; idle block CPU {mmm(idle, 1)} ms subtracted; load average {load}")
    row: dict[str, Any] = {"results": results, "per_report": per, "ratios": ratios, "at": time.time()}
    (workdir / "results.json").write_text(json.dumps(row), encoding="utf-8")


if __name__ == "__main__":
    asyncio.run(main())
