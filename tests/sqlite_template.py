"""A web app's fresh SQLite database starts as a copy of one migrated in this test process.

Every app the tests build migrates its own new SQLite file at start-up (``create_app``'s
lifespan calls ``store.migrate.upgrade``): Alembic replays every migration, 0.1-0.2 s of
CPU an app. ``install()`` wraps ``upgrade`` for the web lifespan's calls only: a SQLite file
that does not exist yet is first copied from a template the real ``upgrade`` migrated once
in this process, then the real ``upgrade`` runs on it as before (it finds the head and does
nothing). Tests that call ``upgrade`` themselves (migrations, notify, scale) get the real
one. ``LEPROMAFIA_SQLITE_TEMPLATE=0`` switches it off.
"""

from __future__ import annotations

import asyncio
import atexit
import os
import shutil
import sys
import tempfile
from collections.abc import Coroutine
from pathlib import Path
from typing import Any

from sqlalchemy.engine import make_url

from lepromafia.store import migrate
from lepromafia.store.database import DatabaseConfig

ENABLED = os.environ.get("LEPROMAFIA_SQLITE_TEMPLATE", "1") != "0"
real_upgrade = migrate.upgrade
CALLER = "lepromafia.web.app"
template: Path | None = None
copies = {"count": 0}


def _fresh_file(config: DatabaseConfig) -> Path | None:
    if not config.is_sqlite or config.schema:
        return None
    name = make_url(config.async_url).database
    if not name or name == ":memory:" or name.startswith("file:"):
        return None
    path = Path(name)
    return None if path.exists() else path


async def _from_template(config: DatabaseConfig, path: Path) -> None:
    global template
    if template is None:
        made = Path(tempfile.mkdtemp(prefix="lepromafia-schema-")) / "template.db"
        await real_upgrade(DatabaseConfig(f"sqlite:///{made}"))
        atexit.register(shutil.rmtree, made.parent, True)
        assert not made.with_name("template.db-wal").exists(), "the template is not checkpointed"
        template = made
    path.parent.mkdir(parents=True, exist_ok=True)
    await asyncio.to_thread(shutil.copyfile, template, path)
    copies["count"] += 1
    await real_upgrade(config)  # at the head already: Alembic checks and does nothing


def upgrade(config: DatabaseConfig, revision: str = "head") -> Coroutine[Any, Any, None]:
    """``migrate.upgrade``; a new SQLite file for the web app's lifespan starts migrated."""
    path = _fresh_file(config) if revision == "head" else None
    if path is None or sys._getframe(1).f_globals.get("__name__") != CALLER:
        return real_upgrade(config, revision)
    return _from_template(config, path)


def install() -> None:
    if ENABLED:
        migrate.upgrade = upgrade  # type: ignore[assignment]
