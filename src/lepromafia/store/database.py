"""Connecting to the store: SQLite by default, PostgreSQL via ``DATABASE_URL``.

SQLite runs in WAL mode with ``synchronous=FULL`` so that a committed (acknowledged)
command is on disk, and every write transaction (execution option ``write=True``) starts
with ``BEGIN IMMEDIATE`` so two processes never interleave a read-modify-write. A database
file is driven inline on the event loop's thread (sqlite_inline.py); ``:memory:`` through
aiosqlite. A PostgreSQL ``schema`` (optional) isolates test runs inside one database.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from functools import cached_property, partial
from pathlib import Path
from typing import Any

from sqlalchemy import event
from sqlalchemy.engine import make_url
from sqlalchemy.ext.asyncio import AsyncEngine, create_async_engine
from sqlalchemy.util import await_only

from . import sqlite_inline

DEFAULT_URL = "sqlite+aiosqlite:///./var/lepromafia.db"


@dataclass(frozen=True)
class DatabaseConfig:
    url: str
    schema: str | None = None

    @classmethod
    def from_env(cls) -> DatabaseConfig:
        """For the bare ``alembic`` command line; every ``lepromafia`` command reads the one
        ``Settings`` object (web/settings.py), which has the same precedence."""
        env = os.environ
        url = env.get("LEPROMAFIA_DATABASE_URL") or env.get("DATABASE_URL") or DEFAULT_URL
        return cls(url, env.get("LEPROMAFIA_DATABASE_SCHEMA") or env.get("DATABASE_SCHEMA") or None)

    @cached_property
    def async_url(self) -> str:
        return async_url(self.url)

    @cached_property
    def is_sqlite(self) -> bool:
        return self.async_url.startswith("sqlite")

    @cached_property
    def sqlite_file(self) -> str | None:
        """The database file's path when this is SQLite on a file (driven inline on the
        loop: sqlite_inline.py); None for ``:memory:`` and PostgreSQL."""
        if not self.is_sqlite:
            return None
        path = make_url(self.async_url).database
        return path if path and path != ":memory:" else None


def async_url(url: str) -> str:
    """The SQLAlchemy async URL for a plain one (postgresql://, sqlite:///...)."""
    parsed = make_url(url)
    driver = parsed.drivername
    if driver in ("postgresql", "postgres", "postgresql+psycopg", "postgresql+psycopg2"):
        parsed = parsed.set(drivername="postgresql+asyncpg")
    elif driver in ("sqlite", "sqlite+pysqlite"):
        parsed = parsed.set(drivername="sqlite+aiosqlite")
    return parsed.render_as_string(hide_password=False)


POSTGRES_SETTINGS = {"plan_cache_mode": "force_custom_plan"}
"""Each PostgreSQL connection's settings. asyncpg prepares every statement once per
connection, and after five executions PostgreSQL may keep a generic plan made from the
statistics of that moment: made while ``commands`` was nearly empty (a new database, or
a table growing faster than autovacuum's analyze follows), the writer's ``lock_games``
kept a sequential scan of it and took 1.6 → 23 ms a batch within a minute of saturated
posting (issue 17, docs/performance.md "Session 39"). Planned for each execution, as
drivers that send their parameters inline always are, every statement uses the indexes
its tables have grown into. Needs PostgreSQL 12 or later."""


def create_engine(config: DatabaseConfig, **options: Any) -> AsyncEngine:
    url = config.async_url
    if url.startswith("sqlite"):
        path = config.sqlite_file
        if path is not None:  # a file: statements run on the loop thread
            Path(path).parent.mkdir(parents=True, exist_ok=True)
            engine = create_async_engine(url, async_creator=partial(sqlite_inline.connect, path),
                                         **options)
            _sqlite_transactions(engine)
            return engine
        engine = create_async_engine(url, connect_args={"timeout": 30}, **options)
        _sqlite_durability(engine)
        _sqlite_transactions(engine)
        return engine
    settings = dict(POSTGRES_SETTINGS)
    if config.schema:
        settings["search_path"] = config.schema
    connect_args: dict[str, Any] = {"server_settings": settings}
    options.setdefault("pool_size", 10)
    return create_async_engine(url, connect_args=connect_args, **options)


def _sqlite_durability(engine: AsyncEngine) -> None:
    @event.listens_for(engine.sync_engine, "connect")
    def _on_connect(dbapi_connection: Any, _record: Any) -> None:
        dbapi_connection.isolation_level = None  # we emit BEGIN ourselves
        cursor = dbapi_connection.cursor()
        cursor.execute("PRAGMA journal_mode=WAL")
        cursor.execute("PRAGMA synchronous=FULL")
        cursor.execute("PRAGMA busy_timeout=30000")
        cursor.close()


HELD_WRITER = "lepromafia_held_writer"
"""The execution option of the held SQLite writer (``event_store._HeldWriter``): its
SQLAlchemy transaction emits no ``BEGIN``, the store begins and commits SQLite's itself."""


def _sqlite_transactions(engine: AsyncEngine) -> None:
    @event.listens_for(engine.sync_engine, "begin")
    def _on_begin(connection: Any) -> None:
        options = connection.get_execution_options()
        if options.get("single_statement", False):
            return  # one read statement is its own transaction (EventStore.single_read)
        if options.get(HELD_WRITER, False):
            return  # the held writer: SQLite's transactions are the store's own
        write = bool(options.get("write", False))
        driver = connection.connection.driver_connection
        if isinstance(driver, sqlite_inline.InlineConnection):
            # straight to the driver: a statement through SQLAlchemy's execution costs more
            # than SQLite's BEGIN itself (issue 17, docs/performance.md session 25)
            await_only(driver.begin(write))
        else:
            connection.exec_driver_sql("BEGIN IMMEDIATE" if write else "BEGIN")
