"""Where a writer lane's batch spends its time, stage by stage (issue 17): a probe for the
benchmarked server (``LEPROMAFIA_BENCH_PROBE=bench/lane_stages.py``, with
``LEPROMAFIA_BENCH_STAGES=FILE``), and its report.

The probe wraps the lane's batch, the command frame's arrival (the socket's latest bytes
before the command reached the service: its own frame when posts do not overlap) and its
taking (decoded and validated as the transport read it, ``Connection.take_command``), the
transaction's lock, write and commit, the SQLite ``BEGIN IMMEDIATE`` and the publish, and
records each batch's timestamps (perf_counter), with the collector's pauses; every 3 s it
rewrites ``FILE.<pid>.json``. The report gives each stage's p50 / p90 / p99 / max over the
batches of one command (at a fixed rate, one post's path) and, where batches held 10
commands or more (saturated), each stage's time per command, with every publish of a batch
summed and, within it, the pushed message's render and the sockets' writes:

    LEPROMAFIA_BENCH_PROBE=bench/lane_stages.py LEPROMAFIA_BENCH_STAGES=var/stages \\
        python bench/fanout.py --reps 1 --post-via ws --tests rate --window 30
    python bench/lane_stages.py var/stages.<pid>.json
"""

from __future__ import annotations

import json
import sys
from typing import Any

STAGES = {
    "frame → taken": ("f", "t"),
    "taken → queued": ("t", "q"),
    "frame → queued": ("f", "q"),
    "queued → batch": ("q", "b"),
    "batch → lock (BEGIN)": ("b", "lock0"),
    "lock_games": ("lock0", "lock1"),
    "engine, projection": ("lock1", "write0"),
    "write": ("write0", "write1"),
    "write → commit": ("write1", "commit0"),
    "commit (fsync)": ("commit0", "commit1"),
    "commit → publish": ("commit1", "pub0"),
    "publish": ("pub0", "pub1"),
    "queued → published": ("q", "pub1"),
    "frame → published": ("f", "pub1"),
}


def install() -> None:  # pragma: no cover - runs in the benchmarked server
    import gc
    import os
    import threading
    import time

    from lepromafia.service import pubsub
    from lepromafia.service import service as svc
    from lepromafia.store import event_store, sqlite_inline

    clock = time.perf_counter
    batches: list[dict[str, float]] = []
    pauses: list[tuple[float, float, int]] = []
    current: dict[str, float] = {}

    from lepromafia.web.ws import endpoint, transport

    received = [0.0]  # when the latest bytes came in on any socket
    taken = [0.0]  # when the latest command frame was taken (decoded and validated)
    framed: dict[str, tuple[float, float]] = {}  # a command's id: its frame's arrival, taking
    data_received = transport.LeanWebSocketProtocol.data_received

    def stamped(self: Any, data: bytes) -> None:
        received[0] = clock()
        data_received(self, data)

    transport.LeanWebSocketProtocol.data_received = stamped  # type: ignore[method-assign]
    take_command = endpoint.Connection.take_command

    def taking(self: Any, msg: Any) -> None:
        taken[0] = clock()
        take_command(self, msg)

    endpoint.Connection.take_command = taking  # type: ignore[method-assign]
    submit = svc.GameService._submit

    async def submitted(self: Any, game_id: str, command: Any, command_id: str, *args: Any) -> Any:
        # the latest bytes received are this command's frame when posts do not overlap (a
        # fixed rate's batch of one); a command posted through HTTP has no frame here
        if command is not None and received[0]:
            framed[command_id] = (received[0], taken[0])
        return await submit(self, game_id, command, command_id, *args)

    svc.GameService._submit = submitted  # type: ignore[method-assign,assignment]
    run_batch = svc._Lane._run_batch

    async def timed_batch(self: Any, jobs: list[Any]) -> None:
        current.clear()
        current.update(q=jobs[0].queued_at, b=clock(), n=len(jobs))
        frame = framed.pop(jobs[0].command_id, None)
        for job in jobs[1:]:
            framed.pop(job.command_id, None)
        if frame is not None and frame[0] <= jobs[0].queued_at:
            current["f"] = frame[0]
            if frame[0] <= frame[1] <= jobs[0].queued_at:  # taken from this frame at once
                current["t"] = frame[1]
        await run_batch(self, jobs)
        current["e"] = clock()
        batches.append(dict(current))

    svc._Lane._run_batch = timed_batch  # type: ignore[method-assign]

    def stamp(cls: Any, name: str, key: str) -> None:
        inner = getattr(cls, name)

        async def timed(self: Any, *args: Any, **kwargs: Any) -> Any:
            current[key + "0"] = clock()
            result = await inner(self, *args, **kwargs)
            current[key + "1"] = clock()
            return result

        setattr(cls, name, timed)

    stamp(event_store.Transaction, "lock_games", "lock")
    stamp(event_store.Transaction, "write", "write")
    stamp(sqlite_inline.InlineConnection, "commit", "commit")
    publish = pubsub.Broker.publish

    def timed_publish(self: Any, game_id: str, events: Any) -> None:
        start = clock()
        current.setdefault("pub0", start)  # a batch of several games publishes each
        publish(self, game_id, events)
        current["pub1"] = end = clock()
        current["pubsum"] = current.get("pubsum", 0.0) + end - start

    pubsub.Broker.publish = timed_publish  # type: ignore[method-assign]

    def summed(cls: Any, name: str, key: str) -> None:
        """Sums the time of every call of ``cls.name`` in a batch under ``key``."""
        inner = getattr(cls, name)

        def timed(self: Any, *args: Any, **kwargs: Any) -> Any:
            start = clock()
            try:
                return inner(self, *args, **kwargs)
            finally:
                current[key] = current.get(key, 0.0) + clock() - start

        setattr(cls, name, timed)

    from lepromafia.web.ws import content
    summed(content.PushedContent, "observe", "render")  # the pushed message's render
    summed(endpoint._Feed, "direct", "direct")  # each socket's frame, written
    began = [0.0]

    def on_gc(phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            began[0] = clock()
        else:
            pauses.append((began[0], clock() - began[0], info["generation"]))

    gc.callbacks.append(on_gc)
    path = f"{os.environ['LEPROMAFIA_BENCH_STAGES']}.{os.getpid()}.json"

    def dump_forever() -> None:
        while True:
            time.sleep(3)
            with open(path, "w", encoding="utf-8") as out:
                json.dump({"batches": batches, "gc": pauses}, out)

    threading.Thread(target=dump_forever, daemon=True, name="lane-stages").start()


def report(path: str) -> str:
    with open(path, encoding="utf-8") as source:
        data = json.load(source)
    single = [b for b in data["batches"] if b["n"] == 1 and "commit1" in b and "pub1" in b]
    lines = [f"{len(data['batches'])} batches, {len(single)} of one command (ms: p50 / p90 / p99 / max)"]
    for name, (start, end) in STAGES.items():
        spans = sorted(b[end] - b[start] for b in single if start in b and end in b)
        if spans:
            cut = [spans[min(len(spans) - 1, int(len(spans) * p))] for p in (0.5, 0.9, 0.99)] + [spans[-1]]
            lines.append(f"  {name:22s} " + " / ".join(f"{x * 1000:.2f}" for x in cut))
    many = [b for b in data["batches"] if b["n"] >= 10 and "commit1" in b and "pub1" in b]
    if many:  # saturated: what a command costs within full batches
        lines.append(f"{len(many)} batches of 10 or more commands (µs per command, median)")
        for name, (start, end) in {**STAGES, "batch": ("b", "e")}.items():
            if not {start, end} & {"q", "f"}:
                per = sorted((b[end] - b[start]) / b["n"] for b in many if start in b and end in b)
                if per:
                    lines.append(f"  {name:22s} {per[len(per) // 2] * 1e6:.0f}")
        parts = (("pubsum", "every publish"), ("render", "  the render"), ("direct", "  the sockets' writes"))
        for key, name in parts:
            per = sorted(b.get(key, 0.0) / b["n"] for b in many)
            lines.append(f"  {name:22s} {per[len(per) // 2] * 1e6:.0f}")
    full = [p for p in data["gc"] if p[2] == 2]
    lines.append(f"  full collections: {len(full)}, " + ", ".join(f"{p[1] * 1000:.0f} ms" for p in full))
    return "\n".join(lines)


if __name__ == "__main__":
    print(report(sys.argv[1]))
else:
    install()
