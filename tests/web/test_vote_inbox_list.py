"""The inbox list counts the keywords of each voting inbox (review B1: it showed 0 for every
voting inbox, a «казнить» being no message), live and after the close (EXEC-18, INBOX-GEN-3).

Cast and day as in ``test_vote_record``: on Day 2 p01_03 votes «казнить» for p01_01; nobody
votes for p01_05. p01_02 reads the inbox list during the vote and on Day 3.
"""

from __future__ import annotations

import re
from datetime import timedelta
from urllib.parse import quote

from .conftest import Api, at
from .test_vote_record import day_two


def counts(api: Api, viewer: str) -> dict[str, tuple[str, str]]:
    """Inbox id (as linked) -> (the number shown, its spoken label), for the rows without
    unread messages."""
    page = api.get(viewer, "/games/g/inboxes").text
    out = {}
    for row in re.findall(r"<li[^>]*data-kind=[^>]*>(.*?)</li>", page, re.S):
        href = re.search(r'href="/games/g/inboxes/([^"]+)"', row)
        count = re.search(r'aria-label="([^"]+)" data-testid="count">(\d+)<', row)
        if href and count:
            out[href.group(1)] = (count.group(2), count.group(1))
    return out


def test_each_voting_inbox_row_counts_its_keywords_before_and_after_the_close(api: Api) -> None:
    box, other = day_two(api)
    api.ok("p01_03", "g", "PostMessage", inbox=box, text="казнить")
    assert counts(api, "p01_02")[quote(box, safe="/")] == ("1", "1 ключевое слово"), "during the vote"
    kinds = re.search(r'data-live-src="/games/g/part/inbox-list" data-live-kinds="([^"]+)"',
                      api.get("p01_02", "/games/g/inboxes").text)
    assert kinds and "VoteCast" in kinds.group(1).split(), "the list refreshes on a vote"
    assert 'data-testid="count">1<' in api.get("p01_02", "/games/g/part/inbox-list").text
    api.advance_to(at(2, "23:30") + timedelta(seconds=1))
    api.advance_to(at(3, "10:05"))
    shown = counts(api, "p01_02")
    assert shown[quote(box, safe="/")] == ("1", "1 ключевое слово"), "kept in the closed inbox"
    assert shown[quote(other, safe="/")] == ("0", "0 ключевых слов")
    english = api.get("p01_02", "/games/g/inboxes", lang="en").text
    assert 'aria-label="1 keyword posted" data-testid="count"' in english
