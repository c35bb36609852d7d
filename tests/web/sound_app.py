"""The web app with the Sound Library and archive routers included, media under tmp."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from fastapi.testclient import TestClient

from lepromafia.service.clock import ManualClock
from lepromafia.service.media import LocalBlobStore, MediaLibrary
from lepromafia.web.api import archive, sound
from lepromafia.web.app import create_app

from .conftest import START, Api, settings_for


def make_sound_api(tmp: Path) -> Iterator[Api]:
    clock = ManualClock(START)
    app = create_app(settings_for(tmp, max_body_bytes=8 * 1024 * 1024), clock=clock)
    if not any(getattr(r, "path", "").startswith("/api/games/{game_id}/sound") for r in app.routes):
        app.include_router(sound.router)
        app.include_router(archive.router)
    app.state.media = MediaLibrary(LocalBlobStore(tmp / "media"))
    with TestClient(app) as client:
        yield Api(client, clock)
