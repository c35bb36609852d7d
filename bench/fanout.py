"""The fan-out, from a committed event to every socket, beside the raw baseline (issue 17).

The performance review's P2 method (2026-12-01): 10 games of 100 players on SQLite, one
process, 1,000 bare subscribed sockets (one per resident, on his city; no pages, no read
markers), the raw ``websockets`` server (``bench/load_raw.py``) in the same run. Two tests
per repetition, each server in turn:

- **rate**: a Poisson stream of ``--rate`` chat messages/s per game (20 msg/s to 1,000
  clients, 20 deliveries each), post → delivery p50/p99 at every member's socket;
- **saturate**: ``--writers`` closed-loop writers per game (post, await the ack, post
  again) for the window: deliveries/s and deliveries per server CPU-second (from /proc),
  and the clients' cores (this process's CPU: near 1.0, the clients bind the server).
  Each writer posts in another city of his game; with ``--one-city`` all in the first.

The project's posts go through the JSON API (``--post-via api``) or as ``command`` frames
on the author's own subscribed socket (``ws``, as the raw relay's writers post on theirs);
``--post-via api,ws`` measures both, each on its own server and copy of the games.

Servers: ``project`` (this tree) and, with ``--before COMMIT``, the project at that commit
(``git archive`` of its ``src`` and ``bench``), each on its own copy of the games; ``raw``.
An A/B's answer is the last table: each tree against ``before`` in the same repetition, the
trees taking turns ABBA. On a shared machine one tree's deliveries per CPU-second drift by
a third over minutes; a pair of windows a few seconds apart does not (session 32: the same
code against itself, ten pairs of 6-s windows, 0.96 / 1.04 / 1.13).
Every wait is bounded, traffic stays on 127.0.0.1, the run is capped by ``--max-minutes``.
``--pin`` puts every server on CPU 0 and the clients on the others: on loopback a socket
write wakes its reader on the writer's core, and a client process woken there can take the
server's core mid-publish (docs/performance.md, session 26); remote browsers never do.
Per-client memory: server RSS before and after connecting the clients.

    python bench/fanout.py [--reps 3] [--window 10] [--before main] [--post-via api,ws]
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
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))

from load import (  # noqa: E402
    PG_URL,
    REDIS_URL,
    cpu_seconds,
    drop_schemas,
    extract_tree,
    free_port,
    machine_cores,
    machine_jiffies,
    merge_windows,
    rss_kb,
)
from load_clients import READ_EVERY, Generator, Region, Route, pct  # noqa: E402
from load_setup import copy_schema, create_games, pyspy, server_command, stop_server, until_listening  # noqa: E402

from lepromafia.store.database import DatabaseConfig  # noqa: E402

MEMBERS = 20
"""Deliveries per chat message: the city's residents."""


@dataclass
class Target:
    """One server of the run: its process, port, store and tree."""

    name: str
    kind: str  # "project" | "raw"
    port: int
    db: Any = None
    proc: subprocess.Popen[bytes] | None = None
    others: list[Target] = field(default_factory=list)
    """More workers (``--two-workers``): each game's posts and sockets go to one worker,
    as nginx's ``hash $game consistent`` routes them; the workers share Redis."""
    redis_url: str | None = None
    env: dict[str, str] = field(default_factory=dict)
    """Environment for this server only (``--before-env``: an A/B of a setting)."""
    post_via: str = ""
    """How its writers post: ``api`` (the JSON API) or ``ws`` (a ``command`` frame on the
    author's own subscribed socket); ``--post-via``."""

    @property
    def workers(self) -> list[Target]:
        return [self, *self.others]

    def pids(self) -> list[int]:
        return [w.proc.pid for w in self.workers if w.proc is not None]

    def route(self) -> dict[str, Any]:
        return {"name": self.name, "kind": self.kind, "ports": [w.port for w in self.workers],
                "routed": bool(self.others), "post_via": self.post_via}


class BareSockets(Generator):
    """``load_clients.Generator`` (in this process) whose clients are bare subscribed
    sockets: the page's position but none of its regions (no re-fetch, no read marker)."""

    async def regions_of(self, t: Route) -> dict[tuple[str, str], tuple[list[Region], int]]:
        found = await super().regions_of(t)
        return {key: ([], position) for key, (_, position) in found.items()}


class FanoutHarness:
    """Starts each server from its tree, connects the bare sockets, runs the two tests."""

    def __init__(self, args: argparse.Namespace, manifest: dict[str, Any], workdir: Path,
                 trees: dict[str, Path]) -> None:
        self.args, self.manifest, self.workdir, self.trees = args, manifest, workdir, trees
        self.gen = BareSockets({"live_js": "push", "read_every": READ_EVERY, "read_via": "ws",
                                "window": args.window, "drain": args.drain, "rate": args.rate,
                                "in_flight": 32}, manifest, list(manifest["games"]))
        self.deadline = 0.0

    async def start(self, t: Target) -> None:
        for i, w in enumerate(t.workers):
            name = f"{t.name}-{i}" if t.others else t.name
            log = open(self.workdir / f"{name}.log", "wb")  # noqa: SIM115 - closed with the process
            cmd, env = server_command(t.kind, w.port, self.manifest, self.workdir, t.db, self.trees[t.name])
            if t.kind != "raw":
                env["LEPROMAFIA_SWEEP_INTERVAL"] = "1"
            if t.redis_url:
                env["LEPROMAFIA_REDIS_URL"] = t.redis_url
            env.update(t.env)
            w.proc = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT, env=env,
                                      preexec_fn=server_core if self.args.pin else None)
        for i, w in enumerate(t.workers):
            name = f"{t.name}-{i}" if t.others else t.name
            assert w.proc is not None
            await until_listening(w.proc, w.port, name, self.workdir / f"{name}.log", every=0.5)

    def stop(self, t: Target) -> None:
        for w in t.workers:
            stop_server(w.proc)

    async def connect(self, t: Target) -> tuple[float, int]:
        done = await self.gen.connect(t.route())
        return done["took"], done["clients"]

    def arrived(self) -> int:
        return sum(len(v) for v in self.gen.stats.latencies.values())

    async def drained(self, t: Target, seconds: float) -> None:
        end = time.perf_counter() + seconds
        while time.perf_counter() < end:
            sent = [m for m, (_, name) in self.gen.stats.sent.items() if name == t.name]
            if all(len(self.gen.stats.latencies.get(m, ())) >= MEMBERS for m in sent):
                return
            await asyncio.sleep(0.05)

    async def rate(self, t: Target, rep: int) -> dict[str, Any]:
        cpu0, wall0, clients0 = server_cpu(t), time.perf_counter(), time.process_time()
        machine0 = machine_jiffies()
        spies = self.profile_server(t, f"rate-rep{rep}")
        part = await self.gen.window(t.name, rep, wall0)
        for spy in spies:
            spy.wait(30)
        cpu, wall = server_cpu(t) - cpu0, time.perf_counter() - wall0
        row = merge_windows([part], wall)
        n = len(part["latencies"])
        return {"test": "rate", "target": t.name, "rep": rep,
                "p50_ms": row["p50_ms"], "p99_ms": row["p99_ms"],
                "delivered": row["delivered"], "deliveries_per_s": round(n / wall, 1),
                "per_cpu_s": round(n / cpu, 1) if cpu > 0 else None, "server_cores": round(cpu / wall, 3),
                "client_cores": round((time.process_time() - clients0) / wall, 3),
                "load1": round(os.getloadavg()[0], 2), **machine_cores(machine0, wall)}

    async def saturate(self, t: Target, rep: int) -> dict[str, Any]:
        from load_clients import Stats

        self.gen.stats = Stats()
        args = self.args
        route = self.gen.routes[t.name]
        loops = []
        end = time.perf_counter() + args.window
        for game, spec in self.manifest["games"].items():
            cities = sorted(spec["cities"])
            for w in range(args.writers):
                city = cities[0 if args.one_city else w % len(cities)]
                author = spec["cities"][city]["residents"][w % MEMBERS]
                ws = None
                if t.kind == "raw":
                    ws = await self.gen.ws_http.ws_connect(f"ws://127.0.0.1:{t.port}/post")
                loops.append(self._writer(route, game, city, author, ws, end))
        cpu0, wall0, clients0 = server_cpu(t), time.perf_counter(), time.process_time()
        machine0 = machine_jiffies()
        spies = self.profile_server(t, f"saturate-rep{rep}")
        await asyncio.wait_for(asyncio.gather(*loops), args.window + 35)
        for spy in spies:
            spy.wait(30)
        cpu, wall = server_cpu(t) - cpu0, time.perf_counter() - wall0
        clients = time.process_time() - clients0
        machine = machine_cores(machine0, wall)
        n = self.arrived()
        lat = [x for v in self.gen.stats.latencies.values() for x in v]
        await self.drained(t, args.drain)  # the backlog leaves before the next server's window
        return {"test": "saturate", "target": t.name, "rep": rep, "posts": len(self.gen.stats.sent),
                "posts_per_s": round(len(self.gen.stats.sent) / wall, 1),
                "deliveries_per_s": round(n / wall, 1), "per_cpu_s": round(n / cpu, 1) if cpu > 0 else None,
                "p50_ms": round(pct(lat, 0.5) * 1000, 1), "p99_ms": round(pct(lat, 0.99) * 1000, 1),
                "server_cores": round(cpu / wall, 3), "client_cores": round(clients / wall, 3),
                "refused": self.gen.stats.refused,
                "load1": round(os.getloadavg()[0], 2), **machine}

    def profile_server(self, t: Target, label: str) -> list[subprocess.Popen[bytes]]:
        """With LEPROMAFIA_BENCH_PYSPY=<py-spy binary>, sample the project's server through
        the window of either test (raw collapsed stacks in the run's directory)."""
        if t.kind == "raw":
            return []
        spies = (pyspy(pid, self.workdir / f"{t.name}-{i}-{label}.pyspy.txt", self.args.window)
                 for i, pid in enumerate(t.pids()))
        return [spy for spy in spies if spy is not None]

    async def _writer(self, t: Route, game: str, city: str, author: str, ws: Any, end: float) -> None:
        """Post, await the acknowledgement, post again (raw: its writer socket's echo)."""
        try:
            while time.perf_counter() < end:
                if ws is None:
                    await self.gen.post(t, game, city, author)
                    continue
                mid = uuid.uuid4().hex[:12]
                self.gen.stats.sent[mid] = (time.perf_counter(), t.name)
                await ws.send_str(json.dumps({"game": game, "city": city, "author": author,
                                              "text": f"lg:{mid} сообщение в городской чат", "id": mid}))
                await asyncio.wait_for(ws.receive(), 30)  # the ack: closed loop
        finally:
            if ws is not None:
                await ws.close()


SERVER_CORE = 0
"""``--pin``: the servers' CPU; the generator takes the others."""


def server_core() -> None:
    """In a server's process before it starts (``--pin``): every thread on ``SERVER_CORE``."""
    os.sched_setaffinity(0, {SERVER_CORE})


def pin_generator() -> None:
    """This process (the clients) off the servers' core (``--pin``)."""
    os.sched_setaffinity(0, set(range(os.cpu_count() or 1)) - {SERVER_CORE} or {SERVER_CORE})


async def copy_of(db: DatabaseConfig, workdir: Path, name: str) -> DatabaseConfig:
    """A copy of the games for another target: a file, or a schema."""
    if db.is_sqlite:
        shutil.copy(workdir / "games.db", workdir / f"{name}.db")
        return DatabaseConfig(f"sqlite:///{workdir}/{name}.db")
    return await copy_schema(db, f"{db.schema}_{name}")


def in_turn(targets: list[Target], rep: int) -> list[Target]:
    """The targets of repetition ``rep``: the project's trees in reverse order every other
    repetition (ABBA), so a machine that slows or speeds up through a run (its CPU-seconds
    drifted by a third over minutes, session 32) favours neither; raw last, as always."""
    ours = [t for t in targets if t.kind != "raw"]
    return [*(ours[::-1] if rep % 2 else ours), *(t for t in targets if t.kind == "raw")]


def server_cpu(t: Target) -> float:
    """CPU seconds of all the target's workers."""
    return sum(cpu_seconds(pid) for pid in t.pids())


def mmm(values: list[float], digits: int = 2) -> str:
    values = [v for v in values if v is not None]
    if not values:
        return "–"
    return " / ".join(f"{v:,.{digits}f}" for v in (min(values), statistics.median(values), max(values)))


def per_rep(rows: list[dict[str, Any]], base: dict[int, dict[str, Any]], key: str) -> list[float]:
    """Each row's ``key`` against ``base``'s row of the same repetition (both measured)."""
    return [r[key] / base[r["rep"]][key] for r in rows
            if r["rep"] in base and r[key] and base[r["rep"]][key]]


def summary(rows: list[dict[str, Any]], memory: dict[str, float]) -> str:
    """min / median / max over the repetitions; every ratio per repetition against raw."""
    lines = ["| test | server | deliveries/s | ÷ raw | p50 ms | p99 ms | p99 ÷ raw "
             "| deliveries per server CPU-s | ÷ raw | server cores | client cores | load1 |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for test in ("rate", "saturate"):
        raw = {r["rep"]: r for r in rows if r["test"] == test and r["target"] == "raw"}
        for name in dict.fromkeys(r["target"] for r in rows if r["test"] == test):
            mine = [r for r in rows if r["test"] == test and r["target"] == name]

            def ratio(key: str, rs: list[dict[str, Any]] = mine,
                      base: dict[int, dict[str, Any]] = raw) -> str:
                return mmm(per_rep(rs, base, key))

            def col(key: str, digits: int = 0, rs: list[dict[str, Any]] = mine) -> str:
                return mmm([r[key] for r in rs], digits)

            lines.append(f"| {test} | {name} | {col('deliveries_per_s')} | **{ratio('deliveries_per_s')}** "
                         f"| {col('p50_ms', 1)} | {col('p99_ms', 1)} | **{ratio('p99_ms')}** "
                         f"| {col('per_cpu_s')} | **{ratio('per_cpu_s')}** | {col('server_cores', 2)} "
                         f"| {col('client_cores', 2)} | {col('load1', 1)} |")
    lines.extend(paired(rows))
    lines.append("")
    lines.append("| server | KB per connected client (RSS after − before connecting) | ÷ raw |")
    lines.append("|---|---|---|")
    for name, kb in memory.items():
        versus = f"{kb / memory['raw']:.2f}" if memory.get("raw") else ""
        lines.append(f"| {name} | {kb:.1f} | {versus} |")
    return "\n".join(lines)


def paired(rows: list[dict[str, Any]]) -> list[str]:
    """With ``--before``: each tree against ``before`` in the same repetition (an A/B's
    answer: the machine's drift between repetitions cancels in each pair), min / median /
    max over the repetitions."""
    lines: list[str] = []
    for test in ("rate", "saturate"):
        before = {r["rep"]: r for r in rows if r["test"] == test and r["target"] == "before"}
        names = [n for n in dict.fromkeys(r["target"] for r in rows if r["test"] == test)
                 if n not in ("before", "raw")]
        if not before or not names:
            continue
        if not lines:
            lines = ["", "| test | server ÷ before, paired by repetition | deliveries/s | deliveries per "
                     "server CPU-s | p99 ms |", "|---|---|---|---|---|"]
        for name in names:
            mine = [r for r in rows if r["test"] == test and r["target"] == name and r["rep"] in before]

            def ratio(key: str, rs: list[dict[str, Any]] = mine,
                      base: dict[int, dict[str, Any]] = before) -> str:
                return mmm(per_rep(rs, base, key), 3)

            lines.append(f"| {test} | {name} ({len(mine)} pairs) | **{ratio('deliveries_per_s')}** "
                         f"| **{ratio('per_cpu_s')}** | {ratio('p99_ms')} |")
    return lines


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=10)
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--window", type=float, default=10.0)
    parser.add_argument("--drain", type=float, default=10.0)
    parser.add_argument("--rate", type=float, default=2.0, help="chat messages/s per game in the rate test")
    parser.add_argument("--writers", type=int, default=4, help="closed-loop writers per game (saturate)")
    parser.add_argument("--one-city", action="store_true",
                        help="a game's writers all post in its first city (saturate; default: each "
                             "in another): a busy city chat, whose readers get several lines a batch")
    parser.add_argument("--before", default="", help="also run the project at this commit (e.g. main)")
    parser.add_argument("--before-env", action="append", default=[], metavar="NAME=VALUE",
                        help="environment for the --before server only (with --before HEAD: an A/B "
                             "of a setting)")
    parser.add_argument("--tests", default="rate,saturate")
    parser.add_argument("--backend", choices=("sqlite", "postgresql"), default="sqlite")
    parser.add_argument("--two-workers", action="store_true",
                        help="also two workers routed by game, on Redis and their own copy of the games")
    parser.add_argument("--post-via", default="api",
                        help="how the project's writers post: api (HTTP), ws (a command frame on "
                             "their own socket), or api,ws: one target each, in the same run")
    parser.add_argument("--pin", action="store_true",
                        help="each server on CPU 0 and the clients on the others: the clients stand "
                             "for remote browsers, whose wake-ups never take the server's core")
    parser.add_argument("--max-minutes", type=float, default=20.0)
    parser.add_argument("--out", default=str(ROOT / "var" / "bench-fanout" / "results.jsonl"))
    args = parser.parse_args()
    if args.pin:
        pin_generator()
    workdir = ROOT / "var" / "bench-fanout" / "run"
    shutil.rmtree(workdir, ignore_errors=True)
    workdir.mkdir(parents=True)
    db = (DatabaseConfig(f"sqlite:///{workdir}/games.db") if args.backend == "sqlite"
          else DatabaseConfig(PG_URL, f"bench_fanout_{os.getpid()}"))
    t0 = time.perf_counter()
    manifest = await create_games(db, args.games)
    print(f"# {args.games} games set up in {time.perf_counter() - t0:.1f} s", flush=True)
    trees = {"project": ROOT / "bench", "raw": ROOT / "bench"}
    targets = []
    ways = args.post_via.split(",")
    if args.before:
        base = workdir / "before-tree"
        extract_tree(args.before, base, ("src", "bench"))
        # it posts as this tree's first way; on the JSON API if it predates socket commands
        has_commands = (base / "src" / "lepromafia" / "web" / "ws" / "commands.py").exists()
        targets.append(Target("before", "project", free_port(), db=await copy_of(db, workdir, "before"),
                              post_via=ways[0] if has_commands or ways[0] != "ws" else "api",
                              env=dict(kv.split("=", 1) for kv in args.before_env)))
        trees["before"] = base / "bench"
    targets.append(Target("project", "project", free_port(), db=db, post_via=ways[0]))
    for way in ways[1:]:  # the same tree, its own copy of the games, posting another way
        trees[f"project-{way}"] = trees["project"]
        targets.append(Target(f"project-{way}", "project", free_port(),
                              db=await copy_of(db, workdir, f"project-{way}"), post_via=way))
    if args.two_workers:
        # Its own copy of the games (the other target's posts would be holes in its streams)
        # and its own Redis channels (redis_bus names them after the database number).
        routed = await copy_of(db, workdir, "routed")
        redis_url = f"{REDIS_URL.rsplit('/', 1)[0]}/{1 + os.getpid() % 15}"
        trees["project-2w"] = trees["project"]
        targets.append(Target("project-2w", "project", free_port(), db=routed, redis_url=redis_url,
                              others=[Target("project-2w:b", "project", free_port())],
                              post_via=ways[0]))  # as the one worker posts: a like-for-like pair
    targets.append(Target("raw", "raw", free_port()))
    h = FanoutHarness(args, manifest, workdir, trees)
    h.deadline = time.monotonic() + args.max_minutes * 60
    await h.gen.open()
    rows: list[dict[str, Any]] = []
    memory: dict[str, float] = {}
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    try:
        for t in targets:
            await h.start(t)
            await asyncio.sleep(2)
            idle = sum(rss_kb(pid) for pid in t.pids())
            took, clients = await h.connect(t)
            await asyncio.sleep(3)
            memory[t.name] = (sum(rss_kb(pid) for pid in t.pids()) - idle) / clients
            print(f"#   {t.name}: {clients} clients in {took:.1f} s, {memory[t.name]:.1f} KB each",
                  flush=True)
        with open(args.out, "a", encoding="utf-8") as out:
            for rep in range(args.reps):
                for test in args.tests.split(","):
                    for t in in_turn(targets, rep):
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
        await h.gen.close()
        for t in targets:
            h.stop(t)
        if args.backend == "postgresql":
            await drop_schemas([t.db for t in targets if t.db is not None])
    print()
    print(summary(rows, memory))


if __name__ == "__main__":
    asyncio.run(main())
