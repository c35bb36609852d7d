"""Comments under the Day Post and the Recruitment Post are posts like any other: the same
sanitized Markdown (service/posts.py: markdown-it-py, raw HTML off, nh3), so what a
commenter types never runs in a reader's browser (issue 11; POST-1, POST-2; review M10).

Cast: ``small_cast()`` and «mallory», a registered member of the community without a seat,
who comments under the Recruitment Post and under Day 1's post; «vera», another member,
reads the game page.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.service.test_posts_render import ATTACKS, assert_inert, inventory

from .conftest import Api, at, make_api, setup_game_via_api, small_cast

CAST = small_cast()
GAME = "mark"
TOKEN = re.compile(r'name="csrf_token" value="([^"]+)"')
BODY = re.compile(r'data-testid="comment-body">(.*?)</div>\s*(?:<details|</li>)', re.S)


@pytest.fixture(scope="module")
def game(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Api]:
    for api in make_api(Path(tmp_path_factory.mktemp("mark"))):
        api.register("mallory")
        api.register("vera")
        setup_game_via_api(api, GAME, CAST)
        api.advance_to(at(1, "10:05"))
        yield api


def comment(api: Api, user: str, post: str, text: str) -> None:
    """The composer under the post, as the browser's htmx sends it."""
    page = api.get(user, f"/games/{GAME}").text
    found = TOKEN.search(page)
    assert found
    r = api.client.post(f"/games/{GAME}/posts/{post}/comments",
                        headers=api.headers(user) | {"hx-request": "true"},
                        data={"csrf_token": found.group(1), "text": text,
                              "command_id": found.group(1).split(".")[0]})
    assert r.status_code == 200 and 'data-testid="comment-error"' not in r.text, r.text


def bodies(api: Api, viewer: str | None, post: str) -> list[str]:
    page = api.get(viewer, f"/games/{GAME}").text
    start = page.index(f'data-post="{post}"')
    section = page[start:page.index("</section>", start)]
    return BODY.findall(section)


def test_a_comment_s_markdown_renders_bold_links_quotes_and_spoilers(game: Api) -> None:
    """Review M10 for the discussion: **bold**, a bare link (clickable, rel=nofollow), a
    quote and a spoiler in vera's comment under Day 1's post, read by an anonymous visitor."""
    comment(game, "vera", "day:1", "**Смотрите** https://example.com\n\n> цитата\n\n::: spoiler\nтайна\n:::")
    html = bodies(game, None, "day:1")[-1]
    assert "<strong>Смотрите</strong>" in html
    assert re.search(r'<a href="https://example.com"[^>]*rel="nofollow noopener noreferrer ugc"', html)
    assert "<blockquote>" in html and '<details class="spoiler"><summary>Спойлер</summary>' in html
    assert_inert(html)


@pytest.mark.parametrize("post", ["recruitment", "day:1"])
def test_mallory_s_attacks_render_inert_under_both_posts(game: Api, post: str) -> None:
    """Script, event handlers, ``javascript:``/``data:`` links, CSS and raw HTML smuggled
    through Markdown (every attack of tests/service/test_posts_render.py), each posted as a
    comment: every rendered comment body is inert for the reader."""
    sent = [text for text in ATTACKS.values() if "\x00" not in text]  # a NUL is refused at the door
    for text in sent:
        comment(game, "mallory", post, text)
    found = bodies(game, "vera", post)
    assert len(found) >= len(sent)
    for html in found:
        assert_inert(html)
        names = inventory(html)
        assert not any(name.startswith("on") for _tag, name, _v in names.attrs)
    page = game.get("vera", f"/games/{GAME}").text
    assert "<script>alert" not in page and "<img" not in page
