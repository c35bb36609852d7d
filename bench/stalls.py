"""Where the event loop stalls: a watchdog thread for a benchmark server (issue 17).

With ``LEPROMAFIA_BENCH_STALLS=FILE`` (read by ``bench/load_server.py``), the server's loop
stamps a heartbeat every millisecond; a thread looks every millisecond and, while the
heartbeat is older than ``LEPROMAFIA_BENCH_STALL_MS`` (default 15), takes the loop
thread's Python stack (``sys._current_frames``) once per look. It appends one JSON line
per stall to the file as the stall ends: its length in ms, the collector's time in it, and the
stack samples taken during it, innermost frame last: the ``file:line function`` frames of
``lepromafia``, ``sqlalchemy``, ``starlette``, ``fastapi``, ``uvicorn``, ``websockets`` and
``asyncio``, and the innermost frame whoever's, joined by ``;``. A stall with no sample was
C code that held the interpreter (a collection, a call that keeps the GIL) or the machine's
scheduler. Each full collection adds a line too: its length, what each generation held
when it began, the frozen count and what it freed. ``python bench/stalls.py FILE``
summarizes a file. Bench only: the heartbeat
costs ~1,000 wake-ups a second.
"""

from __future__ import annotations

import asyncio
import gc
import json
import os
import sys
import threading
import time
from types import FrameType

KEEP = ("lepromafia", "sqlalchemy", "starlette", "fastapi", "uvicorn", "asyncio", "websockets")


def _name(frame: FrameType) -> str:
    short = frame.f_code.co_filename.rsplit("site-packages/", 1)[-1].rsplit("src/", 1)[-1]
    return f"{short}:{frame.f_lineno} {frame.f_code.co_name}"


def _stack(frame: FrameType | None) -> str:
    """The innermost frame (whoever's), then the kept ones outwards; at most 12, outermost
    first."""
    if frame is None:
        return ""
    parts = [_name(frame)]
    frame = frame.f_back
    while frame is not None:
        if any(k in frame.f_code.co_filename for k in KEEP):
            parts.append(_name(frame))
        frame = frame.f_back
    return ";".join(reversed(parts[:12]))


class Watchdog:
    def __init__(self, path: str, threshold_ms: float) -> None:
        self.path, self.threshold = path, threshold_ms / 1000
        self.beat = time.perf_counter()
        self.gc_pauses: list[tuple[float, float]] = []
        self._gc_at = 0.0
        self._sizes: list[int] = []
        self._widest: list[object] = []
        self.loop_thread = threading.get_ident()
        self.running = True
        self._thread: threading.Thread | None = None

    def start(self, loop: asyncio.AbstractEventLoop) -> None:
        def stamp() -> None:
            self.beat = time.perf_counter()
            loop.call_later(0.001, stamp)

        loop.call_soon(stamp)
        gc.callbacks.append(self._gc)
        self._thread = threading.Thread(target=self._watch, daemon=True, name="stall-watchdog")
        self._thread.start()

    def _gc(self, phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            if info["generation"] == 2:  # what a full collection is about to scan
                self._sizes = [len(gc.get_objects(g)) for g in range(3)]
                by_type: dict[str, list[int]] = {}
                for o in gc.get_objects(2):
                    seen = by_type.setdefault(type(o).__qualname__, [0, 0])
                    seen[0] += 1
                    seen[1] += len(gc.get_referents(o))
                self._widest = sorted(([n, e, t] for t, (n, e) in by_type.items()), key=lambda x: -x[1])[:25]
            self._gc_at = time.perf_counter()
        else:
            took = time.perf_counter() - self._gc_at
            self.gc_pauses.append((self._gc_at, took))
            if info["generation"] == 2:
                with open(self.path, "a", encoding="utf-8") as out:
                    out.write(json.dumps({"full_collection_ms": round(took * 1000, 1),
                                          "tracked_by_generation": self._sizes,
                                          "objects_edges_by_type": self._widest,
                                          "frozen": gc.get_freeze_count(),
                                          "collected": info["collected"],
                                          "uncollectable": info["uncollectable"]}) + "\n")

    def _watch(self) -> None:
        current: dict[str, object] | None = None
        samples: list[str] = []
        while self.running:
            time.sleep(0.001)
            beat = self.beat
            if current is not None and beat > float(current["at"]):  # type: ignore[arg-type]
                self._ended(current, samples, beat)  # the loop beat again: that stall is over
                current = None
            late = time.perf_counter() - beat
            if late >= self.threshold:
                if current is None:
                    current = {"at": beat, "wall": round(time.time() - late, 3), "samples": []}
                    samples = []
                frame = sys._current_frames().get(self.loop_thread)
                samples.append(_stack(frame))
        if current is not None and self.beat > float(current["at"]):  # type: ignore[arg-type]
            self._ended(current, samples, self.beat)  # over, not yet written when stopped

    def _ended(self, stall: dict[str, object], samples: list[str], beat: float) -> None:
        stall["ms"] = round((beat - float(stall["at"])) * 1000, 1)  # type: ignore[arg-type]
        stall["samples"] = samples
        self._write(stall)

    def stop(self) -> None:
        """Stop watching, once every stall that ended is written (a watchdog thread kept off
        the processor by a loaded machine may not have written the last one yet)."""
        self.running = False
        if self._gc in gc.callbacks:  # a full collection's census walks every object
            gc.callbacks.remove(self._gc)
        if self._thread is not None:
            self._thread.join(5)

    def _write(self, stall: dict[str, object]) -> None:
        """Append one stall to the file as it ends (a benchmark's server is stopped with a
        signal, and may be killed before any exit hook runs)."""
        at, ms = float(stall["at"]), float(stall["ms"])  # type: ignore[arg-type]
        gc_ms = sum(d for t, d in list(self.gc_pauses) if at - 0.001 <= t <= at + ms / 1000)
        with open(self.path, "a", encoding="utf-8") as out:
            out.write(json.dumps({**stall, "gc_ms": round(gc_ms * 1000, 1)}) + "\n")


def install(server: object) -> None:
    """With ``LEPROMAFIA_BENCH_STALLS`` set, watch the loop ``server`` (a ``uvicorn.Server``)
    will run: the watchdog starts as its ``serve`` does, on that loop."""
    path = os.environ.get("LEPROMAFIA_BENCH_STALLS")
    if not path:
        return
    dog = Watchdog(path, float(os.environ.get("LEPROMAFIA_BENCH_STALL_MS", "15")))
    serve = server.serve  # type: ignore[attr-defined]

    async def watched(*args: object, **kwargs: object) -> object:
        dog.loop_thread = threading.get_ident()
        dog.start(asyncio.get_running_loop())
        return await serve(*args, **kwargs)

    server.serve = watched  # type: ignore[attr-defined]


def report(path: str, top: int = 15) -> str:
    """The stalls of a file ``Watchdog`` wrote: how many and how long, the share the
    collector's pauses explain, and the frames most often on the loop's stack during them
    (each stall counted once per frame)."""
    with open(path, encoding="utf-8") as lines_in:
        stalls = [s for line in lines_in if line.strip() and "ms" in (s := json.loads(line))]
    if not stalls:
        return "no stalls"
    lengths = sorted(s["ms"] for s in stalls)
    lines = [f"{len(stalls)} stalls, {sum(lengths):.0f} ms in all; longest {lengths[-5:]}",
             f"with a collection in them: {sum(1 for s in stalls if s['gc_ms'] > 0)} "
             f"({sum(s['gc_ms'] for s in stalls):.0f} ms of collector)",
             f"with no Python sample: {sum(1 for s in stalls if not any(s['samples']))}"]
    frames: dict[str, float] = {}
    for s in stalls:
        for frame in {f for sample in s["samples"] for f in sample.split(";") if f}:
            frames[frame] = frames.get(frame, 0.0) + s["ms"]
    lines.append("frames by the stall time they were on the stack in (ms):")
    lines += [f"  {ms:8.0f}  {frame}" for frame, ms in sorted(frames.items(), key=lambda x: -x[1])[:top]]
    return "\n".join(lines)


if __name__ == "__main__":
    print(report(sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 15))
