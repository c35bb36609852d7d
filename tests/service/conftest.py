"""Every store and service contract test runs on SQLite and on the real PostgreSQL.

The PostgreSQL run gets a fresh schema in database ``test`` and fails (never skips)
when the server is unreachable.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from sqlalchemy import text

from lepromafia.store.database import DatabaseConfig, create_engine
from lepromafia.store.migrate import upgrade

from .helpers import pg_config, run, sqlite_config


async def _drop_schema(config: DatabaseConfig) -> None:
    engine = create_engine(DatabaseConfig(config.url))
    async with engine.begin() as conn:
        await conn.execute(text(f'DROP SCHEMA IF EXISTS "{config.schema}" CASCADE'))
    await engine.dispose()


@pytest.fixture(params=["sqlite", "postgresql"])
def backend(request: pytest.FixtureRequest, tmp_path: object) -> Iterator[DatabaseConfig]:
    config = sqlite_config(tmp_path) if request.param == "sqlite" else pg_config()
    run(upgrade(config))
    yield config
    if config.schema:
        run(_drop_schema(config))


@pytest.fixture
def postgresql() -> Iterator[DatabaseConfig]:
    """A fresh schema on the real PostgreSQL only, for what SQLite does not have."""
    config = pg_config()
    run(upgrade(config))
    yield config
    run(_drop_schema(config))
