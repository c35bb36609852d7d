"""Schema migrations (Alembic), shipped inside the package: ``lepromafia db upgrade``."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from alembic import command
from alembic.config import Config
from sqlalchemy import text

from . import accounts, notify  # noqa: F401  (their tables join the metadata)
from .database import DatabaseConfig, create_engine

MIGRATIONS = Path(__file__).parent / "migrations"


def alembic_config() -> Config:
    cfg = Config()
    cfg.set_main_option("script_location", str(MIGRATIONS))
    return cfg


def head() -> str:
    """The one head revision of the shipped migrations (two heads are a packaging error)."""
    from alembic.script import ScriptDirectory

    (only,) = ScriptDirectory.from_config(alembic_config()).get_heads()
    return str(only)


async def upgrade(config: DatabaseConfig, revision: str = "head") -> None:
    """Bring the database (and the PostgreSQL schema, created if missing) up to date."""
    if config.schema and not config.is_sqlite:
        bare = create_engine(DatabaseConfig(config.url))
        async with bare.begin() as conn:
            await conn.execute(text(f'CREATE SCHEMA IF NOT EXISTS "{config.schema}"'))
        await bare.dispose()
    engine = create_engine(config)
    try:
        async with engine.begin() as conn:
            await conn.run_sync(_upgrade, revision)
    finally:
        await engine.dispose()


def _upgrade(connection: Any, revision: str) -> None:
    cfg = alembic_config()
    cfg.attributes["connection"] = connection
    command.upgrade(cfg, revision)


async def current(config: DatabaseConfig) -> str | None:
    engine = create_engine(config)
    try:
        async with engine.connect() as conn:
            return await conn.run_sync(_current)
    finally:
        await engine.dispose()


def _current(connection: Any) -> str | None:
    from alembic.runtime.migration import MigrationContext

    return MigrationContext.configure(connection).get_current_revision()
