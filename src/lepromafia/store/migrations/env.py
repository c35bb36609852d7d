"""Alembic environment: runs on a connection handed in by ``store.migrate`` or, from the
``alembic`` command line, on DATABASE_URL through the async driver."""

from __future__ import annotations

import asyncio
from typing import Any

from alembic import context

import lepromafia.store.accounts  # noqa: F401  (its tables join the metadata)
from lepromafia.store.database import DatabaseConfig, create_engine
from lepromafia.store.schema import metadata

config = context.config


def _run(connection: Any) -> None:
    context.configure(connection=connection, target_metadata=metadata, render_as_batch=True)
    with context.begin_transaction():
        context.run_migrations()


async def _online() -> None:
    engine = create_engine(DatabaseConfig.from_env())
    async with engine.begin() as conn:
        await conn.run_sync(_run)
    await engine.dispose()


given = config.attributes.get("connection")
if given is not None:
    _run(given)
else:
    asyncio.run(_online())
