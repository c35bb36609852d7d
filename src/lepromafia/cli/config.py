"""Settings plumbing for every command: the one ``Settings`` object (``web.settings``),
and the check that the database is migrated before an operator command reads it."""

from __future__ import annotations

import typer
from sqlalchemy.engine import make_url

from ..store.database import DatabaseConfig
from ..store.event_store import EventStore
from ..web.settings import Settings


def settings(**overrides: object) -> Settings:
    """``LEPROMAFIA_*`` (``DATABASE_URL`` as an alias) under the command's own options."""
    return Settings(**overrides)  # type: ignore[arg-type]


def database() -> DatabaseConfig:
    return settings().database


def shown_url(config: DatabaseConfig) -> str:
    """The database's URL without its password, to name it in a message."""
    return make_url(config.url).render_as_string(hide_password=True)


async def open_migrated(config: DatabaseConfig) -> EventStore:
    """The store, once its schema is the shipped one; otherwise a clear message and exit
    status 2 instead of an SQL traceback (an empty or older database)."""
    from ..store.migrate import current, head  # alembic: not on every command's start-up

    revision = await current(config)
    if revision != head():
        found = "has no Lepromafia tables" if revision is None else f"is at revision {revision}"
        typer.echo(f"The database {shown_url(config)} {found}; this version needs revision "
                   f"{head()}. Run `lepromafia db upgrade` first.", err=True)
        raise typer.Exit(2)
    return EventStore.open(config)
