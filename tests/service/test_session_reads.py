"""The session lookups the cache makes (issue 17), on both backends: many sessions are
read in one statement for the cache's background refresh (``AccountService.refresh_sessions``).
"""

from __future__ import annotations

from lepromafia.store.accounts import AccountStore, UserRow
from lepromafia.store.database import DatabaseConfig
from lepromafia.store.event_store import EventStore

from .helpers import run


def test_many_sessions_are_read_in_one_statement(backend: DatabaseConfig) -> None:
    """The session cache's background refresh: p01_01's and p01_02's sessions read together
    (with their display names); a token nobody holds is absent."""
    async def scenario() -> dict[str, tuple[str, str | None]]:
        store = EventStore.open(backend)
        try:
            accounts = AccountStore(store)
            for user in ("p01_01", "p01_02"):
                await accounts.add_user(UserRow(user, f"{user} (Лепроград)", "-", 0.0))
                await accounts.add_session(f"hash-{user}", user, 0.0, 86400.0)
            rows = await accounts.sessions(["hash-p01_01", "hash-p01_02", "hash-nobody"])
            return {key: (row.user_id, row.display_name) for key, row in rows.items()}
        finally:
            await store.close()

    assert run(scenario()) == {"hash-p01_01": ("p01_01", "p01_01 (Лепроград)"),
                               "hash-p01_02": ("p01_02", "p01_02 (Лепроград)")}
