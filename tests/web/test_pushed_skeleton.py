"""A new message's pushed item from the template's skeleton is the full render's bytes (issue 17).

Cast: one city of 20 (``default_cast(1, 20)``: Лепроград p01_01..p01_20), the hosts, dealt
and started; Day 1 at 10:05, the city inbox open (INBOX-CITY-1), every other inbox of the day,
and a voting inbox (keywords only: INBOX-VOTE-1, whose items have no quote controls).
Whoever posts — a resident, the Tribune, the Procurator, the Consigliere's and the notary's
and a commissar's offices — whatever he writes (Markdown, HTML, braces, mentions of residents
and of strangers, any character hypothesis draws), in whichever inbox, in Russian or English:
``PushedContent._posted_html`` (the skeleton, filled) equals ``PushedContent._html`` (the
template rendered for that message), which the page's own item matches
(``test_pushed_content.py``).
"""

from __future__ import annotations

import random
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from functools import cache

from hypothesis import given, settings
from hypothesis import strategies as st

from lepromafia.bots.setup import default_cast, setup_game
from lepromafia.engine import events as ev
from lepromafia.engine.audience import Audience
from lepromafia.engine.calendar import MOSCOW
from lepromafia.engine.state import GameState, Inbox
from lepromafia.service.views import MessageView
from lepromafia.web.ws.content import PushedContent

CAST = default_cast(1, 20)


@cache
def day_one() -> GameState:
    table = setup_game(random.Random(1), CAST)
    first = datetime(2026, 12, 1, 10, 5, tzinfo=MOSCOW)
    table.advance(first)
    assert table.state is not None
    return table.state


def inboxes() -> list[Inbox]:
    """The day's inboxes, and a voting inbox (one opens at a nomination)."""
    s = day_one()
    city = next(b for b in s.inboxes.values() if b.kind == "city")
    return [*(s.inboxes[i] for i in sorted(s.inboxes)), replace(city, id="voting:1", kind="voting")]


def authors() -> list[str]:
    s = day_one()
    return [*CAST.cities["Лепроград"][:3], s.cities["Лепроград"].tribune, s.procurator,
            "consigliere", "notary", "commissar:Лепроград"]


TEXTS = st.one_of(
    st.text(max_size=200),
    st.lists(st.sampled_from(["**жирно**", "@p01_03", "@p01_05", "@stranger", "<b>x</b>", "{n}",
                              "{{", "}", "&amp;", '"q"', "'", "example.com", "> цитата\n", "`code`",
                              "||спойлер||", "\n\n", " ", "привет", "1.", "- "]),
             max_size=8).map("".join),
)


@settings(max_examples=300, deadline=None)
@given(text=TEXTS, author=st.sampled_from(range(8)), lang=st.sampled_from(["ru", "en"]),
       inbox=st.sampled_from(range(64)), number=st.integers(1, 10**6),
       minutes=st.integers(0, 60 * 24 * 30))
def test_a_new_message_from_the_skeleton_is_the_template_rendered(
        text: str, author: int, lang: str, inbox: int, number: int, minutes: int) -> None:
    s = day_one()
    box = inboxes()[inbox % len(inboxes())]
    who = authors()[author]
    at = datetime(2026, 12, 1, 7, 5, tzinfo=UTC) + timedelta(minutes=minutes)
    event = ev.MessagePosted(at=at, audience=Audience(True), inbox=box.id, author=who, text=text)
    pushed = PushedContent()
    skeleton = pushed._posted_html(s, box, number, event, lang)
    full = pushed._html(s, box, MessageView(number, who, text, at.isoformat()), lang)
    assert skeleton == full


def test_every_kind_of_inbox_and_author_has_its_own_skeleton_and_each_is_rendered_once() -> None:
    """A host's item (``host``) and a voting inbox's (no quote or pick controls) differ from a
    resident's in the city inbox; each (language, host, keyword) skeleton is rendered once."""
    s = day_one()
    pushed = PushedContent()
    at = datetime(2026, 12, 1, 7, 5, tzinfo=UTC)
    items, calls = {}, 0
    for box in inboxes():
        for who in authors():
            for n, lang in enumerate(["ru", "en", "ru"]):
                event = ev.MessagePosted(at=at, audience=Audience(True), inbox=box.id, author=who,
                                         text=f"привет {n}")
                items[box.id, who, lang] = pushed._posted_html(s, box, 7, event, lang)
                calls += 1
    keys = set(pushed._skeletons)
    assert {(lang, host) for lang, host, _keyword in keys} == {(lang, host) for lang in ("ru", "en")
                                                                for host in (True, False)}
    assert {keyword for _lang, _host, keyword in keys} == {True, False}
    city = next(i for i, b in s.inboxes.items() if b.kind == "city")
    tribune = s.cities["Лепроград"].tribune
    assert 'class="msg host"' in items[city, tribune, "ru"]
    assert 'class="msg"' in items[city, "p01_01", "ru"]
    assert "data-quote" in items[city, "p01_01", "en"]
    assert 'class="msg keyword"' in items["voting:1", "p01_01", "ru"]
    assert "data-quote" not in items["voting:1", "p01_01", "ru"]
    assert pushed.renders == calls  # each item counts as one render, as before
