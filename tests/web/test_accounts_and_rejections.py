"""Accounts, sessions, CSRF and the web's coded rejections (issue 5, "Bad input")."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path

import pytest
from fastapi import Depends, FastAPI
from fastapi.testclient import TestClient

from lepromafia.web.app import create_app
from lepromafia.web.deps import CsrfChecked, csrf_token
from lepromafia.web.settings import DEV_SECRET, WebSettings

from .conftest import PASSWORD, START, Api, make_api, settings_for


def test_register_login_me_logout_with_an_httponly_lax_cookie(api: Api) -> None:
    c = api.client
    r = c.post("/api/auth/register",
               json={"login": "Alice", "password": "secret-phrase-123", "display_name": "Алиса"})
    assert r.status_code == 201 and r.json()["user"] == {"user_id": "alice", "display_name": "Алиса"}
    cookie = r.headers["set-cookie"]
    assert "lepromafia_session=" in cookie and "HttpOnly" in cookie and "SameSite=lax" in cookie
    assert c.get("/api/me").json()["user_id"] == "alice"
    assert c.post("/api/auth/logout", headers={"content-type": "application/json"}).status_code == 204
    c.cookies.delete("lepromafia_session")
    assert c.get("/api/me").json()["error"]["code"] == "unauthenticated"
    r = c.post("/api/auth/login", json={"login": "alice", "password": "secret-phrase-123"})
    assert r.status_code == 200 and c.get("/api/me").status_code == 200


def test_registration_rejects_taken_logins_bad_logins_and_short_passwords(api: Api) -> None:
    api.register("bob")
    c = api.client
    taken = c.post("/api/auth/register", json={"login": "bob", "password": PASSWORD})
    assert taken.json()["error"]["code"] == "login_taken"
    assert c.post("/api/auth/register", json={"login": "b b", "password": PASSWORD}).status_code == 422
    r = c.post("/api/auth/register?lang=en", json={"login": "carol", "password": "short"})
    assert r.json()["error"] == {"code": "password_weak",
                                 "message": "The password must be at least 12 characters long",
                                 "field": "password"}


def test_logins_are_rate_limited_per_login_and_address(api: Api) -> None:
    api.register("dave")
    c = api.client
    for _ in range(5):
        assert c.post("/api/auth/login", json={"login": "dave", "password": "wrong-one"}).status_code == 401
    r = c.post("/api/auth/login", json={"login": "dave", "password": PASSWORD})
    assert r.status_code == 429 and r.json()["error"]["code"] == "rate_limited"
    api.clock.advance(timedelta(minutes=16))
    assert c.post("/api/auth/login", json={"login": "dave", "password": PASSWORD}).status_code == 200


def test_an_expired_session_is_told_apart_from_no_session(api: Api) -> None:
    api.register("erin")
    api.clock.advance(timedelta(days=15))
    r = api.get("erin", "/api/me")
    assert r.status_code == 401 and r.json()["error"]["code"] == "session_expired"
    assert api.get("erin", "/api/me").json()["error"]["code"] == "unauthenticated"  # it was dropped


def test_bad_json_oversize_bodies_unknown_ids_and_unknown_commands_are_coded(api: Api) -> None:
    api.register("fred")
    h = {**api.headers("fred"), "content-type": "application/json"}
    c = api.client
    r = c.post("/api/games", content=b"{not json", headers=h)
    assert r.status_code == 422 and r.json()["error"]["code"] == "bad_json"
    r = c.post("/api/games", content=b"x" * 300_000, headers=h)  # over the 256 KiB cap
    assert r.status_code == 413 and r.json()["error"]["code"] == "too_large"
    r = api.cmd("fred", "no-such-game", "Nominate", candidate="x")
    assert r.status_code == 404 and r.json()["error"]["code"] == "unknown_game"
    r = api.get("fred", "/api/games/no-such-game")
    assert r.status_code == 404 and r.json()["error"]["code"] == "unknown_game"
    r = api.cmd("fred", "no-such-game", "Teleport")
    assert r.status_code == 404 and r.json()["error"]["code"] == "unknown_command"
    r = api.post("fred", "/api/games", {"title": "T", "settings": {"city_count": 0}, "command_id": "a"})
    assert r.status_code == 422 and r.json()["error"]["code"] == "invalid_settings"
    assert api.get(None, "/api/games").json() == []  # nothing was half-created


def test_a_cookie_authenticated_api_post_must_be_json(api: Api) -> None:
    """A cross-site form cannot send application/json: the API's CSRF defence."""
    api.client.post("/api/auth/register", json={"login": "gina", "password": PASSWORD})
    r = api.client.post("/api/games", data={"title": "T", "command_id": "x"})
    assert r.status_code == 403 and r.json()["error"]["code"] == "csrf_invalid"


@pytest.fixture
def form_client(tmp_path: Path) -> Iterator[TestClient]:
    app: FastAPI = create_app(settings_for(tmp_path))

    @app.get("/test-form")
    async def form(token: str = Depends(csrf_token)) -> dict[str, str]:
        return {"token": token}

    @app.post("/test-form", dependencies=[CsrfChecked])
    async def submit() -> dict[str, bool]:
        return {"ok": True}

    with TestClient(app) as client:
        yield client


def test_a_form_token_works_once_and_only_in_the_browser_it_was_made_for(form_client: TestClient) -> None:
    token = form_client.get("/test-form").json()["token"]
    assert form_client.post("/test-form", data={"csrf_token": token}).json() == {"ok": True}
    replay = form_client.post("/test-form", data={"csrf_token": token})
    assert replay.status_code == 403 and "<p role=alert>" in replay.text  # a page, not JSON
    other = TestClient(form_client.app)
    fresh = form_client.get("/test-form").json()["token"]
    assert other.post("/test-form", data={"csrf_token": fresh}).status_code == 403
    assert form_client.post("/test-form", data={}).status_code == 403
    assert form_client.post("/test-form", data={"csrf_token": fresh}).status_code == 200


def test_production_refuses_the_default_secret() -> None:
    with pytest.raises(ValueError, match="SECRET_KEY"):
        WebSettings(environment="prod", secret_key=DEV_SECRET)
    assert WebSettings(environment="prod", secret_key="x" * 32, contact_key="k" * 44).environment == "prod"


def test_the_app_builds_nothing_at_import_and_serves_openapi(tmp_path: Path) -> None:
    for api in make_api(tmp_path):
        spec = api.get(None, "/openapi.json").json()
        assert "/api/games/{game_id}/commands/Nominate" in spec["paths"]
        assert api.clock.now() == START.timestamp()
