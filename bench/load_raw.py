"""The raw baseline: a bare ``websockets`` server speaking the project's frames.

A reader connects to ``/ws?user=U`` and sends ``subscribe {game, since_seq}``; it gets
``subscribed {game, version}``. A writer connects to ``/post`` and sends ``{game, city,
author, text, id}``; the server answers ``{"ack": id}`` and ``websockets.broadcast``s one
``event`` frame with a ``MessagePosted`` payload to the city's subscribed residents
(numbered per reader, as the project's per-viewer streams are). Same frames, same
audience, nothing else: no store, no rules, no pages.

    python bench/load_raw.py --port P --manifest MANIFEST.json
"""

from __future__ import annotations

import argparse
import asyncio
import json
import resource
from datetime import UTC, datetime
from typing import Any
from urllib.parse import parse_qs, urlsplit

from websockets.asyncio.server import ServerConnection, broadcast, serve


def raise_open_files() -> None:
    """Soft RLIMIT_NOFILE up to the hard one: thousands of sockets (bench/load.py checks
    beforehand that they fit)."""
    _, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))


class Raw:
    def __init__(self, manifest: dict[str, Any]) -> None:
        self.city_of: dict[tuple[str, str], str] = {}
        for game, spec in manifest["games"].items():
            for city, c in spec["cities"].items():
                for user in c["residents"]:
                    self.city_of[(game, user)] = city
        self.inbox = {(g, city): c["inbox"] for g, spec in manifest["games"].items()
                      for city, c in spec["cities"].items()}
        self.members: dict[tuple[str, str], set[ServerConnection]] = {}
        self.position: dict[ServerConnection, int] = {}

    async def handle(self, ws: ServerConnection) -> None:
        path = urlsplit(ws.request.path if ws.request else "/")
        if path.path == "/post":
            await self.writer(ws)
            return
        user = parse_qs(path.query).get("user", [""])[0]
        joined: list[tuple[str, str]] = []
        try:
            async for text in ws:
                msg = json.loads(text)
                if msg.get("type") == "subscribe":
                    game = msg["game"]
                    key = (game, self.city_of.get((game, user), ""))
                    self.members.setdefault(key, set()).add(ws)
                    joined.append(key)
                    self.position[ws] = int(msg.get("since_seq", 0))
                    await ws.send(json.dumps({"type": "subscribed", "game": game,
                                              "version": self.position[ws]}))
                elif msg.get("type") == "ping":
                    await ws.send('{"type":"pong"}')
        finally:
            for key in joined:
                self.members.get(key, set()).discard(ws)
            self.position.pop(ws, None)

    async def writer(self, ws: ServerConnection) -> None:
        async for text in ws:
            msg = json.loads(text)
            game, city = msg["game"], msg["city"]
            payload = {"type": "MessagePosted", "at": datetime.now(UTC).isoformat(),
                       "inbox": self.inbox[(game, city)], "author": msg["author"], "text": msg["text"]}
            # per-reader numbering: group the readers by their next position, one encoding each
            readers = self.members.get((game, city), set())
            by_seq: dict[int, list[ServerConnection]] = {}
            for reader in readers:
                self.position[reader] = self.position.get(reader, 0) + 1
                by_seq.setdefault(self.position[reader], []).append(reader)
            for seq, group in by_seq.items():
                broadcast(group, json.dumps({"type": "event", "game": game, "seq": seq,
                                             "payload": payload}, ensure_ascii=False))
            await ws.send(json.dumps({"ack": msg["id"]}))


async def main() -> None:
    raise_open_files()
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--manifest", required=True)
    args = parser.parse_args()
    with open(args.manifest, encoding="utf-8") as f:
        raw = Raw(json.load(f))
    async with serve(raw.handle, "127.0.0.1", args.port, max_size=2**16, ping_interval=None):
        await asyncio.Future()


if __name__ == "__main__":
    asyncio.run(main())
