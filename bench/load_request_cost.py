"""Server CPU per request, before and after a change, in one run: two project servers on
copies of the same games (one with the change switched off), the same requests sent to
each in interleaved blocks, the cost read from each server's own CPU time (/proc), which
a machine busy with other work inflates far less than wall-clock latency.

    python bench/load_request_cost.py [--games 1] [--blocks 6] [--requests 200]

Measured here: the session cache (``LEPROMAFIA_SESSION_CACHE_SECONDS=0`` is "before").
Requests: what a live.js client sends per chat message it sees (its inbox region,
``GET /games/{g}/inboxes/{inbox}/part``) and a post (``PostMessage``), from every
resident in turn, one at a time (no queueing: the cost, not the latency).
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

from load import ROOT, SESSION_COOKIE, Harness, Target, cpu_seconds, free_port
from load_setup import create_games

from lepromafia.store.database import DatabaseConfig


async def block(h: Harness, t: Target, kind: str, n: int, users: list[tuple[str, str, str]]) -> float:
    """Server CPU milliseconds per request over ``n`` requests."""
    assert t.proc is not None
    before = cpu_seconds(t.proc.pid)
    for i in range(n):
        game, inbox, user = users[i % len(users)]
        token = h.manifest["tokens"][user]
        base = f"http://127.0.0.1:{t.port}"
        if kind == "region":
            async with h.http.get(f"{base}/games/{game}/inboxes/{inbox}/part",
                                  headers={"Cookie": f"{SESSION_COOKIE}={token}", "HX-Request": "true"}) as r:
                await r.read()
                assert r.status == 200, r.status
        else:
            async with h.http.post(f"{base}/api/games/{game}/commands/PostMessage",
                                   headers={"Authorization": f"Bearer {token}"},
                                   json={"command_id": uuid.uuid4().hex, "inbox": inbox,
                                         "text": "сообщение для замера"}) as r:
                await r.read()
                assert r.status == 200, r.status
    return (cpu_seconds(t.proc.pid) - before) * 1000 / n


async def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--games", type=int, default=1)
    parser.add_argument("--blocks", type=int, default=6)
    parser.add_argument("--requests", type=int, default=200)
    args = parser.parse_args()
    workdir = ROOT / "var" / "bench-load" / "request-cost"
    shutil.rmtree(workdir, ignore_errors=True)
    workdir.mkdir(parents=True)
    manifest = await create_games(DatabaseConfig(f"sqlite:///{workdir}/after.db"), args.games)
    shutil.copy(workdir / "after.db", workdir / "before.db")
    ns = argparse.Namespace(max_minutes=30)
    h = Harness(ns, manifest, workdir)
    targets = [Target("no-session-cache", "project", free_port(),
                      db=DatabaseConfig(f"sqlite:///{workdir}/before.db"), session_cache=0),
               Target("session-cache", "project", free_port(),
                      db=DatabaseConfig(f"sqlite:///{workdir}/after.db"))]
    users = [(g, c["inbox"], u) for g, spec in manifest["games"].items()
             for c in spec["cities"].values() for u in c["residents"]]
    results: dict[tuple[str, str], list[float]] = {}
    try:
        for t in targets:
            await h.start(t)
            await block(h, t, "region", 20, users)  # warm: games loaded, templates compiled
        for _ in range(args.blocks):
            for kind in ("region", "post"):
                for t in targets:
                    cost = await block(h, t, kind, args.requests, users)
                    results.setdefault((t.name, kind), []).append(cost)
    finally:
        for t in targets:
            h.stop(t)
        await h.close()
    rows: list[dict[str, Any]] = []
    print("| request | server CPU ms/request, cache off (min / median / max) | cache on | on ÷ off |")
    print("|---|---|---|---|")
    for kind in ("region", "post"):
        off, on = results[("no-session-cache", kind)], results[("session-cache", kind)]
        ratios = [b / a for a, b in zip(off, on, strict=True)]
        rows.append({"kind": kind, "off": off, "on": on, "ratios": ratios, "at": time.time()})
        print(f"| {kind} | {min(off):.2f} / {statistics.median(off):.2f} / {max(off):.2f} "
              f"| {min(on):.2f} / {statistics.median(on):.2f} / {max(on):.2f} "
              f"| {min(ratios):.2f} / {statistics.median(ratios):.2f} / {max(ratios):.2f} |")
    (workdir / "results.json").write_text(json.dumps(rows), encoding="utf-8")
    print(f"blocks of {args.requests} requests, interleaved; {len(users)} residents in turn")


if __name__ == "__main__":
    asyncio.run(main())
