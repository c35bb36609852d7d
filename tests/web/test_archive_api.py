"""The archives over HTTP (§9.4): the page data with links, reading, consent, requests and
the JSON export of a game the bots played to its end (imported into the app's store)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest

from ..service.finished_game import PERSONAL_TEXT, FinishedGame, import_game, play_finished_game
from .conftest import Api, setup_game_via_api, small_cast
from .sound_app import make_sound_api


@pytest.fixture
def api(tmp_path: Path) -> Iterator[Api]:
    yield from make_sound_api(tmp_path)


@pytest.fixture(scope="module")
def played() -> FinishedGame:
    return play_finished_game()


@pytest.fixture
def game(api: Api, played: FinishedGame) -> FinishedGame:
    api.client.portal.call(import_game, api.web.service.store, "done", played.table)  # type: ignore[union-attr]
    for user in (played.writer, played.table.game.cities["Лепросицилия"].residents[4]):
        api.register(user)
    return played


def fetch(api: Api, user: str | None, url: str) -> Any:
    """GET a link as given (``Api.get`` would drop its query string)."""
    return api.client.get(url, headers=api.headers(user))


def row(page: dict[str, Any], inbox: str) -> dict[str, Any]:
    return next(i for i in page["inboxes"] if i["inbox"] == inbox)


def test_an_anonymous_visitor_reads_what_is_open_and_no_more(api: Api, game: FinishedGame) -> None:
    """§9.4, RANDOM-5: the deal's notary opens to all and checks; personal inboxes wait."""
    page = api.get(None, "/api/games/done/archive")
    assert page.status_code == 200, page.text
    data = page.json()
    assert data["deal"]["verified"] is True
    notary = next(i for i in data["inboxes"] if i["kind"] == "notary" and i["title"] == "RANDOM-2")
    assert notary["status"] == "open" and fetch(api, None, notary["links"]["read"]).status_code == 200
    personal = row(data, game.personal)
    assert personal["status"] == "awaiting_consent" and personal["links"]["read"] is None
    closed = fetch(api, None, f"/api/games/done/archive/inbox?inbox={quote(game.personal, safe='')}")
    assert closed.status_code == 403 and closed.json()["error"]["code"] == "archive_inbox_closed"
    city = next(i for i in data["inboxes"] if i["kind"] == "city")
    assert city["status"] == "on_request" and city["links"]["request"] is None, "anonymous cannot ask"
    assert all(v["at"] for v in data["votes"]) and data["timeline"]


def test_consent_and_request_through_the_api(api: Api, game: FinishedGame) -> None:
    """INBOX-PERS-3: the resident consents, and his personal inbox opens; AMB-33: asking opens
    the City inbox to the one who asked."""
    writer = game.writer
    mine = row(api.get(writer, "/api/games/done/archive").json(), game.personal)
    assert mine["status"] == "member" and mine["links"]["consent"]
    r = api.post(writer, mine["links"]["consent"], {"inbox": game.personal, "consent": True,
                                                     "command_id": "c1"})
    assert r.status_code == 200, r.text
    opened = fetch(api, None, row(api.get(None, "/api/games/done/archive").json(), game.personal)["links"]["read"])
    assert [m["text"] for m in opened.json()["messages"]] == [PERSONAL_TEXT]
    asker = game.table.game.cities["Лепросицилия"].residents[4]
    city = next(i for i in api.get(asker, "/api/games/done/archive").json()["inboxes"]
                if i["kind"] == "city" and i["city"] == "Лепроград")
    assert city["links"]["request"]
    r = api.post(asker, city["links"]["request"], {"inbox": city["inbox"], "command_id": "r1"})
    assert r.status_code == 200, r.text
    after = row(api.get(asker, "/api/games/done/archive").json(), city["inbox"])
    assert after["status"] == "open" and fetch(api, asker, after["links"]["read"]).status_code == 200
    refused = api.post(asker, "/api/games/done/archive/consent",
                       {"inbox": game.personal, "consent": True, "command_id": "c2"})
    assert refused.status_code == 409 and refused.json()["error"]["code"] == "not_a_member"


def test_the_export_is_json_of_what_the_viewer_may_see(api: Api, game: FinishedGame) -> None:
    r = api.get(None, "/api/games/done/archive/export")
    assert r.status_code == 200
    assert r.headers["content-disposition"] == 'attachment; filename="lepromafia-done-archive.json"'
    data = r.json()
    assert data["format"] == "lepromafia-archive" and data["viewer"] is None
    assert {i["inbox"] for i in data["opened_inboxes"]} == {
        i["inbox"] for i in data["inboxes"] if i["can_read"]}
    assert PERSONAL_TEXT not in r.text


def test_a_running_games_archive_is_shut(api: Api) -> None:
    setup_game_via_api(api, "live", small_cast())
    r = api.get(None, "/api/games/live/archive")
    assert r.status_code == 409 and r.json()["error"]["code"] == "archive_not_finished"
    assert api.get(None, "/api/games/nope/archive").status_code == 404
