"""The security tests reuse the service tests' SQLite + PostgreSQL ``backend`` fixture and
the web tests' ``api`` (an app on SQLite with a manual clock)."""

from tests.service.conftest import backend
from tests.web.conftest import api

__all__ = ["api", "backend"]
