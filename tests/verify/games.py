"""Simulated games kept in a store and exported, for the verification tests."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import Any

from lepromafia.bots.simulate import play
from lepromafia.service.stored_games import store_table
from lepromafia.service.transparency import LogKey, commitment
from lepromafia.service.transparency_export import dumps, export_game
from lepromafia.store import merkle
from lepromafia.store.database import DatabaseConfig
from lepromafia.store.event_store import EventStore
from lepromafia.store.migrate import upgrade
from lepromafia.store.projection import GameClock

KEY = LogKey.generate()


def exported_games(path: Path, seeds: range, cities: int = 1, population: int = 5,
                   settings: dict[str, Any] | None = None) -> list[bytes]:
    """Play each seed with the bots (odd seeds deal by commit-reveal, even ones by hand),
    store it, export it: the export texts."""

    async def go() -> list[bytes]:
        config = DatabaseConfig(f"sqlite+aiosqlite:///{path}")
        await upgrade(config)
        store = EventStore.open(config)
        out = []
        try:
            for seed in seeds:
                drawn = {"deal_method": "commit_reveal"} if seed % 2 else {}
                report = play(seed, cities, population, {**drawn, **(settings or {})})
                assert not report.violations, report.violations[:3]
                await store_table(store, f"sim-{seed}", report.table, KEY, GameClock(0.0, 1.0))
                out.append(dumps(await export_game(store, f"sim-{seed}", KEY)).encode())
        finally:
            await store.close()
        return out

    return asyncio.run(go())


def forge(raw: bytes, edit: Callable[[list[dict[str, Any]]], None], key: LogKey = KEY) -> bytes:
    """The export as a dishonest server would re-issue it: ``edit`` changes the revealed
    events (decoded), and every leaf, root, proof and signature is made anew with the key."""
    doc = json.loads(raw)
    game_id = doc["game_id"]
    events = {e["seq"]: json.loads(e["event"]) for e in doc["log"] if "event" in e}
    ordered = [events[seq] for seq in sorted(events)]
    edit(ordered)
    entries = []
    for entry in doc["log"]:
        if "event" in entry:
            entry["event"] = json.dumps(events[entry["seq"]], ensure_ascii=False, separators=(",", ":"))
            entries.append(commitment(game_id, entry["seq"], bytes.fromhex(entry["salt"]), entry["event"]))
        else:
            entries.append(bytes.fromhex(entry["leaf"]))
    opened = [e["seq"] - 1 for e in doc["log"] if "event" in e]
    proofs = merkle.inclusion_proofs(entries, opened)
    for entry in doc["log"]:
        if "event" in entry:
            entry["proof"] = [h.hex() for h in proofs[entry["seq"] - 1]]
    previous = 0
    for head in doc["heads"]:
        signed = key.sign_head(game_id, head["size"], merkle.root(entries[:head["size"]]),
                               datetime.fromisoformat(head["signed_at"]), head["reason"])
        head["root"], head["signature"] = signed["root"], signed["signature"]
        head["consistency"] = [h.hex() for h in merkle.consistency_proof(entries[:head["size"]], previous)] \
            if previous else []
        previous = head["size"]
    return dumps(doc).encode()
