"""Sessions answered from memory (issue 17: the uncached lookup was 11–14 % of the
server's time): a cached session costs no query, and logout and expiry still end it at
once (ASVS 3.3.1, 3.3.2)."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import pytest

from lepromafia.store.accounts import AccountStore

from .conftest import make_api


def counting_lookups(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    seen: list[str] = []
    real = AccountStore.session

    async def counted(self: AccountStore, token_hash: str) -> object:
        seen.append(token_hash)
        return await real(self, token_hash)

    monkeypatch.setattr(AccountStore, "session", counted)
    return seen


def test_repeated_requests_of_a_session_read_it_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for api in make_api(tmp_path):
        api.register("ulyana")
        lookups = counting_lookups(monkeypatch)
        for _ in range(5):
            assert api.get("ulyana", "/api/me").json()["user_id"] == "ulyana"
        assert len(lookups) == 1


def test_logout_ends_a_cached_session_at_once(tmp_path: Path) -> None:
    for api in make_api(tmp_path):
        api.register("ulyana")
        assert api.get("ulyana", "/api/me").status_code == 200  # now cached
        assert api.post("ulyana", "/api/auth/logout", {}).status_code == 204
        r = api.get("ulyana", "/api/me")
        assert r.status_code == 401 and r.json()["error"]["code"] == "unauthenticated"


def test_an_idle_session_expires_though_it_is_cached(tmp_path: Path) -> None:
    for api in make_api(tmp_path, session_idle_hours=1):
        api.register("ulyana")
        assert api.get("ulyana", "/api/me").status_code == 200  # now cached
        api.clock.advance(timedelta(hours=1, minutes=1))
        r = api.get("ulyana", "/api/me")
        assert r.status_code == 401 and r.json()["error"]["code"] == "session_expired"


def test_with_the_cache_off_every_request_reads_the_session(tmp_path: Path,
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    for api in make_api(tmp_path, session_cache_seconds=0):
        api.register("ulyana")
        lookups = counting_lookups(monkeypatch)
        for _ in range(3):
            assert api.get("ulyana", "/api/me").status_code == 200
        assert len(lookups) == 3
