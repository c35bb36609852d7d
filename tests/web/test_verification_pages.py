"""Issue 14 on the web: the server's key at the well-known URL, the signed heads of a game,
each Day Post showing its head, the game page saying how the deal is made, and the
verifiable export that verify.py accepts — for an anonymous visitor, revealing only public
events while the game runs. Cast: ``small_cast()``, Day 2 reached."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from lepromafia import verifier

from .conftest import Api, at, make_api, setup_game_via_api, small_cast

GAME = "verifiable"


@pytest.fixture(scope="module")
def game(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Api]:
    for api in make_api(Path(tmp_path_factory.mktemp("verification"))):
        setup_game_via_api(api, GAME, small_cast())
        api.advance_to(at(2, "10:05"))
        yield api


def test_the_server_key_is_published_at_the_well_known_url(game: Api) -> None:
    r = game.get(None, "/.well-known/lepromafia-log-key")
    assert r.status_code == 200
    key = r.json()
    assert key["algorithm"] == "Ed25519" and key["key_id"] == game.web.service.log_key.key_id


def test_the_signed_heads_are_public_and_the_day_post_shows_its_own(game: Api) -> None:
    heads = game.get(None, f"/api/games/{GAME}/log").json()["heads"]
    assert [h["reason"] for h in heads] == ["day_post:1", "day_post:2"]
    page = game.get(None, f"/games/{GAME}", lang="en").text
    assert page.count('data-testid="daypost-head"') == 2
    assert f"Game log signed: {heads[-1]['size']} events" in page
    assert 'The deal is "by hand"' in page or "The deal is &#34;by hand&#34;" in page
    russian = game.get(None, f"/games/{GAME}", lang="ru").text
    assert "Журнал игры подписан" in russian and "Сделка «вручную»" in russian


def test_the_export_verifies_and_opens_only_public_events_while_the_game_runs(game: Api) -> None:
    r = game.get(None, f"/api/games/{GAME}/log/export")
    assert r.status_code == 200
    report = verifier.verify(r.content, "en")
    assert report.verified, report.text()
    heads = game.get(None, f"/api/games/{GAME}/log").json()["heads"]
    kept = heads[0]
    assert verifier.verify(r.content, "en", known_heads=[kept]).verified
    revealed = [json.loads(e["event"]) for e in json.loads(r.content)["log"] if "event" in e]
    assert revealed and all(e["audience"]["public"] for e in revealed)
    assert "kostya" not in r.text and game.state(GAME).consigliere not in {
        e.get("user") for e in revealed if e["type"] == "HostAppointed"}


def test_a_consistency_proof_between_two_published_heads_verifies(game: Api) -> None:
    """RFC 9162: anyone who kept the Day 1 head can check the Day 2 head extends it."""
    first, second = game.get(None, f"/api/games/{GAME}/log").json()["heads"]
    r = game.get(None, f"/api/games/{GAME}/log/consistency", first=first["size"], second=second["size"])
    assert r.status_code == 200
    proof = [bytes.fromhex(h) for h in r.json()["proof"]]
    assert verifier.verify_consistency(first["size"], second["size"], bytes.fromhex(first["root"]),
                                       bytes.fromhex(second["root"]), proof)
    assert not verifier.verify_consistency(first["size"], second["size"], bytes.fromhex(second["root"]),
                                           bytes.fromhex(second["root"]), proof)
    bad = game.get(None, f"/api/games/{GAME}/log/consistency", first=1, second=second["size"])
    assert bad.status_code == 404, "only published heads"


def test_an_unknown_game_has_no_log(game: Api) -> None:
    assert game.get(None, "/api/games/nope/log").status_code == 404
    assert game.get(None, "/api/games/nope/log/export").status_code == 404
