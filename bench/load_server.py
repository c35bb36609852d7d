"""The project's server for the load benchmark: ``create_app`` under uvicorn exactly as
``lepromafia serve`` builds it (the same hardened config, JSON request logs to stdout),
on a clock shifted so that game time carries on from the manifest's moment.

    python bench/load_server.py --port P --now GAME_TIMESTAMP [--session-cache SECONDS]
    (the database from LEPROMAFIA_DATABASE_URL / DATABASE_URL, as for every command;
    LEPROMAFIA_BENCH_POOL_TRACE=1 prints connections held more than 2 s: bench/pool_trace.py;
    LEPROMAFIA_BENCH_GC_THRESHOLD=a,b,c sets the collector's thresholds;
    LEPROMAFIA_BENCH_SWITCH_INTERVAL=SECONDS sets the interpreter's thread switch interval;
    LEPROMAFIA_BENCH_CHECKPOINT_EVERY=SECONDS sets the SQLite checkpoints' spacing;
    LEPROMAFIA_BENCH_SQLITE_COMMIT=thread commits every SQLite write on the committing thread,
    as before session 23 (store/sqlite_inline.py commits inline while the disk is fast),
    and =inline every one on the loop, however slow the disk;
    LEPROMAFIA_BENCH_STALLS=FILE writes where the event loop stalled: bench/stalls.py;
    LEPROMAFIA_BENCH_GC_DUMP=FILE appends, on SIGUSR1, the collector's census by generation
    (types, and the references a collection visits), and on every second SIGUSR2 the
    types of what it found unreachable since the first;
    LEPROMAFIA_BENCH_PROBE=FILE.py runs that module before the app starts: bench/lane_stages.py)
"""

from __future__ import annotations

import argparse
import os
import resource
import time

import uvicorn

from lepromafia.cli.config import settings as load_settings
from lepromafia.cli.serve_cmd import server_config
from lepromafia.web import observability
from lepromafia.web.app import create_app


def raise_open_files() -> None:
    """Soft RLIMIT_NOFILE up to the hard one: thousands of sockets (bench/load.py checks
    beforehand that they fit)."""
    _, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))


class ShiftedClock:
    """Real time, moved so that it read ``start`` when the server started."""

    def __init__(self, start: float) -> None:
        self.offset = start - time.time()

    def now(self) -> float:
        return time.time() + self.offset


def dump_young_objects(path: str) -> None:
    """On SIGUSR1: the types of the objects the collector tracks, by generation (not frozen),
    into ``path`` (what its pauses scan; an experiment's probe)."""
    import collections
    import gc
    import json
    import signal

    def dump(*_: object) -> None:
        out: dict[str, object] = {}
        for generation in range(3):
            objects = gc.get_objects(generation)
            counts = collections.Counter(type(o).__qualname__ for o in objects)
            # what a collection of this generation visits: each object's references
            refs = collections.Counter()
            for o in objects:
                refs[type(o).__qualname__] += len(gc.get_referents(o))
            out[str(generation)] = {"total": sum(counts.values()), "top": counts.most_common(25),
                                    "references": sum(refs.values()), "top_references": refs.most_common(10)}
            del objects
        out["frozen"] = gc.get_freeze_count()
        with open(path, "a", encoding="utf-8") as f:
            f.write(json.dumps(out) + "\n")

    def garbage(*_: object) -> None:
        """SIGUSR2, twice: the first keeps what the collector finds unreachable (``DEBUG_SAVEALL``),
        the second writes its census (the cycles that make collections long) and lets it go."""
        if not gc.get_debug() & gc.DEBUG_SAVEALL:
            gc.set_debug(gc.DEBUG_SAVEALL)
            return
        gc.set_debug(0)
        found = collections.Counter(type(o).__qualname__ for o in gc.garbage)
        with open(path, "a", encoding="utf-8") as f:
            f.write(json.dumps({"garbage": len(gc.garbage), "stats": gc.get_stats(),
                                "top": found.most_common(40)}) + "\n")
        gc.garbage.clear()

    signal.signal(signal.SIGUSR1, dump)
    signal.signal(signal.SIGUSR2, garbage)


def commit_always(inline: bool) -> None:
    """Every SQLite write commit on the loop (``inline``) or on the committing thread,
    whatever the disk's speed: no spell begins or ends."""
    from lepromafia.store import sqlite_inline

    class Fixed:
        def inline(self, now: float) -> bool:
            return inline

        def took(self, now: float, seconds: float) -> None:
            pass

    sqlite_inline._commit_place = lambda path: Fixed()  # type: ignore[assignment]


def main() -> None:
    raise_open_files()
    if os.environ.get("LEPROMAFIA_BENCH_GC_DUMP"):  # kill -USR1 <pid> writes the census there
        dump_young_objects(os.environ["LEPROMAFIA_BENCH_GC_DUMP"])
    if os.environ.get("LEPROMAFIA_BENCH_GC_THRESHOLD"):  # an experiment: "700,10,10" is Python's
        import gc
        gc.set_threshold(*(int(x) for x in os.environ["LEPROMAFIA_BENCH_GC_THRESHOLD"].split(",")))
    if os.environ.get("LEPROMAFIA_BENCH_SWITCH_INTERVAL"):  # an experiment: Python's is 0.005
        import sys
        sys.setswitchinterval(float(os.environ["LEPROMAFIA_BENCH_SWITCH_INTERVAL"]))
    if os.environ.get("LEPROMAFIA_BENCH_SQLITE_COMMIT") in ("thread", "inline"):  # an experiment
        commit_always(inline=os.environ["LEPROMAFIA_BENCH_SQLITE_COMMIT"] == "inline")
    if os.environ.get("LEPROMAFIA_BENCH_CHECKPOINT_EVERY"):  # an experiment: sqlite_inline has 1 s
        from lepromafia.store import sqlite_inline
        sqlite_inline.CHECKPOINT_EVERY = float(os.environ["LEPROMAFIA_BENCH_CHECKPOINT_EVERY"])
    if os.environ.get("LEPROMAFIA_BENCH_PROBE"):  # a probe module run first: bench/lane_stages.py
        import runpy
        runpy.run_path(os.environ["LEPROMAFIA_BENCH_PROBE"])
    if os.environ.get("LEPROMAFIA_BENCH_POOL_TRACE"):  # bench/pool_trace.py
        import pool_trace
        pool_trace.install()
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--now", type=float, required=True, help="game time (Unix seconds) at start")
    parser.add_argument("--session-cache", type=float, default=None,
                        help="LEPROMAFIA_SESSION_CACHE_SECONDS for this server (0: off)")
    args = parser.parse_args()
    overrides: dict[str, object] = {"auto_migrate": False}
    if args.session_cache is not None:
        overrides["session_cache_seconds"] = args.session_cache
    settings = load_settings(**overrides)
    observability.configure_logging(settings)
    app = create_app(settings, clock=ShiftedClock(args.now))
    config = server_config(app, "127.0.0.1", args.port, max_connections=20000, log_level="warning",
                           log_config=None, access_log=False)
    server = uvicorn.Server(config)
    if os.environ.get("LEPROMAFIA_BENCH_STALLS"):  # where the loop stalls: bench/stalls.py
        import stalls
        stalls.install(server)
    server.run()


if __name__ == "__main__":
    main()
