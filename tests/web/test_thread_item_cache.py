"""Thread items rendered once per message and view, never one seat's view for another
(issue 17; INBOX-GEN-1, INBOX-CITY-1, EXEC-13, SEC-5).

Cast: ``small_cast()``; in city A, the honest residents ``talker`` and ``listener``, a
mafioso ``plotter`` and the city's Tribune (a host, the city inbox's organizer). They all
read city A's inbox on Day 1; the same messages show each of them his own controls.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import UTC, datetime
from itertools import count
from pathlib import Path
from typing import Any

import pytest
from markupsafe import Markup

from lepromafia.web.pages import item_cache
from lepromafia.web.pages.item_cache import CACHE
from lepromafia.web.pages.render import env, local

from .conftest import Api, at, make_api, setup_game_via_api, small_cast
from .test_posts_pages import edit, inbox_path, message, post

CAST = small_cast()
A = next(iter(CAST.cities))
GAME = "posts"  # the helpers of test_posts_pages name it (this module has its own store)
TOKEN = re.compile(r'name="csrf_token" value="([^"]+)"')
COMMAND = re.compile(r'name="command_id" value="([^"]+)"')


@pytest.fixture(scope="module")
def game(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Api]:
    for api in make_api(Path(tmp_path_factory.mktemp("itemcache"))):
        setup_game_via_api(api, GAME, CAST)
        api.advance_to(at(1, "10:05"))
        yield api


@pytest.fixture(autouse=True)
def fresh_cache() -> Iterator[None]:
    CACHE.clear()
    CACHE.enabled = True
    yield
    CACHE.enabled = True


def seats(api: Api) -> tuple[str, str, str, str]:
    s = api.state(GAME)
    honest = [u for u in s.living(A) if not s.is_mafia(u)]
    return honest[0], honest[1], s.living_mafia(A)[0], s.cities[A].tribune


def region(api: Api, user: str, path: str, **params: Any) -> str:
    r = api.client.get(f"{path}/part", params=params, headers={**api.headers(user), "hx-request": "1"})
    assert r.status_code == 200, r.text
    return str(r.text)


def without_tokens(html: str) -> str:
    return COMMAND.sub('name="command_id" value=""', TOKEN.sub('name="csrf_token" value=""', html))


def last_number(html: str) -> int:
    return max(int(n) for n in re.findall(r'<li id="m(\d+)"', html))


def test_the_same_viewer_twice_is_a_hit_with_a_fresh_token_each_time(game: Api) -> None:
    """talker reads his own message twice: the second region renders no item again, the
    HTML is the same but for the one-time CSRF token of his edit form, which is new per
    request and works (EXEC-13: he edits with it)."""
    talker, _listener, _plotter, _tribune = seats(game)
    _box, path = inbox_path(game, "city")
    post(game, talker, path, "Первое слово talker")
    number = last_number(region(game, talker, path))  # read now: no longer new
    first = region(game, talker, path)
    misses, hits = CACHE.misses, CACHE.hits
    assert misses > 0
    second = region(game, talker, path)
    assert CACHE.misses == misses and CACHE.hits - hits == number
    assert without_tokens(first) == without_tokens(second)
    mine = message(second, number)
    assert 'data-testid="edit-form"' in mine
    tokens = TOKEN.findall(mine)
    assert len(tokens) == 1 and tokens[0] not in TOKEN.findall(first)
    assert COMMAND.findall(mine) == [tokens[0].split(".")[0]]
    assert "csrf-placeholder" not in second
    r = game.client.post(f"{path}/messages/{number}/edit",
                         data={"csrf_token": tokens[0], "command_id": tokens[0].split(".")[0],
                               "text": "Первое слово talker, исправлено"},
                         headers=game.headers(talker), follow_redirects=False)
    assert r.status_code == 303 and "error" not in r.headers["location"]
    game.client.cookies.delete("lp_flash")


def test_each_seat_sees_only_its_own_controls_whoever_filled_the_cache(game: Api) -> None:
    """INBOX-GEN-1, SEC-5: the same message, read by its author (mine, the edit form), by
    the mafioso it mentions (mentions-me, no edit form), by a citizen and by the Tribune
    (neither), in every order: no seat ever gets another's item, and each gets what an
    uncached render gives him."""
    talker, listener, plotter, tribune = seats(game)
    _box, path = inbox_path(game, "city")
    post(game, talker, path, f"Спросим @{plotter}")
    number = last_number(region(game, talker, path))

    def items() -> dict[str, str]:
        return {u: without_tokens(message(region(game, u, path), number))
                for u in (talker, plotter, listener, tribune, talker)}

    first = items()  # each seat reads it: new for him only the first time
    cached = items()
    assert CACHE.hits > 0
    CACHE.enabled = False
    fresh = items()
    assert cached == fresh
    for seen in (first, cached):
        assert 'data-testid="edit-form"' in seen[talker] and 'data-testid="mentions-me"' in seen[plotter]
        assert all('data-testid="edit-form"' not in seen[u] for u in (plotter, listener, tribune))
    assert 'data-testid="edit-form"' in cached[talker] and "mine" in cached[talker].split(">")[0]
    for other in (plotter, listener, tribune):
        assert 'data-testid="edit-form"' not in cached[other]
        assert " mine" not in cached[other].split(">")[0]
    assert 'data-testid="mentions-me"' in cached[plotter]
    assert all('data-testid="mentions-me"' not in cached[u] for u in (talker, listener, tribune))


def test_an_edit_a_read_marker_and_a_language_are_each_a_miss(game: Api) -> None:
    """EXEC-13: an edited message shows its new text and its history at once; a message
    that was new is no longer marked new once read; the English page gets English words."""
    talker, listener, _plotter, _tribune = seats(game)
    _box, path = inbox_path(game, "city")
    post(game, talker, path, "До правки")
    number = last_number(region(game, talker, path))
    before = message(region(game, listener, path), number)
    assert "До правки" in before
    misses = CACHE.misses
    edit(game, talker, path, number, "После правки")
    after = message(region(game, listener, path), number)
    assert CACHE.misses > misses
    assert "После правки" in after and 'data-testid="history"' in after
    post(game, talker, path, "Новое для listener")
    fresh = message(region(game, listener, path), number + 1)
    misses = CACHE.misses
    read = message(region(game, listener, path), number + 1)  # the first region marked it read
    assert CACHE.misses == misses + 1
    assert " new" in fresh.split(">")[0] and " new" not in read.split(">")[0]
    misses = CACHE.misses
    english = message(region(game, listener, path, lang="en"), number)
    assert CACHE.misses > misses
    assert ">Quote<" in english and ">Цитировать<" not in english
    assert ">Quote<" not in message(region(game, listener, path, lang="ru"), number)


def test_a_cached_item_is_byte_for_byte_the_included_template() -> None:
    """The helper renders exactly what ``{% include "partials/message_item.html" %}``
    rendered in its place, for a mine-and-editable message with a history, a mention, a
    host's and a keyword message; the tokens come in the same order."""
    moment = datetime(2026, 3, 2, 9, 30, tzinfo=UTC)

    def item(seq: int, **fields: Any) -> dict[str, Any]:
        return {"seq": seq, "author": "talker", "label": "talker", "text": f"text {seq} <b>&",
                "html": Markup(f"<p>text {seq}</p>"), "at": moment, "host": False, "keyword": False,
                "mine": False, "editable": False, "mentions_me": False, "mentions": [],
                "edited_at": None, "versions": [], **fields}

    messages = [
        item(1, mine=True, editable=True, edited_at=moment,
             versions=[{"html": Markup("<p>old</p>"), "at": moment}]),
        item(2, mentions_me=True, mentions=["plotter"], author="x", label="x"),
        item(3, host=True), item(4, keyword=True), item(5, mine=True, editable=True),
    ]
    for lang in ("ru", "en"):
        for can_post in (True, False):
            def ctx(lang: str = lang, can_post: bool = can_post) -> dict[str, Any]:
                tokens = count()
                return {
                    "lang": lang, "_": lambda s, **f: s.format(**f), "gettext": lambda s, **f: s.format(**f),
                    "ngettext": lambda s, p, n, **f: (s if n == 1 else p).format(n=n, **f),
                    "local": local, "csrf_token": lambda: f"n{next(tokens)}.1.mac",
                    "game": {"id": "g"}, "inbox": {"id": "city:A/1"}, "read_upto": 2,
                    "can_post": can_post, "max_length": 2000, "messages": messages,
                }

            old = env.from_string('{% for m in messages %}{% set neutral = false %}'
                                  '{% include "partials/message_item.html" %}{% endfor %}').render(ctx())
            new = env.from_string("{% for m in messages %}{{ thread_item(m) }}{% endfor %}")
            assert new.render(ctx()) == old  # a miss
            assert new.render(ctx()) == old  # a hit
    assert CACHE.hits == CACHE.misses == 2 * 2 * len(messages)


def test_with_tokens_puts_a_fresh_token_in_each_form() -> None:
    """Two forms in one item: two tokens, each with its own nonce as the command id."""
    html = item_cache.with_tokens(("a", "b", ""), iter(["x.1.m", "y.2.m"]).__next__)
    assert html == ('a<input type="hidden" name="csrf_token" value="x.1.m"><input type="hidden" '
                    'name="command_id" value="x">b<input type="hidden" name="csrf_token" '
                    'value="y.2.m"><input type="hidden" name="command_id" value="y">')


def test_a_placeholder_outside_the_known_form_is_never_cached(game: Api, monkeypatch: pytest.MonkeyPatch) -> None:
    """Were csrf_field to render differently from the form the swap knows, the item would
    keep a placeholder: it is rendered uncached instead, with a real token (EXEC-13)."""
    talker, _listener, _plotter, _tribune = seats(game)
    _box, path = inbox_path(game, "city")
    monkeypatch.setattr(item_cache, "MARKER", "<never>")
    post(game, talker, path, "Без кэша")
    html = region(game, talker, path)
    mine = message(html, last_number(html))
    assert "csrf-placeholder" not in html and 'data-testid="edit-form"' in mine
    assert TOKEN.findall(mine)[0].count(".") == 2
    assert len(CACHE) == CACHE.misses == 0


def test_the_cache_is_bounded_by_characters_as_well_as_items() -> None:
    """Long messages weigh more (about 7,700 characters each here): with room for two, a third evicts
    the oldest, and the count of characters follows what is kept."""
    moment = datetime(2026, 3, 2, 9, 30, tzinfo=UTC)
    cache = item_cache.ItemCache(maxsize=100, max_chars=20000)
    ctx = env.from_string("{{ x }}").new_context({
        "lang": "ru", "_": lambda s, **f: s, "gettext": lambda s, **f: s,
        "ngettext": lambda s, p, n, **f: s, "local": local, "csrf_token": lambda: "n.1.mac",
        "game": {"id": "g"}, "inbox": {"id": "city:A/1"}, "read_upto": 0, "can_post": False,
        "max_length": 2000})
    for seq in (1, 2, 3):
        text = "слово " * 300
        cache.item(ctx, {"seq": seq, "author": "a", "label": "a", "text": text, "html": Markup(f"<p>{text}</p>"),
                         "at": moment, "host": False, "keyword": False, "mine": False, "editable": False,
                         "mentions_me": False, "mentions": [], "edited_at": None, "versions": []})
    assert len(cache) == 2 and cache.misses == 3
    assert 0 < cache.chars <= 20000
