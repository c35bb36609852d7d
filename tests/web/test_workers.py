"""Several workers: with LEPROMAFIA_REDIS_URL set the app fans events out through the real
Redis (service/redis_bus.py); without it, the in-process broker serves one worker."""

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from lepromafia.service.clock import ManualClock
from lepromafia.service.pubsub import Broker
from lepromafia.service.redis_bus import RedisBroker
from lepromafia.web.app import create_app
from lepromafia.web.settings import WebSettings

from ..service.conftest import _drop_schema
from ..service.helpers import pg_config, run
from .conftest import START, Api, at, settings_for, setup_game_via_api, small_cast


def test_the_app_uses_redis_when_told_and_the_in_process_broker_otherwise(tmp_path: Path) -> None:
    with TestClient(create_app(settings_for(tmp_path, redis_url="redis://127.0.0.1:6379/0"))) as client:
        assert isinstance(client.app.state.web.service.broker, RedisBroker)  # type: ignore[attr-defined]
        assert not client.app.state.web.service.sole_writer  # type: ignore[attr-defined]
    with TestClient(create_app(settings_for(tmp_path / "one"))) as client:
        broker = client.app.state.web.service.broker  # type: ignore[attr-defined]
        assert type(broker) is Broker
        assert client.app.state.web.service.sole_writer  # type: ignore[attr-defined]  # one worker


@pytest.fixture(params=["sqlite", "postgresql"])
def shared_db(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[dict[str, Any]]:
    """Settings for two workers on one database; a fresh PostgreSQL schema, dropped after."""
    if request.param == "sqlite":
        yield {"database_url": f"sqlite:///{tmp_path}/web.db"}
        return
    config = pg_config()
    yield {"database_url": config.url, "database_schema": config.schema}
    run(_drop_schema(config))


def _settings(db: dict[str, Any]) -> WebSettings:
    """A worker of several: they share Redis (as ``serve --workers`` requires)."""
    return WebSettings(redis_url="redis://127.0.0.1:6379/5", sweep_interval=3600.0, argon2_time_cost=1, argon2_memory_kib=1024,
                       session_idle_hours=14 * 24, registrations_per_ip_per_hour=1000, **db)


def test_a_vote_taken_by_worker_b_shows_on_worker_a_s_page_and_api(shared_db: dict[str, Any]) -> None:
    """EXEC-5, INBOX-VOTE-1, two workers on one database (SQLite, PostgreSQL): Лепроград's
    Day 2 vote on the first candidate. Worker A has rendered the voting inbox (0 votes); the
    voter's «казнить» is taken by worker B; A's tally API, tally region and inbox page show
    it on the next read."""
    clock = ManualClock(START)
    with TestClient(create_app(_settings(shared_db), clock=clock)) as client:
        api = Api(client, clock)
        setup_game_via_api(api, "two", small_cast())
        api.advance_to(at(2, "10:05"))
        s = api.state("two")
        city = next(iter(s.cities))
        candidate, nominator, voter = s.living(city)[:3]
        api.ok(nominator, "two", "Nominate", candidate=candidate)
        api.advance_to(at(2, "20:05"))
        box = api.state("two").current[f"voting:{city}/{candidate}"]
        page = f"/games/two/inboxes/{box}"
        assert api.get(voter, page).status_code == 200
        assert [t["votes"] for t in api.get(voter, "/api/games/two/tallies").json()] == [0]
        with TestClient(create_app(_settings(shared_db), clock=clock)) as b:
            r = b.post("/api/games/two/commands/PostMessage", headers=api.headers(voter),
                       json={"command_id": "vote-1", "inbox": box, "text": "казнить"})
            assert r.status_code == 200, r.text
        tallies = api.get(voter, "/api/games/two/tallies").json()
        assert [(t["votes"], t["voters"]) for t in tallies] == [(1, [voter])]
        assert voter in api.get(voter, f"{page}/tally").text
        assert 'data-testid="vote-button"' in api.get(voter, page).text
