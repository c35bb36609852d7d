"""`lepromafia verify EXPORT.json` and `lepromafia game export ID` (docs/verification.md).

The verification is the standalone verifier (``verify/verify.py``, shipped in the package
as ``lepromafia.verifier``, a link to that one file), so the installed command and the
file people download cannot disagree; the installed command adds a second, independent
check of the deal with the engine's own functions (``engine.deal``).
"""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path
from typing import Annotated, Any

import typer

from .. import verifier
from ..bots.simulate import GameReport
from ..engine import deal
from ..service.stored_games import store_table
from ..service.transparency_export import ExportError, dumps, export_game
from ..service.transparency_keys import KeyRing
from ..store.database import DatabaseConfig
from ..store.event_store import EventStore
from ..store.projection import GameClock
from .config import database, open_migrated


def verify(
    export: Annotated[Path, typer.Argument(exists=True, dir_okay=False, help="the game's export")],
    lang: Annotated[str, typer.Option(help="ru | en")] = "ru",
    key: Annotated[list[str] | None, typer.Option(
        help="a server public key (base64) or fingerprint; every head must be signed by one")] = None,
    keys: Annotated[Path | None, typer.Option(
        help="the key set from /.well-known/lepromafia-log-key (JSON): its validity periods rule")]
    = None,
    known_head: Annotated[list[Path] | None, typer.Option(help="a signed tree head you kept (JSON)")]
    = None,
) -> None:
    """Verify a finished game: the log, every signed head, the deal and every outcome."""
    if lang not in ("ru", "en"):
        raise typer.BadParameter("ru | en", param_hint="--lang")
    raw = export.read_bytes()
    kept = [json.loads(p.read_text(encoding="utf-8")) for p in known_head or []]
    pinned_set = json.loads(keys.read_text(encoding="utf-8")) if keys else None
    report = verifier.verify(raw, lang, key or None, kept, pinned_set)
    if report.verified:
        _engine_deal_check(raw, report)
    print(report.text())
    raise typer.Exit(0 if report.verified else 1)


def _engine_deal_check(raw: bytes, report: verifier.Report) -> None:
    """The deal once more, with the engine's functions instead of the verifier's."""
    events = [json.loads(e["event"]) for e in json.loads(raw)["log"] if "event" in e]
    ended = next((e for e in events if e["type"] == "GameEnded"), None)
    if ended is None or ended.get("commitment") is None:
        return
    lists = {city: list(users) for city, users in ended["deal_lists"]}
    if not deal.verify(lists, ended["deal_salt"], ended["commitment"]):
        report.failures.append(verifier.Failure("seal_broken"))
    values = deal_values(events)
    if values is None:
        return
    counts = {c["name"]: c["mafia_count"] for e in events if e["type"] == "CitiesFormed"
              for c in e["cities"]}
    named = {e["city"]: e["numbers"] for e in events if e["type"] == "MafiaNumbersNamed"}
    for city, order in lists.items():
        drawn = list(deal.draw_positions(deal.entropy_seed(values), city, len(order), counts[city]))
        if drawn != sorted(named.get(city, [])):
            report.failures.append(verifier.Failure(
                "deal_wrong", city=city, detail=f"the engine draws {drawn}"))


def deal_values(events: list[dict[str, Any]]) -> dict[str, str] | None:
    values = {e["party"]: e["value"] for e in events
              if e["type"] in ("DealEntropyRevealed", "DealEntropyReplaced")}
    return values or None


def game_export(
    game_id: str,
    out: Annotated[Path | None, typer.Option("--out", "-o", help="write here instead of stdout")] = None,
    lines: Annotated[bool, typer.Option("--lines", help="the raw events as JSON lines instead")] = False,
) -> None:
    """The game's verifiable export (what `lepromafia verify` and verify/verify.py read)."""

    async def go() -> int:
        store = await open_migrated(database())
        try:
            if lines:
                return await _lines(store, game_id)
            try:
                document = await export_game(store, game_id, KeyRing.from_env())
            except ExportError as exc:
                print(exc, file=sys.stderr)
                return 1
        finally:
            await store.close()
        text = dumps(document)
        if out is None:
            sys.stdout.write(text)
        else:
            out.write_text(text, encoding="utf-8")
        return 0

    raise typer.Exit(asyncio.run(go()))


class SimulationStore:
    """Stores each simulated game as ``sim-<seed>`` with its verifiable log."""

    def __init__(self, url: str) -> None:
        self.config = DatabaseConfig(url, database().schema)
        self.loop = asyncio.new_event_loop()
        self.key = KeyRing.from_env()
        self.store: EventStore | None = None

    def __enter__(self) -> SimulationStore:
        from ..store.migrate import upgrade  # alembic: only when storing simulations

        self.loop.run_until_complete(upgrade(self.config))
        self.store = EventStore.open(self.config)
        return self

    def __exit__(self, *_: object) -> None:
        if self.store is not None:
            self.loop.run_until_complete(self.store.close())
        self.loop.close()

    def keep(self, report: GameReport) -> None:
        assert self.store is not None
        clock = GameClock(report.table.events[0].at.timestamp(), 1.0)
        self.loop.run_until_complete(
            store_table(self.store, f"sim-{report.seed}", report.table, self.key, clock))


async def _lines(store: EventStore, game_id: str) -> int:
    rows = await store.event_rows(game_id)
    if not rows:
        print(f"no events for game {game_id}")
        return 1
    for row in rows:
        try:
            event = json.loads(row["payload"])
        except json.JSONDecodeError:
            event = {"corrupt": row["payload"]}
        print(json.dumps({"seq": row["seq"], "command_id": row["command_id"], "event": event},
                         ensure_ascii=False))
    return 0
