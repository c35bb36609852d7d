"""A vote is answered without handing the request to a worker thread (issue 17, "vote rush
in 10 cities at once: ack and tally p99 < 100 ms"; docs/performance.md "Capacity targets
(session 5)"). FastAPI runs every plain ``def`` dependency in its thread pool, one hop per
dependency and request; the web context, the service and the language are read on the
event loop instead.

Cast and day as in ``test_vote_record``: on Day 2 at 20:05 p01_03 votes «казнить» against
p01_01 in Лепроград (EXEC-5) through the HTTP API, then p01_05 reads the vote record."""

from __future__ import annotations

from typing import Any

import fastapi.dependencies.utils as dependency_utils
import pytest

from .conftest import Api
from .test_vote_record import day_two


def test_a_vote_and_a_vote_record_hop_to_no_worker_thread(api: Api, monkeypatch: pytest.MonkeyPatch) -> None:
    box, _other = day_two(api)
    hops: list[str] = []
    real = dependency_utils.run_in_threadpool

    async def counting(func: Any, *args: Any, **kwargs: Any) -> Any:
        hops.append(getattr(func, "__name__", repr(func)))
        return await real(func, *args, **kwargs)

    monkeypatch.setattr(dependency_utils, "run_in_threadpool", counting)
    ack = api.ok("p01_03", "g", "PostMessage", inbox=box, text="казнить")
    assert ack["event_count"] > 0
    record = api.get("p01_05", "/api/games/g/votes")
    assert record.status_code == 200
    page = api.get("p01_05", f"/games/g/inboxes/{box}")
    assert page.status_code == 200 and "p01_03" in page.text
    assert hops == [], f"dependencies run in the thread pool: {hops}"
