"""Memory per connected client (issue 17: "≤ 50 KB per connected client"), the project's
server beside the raw ``websockets`` baseline in the same run, as a slope.

    python bench/capacity_memory.py [--games 50] [--steps 0,1000,5000] [--reps 3] [--rebuild] [--out FILE]

The store of ``capacity_restart.py`` (``--games`` games of 100 players at Day 4, cached in
``var/capacity/``). Per repetition and server: start it on a fresh copy, warm every game
(one socket per game subscribes and leaves, so each game is loaded before counting), let
it settle, read its RSS (``/proc/PID/status`` VmRSS) with 0 clients, then open idle
subscribed sockets up to each step (the players in turn across all games, so 5,000 is
every player of 50 games; more than the players: a second tab each) and read the RSS
again after 3 s of quiet. Reported: the slope (ΔRSS ÷ Δclients) between consecutive steps,
in KB per client, and the project ÷ raw ratio of the slopes. Not RSS ÷ clients: the
server's fixed cost (interpreter, games in memory) is no one client's.

Bounded: every wait has a timeout; only 127.0.0.1 is contacted.
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import aiohttp

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))

from capacity_games import CACHE, append_rows, cached, day_at, positions, working_copy  # noqa: E402
from reconnect import Server, raise_file_limit, subscribe_once  # noqa: E402

SETTLE = 3.0


async def steps_of(server: Server, manifest: dict[str, Any], steps: list[int],
                   since: dict[str, int]) -> dict[str, Any]:
    url = f"ws://127.0.0.1:{server.port}/ws"
    players = []
    per_game = {g: [u for c in spec["cities"].values() for u in c["residents"]]
                for g, spec in manifest["games"].items()}
    for i in range(max(len(v) for v in per_game.values())):
        players += [(g, users[i]) for g, users in per_game.items() if i < len(users)]
    sockets: list[aiohttp.ClientWebSocketResponse] = []
    http = aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=0))
    gate = asyncio.Semaphore(32)

    async def one(game: str, user: str) -> None:
        async with gate:
            target = url if server.kind == "project" else f"{url}?user={user}"
            _, ws = await subscribe_once(http, target, manifest["tokens"][user], game,
                                         since[f"{game}/{user}"])
            sockets.append(ws)

    try:
        # warm: every game loaded once, then nobody connected
        for game in per_game:
            await one(game, per_game[game][0])
        for ws in sockets:
            await ws.close()
        sockets.clear()
        rss: dict[int, int] = {}
        for step in steps:
            want = [players[i % len(players)] for i in range(len(sockets), step)]
            await asyncio.gather(*(one(g, u) for g, u in want))
            await asyncio.sleep(SETTLE)
            rss[step] = server.rss_kb()
        slopes = {f"{a}-{b}": round((rss[b] - rss[a]) / (b - a), 2) for a, b in itertools.pairwise(steps)}
        return {"rss_kb": rss, "slope_kb_per_client": slopes}
    finally:
        for ws in sockets:
            await ws.close()
        await http.close()


async def run(args: argparse.Namespace) -> list[dict[str, Any]]:
    db, manifest = await cached(f"restart-{args.games}x100", args.games, args.rebuild,
                                play_to=day_at(4, "12:05"), posts_per_city_hour=2.0)
    steps = [int(s) for s in args.steps.split(",")]
    name = f"restart-{args.games}x100"
    with tempfile.TemporaryDirectory(prefix="lm-memory-") as tmp:
        learner = Server("project", Path(tmp), manifest, working_copy(db, Path(tmp)))
        if not (CACHE / f"{name}.positions.json").exists():
            await learner.start()
        try:
            since = await positions(name, learner, manifest)
        finally:
            learner.stop()
    rows = []
    for rep in range(args.reps):
        with tempfile.TemporaryDirectory(prefix="lm-memory-") as tmp:
            workdir = Path(tmp)
            row: dict[str, Any] = {"rep": rep, "games": args.games, "steps": steps}
            for server in (Server("project", workdir, manifest, working_copy(db, workdir)),
                           Server("raw", workdir, manifest, None)):
                await server.start()
                try:
                    row[server.kind] = await steps_of(server, manifest, steps, since)
                finally:
                    server.stop()
            row["ratio"] = {k: round(v / row["raw"]["slope_kb_per_client"][k], 2)
                            if row["raw"]["slope_kb_per_client"][k] else None
                            for k, v in row["project"]["slope_kb_per_client"].items()}
            row["load1"] = round(os.getloadavg()[0], 2)
            rows.append(row)
            print(json.dumps(row), flush=True)
    return rows


def summary(rows: list[dict[str, Any]]) -> str:
    def mmm(values: list[float], digits: int = 1) -> str:
        return " / ".join(f"{v:.{digits}f}" for v in (min(values), statistics.median(values), max(values)))

    lines = ["| clients | project KB/client | raw KB/client | project ÷ raw |", "|---|---|---|---|"]
    for span in rows[0]["ratio"]:
        lines.append(f"| {span} | {mmm([r['project']['slope_kb_per_client'][span] for r in rows])} | "
                     f"{mmm([r['raw']['slope_kb_per_client'][span] for r in rows])} | "
                     f"**{mmm([r['ratio'][span] for r in rows if r['ratio'][span] is not None], 2)}** |")
    for kind in ("project", "raw"):
        lines.append(f"RSS {kind}, MB at " + ", ".join(
            f"{s}: {mmm([r[kind]['rss_kb'][s] / 1024 for r in rows], 0)}" for s in rows[0]["steps"]))
    lines.append(f"load1 {mmm([r['load1'] for r in rows])}")
    return "\n".join(lines)


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=50)
    parser.add_argument("--steps", default="0,1000,5000")
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--rebuild", action="store_true")
    parser.add_argument("--out", default=str(ROOT / "var" / "bench-capacity-memory.jsonl"))
    args = parser.parse_args()
    print(f"file limit {raise_file_limit()}; load {os.getloadavg()}", flush=True)
    t0 = time.monotonic()
    rows = await run(args)
    append_rows(args.out, rows)
    print(summary(rows))
    print(f"({time.monotonic() - t0:.0f} s)")


if __name__ == "__main__":
    asyncio.run(main())
