"""Server CPU per HTTP request (issue 17, session 6): the project's server before and after
a change, and a bare FastAPI app with one route and no middleware, in one run.

    python bench/request_overhead.py --base /tmp/http-base [--blocks 5] [--requests 200]

``--base`` is a checkout of the "before" code (``git worktree add --detach /tmp/http-base
main``): its ``bench/load_server.py`` and ``src`` are run with this venv. Each project server
gets its own copy of the same games. Requests, one at a time (the cost, not the latency),
from every resident of one game in turn:

- ``post``: the ``PostMessage`` API command (bearer token);
- ``htmx``: the inbox form's htmx POST (``…/inboxes/{i}/post``, the route a vote button
  and a typed «казнить» take; here a chat message: the game is on Day 1 before any vote);
- ``read``: the read marker, ``POST …/inboxes/{i}/read {upto}``;
- ``region``: the inbox region, ``GET …/inboxes/{i}/part``.

The bare app answers the same method and a body of the same size. The figure is each
server's own CPU time (/proc, all threads) per request over a block; blocks interleave the
servers, so a busy machine inflates all three alike and the ratios carry over.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import secrets
import shutil
import statistics
import subprocess
import sys
import time
import uuid
from pathlib import Path
from typing import Any

import aiohttp
from load import CSRF_COOKIE, ROOT, SESSION_COOKIE, cpu_seconds, free_port
from load_setup import create_games, stop_server, until_listening

from lepromafia.store.database import DatabaseConfig

KINDS = ("post", "htmx", "read", "region")


def bare_app() -> Any:
    """One route, no middleware: what uvicorn and FastAPI cost by themselves."""
    from fastapi import FastAPI, Request, Response

    app = FastAPI()

    @app.api_route("/{rest:path}", methods=["GET", "POST"])
    async def one(request: Request) -> Response:
        await request.body()
        return Response(b'{"ok":true}', media_type="application/json")

    return app


def serve_bare(port: int) -> None:
    import uvicorn

    from lepromafia.cli.serve_cmd import server_config

    config = server_config(bare_app(), "127.0.0.1", port, max_connections=20000, log_level="warning",
                           log_config=None, access_log=False)
    uvicorn.Server(config).run()


def csrf_pair(now: float) -> tuple[str, str]:
    """A CSRF cookie seed and a token bound to it, as a rendered page carries (the bench
    process derives the servers' signing key from the same settings)."""
    from lepromafia.cli.config import settings as load_settings
    from lepromafia.web.deps import _mac

    seed = secrets.token_urlsafe(24)
    nonce, expires = secrets.token_hex(16), int(now + 3600)
    return seed, f"{nonce}.{expires}.{_mac(load_settings().signing_key(), seed, nonce, expires)}"


class Server:
    def __init__(self, name: str, code: Path | None, db: Path | None, workdir: Path,
                 env: dict[str, str] | None = None) -> None:
        self.name, self.code, self.db, self.workdir = name, code, db, workdir
        self.port = free_port()
        self.env = env or {}
        self.proc: subprocess.Popen[bytes] | None = None

    async def start(self, manifest: dict[str, Any]) -> None:
        log = open(self.workdir / f"{self.name}.log", "wb")  # noqa: SIM115 - closed with the process
        env = {**os.environ, **self.env}
        if self.code is None:
            cmd = [sys.executable, __file__, "--serve-bare", str(self.port)]
            env["PYTHONPATH"] = str(ROOT / "src")
        else:
            env.update(PYTHONPATH=str(self.code / "src"), LEPROMAFIA_DATABASE_URL=f"sqlite:///{self.db}",
                       LEPROMAFIA_DATABASE_SCHEMA="", LEPROMAFIA_SWEEP_INTERVAL="1")
            cmd = [sys.executable, str(self.code / "bench" / "load_server.py"), "--port", str(self.port),
                   "--now", str(manifest["now"])]
        self.proc = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT, env=env)
        await until_listening(self.proc, self.port, self.name, self.workdir / f"{self.name}.log")

    def stop(self) -> None:
        stop_server(self.proc)


async def one(http: aiohttp.ClientSession, s: Server, kind: str, game: str, inbox: str, token: str,
              csrf: tuple[str, str], upto: int) -> None:
    base = f"http://127.0.0.1:{s.port}"
    cookie = f"{SESSION_COOKIE}={token}; {CSRF_COOKIE}={csrf[0]}"
    page = f"{base}/games/{game}/inboxes/{inbox}"
    if kind == "post":
        req = http.post(f"{base}/api/games/{game}/commands/PostMessage",
                        headers={"Authorization": f"Bearer {token}"},
                        json={"command_id": uuid.uuid4().hex, "inbox": inbox, "text": "сообщение для замера"})
        want = 200
    elif kind == "htmx":
        fresh = csrf_pair(time.time())  # a form's token is used once
        req = http.post(f"{page}/post", data={"text": "сообщение для замера"},
                        headers={"Cookie": f"{SESSION_COOKIE}={token}; {CSRF_COOKIE}={fresh[0]}",
                                 "X-CSRF-Token": fresh[1], "HX-Request": "true"})
        want = 200
    elif kind == "read":
        req = http.post(f"{page}/read", json={"upto": 1 + upto % 5},
                        headers={"Cookie": cookie, "X-CSRF-Token": csrf[1]})
        want = 204
    else:
        req = http.get(f"{page}/part", headers={"Cookie": cookie, "HX-Request": "true"})
        want = 200
    async with req as r:
        body = await r.read()
        if s.code is not None:
            assert r.status == want, (s.name, kind, r.status, body[:300])


async def block(http: aiohttp.ClientSession, s: Server, kind: str, n: int, users: list[tuple[str, str, str]],
                tokens: dict[str, str], csrf: tuple[str, str], counter: list[int]) -> float:
    """Server CPU milliseconds per request over ``n`` requests."""
    assert s.proc is not None
    before = cpu_seconds(s.proc.pid)
    for i in range(n):
        game, inbox, user = users[i % len(users)]
        counter[0] += 1
        await one(http, s, kind, game, inbox, tokens[user], csrf, counter[0])
    return (cpu_seconds(s.proc.pid) - before) * 1000 / n


def _mmm(values: list[float]) -> str:
    return f"{min(values):.2f} / {statistics.median(values):.2f} / {max(values):.2f}"


async def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--base", type=Path, required=True, help="checkout of the 'before' code")
    parser.add_argument("--blocks", type=int, default=5)
    parser.add_argument("--requests", type=int, default=200)
    parser.add_argument("--after-env", default="", help="KEY=VALUE,… for the 'after' server")
    args = parser.parse_args()
    workdir = ROOT / "var" / "bench-load" / "request-overhead"
    shutil.rmtree(workdir, ignore_errors=True)
    workdir.mkdir(parents=True)
    manifest = await create_games(DatabaseConfig(f"sqlite:///{workdir}/after.db"), 1)
    shutil.copy(workdir / "after.db", workdir / "before.db")
    after_env = dict(kv.split("=", 1) for kv in args.after_env.split(",") if kv)
    servers = [Server("bare", None, None, workdir),
               Server("before", args.base, workdir / "before.db", workdir),
               Server("after", ROOT, workdir / "after.db", workdir, after_env)]
    users = [(g, c["inbox"], u) for g, spec in manifest["games"].items()
             for c in spec["cities"].values() for u in c["residents"]]
    csrf = csrf_pair(time.time())
    results: dict[tuple[str, str], list[float]] = {}
    counter = [0]
    load1 = []
    async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=8)) as http:
        try:
            for s in servers:
                await s.start(manifest)
                for kind in KINDS:  # warm: games loaded, templates compiled
                    await block(http, s, kind, 20, users, manifest["tokens"], csrf, counter)
            for _ in range(args.blocks):
                load1.append(os.getloadavg()[0])
                for kind in KINDS:
                    for s in servers:
                        cost = await block(http, s, kind, args.requests, users, manifest["tokens"], csrf,
                                           counter)
                        results.setdefault((s.name, kind), []).append(cost)
        finally:
            for s in servers:
                s.stop()
    print("| request | bare ms | before ms | after ms | after ÷ before | before ÷ bare | after ÷ bare |")
    print("|---|---|---|---|---|---|---|")
    rows = []
    for kind in KINDS:
        bare, before, after = (results[(n, kind)] for n in ("bare", "before", "after"))
        ratio = [a / b for a, b in zip(after, before, strict=True)]
        rb = [b / r for b, r in zip(before, bare, strict=True)]
        ra = [a / r for a, r in zip(after, bare, strict=True)]
        print(f"| {kind} | {_mmm(bare)} | {_mmm(before)} | {_mmm(after)} | {_mmm(ratio)} "
              f"| {_mmm(rb)} | {_mmm(ra)} |")
        rows.append({"kind": kind, "bare": bare, "before": before, "after": after})
    print(f"{args.blocks} interleaved blocks of {args.requests} requests; "
          f"load1 {min(load1):.1f}–{max(load1):.1f}")
    (workdir / "results.json").write_text(json.dumps({"rows": rows, "load1": load1, "at": time.time()}),
                                          encoding="utf-8")


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "--serve-bare":
        serve_bare(int(sys.argv[2]))
    else:
        asyncio.run(main())
