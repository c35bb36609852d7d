"""What one chat post costs the server: the composer's htmx post against the JSON API, in a
city inbox whose thread is full (issue 17, docs/performance.md "Session 10").

One 100-player game on SQLite, set up as the load benchmark sets it up
(``load_setup.create_games``); its first city's inbox is filled with ``--fill`` messages
first (a thread of up to 500 shown, as late in a game day). Then, for each server in turn
(this tree, and with ``--before COMMIT`` the project at that commit, each on its own copy
of the store), ``--posts`` sequential posts of one resident: the composer's htmx post
(cookies, its form token, ``HX-Target: composer-card``), the same message through
``POST /api/games/{g}/commands/PostMessage``, and as a ``command`` frame on the author's
socket (``--ways``; the last only where the tree has it). Per post: the server's CPU time (/proc, all
threads), the answer's wall time and size. ``--rounds`` rounds, servers interleaved.
``LEPROMAFIA_BENCH_PYSPY=<py-spy>`` samples each server through each way's posts.

    python bench/post_cost.py [--before d31aff2] [--posts 200] [--rounds 2]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import re
import shutil
import signal
import statistics
import subprocess
import sys
import time
import uuid
from pathlib import Path
from typing import Any

import aiohttp

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))

from load import cpu_seconds, extract_tree, free_port  # noqa: E402
from load_clients import post_form, refused  # noqa: E402
from load_setup import create_games, pyspy, server_command, until_listening  # noqa: E402

from lepromafia.store.database import DatabaseConfig  # noqa: E402

TOKEN = re.compile(r'name="csrf_token" value="([^"]+)"')


class Server:
    def __init__(self, name: str, tree: Path, db: Path, manifest: dict[str, Any], workdir: Path) -> None:
        self.name, self.tree, self.db, self.manifest, self.workdir = name, tree, db, manifest, workdir
        self.port = free_port()
        self.proc: subprocess.Popen[bytes] | None = None

    async def start(self) -> None:
        cmd, env = server_command("project", self.port, self.manifest, self.workdir,
                                  DatabaseConfig(f"sqlite+aiosqlite:///{self.db}"), ROOT / "bench")
        env["PYTHONPATH"] = str(self.tree / "src")
        log = self.workdir / f"{self.name}.log"
        self.proc = subprocess.Popen(cmd, env=env, stdout=log.open("wb"), stderr=subprocess.STDOUT)
        await until_listening(self.proc, self.port, self.name, log)

    def stop(self) -> None:
        if self.proc is not None:
            self.proc.terminate()
            self.proc.wait(30)


def profile(server: Server, way: str) -> subprocess.Popen[bytes] | None:
    """With LEPROMAFIA_BENCH_PYSPY=<py-spy binary>, sample the server while it takes one
    way's posts (raw collapsed stacks, ``{server}-{way}.pyspy.txt`` in the run's directory)."""
    if server.proc is None:
        return None
    spy = pyspy(server.proc.pid, server.workdir / f"{server.name}-{way}.pyspy.txt", rate=500)
    if spy is not None:
        time.sleep(1.0)  # py-spy attaches before the first post
    return spy


async def measure(server: Server, http: aiohttp.ClientSession, posts: int,
                  ways: tuple[str, ...] = ("htmx", "api")) -> list[dict[str, Any]]:
    """``posts`` posts of each way in turn (htmx form, JSON API, a command frame on the
    author's socket), by one resident of the first city."""
    m = server.manifest
    game = sorted(m["games"])[0]
    city = sorted(m["games"][game]["cities"])[0]
    spec = m["games"][game]["cities"][city]
    author, inbox = spec["residents"][0], spec["inbox"]
    base = f"http://127.0.0.1:{server.port}"
    assert server.proc is not None
    seed = uuid.uuid4().hex

    async def htmx(text: str) -> int:
        status, body = await post_form(http, base, game, inbox, m["tokens"][author], seed, text)
        assert not refused(status, body), (status, body[:300])
        return len(body)

    async def api(text: str) -> int:
        async with http.post(f"{base}/api/games/{game}/commands/PostMessage",
                             headers={"Authorization": f"Bearer {m['tokens'][author]}"},
                             json={"command_id": uuid.uuid4().hex, "inbox": inbox, "text": text}) as r:
            body = await r.read()
            assert r.status == 200, (r.status, body[:300])
            return len(body)

    socket: aiohttp.ClientWebSocketResponse | None = None

    async def ws(text: str) -> int:  # a command frame on the author's socket (web/ws/commands.py)
        nonlocal socket
        if socket is None:
            socket = await http.ws_connect(f"ws://127.0.0.1:{server.port}/ws",
                                           headers={"Authorization": f"Bearer {m['tokens'][author]}"})
        cid = uuid.uuid4().hex
        await socket.send_str(json.dumps({"type": "command", "id": cid, "game": game,
                                          "name": "PostMessage", "args": {"inbox": inbox, "text": text}}))
        frame = await socket.receive()
        assert json.loads(frame.data).get("type") == "ack", frame.data
        return len(frame.data)

    rows = []
    for way, post in (("htmx", htmx), ("api", api), ("ws", ws)):
        if way not in ways:
            continue
        if way == "ws":
            await post("Сокет открыт")  # the socket's handshake is not a post's cost
        spy = profile(server, way)
        cpu, started, size = cpu_seconds(server.proc.pid), time.perf_counter(), 0
        for i in range(posts):
            size = await post(f"Сообщение {i} в городской чат")
        if spy is not None:
            spy.send_signal(signal.SIGINT)
            spy.wait(30)
        if socket is not None:
            await socket.close()
            socket = None
        rows.append({"server": server.name, "post": way,
                     "cpu_ms": (cpu_seconds(server.proc.pid) - cpu) / posts * 1000,
                     "wall_ms": (time.perf_counter() - started) / posts * 1000, "bytes": size})
    return rows


async def fill(server: Server, http: aiohttp.ClientSession, messages: int) -> None:
    """The first city's inbox filled with ``messages`` posts of its residents (the API)."""
    m = server.manifest
    game = sorted(m["games"])[0]
    spec = m["games"][game]["cities"][sorted(m["games"][game]["cities"])[0]]
    for i in range(messages):
        author = spec["residents"][i % len(spec["residents"])]
        async with http.post(f"http://127.0.0.1:{server.port}/api/games/{game}/commands/PostMessage",
                             headers={"Authorization": f"Bearer {m['tokens'][author]}"},
                             json={"command_id": f"fill-{i}", "inbox": spec["inbox"],
                                   "text": f"Сообщение {i}: кто за кого голосует сегодня?"}) as r:
            assert r.status == 200, await r.text()


async def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--before", default="", help="also the project at this commit")
    parser.add_argument("--posts", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--fill", type=int, default=600)
    parser.add_argument("--ways", default="htmx,api,ws", help="which posts to measure")
    parser.add_argument("--out", default=str(ROOT / "var" / "bench-post-cost"))
    args = parser.parse_args()
    workdir = Path(args.out)
    shutil.rmtree(workdir, ignore_errors=True)
    workdir.mkdir(parents=True)
    filled = workdir / "filled.db"
    manifest = await create_games(DatabaseConfig(f"sqlite+aiosqlite:///{filled}"), 1)
    trees = {"project": ROOT}
    if args.before:
        extract_tree(args.before, workdir / "before-tree")
        trees = {"before": workdir / "before-tree", **trees}
    async with aiohttp.ClientSession() as http:
        first = Server("fill", ROOT, filled, manifest, workdir)
        await first.start()
        try:
            await fill(first, http, args.fill)
        finally:
            first.stop()
        rows: list[dict[str, Any]] = []
        for rnd in range(args.rounds):
            for name, tree in trees.items():
                db = workdir / f"{name}-{rnd}.db"
                shutil.copy(filled, db)
                server = Server(name, tree, db, manifest, workdir)
                await server.start()
                ways = tuple(w for w in args.ways.split(",")  # a tree before session 15: no ws
                             if w != "ws" or (tree / "src/lepromafia/web/ws/commands.py").exists())
                try:
                    for row in await measure(server, http, args.posts, ways):
                        rows.append({**row, "round": rnd})
                        print(json.dumps(rows[-1]), flush=True)
                finally:
                    server.stop()
    print("\n| server | post | server CPU ms per post | answer ms | answer bytes |\n|---|---|---|---|---|")
    for name in trees:
        for way in args.ways.split(","):
            mine = [r for r in rows if r["server"] == name and r["post"] == way]
            if not mine:
                continue
            print(f"| {name} | {way} | " + " | ".join(
                " / ".join(f"{v:,.1f}" for v in (min(vals), statistics.median(vals), max(vals)))
                for vals in ([r["cpu_ms"] for r in mine], [r["wall_ms"] for r in mine],
                             [float(r["bytes"]) for r in mine])) + " |")


if __name__ == "__main__":
    asyncio.run(main())
