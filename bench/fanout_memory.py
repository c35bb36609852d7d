"""What one idle subscribed socket holds in the project's server (issue 17: ≤ 50 KB per
client): a ``tracemalloc`` snapshot diff of the server before and after N sockets connect.

The server is ``bench/load_server.py`` run under ``-X tracemalloc`` with a SIGUSR1 handler
that writes a snapshot; the games are warmed (every city's inbox page drawn once) before
the first snapshot, so the diff is what the sockets add: per file and line, and per
package. RSS per client is printed beside it (tracemalloc sees Python's allocations only,
not OpenSSL/zlib buffers or the allocator's slack).

    python bench/fanout_memory.py [--games 2]
"""

from __future__ import annotations

import argparse
import asyncio
import functools
import os
import pickle
import shutil
import signal
import subprocess
import sys
import time
import tracemalloc
from collections import Counter
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))


def serve() -> None:
    """The server side: load_server's main, plus a snapshot on SIGUSR1."""
    out = os.environ["FANOUT_SNAPSHOT"]

    def dump(*_: Any) -> None:
        import gc

        gc.collect()
        snap = tracemalloc.take_snapshot()
        with open(out + ".tmp", "wb") as f:
            pickle.dump(snap, f)
        os.replace(out + ".tmp", out)

    signal.signal(signal.SIGUSR1, dump)
    sys.argv = [sys.argv[0], *sys.argv[2:]]
    import load_server

    load_server.main()


def package(filename: str) -> str:
    parts = Path(filename).parts
    for anchor in ("site-packages", "lepromafia"):
        if anchor in parts:
            i = parts.index(anchor)
            return "/".join(parts[i + 1:i + 3]) if anchor == "lepromafia" else f"{parts[i + 1]}/{parts[-1]}"
    return Path(filename).parent.name + "/" + Path(filename).name if "python3" in filename else filename


async def snapshot(proc: subprocess.Popen[bytes], path: Path) -> tracemalloc.Snapshot:
    path.unlink(missing_ok=True)
    proc.send_signal(signal.SIGUSR1)
    for _ in range(600):
        await asyncio.sleep(0.1)
        if path.exists():
            with open(path, "rb") as f:
                found: tracemalloc.Snapshot = pickle.load(f)
                return found
    raise TimeoutError("no snapshot")


async def main() -> None:
    from fanout import FanoutHarness
    from load import READ_EVERY, Target, free_port, rss_kb
    from load_setup import create_games, server_command, until_listening

    from lepromafia.store.database import DatabaseConfig

    parser = argparse.ArgumentParser()
    parser.add_argument("--games", type=int, default=2)
    parser.add_argument("--top", type=int, default=25)
    parser.add_argument("--deflate", action="store_true",
                        help="clients offer permessage-deflate, as browsers do (aiohttp: compress=15)")
    args = parser.parse_args()
    args.live_js, args.read_every, args.current_backend, args.max_minutes = "push", READ_EVERY, "sqlite", 10
    workdir = ROOT / "var" / "bench-fanout" / "memory"
    shutil.rmtree(workdir, ignore_errors=True)
    workdir.mkdir(parents=True)
    db = DatabaseConfig(f"sqlite:///{workdir}/games.db")
    manifest = await create_games(db, args.games)
    t = Target("project", "project", free_port(), db=db)
    cmd, env = server_command("project", t.port, manifest, workdir, db, ROOT / "bench")
    snap_path = workdir / "snapshot.pickle"
    env["FANOUT_SNAPSHOT"] = str(snap_path)
    cmd = [sys.executable, "-X", "tracemalloc=1", str(Path(__file__)), "--serve", *cmd[2:]]
    with open(workdir / "server.log", "wb") as log:
        t.proc = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT, env=env)
    h = FanoutHarness(args, manifest, workdir)
    if args.deflate:
        connect = h.ws_http.ws_connect
        h.ws_http.ws_connect = functools.partial(connect, compress=15)  # type: ignore[method-assign]
    try:
        await until_listening(t.proc, t.port, t.name, workdir / "server.log", every=0.5)
        await h.regions_of(t)  # warm every game (its state, its streams) before the first snapshot
        await asyncio.sleep(1)
        before, rss0 = await snapshot(t.proc, snap_path), rss_kb(t.proc.pid)
        await h.connect(t)
        await asyncio.sleep(3)
        after, rss1 = await snapshot(t.proc, snap_path), rss_kb(t.proc.pid)
        n = len(t.clients)
        diff = after.compare_to(before, "lineno")
        total = sum(d.size_diff for d in diff)
        offer = " (permessage-deflate)" if args.deflate else ""
        print(f"# {n} idle subscribed sockets{offer}: tracemalloc {total / n / 1024:.1f} KB/client, "
              f"RSS {(rss1 - rss0) / n:.1f} KB/client")
        by_package: Counter[str] = Counter()
        for d in diff:
            by_package[package(d.traceback[0].filename)] += d.size_diff
        print("\n| package | KB per client |\n|---|---:|")
        for name, size in by_package.most_common(12):
            print(f"| {name} | {size / n / 1024:.2f} |")
        print("\n| allocation site | KB per client | blocks per client |\n|---|---:|---:|")
        for d in diff[:args.top]:
            frame = d.traceback[0]
            print(f"| {package(frame.filename)}:{frame.lineno} | {d.size_diff / n / 1024:.2f} "
                  f"| {d.count_diff / n:.1f} |")
    finally:
        await h.disconnect(t)
        h.stop(t)
        await h.close()
        time.sleep(0.1)


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "--serve":
        serve()
    else:
        asyncio.run(main())
