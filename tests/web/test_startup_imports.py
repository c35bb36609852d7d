"""A restart is ready sooner when the server does not import what it will not use
(issue 17, "a restart with 50 games in progress is ready in under 5 s";
docs/performance.md "Capacity targets (session 5)"): the migration tool (alembic, ~0.3 s
of CPU) is imported only to migrate, the Redis client only with several workers."""

from __future__ import annotations

import subprocess
import sys

PROBE = """
import sys
import lepromafia.web.app, lepromafia.cli.config, lepromafia.cli.main
from lepromafia.web.app import create_app
from lepromafia.web.settings import WebSettings
create_app(WebSettings(database_url="sqlite:///:memory:", auto_migrate=False))
print(",".join(sorted(m for m in ("alembic", "redis", "mako") if m in sys.modules)))
"""


def test_a_single_worker_server_starts_without_alembic_or_redis() -> None:
    """Olga's one-process server, not migrating at start (``auto_migrate`` off) and with no
    Redis URL: building the app, or loading the command line that serves it, loads neither
    alembic nor redis."""
    out = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True, timeout=120,
                         check=True)
    assert out.stdout.strip() == "", f"imported at start-up: {out.stdout.strip()}"

