"""Operator CLI: db upgrade, game list, game replay, game export (on both backends)."""

from __future__ import annotations

import json

from sqlalchemy import update
from typer.testing import CliRunner

from lepromafia.cli.main import app
from lepromafia.service.service import GameService
from lepromafia.store import schema
from lepromafia.store.database import DatabaseConfig
from lepromafia.store.event_store import EventStore
from lepromafia.store.migrate import head

from .helpers import manual_clock, run, setup_game, small_cast


def env(config: DatabaseConfig) -> dict[str, str]:
    return {"DATABASE_URL": config.url, "DATABASE_SCHEMA": config.schema or ""}


def test_operator_commands_list_replay_and_export_a_game(backend: DatabaseConfig) -> None:
    async def play() -> None:
        async with GameService.running(backend, clock=manual_clock()) as svc:
            await setup_game(svc, "game-1", small_cast())

    runner = CliRunner()
    upgraded = runner.invoke(app, ["db", "upgrade"], env=env(backend))
    assert upgraded.exit_code == 0 and head() in upgraded.output
    run(play())
    listed = runner.invoke(app, ["game", "list"], env=env(backend))
    assert listed.exit_code == 0 and listed.stdout.startswith("game-1\trunning\t")
    replayed = runner.invoke(app, ["game", "replay", "game-1"], env=env(backend))
    assert replayed.exit_code == 0 and "read models match" in replayed.output
    exported = runner.invoke(app, ["game", "export", "game-1", "--lines"], env=env(backend))
    lines = [json.loads(line) for line in exported.stdout.splitlines()]
    assert [line["seq"] for line in lines] == list(range(1, len(lines) + 1))
    assert lines[0]["event"]["type"] == "GameCreated"


def test_replay_reports_a_tampered_read_model_and_a_corrupt_event(backend: DatabaseConfig) -> None:
    async def play_and_tamper() -> None:
        async with GameService.running(backend, clock=manual_clock()) as svc:
            await setup_game(svc, "game-1", small_cast())
        store = EventStore.open(backend)
        async with store.writer.begin() as conn:
            m = schema.inbox_members
            await conn.execute(update(m).where(m.c.user_id == "p01_01").values(access="read"))
        await store.close()

    run(play_and_tamper())
    runner = CliRunner()
    tampered = runner.invoke(app, ["game", "replay", "game-1"], env=env(backend))
    assert tampered.exit_code == 1 and "differs: inbox_members" in tampered.output

    async def corrupt() -> None:
        store = EventStore.open(backend)
        async with store.writer.begin() as conn:
            e = schema.events
            await conn.execute(update(e).where(e.c.seq == 12).values(payload="{"))
        await store.close()

    run(corrupt())
    broken = runner.invoke(app, ["game", "replay", "game-1"], env=env(backend))
    assert broken.exit_code == 1 and "corrupt from event 12" in broken.output
    assert "11 of" in broken.output
    missing = runner.invoke(app, ["game", "export", "nope"], env=env(backend))
    assert missing.exit_code == 1
