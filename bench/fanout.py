"""The fan-out, from a committed event to every socket, beside the raw baseline (issue 17).

The performance review's P2 method (2026-12-01): 10 games of 100 players on SQLite, one
process, 1,000 bare subscribed sockets (one per resident, on his city; no pages, no read
markers), the raw ``websockets`` server (``bench/load_raw.py``) in the same run. Two tests
per repetition, each server in turn:

- **rate**: a Poisson stream of ``--rate`` chat messages/s per game (20 msg/s to 1,000
  clients, 20 deliveries each), post → delivery p50/p99 at every member's socket;
- **saturate**: ``--writers`` closed-loop writers per game (post, await the ack, post
  again) for the window: deliveries/s and deliveries per server CPU-second (from /proc).

Servers: ``project`` (this tree) and, with ``--before COMMIT``, the project at that commit
(``git archive`` of its ``src`` and ``bench``), each on its own copy of the games; ``raw``.
Every wait is bounded, traffic stays on 127.0.0.1, the run is capped by ``--max-minutes``.
Per-client memory: server RSS before and after connecting the clients.

    python bench/fanout.py [--reps 3] [--window 10] [--before main]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shutil
import statistics
import subprocess
import sys
import time
import uuid
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))

from load import (  # noqa: E402
    READ_EVERY,
    Client,
    Harness,
    Target,
    cpu_seconds,
    free_port,
    pct,
    rss_kb,
)
from load_setup import create_games, server_command, until_listening  # noqa: E402

from lepromafia.store.database import DatabaseConfig  # noqa: E402

MEMBERS = 20
"""Deliveries per chat message: the city's residents."""


class FanoutHarness(Harness):
    """``load.Harness`` with bare sockets (no regions: no re-fetch, no read marker) and
    servers started from a given tree."""

    trees: dict[str, Path]

    async def start(self, t: Target) -> None:
        log = open(self.workdir / f"{t.name}.log", "wb")  # noqa: SIM115 - closed with the process
        cmd, env = server_command(t.kind, t.port, self.manifest, self.workdir, t.db, self.trees[t.name])
        if t.kind != "raw":
            env["LEPROMAFIA_SWEEP_INTERVAL"] = "1"
        t.proc = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT, env=env)
        await until_listening(t.proc, t.port, t.name, self.workdir / f"{t.name}.log", every=0.5)

    async def connect(self, t: Target) -> float:
        positions = await self.regions_of(t) if t.kind == "project" else {}
        gate = asyncio.Semaphore(32)
        started = time.perf_counter()

        async def one(c: Client) -> None:
            async with gate:
                c.task = asyncio.ensure_future(c.run())
                await asyncio.wait_for(c.subscribed.wait(), 120)

        for game, spec in self.manifest["games"].items():
            for city, c in spec["cities"].items():
                since = positions.get((game, city), ([], 0))[1]
                for user in c["residents"]:
                    t.clients.append(Client(self, t, game, user, [], since))
        await asyncio.gather(*(one(c) for c in t.clients))
        return time.perf_counter() - started

    async def raw_writer(self, t: Target, game: str, city: str, author: str, ws: Any) -> None:
        mid = uuid.uuid4().hex[:12]
        self.stats.sent[mid] = (time.perf_counter(), t.name)
        await ws.send_str(json.dumps({"game": game, "city": city, "author": author,
                                      "text": f"lg:{mid} сообщение в городской чат", "id": mid}))
        await asyncio.wait_for(ws.receive(), 30)  # the ack: closed loop

    def arrived(self) -> int:
        return sum(len(v) for v in self.stats.latencies.values())

    async def drained(self, t: Target, seconds: float) -> None:
        end = time.perf_counter() + seconds
        while time.perf_counter() < end:
            sent = [m for m, (_, name) in self.stats.sent.items() if name == t.name]
            if all(len(self.stats.latencies.get(m, ())) >= MEMBERS for m in sent):
                return
            await asyncio.sleep(0.05)

    async def rate(self, t: Target, rep: int) -> dict[str, Any]:
        pid = t.proc.pid if t.proc else 0
        cpu0, wall0 = cpu_seconds(pid), time.perf_counter()
        row = await self.window(t, rep)
        cpu, wall = cpu_seconds(pid) - cpu0, time.perf_counter() - wall0
        n = self.arrived()
        return {"test": "rate", "target": t.name, "rep": rep,
                "p50_ms": row["p50_ms"], "p99_ms": row["p99_ms"],
                "delivered": row["delivered"], "deliveries_per_s": round(n / wall, 1),
                "per_cpu_s": round(n / cpu, 1) if cpu > 0 else None, "server_cores": round(cpu / wall, 3),
                "load1": round(os.getloadavg()[0], 2)}

    async def saturate(self, t: Target, rep: int) -> dict[str, Any]:
        from load import Stats

        self.stats = Stats()
        args = self.args
        pid = t.proc.pid if t.proc else 0
        sockets: list[Any] = []
        loops = []
        end = time.perf_counter() + args.window
        for game, spec in self.manifest["games"].items():
            cities = sorted(spec["cities"])
            for w in range(args.writers):
                city = cities[w % len(cities)]
                author = spec["cities"][city]["residents"][w % MEMBERS]
                ws = None
                if t.kind == "raw":
                    ws = await self.ws_http.ws_connect(f"ws://127.0.0.1:{t.port}/post")
                    sockets.append(ws)
                loops.append(self._writer(t, game, city, author, ws, end))
        cpu0, wall0 = cpu_seconds(pid), time.perf_counter()
        spies = self.profile_server(t, f"saturate-rep{rep}")
        await asyncio.wait_for(asyncio.gather(*loops), args.window + 35)
        for spy in spies:
            spy.wait(30)
        cpu, wall = cpu_seconds(pid) - cpu0, time.perf_counter() - wall0
        n = self.arrived()
        lat = [x for v in self.stats.latencies.values() for x in v]
        await self.drained(t, args.drain)  # the backlog leaves before the next server's window
        for ws in sockets:
            await ws.close()
        return {"test": "saturate", "target": t.name, "rep": rep, "posts": len(self.stats.sent),
                "deliveries_per_s": round(n / wall, 1), "per_cpu_s": round(n / cpu, 1) if cpu > 0 else None,
                "p50_ms": round(pct(lat, 0.5) * 1000, 1), "p99_ms": round(pct(lat, 0.99) * 1000, 1),
                "server_cores": round(cpu / wall, 3), "refused": self.stats.refused,
                "load1": round(os.getloadavg()[0], 2)}

    def profile_server(self, t: Target, label: str) -> list[subprocess.Popen[bytes]]:
        """With LEPROMAFIA_BENCH_PYSPY=<py-spy binary>, sample the project's server through
        the window (raw collapsed stacks in the run's directory)."""
        spy = os.environ.get("LEPROMAFIA_BENCH_PYSPY")
        if not spy or t.kind == "raw" or t.proc is None:
            return []
        return [subprocess.Popen(
            [spy, "record", "--pid", str(t.proc.pid), "--duration", str(int(self.args.window)),
             "--rate", "200", "--format", "raw", "--nonblocking",
             "-o", str(self.workdir / f"{t.name}-{label}.pyspy.txt")],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)]

    async def _writer(self, t: Target, game: str, city: str, author: str, ws: Any, end: float) -> None:
        while time.perf_counter() < end:
            if ws is not None:
                await self.raw_writer(t, game, city, author, ws)
            else:
                await self.post(t, game, city, author)


def mmm(values: list[float], digits: int = 2) -> str:
    values = [v for v in values if v is not None]
    if not values:
        return "–"
    return " / ".join(f"{v:,.{digits}f}" for v in (min(values), statistics.median(values), max(values)))


def summary(rows: list[dict[str, Any]], memory: dict[str, float]) -> str:
    """min / median / max over the repetitions; every ratio per repetition against raw."""
    lines = ["| test | server | deliveries/s | ÷ raw | p50 ms | p99 ms | p99 ÷ raw "
             "| deliveries per server CPU-s | ÷ raw | server cores | load1 |",
             "|---|---|---|---|---|---|---|---|---|---|---|"]
    for test in ("rate", "saturate"):
        raw = {r["rep"]: r for r in rows if r["test"] == test and r["target"] == "raw"}
        for name in dict.fromkeys(r["target"] for r in rows if r["test"] == test):
            mine = [r for r in rows if r["test"] == test and r["target"] == name]

            def ratio(key: str, rs: list[dict[str, Any]] = mine,
                      base: dict[int, dict[str, Any]] = raw) -> str:
                return mmm([r[key] / base[r["rep"]][key] for r in rs
                            if r["rep"] in base and r[key] and base[r["rep"]][key]])

            def col(key: str, digits: int = 0, rs: list[dict[str, Any]] = mine) -> str:
                return mmm([r[key] for r in rs], digits)

            lines.append(f"| {test} | {name} | {col('deliveries_per_s')} | **{ratio('deliveries_per_s')}** "
                         f"| {col('p50_ms', 1)} | {col('p99_ms', 1)} | **{ratio('p99_ms')}** "
                         f"| {col('per_cpu_s')} | **{ratio('per_cpu_s')}** | {col('server_cores')} "
                         f"| {col('load1', 1)} |")
    lines.append("")
    lines.append("| server | KB per connected client (RSS after − before connecting) | ÷ raw |")
    lines.append("|---|---|---|")
    for name, kb in memory.items():
        versus = f"{kb / memory['raw']:.2f}" if memory.get("raw") else ""
        lines.append(f"| {name} | {kb:.1f} | {versus} |")
    return "\n".join(lines)


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=10)
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--window", type=float, default=10.0)
    parser.add_argument("--drain", type=float, default=10.0)
    parser.add_argument("--rate", type=float, default=2.0, help="chat messages/s per game in the rate test")
    parser.add_argument("--writers", type=int, default=4, help="closed-loop writers per game (saturate)")
    parser.add_argument("--before", default="", help="also run the project at this commit (e.g. main)")
    parser.add_argument("--tests", default="rate,saturate")
    parser.add_argument("--max-minutes", type=float, default=20.0)
    parser.add_argument("--out", default=str(ROOT / "var" / "bench-fanout" / "results.jsonl"))
    args = parser.parse_args()
    args.live_js, args.read_every, args.current_backend = "push", READ_EVERY, "sqlite"
    args.read_via = "ws"  # load.Harness reads it (bare sockets send no report)
    workdir = ROOT / "var" / "bench-fanout" / "run"
    shutil.rmtree(workdir, ignore_errors=True)
    workdir.mkdir(parents=True)
    db = DatabaseConfig(f"sqlite:///{workdir}/games.db")
    t0 = time.perf_counter()
    manifest = await create_games(db, args.games)
    print(f"# {args.games} games set up in {time.perf_counter() - t0:.1f} s", flush=True)
    trees = {"project": ROOT / "bench", "raw": ROOT / "bench"}
    targets = []
    if args.before:
        base = workdir / "before-tree"
        base.mkdir()
        archive = subprocess.run(["git", "-C", str(ROOT), "archive", args.before, "src", "bench"],
                                 check=True, capture_output=True).stdout
        subprocess.run(["tar", "-x", "-C", str(base)], input=archive, check=True)
        shutil.copy(workdir / "games.db", workdir / "before.db")
        before = DatabaseConfig(f"sqlite:///{workdir}/before.db")
        targets.append(Target("before", "project", free_port(), db=before))
        trees["before"] = base / "bench"
    targets += [Target("project", "project", free_port(), db=db), Target("raw", "raw", free_port())]
    h = FanoutHarness(args, manifest, workdir)
    h.trees = trees
    h.deadline = time.monotonic() + args.max_minutes * 60
    rows: list[dict[str, Any]] = []
    memory: dict[str, float] = {}
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    try:
        for t in targets:
            await h.start(t)
            await asyncio.sleep(2)
            idle = rss_kb(t.proc.pid) if t.proc else 0
            took = await h.connect(t)
            if t.kind == "raw":
                for game in manifest["games"]:
                    t.writers[game] = await h.ws_http.ws_connect(f"ws://127.0.0.1:{t.port}/post")
            await asyncio.sleep(3)
            memory[t.name] = (rss_kb(t.proc.pid) - idle) / len(t.clients) if t.proc else 0.0
            print(f"#   {t.name}: {len(t.clients)} clients in {took:.1f} s, {memory[t.name]:.1f} KB each",
                  flush=True)
        with open(args.out, "a", encoding="utf-8") as out:
            for rep in range(args.reps):
                for test in args.tests.split(","):
                    for t in targets:
                        if time.monotonic() > h.deadline:
                            raise TimeoutError("time limit reached")
                        row = await (h.rate(t, rep) if test == "rate" else h.saturate(t, rep))
                        rows.append(row)
                        out.write(json.dumps(row, ensure_ascii=False) + "\n")
                        out.flush()
                        print("  " + " ".join(f"{k}={v}" for k, v in row.items()), flush=True)
    except TimeoutError as exc:
        print(f"# {exc}", flush=True)
    finally:
        for t in targets:
            await h.disconnect(t)
        for t in targets:
            h.stop(t)
        await h.close()
    print()
    print(summary(rows, memory))


if __name__ == "__main__":
    asyncio.run(main())
