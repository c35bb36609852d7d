"""Public discussion under the posts on the pages, the API and the WebSocket (POST-1,
POST-2, PLAYER-7; review D19).

Cast: ``small_cast()`` (two cities of six, the hosts), plus vera, a registered member of the
community who never signs up, and boris, a community member under a registry ban.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from lepromafia.engine.errors import ErrorCode

from .conftest import Api, at, make_api, setup_game_via_api, small_cast

CAST = small_cast()
A, B = list(CAST.cities)
GAME = "talk"
TOKEN = re.compile(r'name="csrf_token" value="([^"]+)"')


@pytest.fixture(scope="module")
def game(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Api]:
    for api in make_api(Path(tmp_path_factory.mktemp("talk"))):
        api.register("vera")
        api.register("boris")
        setup_game_via_api(api, GAME, CAST)
        api.advance_to(at(1, "10:05"))
        yield api


def page(api: Api, user: str | None, lang: str = "ru") -> str:
    r = api.get(user, f"/games/{GAME}", lang=lang)
    assert r.status_code == 200
    return str(r.text)


def comment_form(api: Api, user: str, post: str, text: str, hx: bool = True) -> str:
    found = TOKEN.search(page(api, user))
    assert found
    headers = api.headers(user) | ({"hx-request": "true"} if hx else {})
    r = api.client.post(f"/games/{GAME}/posts/{post}/comments", headers=headers,
                        data={"csrf_token": found.group(1), "text": text,
                              "command_id": found.group(1).split(".")[0]},  # as csrf_field renders it
                        follow_redirects=False)
    api.client.cookies.delete("lp_flash")
    assert r.status_code in (200, 303), r.text
    return str(r.text)


def comments(api: Api, user: str | None = None) -> dict[str, list[dict[str, object]]]:
    r = api.get(user, f"/api/games/{GAME}/comments")
    assert r.status_code == 200
    body: dict[str, list[dict[str, object]]] = r.json()
    return body


def test_post1_post2_a_non_player_and_a_player_comment_under_the_posts(game: Api) -> None:
    """POST-1, POST-2: vera (no seat) comments under the Recruitment Post from the page;
    a resident comments under the Day 1 post; anonymous visitors read both and see how to
    take part; the composer sits under each post."""
    resident = CAST.cities[A][0]
    html = comment_form(game, "vera", "recruitment", "Болею за Альфаград")
    assert "Болею за Альфаград" in html and 'data-testid="comment-composer"' in html
    comment_form(game, resident, "day:1", "Доброе утро, город")
    anonymous = page(game, None)
    assert "Болею за Альфаград" in anonymous and "Доброе утро, город" in anonymous
    assert 'data-post="recruitment"' in anonymous and 'data-post="day:1"' in anonymous
    assert "Войдите, чтобы комментировать." in anonymous
    assert 'data-testid="comment-composer"' not in anonymous
    assert "vera" in [c["author"] for c in comments(game)["recruitment"]]


def test_player7_a_registry_ban_refuses_the_comment_next_to_the_composer(game: Api) -> None:
    """PLAYER-7: the Procurator records a registry ban on boris; his page shows why he cannot
    comment and a forced post is refused with the code ``banned`` (API and form)."""
    r = game.post(CAST.procurator, f"/api/games/{GAME}/sanctions",
                  {"user": "boris", "reason": "оскорбления в прошлой игре", "rule": "PLAYER-7", "days": 30})
    assert r.status_code == 201, r.text
    assert 'data-testid="comment-refused"' in page(game, "boris")
    r = game.post("boris", f"/api/games/{GAME}/posts/recruitment/comments",
                  {"text": "я вернулся", "command_id": "b1"})
    assert r.status_code >= 400 and r.json()["error"]["code"] == "banned"
    assert all(c["author"] != "boris" for c in comments(game).get("recruitment", []))
    # the generic command endpoint cannot bypass the registry
    r = game.cmd("boris", GAME, "PostComment", post="recruitment", text="обход")
    assert r.status_code in (404, 405)


def test_an_in_game_sanction_refuses_with_the_engine_code(game: Api) -> None:
    """PLAYER-7, OMERTA-2: a sanction recorded in the game (the console's path) also stops
    the resident commenting; the composer's error keeps the typed text."""
    user = CAST.cities[B][1]
    game.ok(CAST.procurator, GAME, "RecordSanction", user=user, rule="OMERTA-2", reason="омерта",
            until=None)
    r = game.post(user, f"/api/games/{GAME}/posts/day:1/comments", {"text": "не я", "command_id": "s1"})
    # issue 10 (D8): the console's sanction reaches the registry too, which is checked first
    assert r.json()["error"]["code"] in ("banned", ErrorCode.SANCTIONED.value)


def test_post2_an_error_sits_next_to_the_composer_with_the_text_kept(game: Api) -> None:
    """An over-long comment comes back translated, next to the form, the draft kept."""
    html = comment_form(game, "vera", "day:1", "x" * 4001)
    assert 'data-testid="comment-error"' in html and "x" * 4001 in html


def test_the_procurator_hides_a_comment_and_everyone_reads_his_reason(game: Api) -> None:
    """POST-2: the Procurator hides vera's comment with a reason; the page shows
    "Скрыто Прокуратором: <reason>" in its place, the API drops its text; another host's
    hide form is refused."""
    r = game.post("vera", f"/api/games/{GAME}/posts/day:1/comments",
                  {"text": "Купите слона", "command_id": "ad1"})
    assert r.status_code == 200, r.text
    number = next(c["comment"] for c in comments(game)["day:1"] if c["text"] == "Купите слона")
    proc_page = page(game, CAST.procurator)
    assert 'data-testid="hide-form"' in proc_page
    assert 'data-testid="hide-form"' not in page(game, "vera")
    found = TOKEN.search(proc_page)
    assert found
    r = game.client.post(f"/games/{GAME}/comments/{number}/hide", headers=game.headers(CAST.procurator),
                         data={"csrf_token": found.group(1), "reason": "реклама", "anchor": "comments-day-1"},
                         follow_redirects=False)
    assert r.status_code == 303
    game.client.cookies.delete("lp_flash")
    html = page(game, None)
    assert "Скрыто Прокуратором: реклама" in html and "Купите слона" not in html
    assert "Hidden by the Procurator: реклама" in page(game, None, "en")
    shown = next(c for c in comments(game)["day:1"] if c["comment"] == number)
    assert shown["text"] is None and shown["hidden"]["reason"] == "реклама"  # type: ignore[index]
    r = game.cmd(CAST.tribunes[0], GAME, "HideComment", comment=number, reason="тоже")
    assert r.json()["error"]["code"] == "not_procurator"


def test_comments_arrive_live_over_the_websocket(game: Api) -> None:
    """POST-2, like inbox messages: an anonymous visitor's socket gets the comment at once."""
    version = game.client.portal.call(game.web.queries.position, GAME, None)  # type: ignore[union-attr]
    with game.client.websocket_connect("/ws") as ws:
        ws.send_json({"type": "subscribe", "game": GAME, "since_seq": version})
        assert ws.receive_json()["type"] == "subscribed"
        r = game.post("vera", f"/api/games/{GAME}/posts/day:1/comments", {"text": "в прямом эфире", "command_id": "live1"})
        assert r.status_code == 200, r.text
        live = ws.receive_json()
        assert live["type"] == "event" and live["payload"]["type"] == "CommentPosted"
        assert live["payload"]["text"] == "в прямом эфире"
    r = game.get(None, f"/games/{GAME}/posts/day:1/comments")
    assert r.status_code == 200 and "в прямом эфире" in r.text


def test_the_home_page_shows_a_games_last_day_post_without_its_discussion(game: Api) -> None:
    """POST-2: the home page's preview of the last Day Post renders (the discussion lives on
    the game page, where the composer is)."""
    r = game.get(None, "/")
    assert r.status_code == 200 and 'data-testid="daypost"' in r.text
    assert 'data-testid="comment-composer"' not in r.text
