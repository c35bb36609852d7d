"""Several workers: with LEPROMAFIA_REDIS_URL set the app fans events out through the real
Redis (service/redis_bus.py); without it, the in-process broker serves one worker."""

from pathlib import Path

from fastapi.testclient import TestClient

from lepromafia.service.pubsub import Broker
from lepromafia.service.redis_bus import RedisBroker
from lepromafia.web.app import create_app

from .conftest import settings_for


def test_the_app_uses_redis_when_told_and_the_in_process_broker_otherwise(tmp_path: Path) -> None:
    with TestClient(create_app(settings_for(tmp_path, redis_url="redis://127.0.0.1:6379/0"))) as client:
        assert isinstance(client.app.state.web.service.broker, RedisBroker)  # type: ignore[attr-defined]
    with TestClient(create_app(settings_for(tmp_path / "one"))) as client:
        broker = client.app.state.web.service.broker  # type: ignore[attr-defined]
        assert type(broker) is Broker
