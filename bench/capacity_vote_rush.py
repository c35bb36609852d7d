"""Vote rush in 10 cities at once (issue 17: "ack and tally p99 < 100 ms"), the project's
server beside the raw ``websockets`` baseline in the same run.

    python bench/capacity_vote_rush.py [--games 2] [--seconds 5] [--reps 3] [--rebuild] [--out FILE]

``--games`` games of 100 players (``capacity_games``; 2 games = 10 cities) at Day 2, 20:01,
three candidates' voting inboxes open in every city (EXEC-4). Every resident of every city
has a socket subscribed to his game. A rush: every living resident who is not a candidate
(17 per city, 170 for 10 cities) votes «казнить» for a random candidate with the voting
inbox's button as the browser sends it (``--post-via form``: the htmx form, whose answer is the
voting inbox's region; ``--post-via api``: ``PostMessage`` through the JSON API, sessions
5-9; EXEC-5), all within ``--seconds`` seconds, the
arrivals denser towards the end (density ∝ t: the last moments at twice the mean rate);
then the same voters withdraw («не казнить», EXEC-8) in a second rush of the same shape.
Measured per vote: **ack** (HTTP answer) and **tally** (the ``VoteCast`` event reaching each
of the city's 20 residents' sockets: the tally they see has the vote in it).

The raw baseline is ``load_raw.py`` given the same traffic: each vote a frame on the
game's writer socket, acknowledged by the raw server after it has ``broadcast`` one event
frame to the city's 20 subscribed residents. Each repetition takes the project's two
rushes, then the raw server's; cells are min / median / max over the repetitions, ratios
per repetition.

Bounded: every wait has a timeout; only 127.0.0.1 is contacted.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
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

from capacity_games import append_rows, cached, positions, working_copy  # noqa: E402
from load_clients import post_form, refused  # noqa: E402
from load_setup import server_command, until_listening  # noqa: E402
from reconnect import Server, raise_file_limit, subscribe_once  # noqa: E402

DRAIN = 20.0


class SourceServer(Server):
    """The project's server run from another checkout's ``src`` (``--before-src``: the
    code before a change, measured in the same run with the same clients)."""

    def __init__(self, src: Path, *args: Any) -> None:
        super().__init__(*args)
        self.src = src

    async def start(self) -> None:
        cmd, env = server_command(self.kind, self.port, self.manifest, self.workdir, self.db, ROOT / "bench")
        env["PYTHONPATH"] = str(self.src)
        env["LEPROMAFIA_LOG_LEVEL"] = "warning"
        self.proc = subprocess.Popen(cmd, stdout=self.log.open("wb"), stderr=subprocess.STDOUT, env=env)
        await until_listening(self.proc, self.port, f"the {self.src} server", self.log)


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else float("nan")


def arrivals(n: int, seconds: float, rng: random.Random) -> list[float]:
    """``n`` moments in [0, seconds) with density ∝ t (inverse CDF: seconds × sqrt(u))."""
    return sorted(seconds * rng.random() ** 0.5 for _ in range(n))


class Rush:
    def __init__(self, server: Server, manifest: dict[str, Any], since: dict[str, int],
                 post_via: str = "form") -> None:
        self.server, self.manifest, self.since, self.post_via = server, manifest, since, post_via
        self.seed = uuid.uuid4().hex
        """The voters' CSRF cookie (``--post-via form``), to which each minted token is bound."""
        self.answer_bytes: list[int] = []
        self.sent: dict[str, float] = {}
        """vote key -> send time"""
        self.tally: dict[str, list[float]] = {}
        self.acks: list[float] = []
        self.refused = 0
        self.readers: list[asyncio.Task[None]] = []
        self.sockets: list[aiohttp.ClientWebSocketResponse] = []
        self.writers: dict[str, aiohttp.ClientWebSocketResponse] = {}
        self.raw_acks: dict[str, asyncio.Future[None]] = {}
        self.http = aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=256))
        self.active: dict[tuple[str, str], str] = {}

    def key_of(self, payload: dict[str, Any], game: str) -> str | None:
        if self.server.kind == "raw":
            text = payload.get("text", "")
            return text[3:].split(" ", 1)[0] if text.startswith("lg:") else None
        if payload.get("type") != "VoteCast":
            return None
        return f"{game}/{payload.get('voter')}/{payload.get('keyword')}"

    async def read(self, game: str, ws: aiohttp.ClientWebSocketResponse) -> None:
        async for msg in ws:
            if msg.type != aiohttp.WSMsgType.TEXT:
                return
            data = json.loads(msg.data)
            if data.get("type") != "event":
                continue
            key = self.key_of(data.get("payload", {}), game)
            if key is not None and key in self.sent:
                self.tally.setdefault(key, []).append(time.perf_counter() - self.sent[key])

    async def connect(self) -> None:
        url = f"ws://127.0.0.1:{self.server.port}/ws"
        gate = asyncio.Semaphore(32)

        async def one(game: str, user: str) -> None:
            async with gate:
                target = url if self.server.kind == "project" else f"{url}?user={user}"
                _, ws = await subscribe_once(self.http, target, self.manifest["tokens"][user], game,
                                             self.since[f"{game}/{user}"])
                self.sockets.append(ws)
                self.readers.append(asyncio.ensure_future(self.read(game, ws)))

        await asyncio.gather(*(one(g, u) for g, spec in self.manifest["games"].items()
                               for c in spec["cities"].values() for u in c["residents"]))
        if self.server.kind == "raw":
            for game in self.manifest["games"]:
                ws = await self.http.ws_connect(f"ws://127.0.0.1:{self.server.port}/post")
                self.writers[game] = ws
                self.readers.append(asyncio.ensure_future(self.read_acks(ws)))

    async def read_acks(self, ws: aiohttp.ClientWebSocketResponse) -> None:
        async for msg in ws:
            if msg.type != aiohttp.WSMsgType.TEXT:
                return
            future = self.raw_acks.pop(json.loads(msg.data)["ack"], None)
            if future is not None and not future.done():
                future.set_result(None)

    async def vote(self, game: str, city: str, voter: str, candidate: str, keyword: str) -> None:
        inbox = self.manifest["votes"][game][city][candidate]
        sent = time.perf_counter()
        try:
            if self.server.kind == "raw":
                mid = uuid.uuid4().hex[:12]
                self.sent[mid] = sent
                future = asyncio.get_running_loop().create_future()
                self.raw_acks[mid] = future
                await self.writers[game].send_str(json.dumps(
                    {"game": game, "city": city, "author": voter, "text": f"lg:{mid} {keyword}", "id": mid},
                    ensure_ascii=False))
                await asyncio.wait_for(future, DRAIN)
            elif self.post_via == "form":  # the vote button: htmx, the whole region back
                self.sent[f"{game}/{voter}/{keyword}"] = sent
                if not await self.press(game, inbox, voter, keyword):
                    return
            else:
                self.sent[f"{game}/{voter}/{keyword}"] = sent
                async with self.http.post(
                        f"http://127.0.0.1:{self.server.port}/api/games/{game}/commands/PostMessage",
                        headers={"Authorization": f"Bearer {self.manifest['tokens'][voter]}"},
                        json={"command_id": uuid.uuid4().hex, "inbox": inbox, "text": keyword}) as resp:
                    body = await resp.read()
                    if resp.status != 200:
                        self.refused += 1
                        print(f"refused {resp.status}: {body[:200]!r}", file=sys.stderr)
                        return
            self.acks.append(time.perf_counter() - sent)
        except (TimeoutError, aiohttp.ClientError, OSError):
            self.refused += 1

    async def press(self, game: str, inbox: str, voter: str, keyword: str) -> bool:
        """The voting inbox's button, as the browser sends it (htmx, cookies, the form's
        token; its answer the region with the tally and the vote log); False if refused."""
        base = f"http://127.0.0.1:{self.server.port}"
        status, body = await post_form(self.http, base, game, inbox, self.manifest["tokens"][voter],
                                       self.seed, keyword, target="inbox-live")
        if refused(status, body):
            self.refused += 1
            print(f"refused {status}: {body[:200]!r}", file=sys.stderr)
            return False
        self.answer_bytes.append(len(body))
        return True

    async def rush(self, keyword: str, seconds: float, rng: random.Random) -> dict[str, Any]:
        self.sent.clear()
        self.tally.clear()
        self.acks.clear()
        self.answer_bytes.clear()
        self.refused = 0
        ballots = []
        for game, cities in self.manifest["votes"].items():
            for city, candidates in cities.items():
                for voter in self.manifest["games"][game]["cities"][city]["residents"]:
                    if voter in candidates:
                        continue
                    if keyword == "казнить":
                        self.active[(game, voter)] = rng.choice(sorted(candidates))
                    ballots.append((game, city, voter, self.active[(game, voter)]))
        rng.shuffle(ballots)
        start = time.perf_counter()
        tasks = []
        moments = arrivals(len(ballots), seconds, rng)
        for at, (game, city, voter, candidate) in zip(moments, ballots, strict=True):
            await asyncio.sleep(max(0.0, start + at - time.perf_counter()))
            tasks.append(asyncio.ensure_future(self.vote(game, city, voter, candidate, keyword)))
        await asyncio.wait(tasks, timeout=DRAIN)
        expected = len(ballots) * 20
        end = time.perf_counter() + DRAIN
        while sum(len(v) for v in self.tally.values()) < expected and time.perf_counter() < end:
            await asyncio.sleep(0.05)
        tallies = [x for v in self.tally.values() for x in v]
        return {"votes": len(ballots), "refused": self.refused,
                "delivered": round(len(tallies) / max(1, expected), 4),
                "ack_p50_ms": round(1000 * pct(self.acks, 0.5), 1),
                "ack_p99_ms": round(1000 * pct(self.acks, 0.99), 1),
                "tally_p50_ms": round(1000 * pct(tallies, 0.5), 1),
                "tally_p99_ms": round(1000 * pct(tallies, 0.99), 1),
                "answer_kb": round(statistics.median(self.answer_bytes) / 1024, 1)
                if self.answer_bytes else None}

    async def close(self) -> None:
        for ws in [*self.sockets, *self.writers.values()]:
            await ws.close()
        for task in self.readers:
            task.cancel()
        await asyncio.gather(*self.readers, return_exceptions=True)
        await self.http.close()


async def run(args: argparse.Namespace) -> list[dict[str, Any]]:
    name = f"rush-{args.games}x100"
    db, manifest = await cached(name, args.games, args.rebuild, vote_day=2, posts_per_city_hour=2.0)
    rows: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory(prefix="lm-rush-") as tmp:
        workdir = Path(tmp)
        project = Server("project", workdir, manifest, working_copy(db, workdir))
        raw = Server("raw", workdir, manifest, None)
        servers: dict[str, Server] = {"project": project, "raw": raw}
        if args.before_src:
            before = SourceServer(Path(args.before_src), "project", workdir, manifest,
                                  working_copy(db, workdir, "before.db"))
            before.log = workdir / "before.log"
            servers = {"project": project, "before": before, "raw": raw}
        for server in servers.values():
            await server.start()
        since = await positions(name, project, manifest)
        rushes = {name: Rush(s, manifest, since, args.post_via) for name, s in servers.items()}
        try:
            for r in rushes.values():
                await r.connect()
            for rep in range(args.reps):
                row: dict[str, Any] = {"rep": rep, "games": args.games,
                                       "cities": sum(len(v) for v in manifest["votes"].values())}
                for kind, r in rushes.items():
                    rng = random.Random(rep)
                    proc = servers[kind].proc
                    cpu0 = _cpu(proc.pid) if proc else 0.0
                    row[kind] = {"vote": await r.rush("казнить", args.seconds, rng),
                                 "withdraw": await r.rush("не казнить", args.seconds, rng)}
                    if proc:
                        row[kind]["server_cpu_s"] = round(_cpu(proc.pid) - cpu0, 2)
                for phase in ("vote", "withdraw"):
                    for kind in rushes:
                        if kind == "raw":
                            continue
                        p, q = row[kind][phase], row["raw"][phase]
                        suffix = "" if kind == "project" else f"_{kind}"
                        row[f"{phase}_ratio{suffix}"] = {k: round(p[k] / q[k], 2) if q[k] else None
                                                         for k in ("ack_p99_ms", "tally_p99_ms")}
                row["load1"] = round(os.getloadavg()[0], 2)
                rows.append(row)
                print(json.dumps(row, ensure_ascii=False), flush=True)
        finally:
            for r in rushes.values():
                await r.close()
            for server in servers.values():
                server.stop()
            print(project.log_counts(), flush=True)
    return rows


def _cpu(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def summary(rows: list[dict[str, Any]]) -> str:
    def mmm(values: list[float]) -> str:
        return " / ".join(f"{v:.1f}" for v in (min(values), statistics.median(values), max(values)))

    lines = ["| rush | server | ack p50 ms | ack p99 ms | tally p50 ms | tally p99 ms | delivered "
             "| refused |",
             "|---|---|---|---|---|---|---|---|"]
    for phase in ("vote", "withdraw"):
        for kind in [k for k in ("project", "before", "raw") if k in rows[0]]:
            cells = [r[kind][phase] for r in rows]
            lines.append(f"| {phase} | {kind} | " + " | ".join(
                mmm([c[k] for c in cells]) for k in ("ack_p50_ms", "ack_p99_ms", "tally_p50_ms",
                                                     "tally_p99_ms", "delivered", "refused")) + " |")
        lines.append(f"| {phase} | project ÷ raw | "
                     f"| {mmm([r[phase + '_ratio']['ack_p99_ms'] for r in rows])} "
                     f"| | {mmm([r[phase + '_ratio']['tally_p99_ms'] for r in rows])} | | |")
        if f"{phase}_ratio_before" in rows[0]:
            lines.append(f"| {phase} | before ÷ raw | | "
                         f"{mmm([r[phase + '_ratio_before']['ack_p99_ms'] for r in rows])} | | "
                         f"{mmm([r[phase + '_ratio_before']['tally_p99_ms'] for r in rows])} | | |")
    lines.append(f"load1 {mmm([r['load1'] for r in rows])}")
    return "\n".join(lines)


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=2)
    parser.add_argument("--seconds", type=float, default=5.0)
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--rebuild", action="store_true")
    parser.add_argument("--post-via", choices=("form", "api"), default="form",
                        help="votes as the browser's buttons send them (htmx form) or through the JSON "
                             "API (sessions 5-9)")
    parser.add_argument("--before-src", default="",
                        help="also run the project's server from this src directory (e.g. a worktree "
                             "of the commit before a change), same clients, same run")
    parser.add_argument("--out", default=str(ROOT / "var" / "bench-capacity-vote-rush.jsonl"))
    args = parser.parse_args()
    print(f"file limit {raise_file_limit()}; load {os.getloadavg()}", flush=True)
    rows = await run(args)
    append_rows(args.out, rows)
    print(summary(rows))


if __name__ == "__main__":
    asyncio.run(main())
