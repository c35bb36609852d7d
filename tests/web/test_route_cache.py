"""The test process's route memo (tests/route_cache.py) builds the same app as FastAPI does,
and keeps each app's own: its dependency overrides, its health and metrics routes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient
from starlette.routing import BaseRoute

from lepromafia.service.clock import ManualClock
from lepromafia.web import route_index
from lepromafia.web.api import api_guard
from lepromafia.web.app import create_app
from lepromafia.web.errors import WebError, WebErrorCode

from .. import route_cache
from .conftest import START, settings_for


def _built(tmp: Path, name: str, memo: bool, **overrides: object) -> FastAPI:
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(route_index, "flatten", route_cache.flatten if memo else route_cache.real_flatten)
        return create_app(settings_for(tmp / name, **overrides), clock=ManualClock(START))


def _signature(route: BaseRoute) -> tuple[str, str, str, str]:
    return (type(route).__name__, getattr(route, "path", ""), ",".join(sorted(getattr(route, "methods", None) or ())),
            getattr(route, "name", ""))


def test_a_memoized_app_has_the_routes_and_openapi_fastapi_builds(tmp_path: Path) -> None:
    real = _built(tmp_path, "real", memo=False)
    _built(tmp_path, "first", memo=True)
    hits = route_cache.stats["hits"]
    memo = _built(tmp_path, "memo", memo=True)
    assert route_cache.stats["hits"] > hits  # the second app reused the first one's routes
    assert [_signature(r) for r in memo.routes] == [_signature(r) for r in real.routes]
    assert len(memo.routes) > 200
    assert json.dumps(memo.openapi()).encode() == json.dumps(real.openapi()).encode()


def test_each_app_answers_with_its_own_routes_and_overrides(tmp_path: Path) -> None:
    """Two apps from the memo: an override on one (CSRF guard refusing everything) leaves
    the other alone, and no route of one is the other's."""
    one = _built(tmp_path, "one", memo=True)
    two = _built(tmp_path, "two", memo=True)
    assert not {id(r) for r in one.routes} & {id(r) for r in two.routes}
    for app in (one, two):
        assert all(r.dependency_overrides_provider is app  # type: ignore[attr-defined]
                   for r in app.routes if hasattr(r, "dependency_overrides_provider"))

    def refuse() -> None:
        raise WebError(WebErrorCode.CSRF_INVALID)

    one.dependency_overrides[api_guard] = refuse
    with TestClient(one) as a, TestClient(two) as b:
        assert a.get("/api/games").status_code == 403
        assert b.get("/api/games").status_code == 200


def test_health_and_metrics_routes_stay_the_apps_own(tmp_path: Path) -> None:
    """observability.install builds a router per app (its endpoints close over that app's
    settings): /metrics exists only where the setting asked for it."""
    with_metrics = _built(tmp_path, "with", memo=True, metrics=True)
    without = _built(tmp_path, "without", memo=True, metrics=False)
    with TestClient(with_metrics) as a, TestClient(without) as b:
        assert a.get("/metrics").status_code == 200
        assert b.get("/metrics").status_code == 404
        assert a.get("/healthz").json() == b.get("/healthz").json() == {"status": "ok"}
