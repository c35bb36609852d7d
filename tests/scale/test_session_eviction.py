"""A session ended on one worker is forgotten by every worker at once (issue 17): each
worker answers sessions from memory (``session_cache_seconds``, an hour here), and a
logout or an expiry seen by worker A reaches B's cache through Redis (ASVS 3.3.1).

Cast: Ульяна, who is signed in and has used both workers."""

from __future__ import annotations

import time
from collections.abc import Callable
from datetime import timedelta
from pathlib import Path

from fastapi.testclient import TestClient

from lepromafia.service.accounts import token_hash
from lepromafia.service.clock import ManualClock
from lepromafia.web.app import create_app

from ..web.conftest import START, Api, settings_for
from .cluster import REDIS_URL

HOUR = 3600.0


def eventually(check: Callable[[], bool], seconds: float = 5.0) -> bool:
    """``check()`` until true or ``seconds`` pass (Redis is asynchronous, not slow)."""
    end = time.monotonic() + seconds
    while not check():
        if time.monotonic() > end:
            return False
        time.sleep(0.02)
    return True


def two_workers(tmp_path: Path, clock: ManualClock, **overrides: object) -> tuple[TestClient, TestClient]:
    def app() -> TestClient:
        return TestClient(create_app(settings_for(tmp_path, redis_url=REDIS_URL,
                                                  session_cache_seconds=HOUR, **overrides), clock=clock))
    return app(), app()


def test_a_logout_on_worker_a_ends_the_session_on_worker_b_at_once(tmp_path: Path) -> None:
    clock = ManualClock(START)
    a_client, b_client = two_workers(tmp_path, clock)
    with a_client as a_http, b_client as b_http:
        a, b = Api(a_http, clock), Api(b_http, clock)
        token = a.register("ulyana")
        b.tokens["ulyana"] = token
        assert b.get("ulyana", "/api/me").json()["user_id"] == "ulyana"  # B has it cached now
        assert a.post("ulyana", "/api/auth/logout", {}).status_code == 204
        assert eventually(lambda: b.get("ulyana", "/api/me").status_code == 401)
        r = b.get("ulyana", "/api/me")
        assert r.json()["error"]["code"] == "unauthenticated"


def test_without_the_bus_worker_b_would_still_answer_from_memory(tmp_path: Path) -> None:
    """The control: the same two workers without Redis. B keeps answering the cached
    session after A's logout, which is what the bus is for (and why it cannot pass by
    accident: B's cache really is consulted)."""
    clock = ManualClock(START)
    with TestClient(create_app(settings_for(tmp_path, session_cache_seconds=HOUR), clock=clock)) as a_http, \
            TestClient(create_app(settings_for(tmp_path, session_cache_seconds=HOUR), clock=clock)) as b_http:
        a, b = Api(a_http, clock), Api(b_http, clock)
        b.tokens["ulyana"] = a.register("ulyana")
        assert b.get("ulyana", "/api/me").status_code == 200
        assert a.post("ulyana", "/api/auth/logout", {}).status_code == 204
        time.sleep(0.3)
        assert b.get("ulyana", "/api/me").status_code == 200


def test_an_expiry_seen_by_worker_a_is_forgotten_by_worker_b(tmp_path: Path) -> None:
    clock = ManualClock(START)
    a_client, b_client = two_workers(tmp_path, clock, session_idle_hours=1)
    with a_client as a_http, b_client as b_http:
        a, b = Api(a_http, clock), Api(b_http, clock)
        token = b.tokens["ulyana"] = a.register("ulyana")
        assert b.get("ulyana", "/api/me").status_code == 200
        cached = b.web.accounts._sessions
        assert token_hash(token) in cached
        clock.advance(timedelta(hours=1, minutes=1))
        assert a.get("ulyana", "/api/me").json()["error"]["code"] == "session_expired"
        # A dropped the row and said so; B forgets its copy before it is asked again
        assert eventually(lambda: token_hash(token) not in cached)
        assert b.get("ulyana", "/api/me").json()["error"]["code"] == "unauthenticated"
