"""The Sound Library over HTTP: upload (multipart), measured duration, coded rejections,
publishing, the library listing, playback with ranges, request states.

Cast: ``procurator``, ``tribune1``/``tribune2``, residents ``p01_01``… of a 2×6 game.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from ..service import audio_files as audio
from .conftest import Api, at, setup_game_via_api, small_cast
from .sound_app import make_sound_api


@pytest.fixture
def api(tmp_path: Path) -> Iterator[Api]:
    yield from make_sound_api(tmp_path)


def upload(api: Api, user: str | None, path: Path, kind: str, name: str = "rec") -> Any:
    with path.open("rb") as f:
        return api.client.post("/api/games/g/sound/media", headers=api.headers(user),
                               files={"file": (name, f, "application/octet-stream")},
                               data={"kind": kind})


@pytest.fixture
def game(api: Api) -> Any:
    state = setup_game_via_api(api, "g", small_cast())
    api.advance_to(at(1, "11:00"))
    return state


def test_a_3_00_upload_is_accepted_and_3_01_and_a_renamed_text_file_are_refused(
        api: Api, game: Any, tmp_path: Path) -> None:
    """SOUND-CONF-4, SOUND-3: the server measures; the client's name and type do not count."""
    ok = upload(api, "tribune1", audio.wav(tmp_path / "ok.wav", 180), "confrontation")
    assert ok.status_code == 201, ok.text
    assert ok.json()["duration_seconds"] == 180 and ok.json()["duration"] == "3:00"
    assert ok.json()["content_type"] == "audio/wav"
    long = upload(api, "tribune1", audio.ogg_opus(tmp_path / "long.opus", 181), "confrontation")
    assert long.status_code == 422
    assert long.json()["error"] == {"code": "media_too_long", "rule": "SOUND-CONF-4",
                                    "message": "Запись длится 3:01, а можно не больше 3 мин."}
    text = tmp_path / "speech.ogg"
    text.write_text("казнить p01_02\n" * 50)
    bad = upload(api, "tribune1", text, "confrontation", name="speech.ogg")
    assert bad.status_code == 415 and bad.json()["error"]["code"] == "media_not_audio"
    english = api.client.post("/api/games/g/sound/media?lang=en", headers=api.headers("tribune1"),
                              files={"file": ("x.ogg", text.read_bytes())}, data={"kind": "seance"})
    assert english.json()["error"]["message"] == "The file is not an audio recording"


def test_uploads_need_a_user_and_a_csrf_token_or_bearer(api: Api, game: Any, tmp_path: Path) -> None:
    rec = audio.wav(tmp_path / "r.wav", 2)
    api.client.cookies.clear()
    no_token = api.client.post("/api/games/g/sound/media", files={"file": ("r", rec.read_bytes())},
                               data={"kind": "interrogation"})
    assert no_token.status_code == 403 and no_token.json()["error"]["code"] == "csrf_invalid"
    resident = game.cities["Лепроград"].residents[0]
    r = upload(api, resident, rec, "interrogation")
    assert r.status_code == 403 and r.json()["error"]["code"] == "media_not_allowed"


def test_publish_list_and_play_with_ranges(api: Api, game: Any, tmp_path: Path) -> None:
    """SOUND-INT-1: a Tribune's interrogation, published with the measured duration, listed
    for everyone (SOUND-2 public) and streamed with HTTP ranges."""
    resident = game.cities["Лепроград"].residents[0]
    rec = audio.mp3(tmp_path / "i.mp3", 30)
    media = upload(api, "tribune1", rec, "interrogation").json()["media"]
    draft = api.get("procurator", f"/api/games/g/sound/media/{media}")
    assert draft.status_code == 404, "an unpublished file is its uploader's alone"
    assert api.get("tribune1", f"/api/games/g/sound/media/{media}").status_code == 200
    r = api.post("tribune1", "/api/games/g/sound/entries",
                 {"kind": "interrogation", "media": media, "participants": [resident],
                  "command_id": "pub-1"})
    assert r.status_code == 200, r.text
    listing = api.get(None, "/api/games/g/sound/library").json()
    assert listing[0]["media"] == media and listing[0]["duration_seconds"] == 30
    assert listing[0]["participants"] == [resident] and listing[0]["host"] == "tribune1"
    whole = api.get(None, listing[0]["play"])
    assert whole.status_code == 200 and whole.content == rec.read_bytes()
    assert whole.headers["content-type"] == "audio/mpeg"
    assert whole.headers["accept-ranges"] == "bytes"
    assert whole.headers["x-content-type-options"] == "nosniff"
    part = api.client.get(listing[0]["play"], headers={"range": "bytes=100-199"})
    assert part.status_code == 206 and part.content == rec.read_bytes()[100:200]
    assert part.headers["content-range"] == f"bytes 100-199/{rec.stat().st_size}"
    beyond = api.client.get(listing[0]["play"], headers={"range": "bytes=99999999-"})
    assert beyond.status_code == 416 and beyond.headers["content-range"] == f"bytes */{rec.stat().st_size}"
    unknown = api.post("tribune1", "/api/games/g/sound/entries",
                       {"kind": "interrogation", "media": "0" * 64, "participants": [resident],
                        "command_id": "pub-2"})
    assert unknown.status_code == 404 and unknown.json()["error"]["code"] == "media_not_found"


def test_the_requester_follows_his_request(api: Api, game: Any) -> None:
    """ROLE-CIT-5: a citizen asks his Tribune; the Tribune passes it to the Procurator."""
    asker, target = game.cities["Лепроград"].residents[:2]
    api.ok(asker, "g", "RequestSound", kind="confrontation", target=target)
    mine = api.get(asker, "/api/games/g/sound/requests").json()
    assert [(r["kind"], r["state"], r["role"]) for r in mine] == [("confrontation", "submitted", "requester")]
    held = api.get("tribune1", "/api/games/g/sound/requests").json()
    assert held[0]["role"] == "handler"
    api.ok("tribune1", "g", "ForwardSoundRequest", request=mine[0]["request"])
    assert api.get(asker, "/api/games/g/sound/requests").json()[0]["state"] == "forwarded"
    assert api.get(target, "/api/games/g/sound/requests").json() == []
    assert api.get(None, "/api/games/g/sound/requests").status_code == 401


def test_an_upload_over_the_json_body_limit_but_under_the_media_cap_is_accepted_by_the_limits():
    """SOUND-CONF-4: the 64 KiB JSON limit does not apply to media uploads (50 MiB)."""
    from lepromafia.web.app import _is_upload

    assert _is_upload("/api/games/g1/sound/media")
    assert not _is_upload("/api/games/g1/commands/PostMessage")
    assert not _is_upload("/api/games/g1/sound/media/abc")
