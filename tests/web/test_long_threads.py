"""A long inbox on its page: the newest messages always, the earlier ones a page at a time
(issue 17: a page's cost the same on Day 1 and Day 14; INBOX-GEN-1, INBOX-GEN-3).

Cast: ``small_cast()``; in city A the honest residents ``talker`` (who writes all day),
``listener`` (who reads now and then) and ``latecomer`` (who opens the inbox for the first
time late in the day); the Procurator reads no city inbox (INBOX-GEN-5). Before this, the
page read an inbox from its first message and showed at most 500: on a busy day the
newest ones were missing from the page of whoever reloaded it.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import quote

import pytest

from lepromafia.engine.commands import PostMessage
from lepromafia.service.queries import THREAD_CONTEXT, THREAD_PAGE, THREAD_UNREAD_MAX

from .conftest import Api, at, make_api, setup_game_via_api, small_cast
from .test_vote_record import cast_the_day

CAST = small_cast()
A = next(iter(CAST.cities))
GAME = "long"
NUMBER = re.compile(r'<li id="m(\d+)" ')


@pytest.fixture
def city(tmp_path: Path) -> Iterator[tuple[Api, str, str]]:
    for api in make_api(tmp_path):
        setup_game_via_api(api, GAME, CAST)
        api.advance_to(at(1, "10:05"))
        box = api.state(GAME).current_inbox("city", A)
        assert box
        yield api, box, f"/games/{GAME}/inboxes/{quote(box, safe='')}"


def residents(api: Api) -> tuple[str, str, str]:
    s = api.state(GAME)
    honest = [u for u in s.living(A) if not s.is_mafia(u)]
    return honest[0], honest[1], honest[2]


def chatter(api: Api, user: str, box: str, upto: int, game: str = GAME) -> None:
    """``user`` posts «message n» until the inbox holds ``upto`` messages (in-process: fast)."""
    for n in range(_count(api, game, box) + 1, upto + 1):
        api.client.portal.call(api.web.service.execute, game,  # type: ignore[union-attr]
                               PostMessage(actor=user, inbox=box, text=f"message {n}"),
                               api.command_id())


def _count(api: Api, game: str, box: str) -> int:
    web = api.web
    seqs = api.client.portal.call(web.queries.index.messages, game,  # type: ignore[union-attr]
                                  api.client.portal.call(web.queries.version, game))  # type: ignore[union-attr]
    return len(seqs.get(box, ()))


def shown(html: str) -> list[int]:
    return [int(n) for n in NUMBER.findall(html)]


def test_a_reader_who_is_up_to_date_gets_the_last_page_and_the_newest_message(
        city: tuple[Api, str, str]) -> None:
    """listener has read the first 230; talker writes 20 more: listener's page shows the last
    100 (151–250), the newest one included, and says 150 earlier ones are above."""
    api, box, path = city
    talker, listener, _ = residents(api)
    chatter(api, talker, box, 230)
    assert shown(api.get(listener, path).text) == list(range(1, 231)), "all new to him: all shown"
    chatter(api, talker, box, 250)
    page = api.get(listener, path).text
    assert shown(page) == list(range(251 - THREAD_PAGE, 251))
    control = re.search(r'<li class="earlier" data-testid="earlier">.*?</li>', page, re.S)
    assert control is not None
    assert "ещё 150 сообщений выше" in control.group(0)
    assert f"/earlier?before={251 - THREAD_PAGE}" in control.group(0)
    assert f"?from={151 - THREAD_PAGE}#m{151 - THREAD_PAGE}" in control.group(0), "no JavaScript: a link"


def test_the_newest_message_of_a_thread_over_500_is_on_the_page(city: tuple[Api, str, str]) -> None:
    """The bug this replaces: with 620 messages the page showed 1–500. latecomer, who has
    read nothing, gets the last 500 (121–620); listener, up to date, the last page."""
    api, box, path = city
    talker, listener, latecomer = residents(api)
    chatter(api, talker, box, 600)
    api.get(listener, path)  # he reads up to 600
    chatter(api, talker, box, 620)
    assert shown(api.get(latecomer, path).text) == list(range(621 - THREAD_UNREAD_MAX, 621))
    assert shown(api.get(listener, path).text) == list(range(621 - THREAD_PAGE, 621))


def test_a_reader_behind_by_more_than_a_page_starts_at_his_first_unread(
        city: tuple[Api, str, str]) -> None:
    """listener read 1–120 in the morning; 180 more came: his page starts 5 messages before
    the first new one (#116–300), with «new» on the 180 he has not read, and reading it
    marks all 300 read."""
    api, box, path = city
    talker, listener, _ = residents(api)
    chatter(api, talker, box, 120)
    api.get(listener, path)
    chatter(api, talker, box, 300)
    page = api.get(listener, path).text
    assert shown(page) == list(range(121 - THREAD_CONTEXT, 301))
    new = [int(n) for n in re.findall(r'<li id="m(\d+)" class="msg[^"]* new[ "]', page)]
    assert new == list(range(121, 301))
    assert shown(api.get(listener, path).text) == list(range(301 - THREAD_PAGE, 301)), "all read now"


def test_show_earlier_gives_the_page_before_and_moves_no_read_marker(
        city: tuple[Api, str, str]) -> None:
    """listener, up to date at 250, asks twice for earlier messages: 51–150 with the control
    for 50 more, then 1–50 and no control; his marker stays at 250 (nothing new was read)."""
    api, box, path = city
    talker, listener, _ = residents(api)
    chatter(api, talker, box, 250)
    api.get(listener, path)
    first = api.get(listener, f"{path}/earlier", before=151, lang="en")
    assert first.status_code == 200
    assert shown(first.text) == list(range(51, 151))
    assert "50 more messages above" in first.text and "/earlier?before=51" in first.text
    second = api.get(listener, f"{path}/earlier", before=51)
    assert shown(second.text) == list(range(1, 51))
    assert 'data-testid="earlier"' not in second.text
    assert " new" not in second.text.split('class="msg', 1)[1].split('"', 1)[0], "read before: not new"
    chatter(api, talker, box, 251)
    assert shown(api.get(listener, path).text) == list(range(252 - THREAD_PAGE, 252)), \
        "one new message: the last page, not from 1"


def test_without_javascript_the_link_shows_from_that_page_to_the_end(
        city: tuple[Api, str, str]) -> None:
    """The «show earlier» link without htmx: the inbox page from #51 to the newest."""
    api, box, path = city
    talker, listener, _ = residents(api)
    chatter(api, talker, box, 250)
    api.get(listener, path)
    page = api.get(listener, path, **{"from": "51"}).text
    assert shown(page) == list(range(51, 251))
    assert "/earlier?before=51" in page
    assert shown(api.get(listener, path, **{"from": "x"}).text) == list(range(151, 251)), \
        "a bad number: the default view"


def test_whoever_may_not_read_the_inbox_gets_nothing_of_it(city: tuple[Api, str, str]) -> None:
    """INBOX-GEN-5, SEC-5: the Procurator and a resident of the other city ask for earlier
    messages of city A's inbox: not found, and no message text in the answer."""
    api, box, path = city
    talker, _, _ = residents(api)
    chatter(api, talker, box, 120)
    stranger = next(iter(CAST.cities[next(c for c in CAST.cities if c != A)]))
    for outsider in (CAST.procurator, stranger):
        r = api.get(outsider, f"{path}/earlier", before=50)
        assert r.status_code == 404
        assert "message 1" not in r.text


def test_an_old_message_is_edited_from_its_own_page(city: tuple[Api, str, str]) -> None:
    """EXEC-13: talker edits his message #560 (the edit form was not found past 500)."""
    api, box, path = city
    talker, _, _ = residents(api)
    chatter(api, talker, box, 560)
    form = api.get(talker, f"{path}/messages/560/edit")
    assert form.status_code == 200, form.text
    assert "message 560" in form.text
    assert api.get(talker, f"{path}/messages/561/edit").status_code == 404


def test_a_vote_count_shows_once_in_the_page_that_holds_its_time(api: Api) -> None:
    """EXEC-14: the Day 2 count is posted in Лепроград's inbox at the close, then 152 messages
    are written. The count is not on the page of the last 100 but on the earlier page, before
    message 1, once."""
    cast_the_day(api)
    box = api.state("g").current_inbox("city", "Лепроград")
    assert box
    path = f"/games/g/inboxes/{quote(box, safe='')}"
    chatter(api, "p01_02", box, 152, game="g")
    page = api.get("p01_04", path).text  # all new to p01_04: he gets them all
    assert page.count('data-testid="vote-post"') == 1
    page = api.get("p01_04", path).text  # read now: the last page only
    assert shown(page) == list(range(153 - THREAD_PAGE, 153))
    assert 'data-testid="vote-post"' not in page
    earlier = api.get("p01_04", f"{path}/earlier", before=153 - THREAD_PAGE).text
    assert earlier.count('data-testid="vote-post"') == 1
    assert earlier.index('data-testid="vote-post"') < earlier.index('id="m1"')
    assert shown(earlier) == list(range(1, 153 - THREAD_PAGE))


def test_the_api_pages_forward_by_number_and_past_the_end_keeps_the_marker(
        city: tuple[Api, str, str]) -> None:
    """The JSON API's paging (after, limit) in a 250-message inbox: after=200 gives #201–250
    and moves listener's marker there; past the end, no messages and his marker as it is."""
    api, box, _path = city
    talker, listener, _ = residents(api)
    chatter(api, talker, box, 250)
    url = f"/api/games/{GAME}/inboxes/{quote(box, safe='')}"
    page = api.get(listener, url, after=200, limit=50).json()
    assert [m["seq"] for m in page["messages"]] == list(range(201, 251))
    assert [m["text"] for m in page["messages"]][:2] == ["message 201", "message 202"]
    assert page["read_upto"] == 0, "before this read he had read nothing"
    beyond = api.get(listener, url, after=300, limit=50).json()
    assert beyond["messages"] == [] and beyond["read_upto"] == 250
    first = api.get(listener, url, after=0, limit=3).json()
    assert [m["seq"] for m in first["messages"]] == [1, 2, 3] and first["read_upto"] == 250
