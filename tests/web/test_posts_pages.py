"""Forum basics in the inboxes over HTTP: Markdown rendered once and safely, mentions that
reach only readers, edits that keep their history (INBOX-GEN-1, EXEC-13, SEC-5).

Cast: ``small_cast()``; in city A, the honest residents ``talker`` and ``listener`` and a
mafioso ``plotter``; the Procurator reads no city inbox.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest

from lepromafia.engine import events as ev
from lepromafia.engine.audience import Audience
from lepromafia.service.posts import mentioned_in, render

from .conftest import Api, at, make_api, setup_game_via_api, small_cast

CAST = small_cast()
A = next(iter(CAST.cities))
GAME = "posts"
TOKEN = re.compile(r'name="csrf_token" value="([^"]+)"')


@pytest.fixture(scope="module")
def game(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Api]:
    for api in make_api(Path(tmp_path_factory.mktemp("posts"))):
        setup_game_via_api(api, GAME, CAST)
        api.advance_to(at(1, "10:05"))
        yield api


def cast(api: Api) -> tuple[str, str, str]:
    s = api.state(GAME)
    honest = [u for u in s.living(A) if not s.is_mafia(u)]
    return honest[0], honest[1], s.living_mafia(A)[0]


def inbox_path(api: Api, kind: str) -> tuple[str, str]:
    box = api.state(GAME).current_inbox(kind, A)
    assert box
    return box, f"/games/{GAME}/inboxes/{quote(box, safe='')}"


def post(api: Api, user: str, path: str, text: str) -> str:
    csrf = TOKEN.search(api.get(user, path).text)
    assert csrf
    r = api.client.post(f"{path}/post", data={"csrf_token": csrf.group(1), "text": text},
                        headers={**api.headers(user), "hx-request": "1"})
    assert r.status_code == 200
    return str(r.text)


def edit(api: Api, user: str, path: str, number: int, text: str) -> Any:
    csrf = TOKEN.search(api.get(user, path).text)
    assert csrf
    r = api.client.post(f"{path}/messages/{number}/edit",
                        data={"csrf_token": csrf.group(1), "text": text},
                        headers=api.headers(user), follow_redirects=False)
    assert r.status_code == 303, r.text
    landed = api.get(user, r.headers["location"].partition("#")[0])
    api.client.cookies.delete("lp_flash")
    return landed


def message(html: str, number: int) -> str:
    found = re.search(rf'<li id="m{number}" .*?\n  </li>', html, re.S)
    assert found, number
    return found.group(0)


def test_a_post_renders_its_markdown_links_and_mention_and_the_mentioned_resident_sees_it(
        game: Api) -> None:
    """The forum subset renders; raw HTML stays text; @login reaches the resident named."""
    talker, listener, _plotter = cast(game)
    _box, path = inbox_path(game, "city")
    body = (f"**Версия**: @{listener}, смотри https://example.com/dossier\n\n"
            "> цитата\n\n- первый\n- второй\n\n<script>alert(1)</script>")
    post(game, talker, path, body)
    seen = game.get(listener, path).text
    mine = message(seen, 1)
    assert "<strong>Версия</strong>" in mine
    assert '<a href="https://example.com/dossier" rel="nofollow noopener noreferrer ugc">' in mine
    assert f'<span class="mention" data-user="{listener}">@{listener}</span>' in mine
    assert "mentions-me" in mine and 'data-testid="mentions-me"' in mine
    assert "<script>alert" not in seen and "&lt;script&gt;alert(1)&lt;/script&gt;" in mine
    assert "mentions-me" not in message(game.get(talker, path).text, 1)  # not his mention
    listed = game.get(listener, f"/games/{GAME}/mentions").text
    assert 'data-testid="mentions"' in listed and "dossier" in listed
    assert "dossier" not in game.get(talker, f"/games/{GAME}/mentions").text


def test_a_mention_in_the_mafia_inbox_never_reaches_the_citizen_it_names(game: Api) -> None:
    """SEC-5, INBOX-MAFIA-1: naming a citizen among the mafia tells him nothing."""
    _talker, listener, plotter = cast(game)
    box, path = inbox_path(game, "mafia")
    post(game, plotter, path, f"Ночью берём @{listener}")
    s = game.state(GAME)
    posted = ev.MessagePosted(at=at(1, "11:00"), audience=Audience(False, frozenset()),
                              inbox=box, author=plotter, text=f"Ночью берём @{listener}")
    assert mentioned_in(s, posted) == frozenset()
    assert "Ночью берём" not in game.get(listener, f"/games/{GAME}/mentions").text
    assert game.get(listener, path).status_code == 404


def test_the_author_edits_his_post_and_every_reader_sees_the_new_version_and_the_old_one(
        game: Api) -> None:
    """INBOX-GEN-1: «изменено» with the earlier versions under it, for every reader."""
    talker, listener, _plotter = cast(game)
    _box, path = inbox_path(game, "city")
    post(game, talker, path, "Голосую за *первого*")
    number = len(re.findall(r'<li id="m\d+"', game.get(talker, path).text))
    assert 'data-testid="edit-form"' in message(game.get(talker, path).text, number)
    assert 'data-testid="edit-form"' not in message(game.get(listener, path).text, number)
    landed = edit(game, talker, path, number, "Голосую за **второго**")
    assert 'data-testid="flash"' in landed.text
    seen = message(game.get(listener, path).text, number)
    assert "<strong>второго</strong>" in seen and 'data-testid="edited"' in seen
    history = seen[seen.index('data-testid="history"'):]
    assert "<em>первого</em>" in history
    edit(game, talker, path, number, "Голосую за третьего")
    seen = message(game.get(listener, path).text, number)
    history = seen[seen.index('data-testid="history"'):]
    assert "<em>первого</em>" in history and "<strong>второго</strong>" in history


def test_nobody_edits_another_s_post_and_the_refusal_is_in_words_beside_the_form(game: Api) -> None:
    """INBOX-GEN-1: not_your_message, translated; nothing is edited."""
    talker, listener, _plotter = cast(game)
    _box, path = inbox_path(game, "city")
    post(game, talker, path, "Моё мнение")
    number = len(re.findall(r'<li id="m\d+"', game.get(talker, path).text))
    before = game.state(GAME)
    landed = edit(game, listener, path, number, "Чужое мнение")
    assert 'data-code="not_your_message"' in landed.text
    assert "Только автор может изменить сообщение" in landed.text
    assert game.state(GAME) == before
    assert "Чужое мнение" not in message(game.get(talker, path).text, number)


def test_the_api_edits_and_refuses_with_codes(game: Api) -> None:
    """The generated command route: EditMessage, with a vote's refusal (EXEC-13)."""
    talker, listener, _plotter = cast(game)
    box, path = inbox_path(game, "city")
    post(game, talker, path, "Через API")
    number = len(re.findall(r'<li id="m\d+"', game.get(talker, path).text))
    game.ok(talker, GAME, "EditMessage", inbox=box, number=number, text="Через API, исправлено")
    [shown] = [m for m in game.get(listener, f"/api/games/{GAME}/inboxes/{box}").json()["messages"]
               if m["seq"] == number]
    assert shown["text"] == "Через API, исправлено" and shown["edited_at"]
    assert [v["text"] for v in shown["versions"]] == ["Через API"]
    r = game.cmd(listener, GAME, "EditMessage", inbox=box, number=number, text="x")
    assert r.status_code == 403 and r.json()["error"]["code"] == "not_your_message"
    r = game.cmd(talker, GAME, "EditMessage", inbox=box, number=999, text="x")
    assert r.status_code == 404 and r.json()["error"]["code"] == "unknown_message"


def test_a_long_post_of_twenty_thousand_characters_goes_through_the_form(game: Api) -> None:
    """Posts up to 20,000 characters, Cyrillic included (the body cap leaves room for them)."""
    talker, _listener, _plotter = cast(game)
    _box, path = inbox_path(game, "city")
    html = post(game, talker, path, "д" * 20_000)
    assert 'data-testid="error"' not in html and "д" * 20_000 in html
    html = post(game, talker, path, "д" * 20_001)
    assert 'data-code="message_too_long"' in html


def test_a_version_renders_once_whoever_reads_it() -> None:
    """The rendering cache: the same text, residents and language render once."""
    residents = frozenset({"anna"})
    render.cache_clear()
    first = render("**x** @anna", residents, "Спойлер")
    assert render("**x** @anna", residents, "Спойлер") is first
    assert render.cache_info().hits == 1 and render.cache_info().misses == 1


def test_a_chat_composer_answers_with_its_own_card_and_a_vote_with_the_whole_region(game: Api) -> None:
    """Issue 17: the city inbox's composer posts into its card (htmx target
    ``composer-card``): the answer is the emptied card, with no thread in it; a refusal is
    the card with the refusal in words and the text kept. The answer of a post whose
    target is the whole region (the voting inbox's buttons, or no htmx target) still
    carries the thread (INBOX-GEN-1, EXEC-5)."""
    talker, listener, _ = cast(game)
    _, path = inbox_path(game, "city")
    page = game.get(talker, path).text
    assert 'hx-target="#composer-card"' in page and 'id="composer-card"' in page

    def card(text: str) -> Any:
        csrf = TOKEN.search(game.get(talker, path).text)
        assert csrf
        return game.client.post(f"{path}/post", data={"csrf_token": csrf.group(1), "text": text},
                                headers={**game.headers(talker), "hx-request": "1",
                                         "hx-target": "composer-card"})

    r = card("Карточка, а не весь ящик.")
    assert r.status_code == 200
    assert 'data-testid="composer"' in r.text and "<textarea" in r.text
    assert 'class="thread"' not in r.text and "Карточка, а не весь ящик." not in r.text
    assert 'id="composer-card"' not in r.text  # its inside: htmx swaps it into the card
    shown = game.get(listener, path).text
    assert "Карточка, а не весь ящик." in shown  # posted all the same

    # The card's own form posts the next message, as the browser does; each card has its
    # own token, its nonce the form's command id (one token, one command).
    tokens = []
    for text in ("Второе из карточки.", "Третье из карточки."):
        token = TOKEN.search(r.text)
        assert token
        tokens.append(token.group(1))
        assert f'name="command_id" value="{token.group(1).split(".")[0]}"' in r.text
        r = game.client.post(f"{path}/post", data={"csrf_token": token.group(1), "text": text,
                                                    "command_id": token.group(1).split(".")[0]},
                             headers={**game.headers(talker), "hx-request": "1", "hx-target": "composer-card"})
        assert r.status_code == 200 and 'data-testid="error"' not in r.text
    assert len(set(tokens)) == 2
    shown = game.get(listener, path).text
    assert "Второе из карточки." in shown and "Третье из карточки." in shown

    refused = card("x" * 20_001)
    assert refused.status_code == 200 and 'data-testid="error"' in refused.text
    assert 'data-code="message_too_long"' in refused.text and 'class="thread"' not in refused.text
    assert "x" * 20_001 in refused.text  # the draft kept in the field
    assert "message_too_long" not in re.sub(r'data-code="[^"]*"', "", refused.text)

    whole = post(game, talker, path, "А этот ответ — весь ящик.")  # no htmx target: the region
    assert 'class="thread"' in whole and "А этот ответ — весь ящик." in whole
