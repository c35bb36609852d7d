"""A restart with 50 games in progress (issue 17: "ready in under 5 s"), beside baselines
measured in the same run.

    python bench/capacity_restart.py [--games 50] [--reps 3] [--per-player 1] [--rebuild] [--out FILE]

``--games`` games of 100 players (``capacity_games``) played to Day 4, 12:05 (every
resident alive, the cities chatting 2 messages per city per open hour; cached in
``var/capacity/``). Each repetition starts the project's server on a fresh copy of that
store (nothing in memory: a restart) and measures, from the moment the process is spawned:

- **listening**: the first TCP connection accepted;
- **ready**: the first ``/readyz`` answering 200 (polled every 20 ms);
- **every game answers**: a first page of every game (the city inbox page of one of its
  residents, all games at once) has answered 200;
- **storm**: then every player's socket (``--per-player`` each: 5,000 for 50 games) comes
  back at once, subscribing from his position, retrying like ``live.js`` (``reconnect.py``'s
  storm): the time until all are subscribed.

Baselines in the same repetition: the project's server on an *empty* migrated store (ready
there is the server's fixed start-up cost), and the raw ``websockets`` server
(``load_raw.py``: listening, and the same storm).

Bounded: every wait has a timeout; only 127.0.0.1 is contacted.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import aiohttp

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))

from capacity_games import CACHE, append_rows, cached, day_at, positions, working_copy  # noqa: E402
from load_setup import server_command  # noqa: E402
from reconnect import Server, raise_file_limit, storm  # noqa: E402

from lepromafia.store.database import DatabaseConfig  # noqa: E402
from lepromafia.store.migrate import upgrade  # noqa: E402

START_TIMEOUT = 120.0


async def timed_start(server: Server) -> dict[str, float]:
    """Spawn the server; seconds until it listens and (project) until ``/readyz`` is 200."""
    cmd, env = server_command(server.kind, server.port, server.manifest, server.workdir, server.db,
                              ROOT / "bench")
    if server.kind != "raw":
        env["LEPROMAFIA_LOG_LEVEL"] = "warning"
    spawned = time.perf_counter()
    server.proc = subprocess.Popen(cmd, stdout=server.log.open("wb"), stderr=subprocess.STDOUT, env=env)
    found: dict[str, float] = {}
    async with aiohttp.ClientSession() as http:
        while time.perf_counter() - spawned < START_TIMEOUT:
            if server.proc.poll() is not None:
                raise SystemExit(f"{server.kind} exited; see {server.log}")
            if "listening_s" not in found:
                try:
                    _, w = await asyncio.open_connection("127.0.0.1", server.port)
                    w.close()
                    found["listening_s"] = round(time.perf_counter() - spawned, 3)
                except OSError:
                    await asyncio.sleep(0.02)
                    continue
            if server.kind == "raw":
                return found
            try:
                async with http.get(f"http://127.0.0.1:{server.port}/readyz") as resp:
                    await resp.read()
                    if resp.status == 200:
                        found["ready_s"] = round(time.perf_counter() - spawned, 3)
                        found["spawned"] = spawned
                        return found
            except aiohttp.ClientError:
                pass
            await asyncio.sleep(0.02)
    raise SystemExit(f"{server.kind} not ready in {START_TIMEOUT} s")


async def every_game(server: Server, manifest: dict[str, Any], spawned: float) -> dict[str, float]:
    """A first page of every game, all at once: seconds since spawn until all answered."""
    async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=0)) as http:
        async def one(game: str, spec: dict[str, Any]) -> float:
            city = sorted(spec["cities"])[0]
            c = spec["cities"][city]
            user = c["residents"][0]
            started = time.perf_counter()
            async with http.get(f"http://127.0.0.1:{server.port}/games/{game}/inboxes/{c['inbox']}",
                                headers={"Authorization": f"Bearer {manifest['tokens'][user]}"},
                                timeout=aiohttp.ClientTimeout(total=START_TIMEOUT)) as resp:
                await resp.read()
                assert resp.status == 200, (game, resp.status)
            return time.perf_counter() - started

        took = await asyncio.gather(*(one(g, s) for g, s in manifest["games"].items()))
    ordered = sorted(took)
    return {"all_games_s": round(time.perf_counter() - spawned, 3),
            "page_p50_s": round(statistics.median(ordered), 3),
            "page_max_s": round(ordered[-1], 3)}


async def run(args: argparse.Namespace) -> list[dict[str, Any]]:
    db, manifest = await cached(f"restart-{args.games}x100", args.games, args.rebuild,
                                play_to=day_at(4, "12:05"), posts_per_city_hour=2.0)
    name = f"restart-{args.games}x100"
    with tempfile.TemporaryDirectory(prefix="lm-restart-") as tmp:
        learner = Server("project", Path(tmp), manifest, working_copy(db, Path(tmp)))
        if not (CACHE / f"{name}.positions.json").exists():
            await learner.start()
        try:
            since = await positions(name, learner, manifest)
        finally:
            learner.stop()
    days = sorted({spec["day"] for spec in manifest["games"].values()})
    events = sum(int(spec["version"]) for spec in manifest["games"].values())
    rows = []
    for rep in range(args.reps):
        with tempfile.TemporaryDirectory(prefix="lm-restart-") as tmp:
            workdir = Path(tmp)
            empty_db = DatabaseConfig(f"sqlite:///{workdir}/empty.db")
            await upgrade(empty_db)
            row: dict[str, Any] = {"rep": rep, "games": args.games, "days": days, "events": events}
            empty = Server("project", workdir, {"now": manifest["now"], "games": {}, "tokens": {}}, empty_db)
            empty.log = workdir / "empty.log"
            row["empty"] = await timed_start(empty)
            row["empty"].pop("spawned", None)
            empty.stop()

            project = Server("project", workdir, manifest, working_copy(db, workdir))
            started = await timed_start(project)
            spawned = started.pop("spawned")
            row["project"] = {**started, **await every_game(project, manifest, spawned)}
            result = await storm(project, manifest, since, 0.0, args.per_player)
            row["project"]["storm"] = result
            row["project"]["restored_s"] = round(time.perf_counter() - spawned, 3)
            project.stop()

            raw = Server("raw", workdir, manifest, None)
            started_raw = time.perf_counter()
            row["raw"] = await timed_start(raw)
            row["raw"]["storm"] = await storm(raw, manifest, since, 0.0, args.per_player)
            row["raw"]["restored_s"] = round(time.perf_counter() - started_raw, 3)
            raw.stop()
            p, r = row["project"], row["raw"]
            row["ratios"] = {
                "ready_vs_empty": round(p["ready_s"] / row["empty"]["ready_s"], 2),
                "ready_vs_raw_listening": round(p["ready_s"] / r["listening_s"], 2),
                "storm_vs_raw": round(p["storm"]["all_subscribed_s"]
                                      / max(1e-3, r["storm"]["all_subscribed_s"]), 2),
                "restored_vs_raw": round(p["restored_s"] / r["restored_s"], 2),
            }
            row["load1"] = round(os.getloadavg()[0], 2)
            rows.append(row)
            print(json.dumps(row), flush=True)
    return rows


def summary(rows: list[dict[str, Any]]) -> str:
    def mmm(values: list[float], digits: int = 2) -> str:
        return " / ".join(f"{v:.{digits}f}" for v in (min(values), statistics.median(values), max(values)))

    def col(path: str) -> str:
        values = []
        for r in rows:
            v: Any = r
            for part in path.split("."):
                v = v[part]
            values.append(float(v))
        return mmm(values)

    sockets = rows[0]["project"]["storm"]["sockets"]
    return "\n".join([
        f"{rows[0]['games']} games at Day {rows[0]['days']}, {rows[0]['events']} events; {sockets} sockets",
        "| measure | project | baseline | ratio |", "|---|---|---|---|",
        f"| listening, s | {col('project.listening_s')} | raw {col('raw.listening_s')} | |",
        f"| ready (`/readyz` 200), s | {col('project.ready_s')} | empty store {col('empty.ready_s')} "
        f"| **{col('ratios.ready_vs_empty')}** × empty |",
        f"| every game's first page answered, s | {col('project.all_games_s')} | | |",
        f"| storm: all {sockets} subscribed, s | {col('project.storm.all_subscribed_s')} "
        f"| raw {col('raw.storm.all_subscribed_s')} | **{col('ratios.storm_vs_raw')}** |",
        f"| storm failed attempts | {col('project.storm.failed_attempts')} "
        f"| raw {col('raw.storm.failed_attempts')} | |",
        f"| spawn → every socket back, s | {col('project.restored_s')} | raw {col('raw.restored_s')} "
        f"| **{col('ratios.restored_vs_raw')}** |",
        f"load1 {mmm([r['load1'] for r in rows], 1)}",
    ])


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=50)
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--per-player", type=int, default=1)
    parser.add_argument("--rebuild", action="store_true")
    parser.add_argument("--out", default=str(ROOT / "var" / "bench-capacity-restart.jsonl"))
    args = parser.parse_args()
    print(f"file limit {raise_file_limit()}; load {os.getloadavg()}", flush=True)
    t0 = time.monotonic()
    rows = await run(args)
    append_rows(args.out, rows)
    print(summary(rows))
    print(f"({time.monotonic() - t0:.0f} s)")


if __name__ == "__main__":
    asyncio.run(main())
