"""What a player types never runs in another player's browser (service/posts.py).

Cast: alice and boris are residents; «mallory» is whoever types the attack. Every attack is
rendered by markdown-it-py (raw HTML off) and cleaned by nh3; the result must be inert: no
element or attribute outside the allow-list, no link but http(s), mailto, a message anchor
or a page of this site.
"""

from __future__ import annotations

from html.parser import HTMLParser

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lepromafia.service.posts import (
    ATTRIBUTES,
    CLASSES,
    LINKIFY,
    TAGS,
    markdown,
    may_link,
    mentions,
    plain,
    render,
)

RESIDENTS = frozenset({"alice", "boris"})


class Inventory(HTMLParser):
    """Every element, attribute and link of the rendered HTML."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[str] = []
        self.attrs: list[tuple[str, str, str]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append(tag)
        self.attrs += [(tag, name, value or "") for name, value in attrs]


def inventory(html: str) -> Inventory:
    found = Inventory()
    found.feed(html)
    return found


def assert_inert(html: str) -> None:
    found = inventory(html)
    assert set(found.tags) <= TAGS, found.tags
    for tag, name, value in found.attrs:
        allowed = ATTRIBUTES.get(tag, set()) | ({"class"} if tag in CLASSES else set())
        allowed |= {"rel"} if tag == "a" else set()
        assert name in allowed, (tag, name, value)
        assert not name.startswith("on") and name != "style", (tag, name)
        if name == "href":
            assert value.startswith(("http://", "https://", "mailto:", "#", "/")), value
            assert not value.startswith("//"), value
        if name == "class":
            assert set(value.split()) <= CLASSES[tag], value
    lowered = html.lower()  # escaped markup (&lt;script&gt;) is text a reader reads
    for tag in ("<script", "<img", "<svg", "<iframe", "<style", "<object", "<embed", "<form"):
        assert tag not in lowered, (tag, html)


ATTACKS = {
    "script tag": "<script>alert(1)</script>",
    "script split": "<scr<script>ipt>alert(1)</script>",
    "event handler on img": '<img src=x onerror="alert(1)">',
    "event handler on svg": "<svg onload=alert(1)>",
    "iframe": '<iframe src="https://evil.example"></iframe>',
    "inline style": '<p style="background:url(javascript:alert(1))">x</p>',
    "style tag": "<style>body{display:none}</style>",
    "javascript link": "[click](javascript:alert(1))",
    "javascript link, mixed case and spaces": "[click]( JaVaScRiPt:alert(1) )",
    "javascript link, entity-encoded": "[click](java&#x73;cript:alert(1))",
    "javascript link, tab inside": "[click](java\tscript:alert(1))",
    "vbscript link": "[click](vbscript:msgbox(1))",
    "data link": "[click](data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==)",
    "protocol-relative link": "[click](//evil.example/phish)",
    "javascript autolink": "<javascript:alert(1)>",
    "data autolink": "<data:text/html,<script>alert(1)</script>>",
    "reference link to javascript": "[click][x]\n\n[x]: javascript:alert(1)",
    "reference link with a quoted title that breaks out": '[click][x]\n\n[x]: https://a.example "t" onmouseover="alert(1)"',
    "autolink with a quote": '<https://a.example/"onmouseover="alert(1)>',
    "bare url with a quote": 'https://a.example/"><script>alert(1)</script>',
    "image with javascript": "![x](javascript:alert(1))",
    "image tracking pixel": "![x](https://tracker.example/p.gif)",
    "raw html entities": "&lt;script&gt;alert(1)&lt;/script&gt; &#60;img src=x onerror=alert(1)&#62;",
    "html comment": "<!-- <script>alert(1)</script> -->",
    "html inside a quote": "> <img src=x onerror=alert(1)>",
    "html inside a list": "- <a href=javascript:alert(1)>x</a>",
    "html inside a spoiler title": '::: spoiler <img src=x onerror=alert(1)>\nx\n:::',
    "html inside a spoiler": "::: spoiler\n<script>alert(1)</script>\n:::",
    "a forged mention span": '<span class="mention" data-user="alice" onclick="alert(1)">@alice</span>',
    "css through a class": '<div class="x" style="position:fixed">x</div>',
    "nul byte placeholder forgery": "\x00spoiler\x00 and \ufffdspoiler\ufffd",
}


@pytest.mark.parametrize("text", ATTACKS.values(), ids=ATTACKS.keys())
def test_mallory_s_markup_renders_inert(text: str) -> None:
    html = render(text, RESIDENTS, "Спойлер")
    assert_inert(html)
    found = inventory(html)
    assert "script" not in found.tags and "img" not in found.tags and "style" not in found.tags
    assert not any(name.startswith("on") for _tag, name, _v in found.attrs)
    assert not any(v.lower().lstrip().startswith(("javascript", "data", "vbscript"))
                   for _t, _n, v in found.attrs)


def test_raw_html_stays_text_the_reader_can_read() -> None:
    html = render("<b>x</b> <script>alert(1)</script>", RESIDENTS)
    assert "&lt;b&gt;x&lt;/b&gt;" in html and "&lt;script&gt;" in html


def test_the_forum_subset_renders() -> None:
    """Bold, italic, quotes, lists, spoilers, links and mentions: the issue's subset."""
    html = render("**жирный** *курсив* ~~зачёркнуто~~\n\n> цитата\n\n- раз\n- два\n\n1. один\n\n"
                  "::: spoiler\nспрятано\n:::\n\nhttps://example.com и [ссылка](#m3) @alice",
                  RESIDENTS, "Спойлер")
    for piece in ("<strong>жирный</strong>", "<em>курсив</em>", "<s>зачёркнуто</s>",
                  "<blockquote>", "<ul>", "<ol>", '<details class="spoiler"><summary>Спойлер</summary>',
                  '<a href="https://example.com" rel="nofollow noopener noreferrer ugc">',
                  '<a href="#m3"', '<span class="mention" data-user="alice">@alice</span>'):
        assert piece in html, piece
    assert_inert(html)


def test_a_mention_names_only_a_resident_and_not_inside_code_or_an_address() -> None:
    assert mentions("@alice, @Boris. @nobody a@alice.ru `@alice`", RESIDENTS) == {"alice", "boris"}
    assert mentions("mail boris@example.com", RESIDENTS) == frozenset()
    assert mentions("> [alice · #1](#m1)\n> @boris молчит\n\nНет, @alice", RESIDENTS) == {"alice"}
    assert 'data-user="nobody"' not in render("@nobody", RESIDENTS)


def test_lines_that_mention_nobody_share_one_empty_answer() -> None:
    """Issue 17: most chat mentions nobody; each such line's cached answer is the one empty
    set, not a set of its own (20,000 cached answers were as many containers to scan)."""
    quiet = [mentions(text, RESIDENTS) for text in ("Доброе утро", "mail boris@example.com", "@nobody")]
    assert quiet == [frozenset()] * 3
    assert len({id(answer) for answer in quiet}) == 1


def test_a_very_long_post_renders_without_trouble() -> None:
    """20,000 characters of nested quotes and emphasis: bounded work, inert output."""
    text = ("> " * 50 + "**" * 100 + "x")[:20_000] + "\n" + "*a" * 9_000
    assert_inert(render(text[:20_000], RESIDENTS))


CHAT_CHARACTERS = ("абвгдеёжзийклмнопрстуфхцчшщъыьэюяПРС" "abcdefghijklmnopqrstuvwxyzW" "0123456789"
                   " .,!?;:'\"()-+=/%«»—…😀" "*_~`<>&@[]\\|#" "\n\t\u00a0\u2028\x00\ufffd")
"""Chat's letters and punctuation, and every mark that makes Markdown of a line."""


@settings(max_examples=1500, deadline=None)
@given(st.text(alphabet=st.sampled_from(CHAT_CHARACTERS), max_size=40) | st.text(max_size=20))
def test_a_plain_line_renders_exactly_as_markdown_it_and_nh3_render_it(text: str) -> None:
    """Issue 17: a plain line skips the parser (``posts.plain``); whatever Mallory types,
    the page shows what markdown-it and nh3 make of it, byte for byte."""
    assert render.__wrapped__(text, RESIDENTS, "Спойлер") == markdown(text, RESIDENTS, "Спойлер")


LINK_PIECES = ("http:", "HTTPS:", "hTtP:", "ftp:", "//", "mailto:", "MAILTO:", "www", ".", "。",
               "localhost", "LocalHost", "@", "com", "org", "рф", "РФ", "ru", "io", "ſ", "\u212a",
               "\u0130", "\u0131", "1", "127", "0", " ", "x", "s", "привет", ":", "/", "-", ">", "_")
"""The marks of linkify's tests, and characters Python's ``IGNORECASE`` folds onto ASCII
letters (the long s, the Kelvin sign, the dotted and dotless i)."""


@settings(max_examples=3000, deadline=None)
@given(st.lists(st.sampled_from(LINK_PIECES), max_size=12).map("".join) | st.text(max_size=30))
def test_the_link_precheck_answers_as_linkify_does(text: str) -> None:
    """Issue 17: ``may_link`` skips linkify's patterns on a line with none of their marks;
    on any line it answers as ``LINKIFY.test`` (a link it missed would show as plain text)."""
    assert may_link(text) == LINKIFY.test(text)


def test_ordinary_chat_lines_skip_the_parser_and_markup_does_not() -> None:
    for line in ("Доброе утро, Лепроград!", 'Он сказал "да" и ушёл.', "Ну что)))", "Голосую: казнить",
                 "lg:abc сообщение в городской чат"):
        assert plain(line), line
    for line in ("1) раз", "- пункт", "**жирно**", "@alice, ты тут?", "пиши на example.com",
                 "строка\nвторая", "::: spoiler", " отступ", "a\u00a0b", "&amp;", "<b>"):
        assert not plain(line), line
