"""``subscribed`` is said only once the catch-up was read (issue 17, the review's silent
loss): a store that fails the catch-up read leaves the socket unsubscribed and told so,
never subscribed with a hole; the next subscribe works."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from lepromafia.service.errors import ServiceError, ServiceErrorCode
from lepromafia.service.queries import GameQueries

from .conftest import make_api, setup_game_via_api, small_cast

CAST = small_cast()


def test_a_failed_catch_up_read_is_an_error_not_a_subscription(tmp_path: Path,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    real = GameQueries.deliveries
    failures = [ServiceError(ServiceErrorCode.STORAGE_FULL)]

    async def flaky(self: GameQueries, *args: Any, **kwargs: Any) -> Any:
        if failures:
            raise failures.pop()
        return await real(self, *args, **kwargs)

    for api in make_api(tmp_path):
        setup_game_via_api(api, "g1", CAST, start=False)
        viewer = CAST.procurator
        monkeypatch.setattr(GameQueries, "deliveries", flaky)
        with api.client.websocket_connect("/ws", headers=api.headers(viewer)) as ws:
            ws.send_json({"type": "subscribe", "game": "g1", "since_seq": 0})
            first = ws.receive_json()
            assert first["type"] == "error" and first["code"] == "storage_full"
            ws.send_json({"type": "subscribe", "game": "g1", "since_seq": 0})
            again = ws.receive_json()
            assert again["type"] == "subscribed" and again["version"] > 0
            assert ws.receive_json()["type"] == "event"  # then the catch-up, from his first event
