"""The socket's receive path alone (issue 17): CPU and young objects per received read report,
uvicorn's stock ``websockets-sansio`` protocol against ``LeanWebSocketProtocol``, in one
process with no network (a fake transport), so a machine shared with other work changes the
figures little.

    python bench/ws_receive_cost.py [--sockets 1000] [--rounds 30] [--app endpoint]

``--sockets`` protocols each complete a handshake with an ASGI app, then every round each
receives one masked text frame (live.js's read report, one TCP read each, as the server sees
them from thousands of clients) and the loop runs until every app has read its message.
The app is ``bare`` (uvicorn's ``receive()`` only), ``starlette`` (Starlette's
``WebSocket.receive_text``, as FastAPI's route gives it) or ``endpoint`` (what
``web/ws/endpoint.py`` does per message: ``receive_text``, ``json.loads``,
``client_message``). Per frame: CPU µs (``process_time``), gen-0 collections per 1,000
frames, and the net GC-tracked objects a frame leaves between its ``data_received`` and the
app's read (what a collection in between has to scan), and the Python and C function calls
one ``data_received`` makes (``sys.setprofile``) — min / median / max over
``--reps``. CPython counts a generation's objects net (a tracked object freed before the
next collection takes its count back), so the websockets ``Frame`` and parser generators
a stock read makes and frees cost CPU, and are scanned only by a collection that falls
inside the read: they appear in neither count.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import statistics
import sys
import time
from typing import Any

import uvicorn
import uvloop
from starlette.websockets import WebSocket, WebSocketDisconnect
from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol
from uvicorn.server import ServerState
from websockets.frames import Frame, Opcode

from lepromafia.web.ws.protocol import client_message
from lepromafia.web.ws.transport import LeanWebSocketProtocol

HANDSHAKE = (b"GET /ws HTTP/1.1\r\nHost: bench\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
             b"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n")
REPORT = json.dumps({"type": "read", "game": "g-0f3c2a9b", "inbox": "c1:general", "upto": 1234},
                    separators=(",", ":"))
PROTOCOLS: dict[str, type[WebSocketsSansIOProtocol]] = {
    "stock": WebSocketsSansIOProtocol, "lean": LeanWebSocketProtocol}


class FakeTransport(asyncio.Transport):
    def __init__(self) -> None:
        super().__init__()
        self.closing = False

    def get_extra_info(self, name: str, default: Any = None) -> Any:
        return {"sockname": ("127.0.0.1", 8000), "peername": ("127.0.0.1", 50000)}.get(name, default)

    def write(self, data: Any) -> None:
        pass

    def pause_reading(self) -> None:
        pass

    def resume_reading(self) -> None:
        pass

    def is_closing(self) -> bool:
        return self.closing

    def close(self) -> None:
        self.closing = True


class Counter:
    def __init__(self) -> None:
        self.read = 0


def bare(counter: Counter) -> Any:
    async def app(scope: Any, receive: Any, send: Any) -> None:
        await receive()
        await send({"type": "websocket.accept"})
        while (await receive())["type"] == "websocket.receive":
            counter.read += 1
    return app


def starlette(counter: Counter) -> Any:
    async def app(scope: Any, receive: Any, send: Any) -> None:
        ws = WebSocket(scope, receive, send)
        await ws.accept()
        try:
            while True:
                await ws.receive_text()
                counter.read += 1
        except WebSocketDisconnect:
            pass
    return app


def endpoint(counter: Counter) -> Any:
    async def app(scope: Any, receive: Any, send: Any) -> None:
        ws = WebSocket(scope, receive, send)
        await ws.accept()
        try:
            while True:
                client_message.validate_python(json.loads(await ws.receive_text()))
                counter.read += 1
        except WebSocketDisconnect:
            pass
    return app


APPS = {"bare": bare, "starlette": starlette, "endpoint": endpoint}


async def run(kind: str, app_kind: str, sockets: int, rounds: int) -> dict[str, float]:
    counter = Counter()
    app = APPS[app_kind](counter)
    config = uvicorn.Config(app, ws_ping_interval=None, ws_per_message_deflate=False,
                            log_level="warning", lifespan="off")
    config.load()
    state = ServerState()
    protocols = []
    for _ in range(sockets):
        p = PROTOCOLS[kind](config, state, {})
        p.connection_made(FakeTransport())
        p.data_received(HANDSHAKE)
        protocols.append(p)
    await asyncio.sleep(0.1)
    frames = [Frame(Opcode.TEXT, REPORT.encode()).serialize(mask=True) for _ in range(16)]
    collections = [0]

    def on_gc(phase: str, info: dict[str, int]) -> None:
        if phase == "start" and info["generation"] == 0:
            collections[0] += 1

    async def drain(target: int) -> None:
        while counter.read < target:
            await asyncio.sleep(0)

    for r in range(3):  # warm
        for i, p in enumerate(protocols):
            p.data_received(frames[(i + r) % 16])
        await drain((r + 1) * sockets)
    # objects a frame leaves until the app reads it: collector off for one round
    gc.collect()
    gc.disable()
    # a count the frees cannot take below zero (where CPython stops counting them down)
    padding: list[list[int]] = [[] for _ in range(10 * sockets)]
    before = gc.get_count()[0]
    for i, p in enumerate(protocols):
        p.data_received(frames[i % 16])
    held = (gc.get_count()[0] - before) / sockets
    await drain(4 * sockets)
    del padding
    calls = [0]

    def count(frame: Any, event: str, arg: Any) -> None:
        if event in ("call", "c_call"):
            calls[0] += 1

    sample = protocols[: min(100, sockets)]
    sys.setprofile(count)
    for i, p in enumerate(sample):
        p.data_received(frames[i % 16])
    sys.setprofile(None)
    await drain(4 * sockets + len(sample))
    gc.enable()
    gc.callbacks.append(on_gc)
    start = time.process_time()
    feed = 0.0
    for r in range(rounds):
        t0 = time.process_time()
        for i, p in enumerate(protocols):
            p.data_received(frames[(i + r) % 16])
        feed += time.process_time() - t0
        await drain(4 * sockets + len(sample) + (r + 1) * sockets)
    cpu = time.process_time() - start
    gc.callbacks.remove(on_gc)
    for p in protocols:
        p.connection_lost(None)
    await asyncio.sleep(0.1)
    n = rounds * sockets
    return {"us": cpu / n * 1e6, "feed_us": feed / n * 1e6, "gen0_per_1000": collections[0] / n * 1000,
            "held": held, "calls": calls[0] / len(sample)}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sockets", type=int, default=1000)
    parser.add_argument("--rounds", type=int, default=30)
    parser.add_argument("--reps", type=int, default=5)
    parser.add_argument("--app", choices=(*APPS, "all"), default="all")
    parser.add_argument("--kinds", default="stock,lean")
    args = parser.parse_args()
    apps = tuple(APPS) if args.app == "all" else (args.app,)
    results: dict[tuple[str, str], list[dict[str, float]]] = {}
    for _ in range(args.reps):  # interleaved
        for app_kind in apps:
            for kind in args.kinds.split(","):
                row = uvloop.run(run(kind, app_kind, args.sockets, args.rounds))
                results.setdefault((app_kind, kind), []).append(row)

    def mmm(values: list[float], digits: int) -> str:
        return " / ".join(f"{v:.{digits}f}" for v in (min(values), statistics.median(values),
                                                       max(values)))

    print("| app | protocol | CPU µs/frame | of which data_received | gen-0 GCs per 1,000 frames "
          "| objects held per frame until read | calls per data_received |")
    print("|---|---|---|---|---|---|---|")
    for (app_kind, kind), rows in results.items():
        print(f"| {app_kind} | {kind} | {mmm([r['us'] for r in rows], 1)} | "
              f"{mmm([r['feed_us'] for r in rows], 1)} | "
              f"{mmm([r['gen0_per_1000'] for r in rows], 2)} | {mmm([r['held'] for r in rows], 1)} | "
              f"{mmm([r['calls'] for r in rows], 0)} |")
    with open("/proc/loadavg") as f:
        print(f"{args.sockets} sockets × {args.rounds} rounds, {args.reps} reps; load average "
              f"{' '.join(f.read().split()[:3])}")


if __name__ == "__main__":
    main()
