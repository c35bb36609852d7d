"""F4-3, F4-4, F4-5: password spraying, enumeration, registration floods, weak passwords,
idle sessions.

Cast: «mallory» sprays from one address; «alice»…«hank» are her targets; «victor» is
attacked from many addresses. Every account has a strong password.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest

from lepromafia.service.accounts import AccountError, AccountErrorCode, AccountService, check_password
from lepromafia.web.i18n import error_message
from tests.web.conftest import PASSWORD, Api, make_api

TARGETS = ["alice", "bob", "carol", "dave", "erin", "fred", "gina", "hank"]


@pytest.fixture
def limited(tmp_path: Path) -> Iterator[Api]:
    yield from make_api(tmp_path, login_max_failures_per_ip=6, login_max_failures_per_account=4,
                        registrations_per_ip_per_hour=3)


def login(api: Api, user: str, password: str, ip: str = "testclient") -> Any:
    # the test client's address is fixed; the header below is ignored by the server (no
    # proxy trust), so "many addresses" are simulated through the service directly
    return api.client.post("/api/auth/login", json={"login": user, "password": password},
                           headers={"authorization": "Bearer -"})


def seed(api: Api, users: list[str]) -> None:
    for user in users:
        api.client.portal.call(api.web.accounts.register, user, PASSWORD)  # type: ignore[union-attr]


def test_one_password_sprayed_over_many_accounts_from_one_address_is_stopped(limited: Api) -> None:
    """F4-3: 8 logins × 1 wrong password from one address: after 6 failures the address is
    refused (429), even for a login it has not tried and with the right password."""
    seed(limited, TARGETS)
    codes = [login(limited, user, "Summer2026-spray").status_code for user in TARGETS]
    assert codes[:6] == [401] * 6 and codes[6:] == [429, 429], codes
    assert login(limited, "hank", PASSWORD).status_code == 429
    limited.clock.advance(timedelta(minutes=16))
    assert login(limited, "hank", PASSWORD).status_code == 200


def test_one_account_attacked_from_many_addresses_is_locked_for_a_while(limited: Api) -> None:
    """F4-3: the per-account limit counts failures from every address."""
    seed(limited, ["victor"])
    accounts = limited.web.accounts
    for i in range(4):
        with pytest.raises(AccountError) as err:
            limited.client.portal.call(accounts.login, "victor", "guess-guess-" + str(i), f"10.0.0.{i}")  # type: ignore[union-attr]
        assert err.value.code is AccountErrorCode.BAD_CREDENTIALS
    with pytest.raises(AccountError) as err:
        limited.client.portal.call(accounts.login, "victor", PASSWORD, "10.0.0.99")  # type: ignore[union-attr]
    assert err.value.code is AccountErrorCode.RATE_LIMITED


def test_an_unknown_login_costs_one_password_hash_like_a_known_one(tmp_path: Path) -> None:
    """F4-3, no timing oracle: both paths run exactly one argon2 verification."""
    for api in make_api(tmp_path):
        seed(api, ["alice"])
        accounts: AccountService = api.web.accounts
        calls: list[str] = []
        original = accounts._verify

        def counting(stored: str, password: str, calls: list[str] = calls,
                     original: Any = original) -> bool:
            calls.append(stored)
            return bool(original(stored, password))

        accounts._verify = counting  # type: ignore[method-assign]
        for user in ("alice", "nobody-here"):
            r = login(api, user, "wrong-password-123")
            assert (r.status_code, r.json()["error"]["code"]) == (401, "bad_credentials")
        assert len(calls) == 2 and all(c.startswith("$argon2id$") for c in calls)


def test_registration_is_throttled_per_address(limited: Api) -> None:
    """F4-3: 3 accounts an hour from one address; the 4th is a coded 429, translated."""
    for i in range(3):
        r = limited.client.post("/api/auth/register", json={"login": f"bot{i}", "password": PASSWORD},
                                headers={"authorization": "Bearer -"})
        assert r.status_code == 201, r.text
    r = limited.client.post("/api/auth/register?lang=en", json={"login": "bot9", "password": PASSWORD},
                            headers={"authorization": "Bearer -"})
    assert r.status_code == 429 and r.json()["error"]["code"] == "registration_limited"
    assert "Too many registrations" in r.json()["error"]["message"]
    limited.clock.advance(timedelta(minutes=61))
    r = limited.client.post("/api/auth/register", json={"login": "bot9", "password": PASSWORD},
                            headers={"authorization": "Bearer -"})
    assert r.status_code == 201


@pytest.mark.parametrize("password", ["12345678", "password", "aaaaaaaa", "password1234",
                                      "qwertyuiop12", "123456789012", "aaaaaaaaaaaa", "alicealice12"])
def test_short_common_and_guessable_passwords_are_refused(password: str) -> None:
    """F4-4 (ASVS 2.1.1, 2.1.7): 12 characters at least, and none of zxcvbn's common ones."""
    with pytest.raises(AccountError) as err:
        check_password(password, "alice")
    assert err.value.code in (AccountErrorCode.PASSWORD_WEAK, AccountErrorCode.PASSWORD_COMMON)
    assert error_message("ru", err.value) and error_message("en", err.value)


@pytest.mark.parametrize("password", [PASSWORD, "Лепроград-2026!", "my secret phrase"])
def test_strong_passwords_are_accepted(password: str) -> None:
    check_password(password, "alice")


def test_a_session_expires_after_two_idle_days_but_lives_while_used(tmp_path: Path) -> None:
    """F4-5: idle 48 h expires; a session used daily lasts until the 14-day maximum."""
    for api in make_api(tmp_path, session_idle_hours=48):
        api.register("idle")
        api.register("daily")
        for _day in range(13):
            api.clock.advance(timedelta(hours=24))
            assert api.get("daily", "/api/me").status_code == 200
        assert api.get("idle", "/api/me").json()["error"]["code"] == "session_expired"
        api.clock.advance(timedelta(hours=25))
        assert api.get("daily", "/api/me").json()["error"]["code"] == "session_expired"


def test_the_websocket_takes_a_one_time_ticket_but_never_the_session_token(api: Api) -> None:
    """F4-5: ``/ws?token=<session>`` no longer authenticates; a ticket works once; the
    bearer header (CLI, bots) and the cookie (browsers) still do."""
    from lepromafia.web.ws import endpoint

    api.register("alice")

    class Handshake:
        def __init__(self, query: dict[str, str], headers: dict[str, str] | None = None) -> None:
            self.query_params = query
            self.headers = headers or {}
            self.cookies: dict[str, str] = {}

    def viewer(handshake: Handshake) -> str | None:
        found, _token = api.client.portal.call(endpoint._viewer, handshake, api.web)  # type: ignore[union-attr,arg-type]
        return found

    assert viewer(Handshake({"token": api.tokens["alice"]})) is None
    assert viewer(Handshake({}, {"authorization": f"Bearer {api.tokens['alice']}"})) == "alice"
    ticket = api.post("alice", "/api/auth/ws-ticket", {}).json()["ticket"]
    assert viewer(Handshake({"ticket": ticket})) == "alice"
    assert viewer(Handshake({"ticket": ticket})) is None  # one time only
    late = api.post("alice", "/api/auth/ws-ticket", {}).json()["ticket"]
    api.clock.advance(timedelta(seconds=61))
    assert viewer(Handshake({"ticket": late})) is None  # short-lived
    forged = ticket.replace("alice", "admin", 1)
    assert viewer(Handshake({"ticket": forged})) is None
