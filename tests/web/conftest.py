"""A web app on SQLite in a temporary directory, a manual clock, and a client that
speaks for any user (bearer tokens), plus a game set up entirely through the API."""

from __future__ import annotations

import itertools
import random
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from datetime import date, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from lepromafia.bots.setup import Cast, default_cast
from lepromafia.engine.calendar import MOSCOW
from lepromafia.engine.commands import REQUIREMENTS, OfferCommissar
from lepromafia.engine.state import GameState
from lepromafia.service.clock import ManualClock
from lepromafia.store import sqlite_inline
from lepromafia.web.app import create_app
from lepromafia.web.deps import Web
from lepromafia.web.settings import WebSettings

FIRST_DAY = date(2026, 12, 1)
START = datetime(2026, 11, 28, 12, 0, tzinfo=MOSCOW)
PASSWORD = "correct-horse-42"


def contact_of(user: str) -> str:
    return f"+7 999 SECRET-{user}"


class Api:
    def __init__(self, client: TestClient, clock: ManualClock) -> None:
        self.client = client
        self.clock = clock
        self.tokens: dict[str, str] = {}
        self._ids = itertools.count(1)

    @property
    def web(self) -> Web:
        web: Web = self.client.app.state.web  # type: ignore[attr-defined]
        return web

    def register(self, login: str, password: str = PASSWORD) -> str:
        r = self.client.post("/api/auth/register", json={"login": login, "password": password},
                             headers={"authorization": "Bearer -"})
        assert r.status_code == 201, r.text
        self.tokens[login] = r.json()["token"]
        self.client.cookies.clear()
        return self.tokens[login]

    def headers(self, user: str | None) -> dict[str, str]:
        return {"authorization": f"Bearer {self.tokens[user]}"} if user else {}

    def get(self, user: str | None, path: str, **params: Any) -> Any:
        return self.client.get(path, headers=self.headers(user), params=params)

    def post(self, user: str | None, path: str, body: Any) -> Any:
        headers = self.headers(user) or {"authorization": "Bearer -"}
        return self.client.post(path, headers=headers, json=body)

    def command_id(self) -> str:
        return f"t{next(self._ids)}"

    def cmd(self, user: str, game: str, name: str, /, **fields: Any) -> Any:
        return self.post(user, f"/api/games/{game}/commands/{name}",
                         {"command_id": self.command_id(), **fields})

    def ok(self, user: str, game: str, name: str, /, **fields: Any) -> dict[str, Any]:
        r = self.cmd(user, game, name, **fields)
        assert r.status_code == 200, (name, user, r.text)
        body: dict[str, Any] = r.json()
        return body

    def offer_to(self, procurator: str, game: str, city: str, candidate: str) -> None:
        """A commissar offer landing on ``candidate``: issued to the service in-process, since
        no HTTP caller can choose the draw (COMM-APPT-1)."""
        s = self.state(game)
        pool = [u for u in s.living(city) if u not in s.cities[city].offers_made]
        command = OfferCommissar(actor=procurator, city=city, draw=pool.index(candidate))
        self.client.portal.call(self.web.service.execute, game, command, self.command_id())  # type: ignore[union-attr]

    def state(self, game: str) -> GameState:
        state: GameState = self.client.portal.call(self.web.service.state, game)  # type: ignore[union-attr]
        return state

    def advance(self, delta: timedelta) -> None:
        self.clock.advance(delta)
        self.client.portal.call(self.web.service.sweep)  # type: ignore[union-attr]

    def advance_to(self, moment: datetime) -> None:
        self.clock.set(moment)
        self.client.portal.call(self.web.service.sweep)  # type: ignore[union-attr]


def settings_for(tmp: Path, **overrides: Any) -> WebSettings:
    # game days pass in minutes here: sessions idle out only where a test asks for it; no
    # gc.freeze (a full collection of the test process's heap, 0.3 s per app) but where
    # tests/web/test_gc_settings.py proves it
    options: dict[str, Any] = {"registrations_per_ip_per_hour": 1000, "session_idle_hours": 14 * 24,
                               "gc_freeze": False, **overrides}
    return WebSettings(database_url=f"sqlite:///{tmp}/web.db", sweep_interval=3600.0,
                       argon2_time_cost=1, argon2_memory_kib=1024, **options)


@pytest.fixture
def api(tmp_path: Path) -> Iterator[Api]:
    yield from make_api(tmp_path)


def make_api(tmp: Path, **overrides: Any) -> Iterator[Api]:
    clock = ManualClock(START)
    app = create_app(settings_for(tmp, **overrides), clock=clock)
    with TestClient(app) as client:
        yield Api(client, clock)


def small_cast() -> Cast:
    return default_cast(2, 6)


def setup_game_via_api(api: Api, game: str, cast: Cast, settings: dict[str, Any] | None = None,
                       start: bool = True) -> GameState:
    """Register every seat, then create, staff, deal and start the game through the API."""
    users = [cast.procurator, cast.consigliere, cast.arbiter, *cast.tribunes,
             *(u for us in cast.cities.values() for u in us)]
    for user in users:
        if user not in api.tokens:
            api.register(user)
    opts = {"city_count": len(cast.cities), "population_per_city": 6, **(settings or {})}
    r = api.post(cast.procurator, "/api/games", {"game_id": game, "title": "Тест", "settings": opts,
                                                 "command_id": api.command_id()})
    assert r.status_code == 201, r.text
    api.ok(cast.procurator, game, "AppointHost", office="consigliere", user=cast.consigliere)
    api.ok(cast.procurator, game, "AppointHost", office="arbiter", user=cast.arbiter)
    for users_of_city in cast.cities.values():
        for user in users_of_city:
            r = api.post(user, f"/api/games/{game}/signup",
                         {"accepted": sorted(REQUIREMENTS), "contact": contact_of(user),
                          "command_id": api.command_id()})
            assert r.status_code == 200, r.text
    if not start:
        return api.state(game)
    plans = [{"name": name, "tribune": cast.tribunes[i], "residents": list(us)}
             for i, (name, us) in enumerate(cast.cities.items())]
    api.ok(cast.procurator, game, "FormCities", cities=plans)
    r = api.post(cast.consigliere, f"/api/games/{game}/random/seal-deal", {"command_id": api.command_id()})
    assert r.status_code == 200, r.text
    for name in cast.cities:
        r = api.post(cast.procurator, f"/api/games/{game}/random/mafia-numbers",
                     {"city": name, "command_id": api.command_id()})
        assert r.status_code == 200, r.text
    state = api.state(game)
    for user in state.residents:
        if state.is_mafia(user):
            api.ok(user, game, "AcknowledgeRole")
    api.ok(cast.procurator, game, "StartGame", first_day=FIRST_DAY.isoformat())
    return api.state(game)


def at(day: int, hhmm: str) -> datetime:
    h, m = map(int, hhmm.split(":"))
    d = FIRST_DAY + timedelta(days=day - 1)
    return datetime(d.year, d.month, d.day, h, m, tzinfo=MOSCOW)


# --- a slow disk: every commit on the committing thread, late ------------------------------


class _SlowDisk:
    """A commit place whose every commit goes to the committing thread (a slow disk's)."""

    def inline(self, now: float) -> bool:
        return False


class LateCommits(ThreadPoolExecutor):
    """The committing thread of a disk that answers each commit 10–60 ms late."""

    submitted = 0

    def submit(self, fn: Any, /, *args: Any, **kwargs: Any) -> Any:
        self.submitted += 1

        def late() -> Any:
            time.sleep(random.uniform(0.01, 0.06))
            return fn(*args, **kwargs)

        return super().submit(late)


@pytest.fixture
def slow_disk(monkeypatch: pytest.MonkeyPatch) -> Iterator[dict[str, LateCommits]]:
    """From now on every commit of the served store waits on a late committing thread: the
    loop goes on meanwhile (other commands queue, other sockets read and subscribe). The
    committing threads, by file."""
    committers: dict[str, LateCommits] = {}

    def committer(path: str) -> LateCommits:
        if path not in committers:
            committers[path] = LateCommits(1, thread_name_prefix="sqlite-commit-late")
        return committers[path]

    monkeypatch.setattr(sqlite_inline, "_commit_place", lambda path: _SlowDisk())
    monkeypatch.setattr(sqlite_inline, "_committer", committer)
    yield committers
    for pool in committers.values():
        pool.shutdown(wait=True)
