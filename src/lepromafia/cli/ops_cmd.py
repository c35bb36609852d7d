"""Operator commands: `lepromafia db upgrade`, `lepromafia game list|replay|export`.

The database is the one ``lepromafia serve`` uses: ``LEPROMAFIA_DATABASE_URL`` (or
``DATABASE_URL``; SQLite under ./var/ by default, postgresql://... for PostgreSQL) and,
optionally, ``LEPROMAFIA_DATABASE_SCHEMA`` (or ``DATABASE_SCHEMA``); see cli/config.py.
"""

from __future__ import annotations

import asyncio

import typer

from ..service.replay import check_game
from .config import database, open_migrated

db_app = typer.Typer(no_args_is_help=True, help="The game database.")
game_app = typer.Typer(no_args_is_help=True, help="Stored games.")


@db_app.command("upgrade")
def db_upgrade() -> None:
    """Apply every pending migration."""
    from ..store.migrate import current, upgrade  # alembic: only for this command (start-up time)

    config = database()
    asyncio.run(upgrade(config))
    print(f"database at revision {asyncio.run(current(config))}")


@game_app.command("list")
def game_list() -> None:
    """Every stored game: id, stage, events, time scale, title."""

    async def go() -> None:
        store = await open_migrated(database())
        try:
            games = await store.list_games()
            if not games:
                print("no games yet")
            for meta in games:
                print(f"{meta.game_id}\t{meta.stage}\t{meta.version}\t×{meta.clock.scale:g}\t{meta.title}")
        finally:
            await store.close()

    asyncio.run(go())


@game_app.command("replay")
def game_replay(game_id: str) -> None:
    """Rebuild the game from its events and compare with the stored read models."""

    async def go() -> int:
        store = await open_migrated(database())
        try:
            report = await check_game(store, game_id)
        finally:
            await store.close()
        print(f"game {game_id}: {report.applied} of {report.events} events applied")
        if report.first_bad_seq is not None:
            print(f"corrupt from event {report.first_bad_seq}: {report.error}")
        for line in report.differences:
            print(f"differs: {line}")
        if report.ok and report.state is not None:
            state = report.state
            print(f"read models match; stage {state.stage.value}, day {state.day}, phase {state.phase.value}")
        return 0 if report.ok else 1

    raise typer.Exit(asyncio.run(go()))
