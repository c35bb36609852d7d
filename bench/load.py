"""Load benchmark: the project's server beside a raw ``websockets`` broadcast server, the
same clients on both, in one run (``make bench-load``; docs/performance.md, issue 17).

    python bench/load.py [--games 1,5,10,25] [--backends sqlite,postgresql] [--reps 3]
                         [--window 10] [--rate 2] [--pages 0] [--compare-session-cache] [--two-workers]
                         [--two-workers-routed] [--client-procs K] [--max-minutes M] [--out FILE]
    python bench/load.py ... --plan          # each configuration's processes, sockets, time
    python bench/load.py --summarize FILE    # the tables of an earlier run
    make bench-curve                         # issue 17's curve, 1..200 games (idle machine)

For each backend and game count: create the games (``load_setup``), start the servers
(the project's ``load_server.py``, the raw ``load_raw.py``; with
``--compare-session-cache`` also the project with the session cache off, on its own copy
of the database; with ``--before COMMIT`` also the server at that commit, on its own
copy; with ``--two-workers`` on PostgreSQL also the project as two workers
with Redis, clients and posts alternating between them with no routing by game), connect
100 clients per game to each, then take measurement windows in
turn (project, raw, … three repetitions). In a window every game posts a Poisson stream of
``--rate`` chat messages per second into a random city's inbox from a random resident;
then the harness waits until each message reached its city's 20 residents (at most
``--drain`` seconds). With ``--pages R`` every game also has a Poisson stream of R page
loads per second (project servers only): a random resident opens his city's inbox page, the
whole page with his session, as a person navigating or reloading does (its latency in the
row's ``page_p50_ms``/``page_p99_ms``, and in the table when any row has some).

The clients behave like ``web/static/js/live.js``: one WebSocket per resident, sitting on
his city's inbox page; ``subscribe`` from the page's position; on an event frame: a gap in
his numbering re-subscribes; a message pushed in the frame (``html``) whose number is the
next of the thread on his page is applied with no request, and his read marker follows in
one ``POST …/read {upto}`` at most every ``READ_EVERY`` seconds (a thread that is not
current re-fetches instead; with ``--read-via ws``, the default, the report goes on his
socket, and against a tree that takes a page's ``view`` his page says once what it shows,
on screen, and reports nothing: the server marks what it delivers); each other
``data-live-src`` region the event matches (``data-live-kinds``/``-inbox``/``-city``, not
already drawn at that position: the ``X-Live-Seq`` of the response that drew it; not
``data-live-shown="skip"`` for a message the page just showed) is re-fetched coalesced
(150 ms debounce, at most one per region per ``WINDOW`` seconds, trailing; with
``HX-Request``); a closed socket reconnects after 0.5 s doubling to 15 s, with the ±50 %
jitter the shipped live.js adds. Raw clients are the same
sockets without pages. ``--live-js refetch`` models the live.js before pushed content
(every matching region re-fetched 150 ms after each event, the read marker moved by the
inbox region's fetch), to measure both client models against one server.

The clients run in ``--client-procs`` generator processes (``bench/load_clients.py``; by
default one per 5,000 of a target's sockets), each owning whole games: their clients on
every target and their posting, so a post and its deliveries are timed by one process. The
parent starts the servers, starts every window at one moment of the shared clock
(``time.perf_counter``, CLOCK_MONOTONIC: one clock for every process of the machine,
checked when the generators start) and merges the generators' raw measurements into the
same row as one process would have made (every latency, ack, re-fetch and read mark; the
percentiles over the merged lists). ``loadgen_cores`` is the generators' CPU (and the
parent's) per second of the window, ``loadgen_cores_max`` the busiest generator's: near 1.0
the generator, not the server, is the limit; ``machine_cores`` is every process's (the
database's too), ``steal_cores`` what the host gave other guests. Each process raises its
open-files limit to the hard one; a server or generator that would need more sockets than
it may open is refused before the games are set up (a one-worker target that does not fit
is skipped; the raw baseline runs as several processes routed by game, as the routed
workers are).

Bounded: every wait has a timeout, and a configuration that would end after
``--max-minutes`` (estimated) is not started. Only 127.0.0.1 is ever contacted.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import math
import os
import random
import re
import shutil
import socket
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import aiohttp

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))

from load_clients import (  # noqa: E402
    CONNECT_IN_FLIGHT,
    HTTP_LIMIT,
    READ_EVERY,
    SPARE_FILES,
    Route,
    clock_name,
    pct,
    raise_open_files,
)
from load_setup import (  # noqa: E402
    CITIES,
    POPULATION,
    copy_schema,
    create_games,
    pyspy,
    server_command,
    stop_server,
    until_listening,
)

from lepromafia.store.database import DatabaseConfig  # noqa: E402

PG_URL = "postgresql://postgres@127.0.0.1:5432/test"
REDIS_URL = "redis://127.0.0.1:6379/0"
PLAYERS = len(CITIES) * POPULATION
"""Clients per game (one socket each, on every target)."""
SOCKETS_PER_CLIENT_PROC = 5000
"""The default ``--client-procs``: one generator process per this many of a target's sockets."""
SERVER_SPARE_FILES = 200
"""Files a server holds besides its clients' sockets (pool, Redis, logs, listening socket)."""
START_AHEAD = 0.1
"""Seconds between the parent's request for a window and the window's start (every
generator has read it by then)."""


class HarnessError(RuntimeError):
    """The run cannot go on (a process that died, did not answer, or would run out of files)."""


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
class Target:
    name: str
    kind: str  # "project" | "raw"
    port: int
    proc: subprocess.Popen[bytes] | None = None
    db: DatabaseConfig | None = None
    session_cache: float | None = None
    clients: int = 0
    """Sockets its clients hold, over every generator."""
    others: list[Target] = field(default_factory=list)
    """More workers of the same server (the project's with Redis, or raw ones): clients and
    posts are spread over all, with no routing by game (the worst case for one writer per
    game), or by game."""
    routed: bool = False
    """Each game's clients and posts go to one worker, as nginx's ``hash $game`` does
    (docs/deploy.md)."""
    redis_url: str = REDIS_URL
    src: str | None = None
    """A tree whose ``src`` the server imports instead of this one's (``--before``)."""
    env: dict[str, str] = field(default_factory=dict)
    """Environment for this server only (``--before-env``: an A/B of a setting)."""
    post_via: str = ""
    """How its clients post, if not ``--post-via``'s first way (``--post-via ws,form``)."""

    @property
    def workers(self) -> list[Target]:
        return [self, *self.others]

    def route(self) -> dict[str, Any]:
        """What a generator needs to reach it."""
        older = self.src is not None and not Path(self.src, "src/lepromafia/web/ws/commands.py").exists()
        return {"name": self.name, "kind": self.kind, "ports": [w.port for w in self.workers],
                "routed": self.routed,  # a tree before session 15 posts by form
                "post_via": "form" if older and self.post_via in ("", "ws") else self.post_via,
                "views": self.takes_views()}

    def takes_views(self) -> bool:
        """Whether its socket takes a page's ``view`` (session 18: then a page on screen
        reports no read marker); an earlier tree's clients report each as before, and the
        raw relay's clients have no page."""
        if self.kind != "project":
            return False
        if self.src is None:
            return True
        protocol = Path(self.src, "src/lepromafia/web/ws/protocol.py")
        return protocol.exists() and "class View(" in protocol.read_text()

    def sockets_per_worker(self, games: list[str]) -> list[int]:
        """The client sockets (and raw writer sockets) each worker would hold."""
        r = Route(**self.route())
        held = [0] * len(self.workers)
        for n, game in enumerate(games):
            if self.routed:
                held[r.ports.index(r.port_for(0, game))] += PLAYERS + (self.kind == "raw")
            else:
                for i in range(PLAYERS):
                    held[(n * PLAYERS + i) % len(held)] += 1
                held[n % len(held)] += self.kind == "raw"
        return held

    def fits(self, games: list[str], limit: int) -> str | None:
        """Why a worker of it could not hold its sockets, or None."""
        need = max(self.sockets_per_worker(games)) + HTTP_LIMIT + SERVER_SPARE_FILES
        if need > limit:
            return (f"{self.name}: a worker would hold {need} open files "
                    f"({len(games)} games), a process may open {limit}")
        return None


def game_names(games: int) -> list[str]:
    """The games ``load_setup.create_games`` makes, in order."""
    return [f"load{n:02d}" for n in range(games)]


def split_games(games: list[str], procs: int) -> list[list[str]]:
    """Whole games per generator, dealt in turn (each gets games of every worker)."""
    return [games[i::procs] for i in range(procs) if games[i::procs]]


def generator_files(games: list[str], targets: list[Target]) -> int:
    """Open files a generator holding ``games`` on every target needs."""
    return (sum(len(games) * (PLAYERS + (t.kind == "raw")) for t in targets)
            + HTTP_LIMIT + SPARE_FILES)


def client_procs(games: list[str], targets: list[Target], limit: int, wanted: int | None) -> int:
    """``--client-procs``, or the default: one per 5,000 of a target's sockets and enough
    that each holds its games' sockets on every target within ``limit`` open files."""
    if wanted is not None:
        worst = max(generator_files(part, targets) for part in split_games(games, wanted))
        if worst > limit:
            raise HarnessError(f"--client-procs {wanted}: a client process would hold {worst} open "
                               f"files, a process may open {limit}; run more client processes")
        return wanted
    procs = max(1, math.ceil(len(games) * PLAYERS / SOCKETS_PER_CLIENT_PROC))
    while procs < len(games) and max(generator_files(p, targets) for p in split_games(games, procs)) > limit:
        procs += 1
    return procs


def raw_target(games: list[str], limit: int) -> Target:
    """The raw baseline: one process, or as many as its sockets need (routed by game, as the
    routed workers are)."""
    for n in range(1, 9):
        t = Target("raw", "raw", free_port(), routed=n > 1,
                   others=[Target(f"raw:{i}", "raw", free_port()) for i in range(1, n)])
        if t.fits(games, limit) is None:
            return t
    raise HarnessError(f"raw: {len(games)} games do not fit 8 processes of {limit} open files")


def merge_windows(parts: list[dict[str, Any]], wall: float) -> dict[str, Any]:
    """One window's row columns from every generator's raw measurements: the same figures
    one process holding every client would have made (percentiles over the merged lists,
    counts summed, rates over the parent's wall time)."""
    lat = [x for p in parts for x in p["latencies"]]
    acks = [x for p in parts for x in p["acks"]]
    refreshes = [x for p in parts for x in p["refreshes"]]
    reads = [x for p in parts for x in p["reads"]]
    pages = [x for p in parts for x in p.get("pages", [])]
    return {
        "posts": sum(p["posts"] for p in parts),
        "offered_s": round(max((p["offered"] for p in parts), default=0.0), 2),
        "p50_ms": round(pct(lat, 0.50) * 1000, 1), "p99_ms": round(pct(lat, 0.99) * 1000, 1),
        "ack_p99_ms": round(pct(acks, 0.99) * 1000, 1),
        "delivered": round(sum(p["delivered"] for p in parts) / max(1, sum(p["expected"] for p in parts)), 4),
        "refused": sum(p["refused"] for p in parts),
        "refreshes_per_s": round(len(refreshes) / wall, 1),
        "refresh_p50_ms": round(pct(refreshes, 0.5) * 1000, 1),
        "refresh_p99_ms": round(pct(refreshes, 0.99) * 1000, 1),
        "reads_per_s": round(len(reads) / wall, 1),
        "read_p99_ms": round(pct(reads, 0.99) * 1000, 1),
        "pages_per_s": round(len(pages) / wall, 1),
        "page_p50_ms": round(pct(pages, 0.5) * 1000, 1),
        "page_p99_ms": round(pct(pages, 0.99) * 1000, 1),
        "refresh_errors": sum(p["refresh_errors"] for p in parts),
        "reconnects": sum(p["reconnects"] for p in parts),
        "loadgen_cpu_s": sum(p["cpu"] for p in parts),
        "loadgen_cores_max": round(max((p["cpu"] / wall for p in parts), default=0.0), 3),
        "loadgen_gc_max_ms": round(max((p["gc_max"] for p in parts), default=0.0) * 1000, 1),
    }


class ClientProcs:
    """The generator processes (``bench/load_clients.py``), each owning whole games."""

    def __init__(self, procs: list[asyncio.subprocess.Process], logs: list[Path]) -> None:
        self.procs, self.logs = procs, logs

    @classmethod
    async def start(cls, parts: list[list[str]], manifest: Path, options: dict[str, Any],
                    workdir: Path) -> ClientProcs:
        procs, logs = [], []
        env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
        for i, games in enumerate(parts):
            logs.append(workdir / f"clients-{i}.log")
            with open(logs[-1], "wb") as log:  # the child holds its own descriptor
                procs.append(await asyncio.create_subprocess_exec(
                    sys.executable, str(ROOT / "bench" / "load_clients.py"), "--manifest", str(manifest),
                    "--games", ",".join(games), "--options", json.dumps(options),
                    stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE, stderr=log,
                    env=env, limit=2**28))
        self = cls(procs, logs)
        await self.check_clock()
        return self

    async def ask(self, i: int, msg: dict[str, Any], timeout: float) -> dict[str, Any]:
        p = self.procs[i]
        assert p.stdin is not None and p.stdout is not None
        try:
            p.stdin.write(json.dumps(msg).encode() + b"\n")
            await asyncio.wait_for(p.stdin.drain(), timeout)
            line = await asyncio.wait_for(p.stdout.readline(), timeout)
        except (TimeoutError, ConnectionError) as e:
            raise HarnessError(f"client process {i} did not answer {msg['op']} in {timeout:.0f} s "
                               f"({type(e).__name__}); see {self.logs[i]}") from e
        if not line:
            raise HarnessError(f"client process {i} exited; see {self.logs[i]}")
        reply: dict[str, Any] = json.loads(line)
        if "error" in reply:
            raise HarnessError(f"client process {i}: {reply['error']}; see {self.logs[i]}")
        return reply

    async def ask_all(self, msg: dict[str, Any], timeout: float) -> list[dict[str, Any]]:
        asks = [asyncio.ensure_future(self.ask(i, msg, timeout)) for i in range(len(self.procs))]
        try:
            return list(await asyncio.gather(*asks))
        except BaseException:  # one failed: the others are not waited for
            for ask in asks:
                ask.cancel()
            await asyncio.gather(*asks, return_exceptions=True)
            raise

    async def check_clock(self) -> None:
        """Every generator reads the parent's clock: CLOCK_MONOTONIC is one clock for the
        whole machine, so a time taken in one process is comparable with another's."""
        for i in range(len(self.procs)):
            before = time.perf_counter()
            reply = await self.ask(i, {"op": "hello"}, 60)
            after = time.perf_counter()
            if reply["clock"] != clock_name() or not before <= reply["t"] <= after:
                raise HarnessError(f"client process {i} reads another clock ({reply['clock']}, "
                                   f"{reply['t']:.6f} not in [{before:.6f}, {after:.6f}])")

    async def close(self) -> None:
        """Ask each to quit (after the request it may be finishing), reading what it still
        writes; kill one that has not exited within a minute."""
        async def one(p: asyncio.subprocess.Process) -> None:
            if p.returncode is not None:
                return
            try:
                await asyncio.wait_for(p.communicate(b'{"op": "quit"}\n'), 60)
            except (TimeoutError, ConnectionError):
                p.kill()
                await p.wait()

        await asyncio.gather(*(one(p) for p in self.procs))

    def pids(self) -> list[int]:
        return [p.pid for p in self.procs]


# --- the run -----------------------------------------------------------------------------


SERVER_PORTS = range(20000, 32000)
"""Where servers' ports are picked: below the kernel's ephemeral range (32768–60999 here).
A run's tens of thousands of client sockets take ephemeral ports, and at 150 games one
took the port picked for a server that had not started yet ("address already in use")."""
_handed_out: set[int] = set()


def free_port() -> int:
    """A port no socket holds now, below the ephemeral range, not handed out before."""
    for port in random.sample(SERVER_PORTS, 500):
        if port in _handed_out:
            continue
        with socket.socket() as s:
            try:
                s.bind(("127.0.0.1", port))
            except OSError:
                continue
        _handed_out.add(port)
        return port
    raise HarnessError(f"no free port in {SERVER_PORTS}")


SETTLED = 0.3
"""Cores a target's servers may still use for the next window to start (their keepalive and
an idle loop use far less)."""


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def machine_jiffies() -> tuple[int, int]:
    """(busy, stolen) clock ticks of the whole machine since boot (``/proc/stat``): busy is
    every CPU's time but idle and I/O wait; stolen is what the hypervisor gave to other
    guests. Their rates over a window tell how much of the two cores everything took, and
    how much was never ours (session 32: one tree's speed drifted by a third)."""
    fields = [int(x) for x in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    user, nice, system, _idle, _iowait, irq, softirq, steal = fields[:8]
    return user + nice + system + irq + softirq, steal


def machine_cores(since: tuple[int, int], wall: float) -> dict[str, float]:
    """``machine_jiffies`` since ``since`` as cores over ``wall`` seconds."""
    busy, steal = machine_jiffies()
    tick = os.sysconf("SC_CLK_TCK")
    return {"machine_cores": round((busy - since[0]) / tick / wall, 3),
            "steal_cores": round((steal - since[1]) / tick / wall, 3)}


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



class Harness:
    def __init__(self, args: argparse.Namespace, manifest: dict[str, Any], workdir: Path,
                 clients: ClientProcs) -> None:
        self.args, self.manifest, self.workdir, self.clients = args, manifest, workdir, clients
        self.deadline: float = args.deadline

    async def start(self, t: Target) -> None:
        log = open(self.workdir / f"{t.name}.log", "wb")  # noqa: SIM115 - closed with the process
        cmd, env = server_command(t.kind, t.port, self.manifest, self.workdir, t.db, ROOT / "bench")
        if t.kind != "raw":
            env["LEPROMAFIA_SWEEP_INTERVAL"] = "1"
            if t.session_cache is not None:
                cmd += ["--session-cache", str(t.session_cache)]
            if "-2w" in t.name:
                env["LEPROMAFIA_REDIS_URL"] = t.redis_url
            if t.src is not None:
                env["PYTHONPATH"] = str(Path(t.src) / "src")
            env.update(t.env)
        t.proc = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT, env=env)
        await until_listening(t.proc, t.port, t.name, self.workdir / f"{t.name}.log", every=0.5)

    def stop(self, t: Target) -> None:
        stop_server(t.proc)


    async def connect(self, t: Target) -> float:
        """Every generator connects its games' clients to ``t``; the slowest one's time."""
        replies = await self.clients.ask_all({"op": "connect", "target": t.route()},
                                             timeout=120 + len(self.manifest["games"]) * PLAYERS / 50)
        t.clients = sum(r["clients"] for r in replies)
        return max(r["took"] for r in replies)

    async def window(self, t: Target, rep: int) -> dict[str, Any]:
        args = self.args
        pids = [w.proc.pid for w in t.workers if w.proc]
        pid = pids[0] if pids else 0
        gc0 = await self.gc_pauses(t)
        cpu0, own0, wall0 = sum(cpu_seconds(p) for p in pids), time.process_time(), time.perf_counter()
        sched0 = [main_thread_sched(p) for p in pids]
        machine0 = machine_jiffies()
        profilers = self.profile(t, rep)
        parts = await self.clients.ask_all(
            {"op": "window", "target": t.name, "rep": rep, "start": wall0 + START_AHEAD},
            timeout=START_AHEAD + args.window + args.drain + 120)
        wall = time.perf_counter() - wall0
        for prof in profilers:
            await asyncio.to_thread(prof.wait, 30)
        gc1 = await self.gc_pauses(t)
        sched = [main_thread_sched(p) for p in pids]
        machine = machine_cores(machine0, wall)
        loop_cpu = sum(a[0] - b[0] for a, b in zip(sched, sched0, strict=True)) / wall
        loop_queued = sum(a[1] - b[1] for a, b in zip(sched, sched0, strict=True)) / wall
        m = merge_windows(parts, wall)
        return {
            "target": t.name, "kind": t.kind, "backend": args.current_backend,
            "games": len(self.manifest["games"]),
            "clients": t.clients, "rep": rep, "posts": m["posts"], "offered_s": m["offered_s"],
            "p50_ms": m["p50_ms"], "p99_ms": m["p99_ms"], "ack_p99_ms": m["ack_p99_ms"],
            "delivered": m["delivered"], "refused": m["refused"],
            "refreshes_per_s": m["refreshes_per_s"],
            "refresh_p50_ms": m["refresh_p50_ms"], "refresh_p99_ms": m["refresh_p99_ms"],
            "reads_per_s": m["reads_per_s"], "read_p99_ms": m["read_p99_ms"],
            "pages_per_s": m["pages_per_s"], "page_p50_ms": m["page_p50_ms"],
            "page_p99_ms": m["page_p99_ms"],
            "live_js": args.live_js,
            "read_via": "view" if t.takes_views() and args.read_via == "ws" else args.read_via,
            "post_via": t.route()["post_via"] or args.post_via.split(",")[0],
            "refresh_errors": m["refresh_errors"], "reconnects": m["reconnects"],
            "server_cores": round((sum(cpu_seconds(p) for p in pids) - cpu0) / wall, 3) if pid else None,
            "server_procs": len(pids),
            "games_per_worker": [n // PLAYERS for n in t.sockets_per_worker(list(self.manifest["games"]))]
            if t.routed else None,
            # per worker's event loop, summed: on a CPU, waiting for one, asleep (the rest)
            "loop_cpu": round(loop_cpu, 3) if pid else None,
            "loop_queued": round(loop_queued, 3) if pid else None,
            "loop_asleep": round(len(pids) - loop_cpu - loop_queued, 3) if pid else None,
            # the load generator: its processes' CPU (and the parent's), the busiest one's
            "loadgen_cores": round((m["loadgen_cpu_s"] + time.process_time() - own0) / wall, 3),
            "loadgen_cores_max": m["loadgen_cores_max"], "loadgen_procs": len(parts),
            "loadgen_gc_max_ms": m["loadgen_gc_max_ms"],
            "rss_kb_per_client": round(sum(rss_kb(p) for p in pids) / max(1, t.clients), 1) if pid else None,
            "load1": round(os.getloadavg()[0], 2),
            **machine,  # every process's CPU (the database's too), and what the host took
            # the garbage collector's pauses in the window (the server's /metrics), by generation
            **{f"gc{g}_{k}": round(gc1.get((g, k), 0) - gc0.get((g, k), 0), 3)
               for g in "012" for k in ("count", "seconds")},
            "gc_longest_bucket_s": longest_bucket(gc0, gc1),
        }

    async def settle(self, t: Target) -> float:
        """Wait, after ``t``'s window, until its servers are idle (under ``SETTLED`` of a core
        over a second) or ``--settle`` seconds have passed; the seconds waited. A server that
        ends its window behind keeps a core busy with its backlog: the next target's window
        would be measured on what is left of the machine (session 16's 150 games). Before
        the first window too: a started worker expands the set-up's notifications (every
        signup's host duty, Day 1's post to every participant), which took the first
        window's CPU (session 17)."""
        limit = getattr(self.args, "settle", 0.0)
        pids = [w.proc.pid for w in t.workers if w.proc]
        began = time.perf_counter()
        while pids and time.perf_counter() - began < limit:
            cpu0, wall0 = sum(cpu_seconds(p) for p in pids), time.perf_counter()
            await asyncio.sleep(1.0)
            if (sum(cpu_seconds(p) for p in pids) - cpu0) / (time.perf_counter() - wall0) < SETTLED:
                break
        return round(time.perf_counter() - began, 1)

    async def gc_pauses(self, t: Target) -> dict[tuple[str, str], float]:
        """The project workers' ``lepromafia_gc_pause_seconds``, summed over workers:
        (generation, "count" | "seconds" | a bucket's upper bound) → value."""
        if t.kind == "raw":
            return {}
        found: dict[tuple[str, str], float] = {}
        async with aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=10)) as http:
            for w in t.workers:
                try:
                    async with http.get(f"http://127.0.0.1:{w.port}/metrics") as r:
                        text = await r.text()
                except (TimeoutError, aiohttp.ClientError, OSError):
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
        if t.kind == "raw":
            return []
        spies = (pyspy(w.proc.pid, self.workdir / f"{w.name}-rep{rep}.pyspy.txt", self.args.window)
                 for w in t.workers if w.proc)
        return [spy for spy in spies if spy is not None]


def plan(args: argparse.Namespace, backend: str, games: int,
         workdir: Path) -> tuple[DatabaseConfig, list[Target], int]:
    """A configuration's store, servers and generator count, checked against the open-files
    limit before anything is set up (a one-worker target that cannot hold its sockets is
    left out, with the reason printed)."""
    if backend == "sqlite":
        db = DatabaseConfig(f"sqlite:///{workdir}/games.db")
    else:
        db = DatabaseConfig(PG_URL, f"bench_load_{games}_{os.getpid()}")
    names, limit = game_names(games), args.open_files
    targets = [Target("project", "project", free_port(), db=db)]
    ways = getattr(args, "post_via", "ws").split(",")
    for way in ways[1:]:  # the same tree posting another way, on a copy
        copy = (DatabaseConfig(f"sqlite:///{workdir}/post-{way}.db") if backend == "sqlite"
                else DatabaseConfig(db.url, f"{db.schema}_{way}"))
        targets.append(Target(f"project-{way}", "project", free_port(), db=copy, post_via=way))
    compare = {int(g) for g in args.compare_session_cache.split(",") if g}
    if games in compare and backend == "sqlite":  # a copy of the same games: neither writes the other's
        before = DatabaseConfig(f"sqlite:///{workdir}/before.db")
        targets.insert(0, Target("no-session-cache", "project", free_port(), db=before, session_cache=0))
    if args.before:  # an earlier tree on its own copy of the same games, windows interleaved
        copy = (DatabaseConfig(f"sqlite:///{workdir}/earlier.db") if backend == "sqlite"
                else DatabaseConfig(db.url, f"{db.schema}_before"))
        targets.insert(0, Target("before", "project", free_port(), db=copy, src=str(workdir / "before-tree"),
                                 env=dict(kv.split("=", 1) for kv in getattr(args, "before_env", []))))
    if args.two_workers and backend == "postgresql":
        second = Target("project-2w:b", "project", free_port(), db=db)
        targets.append(Target("project-2w", "project", free_port(), db=db, others=[second]))
    if args.two_workers_routed:
        # Its own copy of the games: on one database the other target's posts would be
        # holes in these workers' streams (they are not on its Redis), each one re-fetched.
        # Its own Redis channels too (redis_bus names them after the database number).
        def routed(name: str, copy: str, channels: int, **options: Any) -> Target:
            """Two workers routed by game, on the copy of the games named ``copy`` and the
            Redis database ``channels`` places them on (``post_via``: the first's only)."""
            routed_db = (DatabaseConfig(f"sqlite:///{workdir}/{copy}.db") if backend == "sqlite"
                         else DatabaseConfig(db.url, f"{db.schema}_{copy.replace('-', '_')}"))
            redis_url = f"{REDIS_URL.rsplit('/', 1)[0]}/{1 + (os.getpid() + channels) % 15}"
            shared = {k: v for k, v in options.items() if k != "post_via"}
            second = Target(f"{name}:b", "project", free_port(), db=routed_db, redis_url=redis_url, **shared)
            return Target(name, "project", free_port(), db=routed_db, others=[second], routed=True,
                          redis_url=redis_url, **options)

        targets.append(routed("project-2w-routed", "routed", 0))
        if args.before:  # the earlier tree as two routed workers too
            targets.insert(0, routed("before-2w-routed", "routed-before", 7, src=str(workdir / "before-tree"),
                                     env=dict(kv.split("=", 1) for kv in getattr(args, "before_env", []))))
        for n, way in enumerate(ways[1:], 2):  # each way: its copy, its channels
            targets.append(routed(f"project-2w-routed-{way}", f"routed-{way}", n, post_via=way))
    for t in list(targets):  # before any set-up: a server that cannot hold its sockets
        why = t.fits(names, limit)
        if why is not None:
            print(f"# {backend}, {games} games: {why}: skipped", flush=True)
            targets.remove(t)
    targets.append(raw_target(names, limit))
    return db, targets, client_procs(names, targets, limit, args.client_procs)


def extract_tree(commit: str, into: Path, paths: tuple[str, ...] = ("src",)) -> None:
    """``paths`` at ``commit`` (``git archive``), with this tree's compiled catalogs (built
    files, not committed): the server of ``--before`` (here and in ``bench/fanout.py``)."""
    into.mkdir(parents=True)
    archive = subprocess.run(["git", "-C", str(ROOT), "archive", commit, *paths],
                             check=True, capture_output=True).stdout
    subprocess.run(["tar", "-x", "-C", str(into)], input=archive, check=True)
    for built in (ROOT / "src").rglob("*.mo"):
        target = into / built.relative_to(ROOT)
        if target.parent.is_dir():
            shutil.copy(built, target)


def print_plan(args: argparse.Namespace) -> None:
    """``--plan``: what each configuration would run, and about how long; nothing started."""
    total = 0.0
    for games in (int(g) for g in args.games.split(",")):
        for backend in args.backends.split(","):
            args.current_backend = backend
            _, targets, procs = plan(args, backend, games, ROOT / "var" / "bench-load" / "plan")
            names = game_names(games)
            need = estimated_seconds(args, games, len(targets))
            total += need
            held = max(generator_files(p, targets) for p in split_games(names, procs))
            print(f"{backend}, {games} games: {procs} client processes (each at most {held} open files); "
                  + "; ".join(f"{t.name}: sockets per process {t.sockets_per_worker(names)}" for t in targets)
                  + f"; about {need / 60:.1f} min", flush=True)
    print(f"about {total / 60:.0f} min in all (--max-minutes {args.max_minutes:g})")


async def one_configuration(args: argparse.Namespace, backend: str, games: int,
                            out: Any) -> list[dict[str, Any]]:
    args.current_backend = backend
    workdir = ROOT / "var" / "bench-load" / f"{backend}-{games}"
    shutil.rmtree(workdir, ignore_errors=True)
    workdir.mkdir(parents=True)
    db, targets, procs = plan(args, backend, games, workdir)
    names = game_names(games)
    t0 = time.perf_counter()
    manifest = await create_games(db, games)
    took = time.perf_counter() - t0
    SETUP_SECONDS_PER_GAME[backend] = took / games
    print(f"# {backend}, {games} games: set up in {took:.1f} s ({took / games:.2f} s a game)", flush=True)
    copies = {(t.db.url, t.db.schema): t for t in targets if t.db is not None and t.db is not db}
    for copy, t in copies.items():  # each compared server on its own copy of the same games
        t1 = time.perf_counter()
        if backend == "sqlite":
            shutil.copy(workdir / "games.db", copy[0].removeprefix("sqlite:///"))
        else:
            await copy_schema(db, str(copy[1]))
        print(f"#   copied for {t.name} in {time.perf_counter() - t1:.1f} s", flush=True)
    if args.before:
        extract_tree(args.before, workdir / "before-tree")
    path = workdir / "manifest.json"
    path.write_text(json.dumps(manifest), encoding="utf-8")
    options = {"live_js": args.live_js, "read_every": args.read_every, "read_via": args.read_via,
               "post_via": args.post_via.split(",")[0], "window": args.window, "drain": args.drain,
               "rate": args.rate,
               "pages": args.pages,
               "in_flight": max(1, CONNECT_IN_FLIGHT // procs), "http_limit": max(16, HTTP_LIMIT // procs)}
    parts = split_games(names, procs)
    clients = await ClientProcs.start(parts, path, options, workdir)
    print(f"#   {len(parts)} client processes, {max(map(len, parts))} games each at most", flush=True)
    h = Harness(args, manifest, workdir, clients)
    rows: list[dict[str, Any]] = []
    try:
        for t in targets:
            if time.monotonic() > h.deadline:
                print("# time limit reached", flush=True)
                return rows
            for worker in t.workers:
                await h.start(worker)
            took = await h.connect(t)
            if t.routed:
                split = [n // PLAYERS for n in t.sockets_per_worker(names)]
                print(f"#   {t.name}: games per worker {split}", flush=True)
            print(f"#   {t.name}: {t.clients} clients subscribed in {took:.1f} s", flush=True)
        await asyncio.sleep(1)
        for t in targets:  # the set-up's notifications (200 games: ~44,000 outbox rows) first
            print(f"#   {t.name}: idle after {await h.settle(t):.1f} s", flush=True)
        for rep in range(args.reps):
            for t in targets:
                if time.monotonic() > h.deadline:
                    print("# time limit reached", flush=True)
                    return rows
                row = await h.window(t, rep)
                row["settle_s"] = await h.settle(t)
                rows.append(row)
                out.write(json.dumps(row, ensure_ascii=False) + "\n")
                out.flush()
                print("  " + " ".join(f"{k}={v}" for k, v in row.items()), flush=True)
    finally:
        await clients.close()
        for t in targets:
            for worker in t.workers:
                h.stop(worker)
        if backend == "postgresql":  # the games' own schema too: no target may use it
            await drop_schemas([db, *(t.db for t in targets if t.db is not None)])  # (200 games)
    return rows


SETUP_SECONDS_PER_GAME = {"sqlite": 0.4, "postgresql": 1.0}
"""Set-up time per game (on this machine at load 2–6: SQLite 0.15–0.6 s, PostgreSQL
0.4–1.3 s; the run's latest set-up replaces it), for the time a configuration needs."""


def estimated_seconds(args: argparse.Namespace, games: int, targets: int | None = None) -> float:
    """About how long one configuration takes: set-up, start-up, connecting (about 1,000
    sockets a second per target) and its windows; a configuration that would not end before
    ``--max-minutes`` is not started (a window's own start and its servers' settling: 4 s)."""
    targets = targets or 2 + bool(args.two_workers_routed)
    setup = SETUP_SECONDS_PER_GAME.get(args.current_backend, 1.3) * games
    return setup + 10 * targets + targets * games * PLAYERS / 1000 \
        + args.reps * targets * (args.window + 4)


async def drop_schemas(configs: list[DatabaseConfig]) -> None:
    from sqlalchemy import text

    from lepromafia.store.database import create_engine

    engine = create_engine(DatabaseConfig(PG_URL))
    async with engine.begin() as conn:
        for c in {c.schema for c in configs if c.schema}:
            await conn.execute(text(f'DROP SCHEMA IF EXISTS "{c}" CASCADE'))
    await engine.dispose()


def curve(rows: list[dict[str, Any]]) -> str:
    """Markdown: issue 17's curve, one line per backend and game count, medians over the
    repetitions: one worker against two routed by game, the raw server of the same run, and
    the load generator's busiest process (near 1.0 core: the generator is the limit)."""
    def med(group: list[dict[str, Any]], key: str, digits: int = 0) -> str:
        values = [r[key] for r in group if r.get(key) is not None and r[key] == r[key]]
        return f"{statistics.median(values):.{digits}f}" if values else "–"

    lines = ["| backend | games | players | 1 worker p99 ms | 2 workers p99 ms | raw p99 ms "
             "| delivered 1w / 2w | refused 1w / 2w | server cores 1w / 2w | generator cores (busiest) "
             "| load1 |", "|---|---:|---:|---:|---:|---:|---|---|---|---|---:|"]
    keys = sorted({(r["backend"], r["games"]) for r in rows}, key=lambda k: (k[0] != "sqlite", k[1]))
    for backend, games in keys:
        group = [r for r in rows if (r["backend"], r["games"]) == (backend, games)]
        one = [r for r in group if r["target"] == "project"]
        two = [r for r in group if r["target"] == "project-2w-routed"]
        raw = [r for r in group if r["kind"] == "raw"]
        lines.append(
            f"| {backend} | {games} | {games * PLAYERS:,} | {med(one, 'p99_ms')} | {med(two, 'p99_ms')} "
            f"| {med(raw, 'p99_ms', 1)} | {med(one, 'delivered', 2)} / {med(two, 'delivered', 2)} "
            f"| {med(one, 'refused')} / {med(two, 'refused')} "
            f"| {med(one, 'server_cores', 2)} / {med(two, 'server_cores', 2)} "
            f"| {med(group, 'loadgen_cores', 2)} ({med(group, 'loadgen_cores_max', 2)}) "
            f"| {med(group, 'load1', 1)} |")
    return "\n".join(lines)


def summary(rows: list[dict[str, Any]]) -> str:
    """Markdown: min / median / max over the repetitions, each p99 as a ratio to the raw
    server's p99 in the same repetition."""
    def mmm(values: list[float], digits: int = 1) -> str:
        values = [v for v in values if v == v]
        if not values:
            return "–"
        return " / ".join(f"{v:.{digits}f}" for v in (min(values), statistics.median(values), max(values)))

    lines = ["| backend | games | clients | server | p50 ms | p99 ms | raw p99 ms | p99 ÷ raw "
             "| delivered in time | raw delivered | refreshes/s | read marks/s | server cores "
             "| generator cores (busiest) | load1 |",
             "|---|---:|---:|---|---|---|---|---|---|---|---|---|---|---|---|"]
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
                f"| {col('server_cores', 2)} | {col('loadgen_cores', 2)} "
                f"({mmm([r.get('loadgen_cores_max', float('nan')) for r in mine], 2)}) | {col('load1', 1)} |")
    paged = [r for r in rows if r.get("pages_per_s")]
    if paged:  # --pages: the page loads beside the posts
        lines += ["", "| backend | games | server | page loads/s | page p50 ms | page p99 ms |",
                  "|---|---:|---|---|---|---|"]
        for key in dict.fromkeys((r["backend"], r["games"], r["target"]) for r in paged):
            mine = [r for r in paged if (r["backend"], r["games"], r["target"]) == key]
            cols = [mmm([r[k] for r in mine]) for k in ("pages_per_s", "page_p50_ms", "page_p99_ms")]
            lines.append(f"| {key[0]} | {key[1]} | {key[2]} | {' | '.join(cols)} |")
    return "\n".join(lines)


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", default="1,5,10,25")
    parser.add_argument("--backends", default="sqlite,postgresql")
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--window", type=float, default=10.0, help="seconds of offered load per window")
    parser.add_argument("--drain", type=float, default=10.0, help="seconds to wait for late deliveries")
    parser.add_argument("--settle", type=float, default=60.0,
                        help="after a window, wait up to this many seconds for its servers to go idle")
    parser.add_argument("--rate", type=float, default=2.0, help="chat messages per second per game")
    parser.add_argument("--pages", type=float, default=0.0,
                        help="inbox page loads per second per game (people navigating; project only)")
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
    parser.add_argument("--before", default=None, metavar="COMMIT",
                        help="also run the server at this commit (git archive of its src), on its "
                             "own copy of the games, its windows interleaved with this tree's: "
                             "before/after in one run")
    parser.add_argument("--before-env", action="append", default=[], metavar="NAME=VALUE",
                        help="an environment variable for the --before server only (repeatable): "
                             "with --before HEAD, an A/B of a setting in one run")
    parser.add_argument("--live-js", choices=("push", "refetch"), default="push",
                        help="the client model: today's live.js (pushed messages, batched read "
                             "marker, coalesced re-fetches) or the one before (a re-fetch per event)")
    parser.add_argument("--read-every", type=float, default=READ_EVERY,
                        help="seconds between a client's batched read-marker reports (live.js: 5)")
    parser.add_argument("--read-via", choices=("ws", "http"), default="ws",
                        help="how a client reports its read marker: on its socket (live.js while "
                             "the socket is open; since session 18 only what came while the tab "
                             "was hidden: a server that takes a page's view marks the rest, and "
                             "a visible page reports nothing) or by POST …/read (before session 6)")
    parser.add_argument("--post-via", default="ws",
                        help="posts as the browser's chat composer sends them: ws, a command frame "
                             "on the author's socket (live.js since session 15); form, its htmx "
                             "form (the composer without a socket; the default in sessions "
                             "10-14); api, the JSON API (sessions 5-9); or several, e.g. ws,form: "
                             "a target of this tree for each further way, windows interleaved")
    parser.add_argument("--client-procs", type=int, default=None,
                        help="load generator processes, each owning whole games (default: one per "
                             f"{SOCKETS_PER_CLIENT_PROC} of a target's sockets, and enough for the "
                             "open-files limit)")
    parser.add_argument("--max-minutes", type=float, default=60.0)
    parser.add_argument("--out", default=str(ROOT / "var" / "bench-load" / "results.jsonl"))
    parser.add_argument("--summarize", metavar="JSONL", help="only print the table of an earlier run")
    parser.add_argument("--plan", action="store_true",
                        help="only print each configuration's processes, sockets and time")
    args = parser.parse_args()
    if args.summarize:
        with open(args.summarize, encoding="utf-8") as f:
            rows = [json.loads(line) for line in f if line.strip()]
        print(summary(rows))
        if any(r["target"] == "project-2w-routed" for r in rows):
            print()
            print(curve(rows))
        return
    args.open_files = raise_open_files()
    if args.plan:
        try:
            print_plan(args)
        except HarnessError as e:
            raise SystemExit(f"bench/load.py: {e}") from None
        return
    print(f"# open files: {args.open_files} per process", flush=True)
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    rows: list[dict[str, Any]] = []
    args.deadline = time.monotonic() + args.max_minutes * 60
    with open(args.out, "a", encoding="utf-8") as out:
        for games in (int(g) for g in args.games.split(",")):  # the time limit cuts the largest
            for backend in args.backends.split(","):
                args.current_backend = backend
                need = estimated_seconds(args, games)
                if time.monotonic() + need > args.deadline:
                    print(f"# {backend}, {games} games: not started, about {need / 60:.0f} min "
                          f"and {(args.deadline - time.monotonic()) / 60:.0f} min left (--max-minutes)",
                          flush=True)
                    continue
                try:
                    rows += await one_configuration(args, backend, games, out)
                except HarnessError as e:
                    raise SystemExit(f"bench/load.py: {e}") from None
    print()
    print(summary(rows))
    if args.two_workers_routed:
        print()
        print(curve(rows))


if __name__ == "__main__":
    asyncio.run(main())
