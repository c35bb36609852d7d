"""The vote record (issue 11, B1; review M2, M3), told as Day 2 of a small game.

Cast: Лепроград p01_01..p01_06 (Tribune tribune1), Лепросицилия p02_01..p02_06. On Day 2
p01_02 nominates p01_01 and p01_06 nominates p01_05; the vote runs 20:00–23:30 MSK. p01_03
votes «казнить» for p01_01 at 20:05, p01_04 at 20:10; p01_03 withdraws at 20:20 and votes
again at 20:40; p01_06 votes for p01_05 at 21:00. At 23:30 p01_01 is condemned with 2 votes
(no Court in a two-city game, EX-12), and the count is posted in the city inbox.
"""

from __future__ import annotations

import re
from datetime import timedelta
from html import unescape
from urllib.parse import quote

from .conftest import Api, at, setup_game_via_api, small_cast

CAST = small_cast()
CITY = "Лепроград"


def text_of(html: str) -> str:
    words = re.sub(r"\s+", " ", unescape(re.sub(r"<[^>]+>", " ", html)))
    return re.sub(r" ([,:.;)])", r"\1", words)


def pressed(html: str) -> list[str]:
    """The vote buttons shown pressed (aria-pressed), by the keyword each one posts."""
    return [re.search(r'value="([^"]+)"', b).group(1)  # type: ignore[union-attr]
            for b in re.findall(r"<button[^>]*>", html) if 'aria-pressed="true"' in b]


def vote_page(api: Api, user: str, box: str, lang: str = "ru") -> str:
    r = api.get(user, f"/games/g/inboxes/{box}", lang=lang)
    assert r.status_code == 200, r.text
    return str(r.text)


def press(api: Api, user: str, box: str, keyword: str) -> str:
    """The voting inbox's button, as the browser's htmx sends it."""
    page = vote_page(api, user, box)
    token = re.search(r'name="csrf_token" value="([^"]+)"', page)
    assert token is not None
    r = api.client.post(f"/games/g/inboxes/{box}/post", headers={**api.headers(user), "hx-request": "1"},
                        data={"csrf_token": token.group(1), "text": keyword})
    assert r.status_code == 200
    return str(r.text)


def day_two(api: Api) -> tuple[str, str]:
    setup_game_via_api(api, "g", CAST)
    api.advance_to(at(2, "10:05"))
    api.ok("p01_02", "g", "Nominate", candidate="p01_01")
    api.ok("p01_06", "g", "Nominate", candidate="p01_05")
    api.advance_to(at(2, "20:05"))
    s = api.state("g")
    return s.current[f"voting:{CITY}/p01_01"], s.current[f"voting:{CITY}/p01_05"]


def section(html: str, testid: str) -> str:
    """The text of the first element marked ``data-testid=testid``, nested tags and all."""
    start = re.search(rf'<([a-z0-9]+)[^>]*data-testid="{testid}"[^>]*>', html)
    assert start is not None, testid
    name, depth, pos = start.group(1), 1, start.end()
    for tag in re.finditer(rf"<(/?){name}\b[^>]*>", html[pos:]):
        depth += -1 if tag.group(1) else 1
        if depth == 0:
            return text_of(html[pos:pos + tag.start()]).strip()
    raise AssertionError(f"{testid} is not closed")


def test_each_keyword_is_a_timestamped_line_with_the_running_tally_live_for_the_city(api: Api) -> None:
    """EXEC-18, EXEC-7, EXEC-9: every member of the voting inbox sees each «казнить» and
    «не казнить» as it is posted, with the candidate's tally after it; the voter's own vote
    is the pressed button and is confirmed in words (M3), in both languages."""
    box, _other = day_two(api)
    answer = press(api, "p01_03", box, "казнить")
    assert "Ваш голос «казнить» за p01_01 учтён — 1 голос." in text_of(answer)
    api.advance_to(at(2, "20:10"))
    api.ok("p01_04", "g", "PostMessage", inbox=box, text="казнить")

    watcher = vote_page(api, "p01_05", box)
    assert section(watcher, "thread") == "20:05:00 p01_03 «казнить» 1 голос 20:10:00 p01_04 «казнить» 2 голоса"
    assert 'aria-pressed="true"' not in watcher, "p01_05 has not voted for p01_01"

    mine = vote_page(api, "p01_03", box)
    assert pressed(mine) == ["казнить"]
    assert "Ваш голос «казнить» за p01_01 учтён — 2 голоса." in text_of(mine)
    english = vote_page(api, "p01_03", box, lang="en")
    assert "Your vote «казнить» for p01_01 is counted — 2 votes." in text_of(english)

    api.advance_to(at(2, "20:20"))
    answer = press(api, "p01_03", box, "не казнить")
    assert "Вы сняли голос за p01_01 («не казнить») — 1 голос." in text_of(answer)
    assert pressed(answer) == ["не казнить"]
    assert section(answer, "thread").endswith("20:20:00 p01_03 «не казнить» 1 голос")


def test_the_voting_inbox_says_when_the_vote_closes_in_moscow_time(api: Api) -> None:
    """M2, EXEC-4 (the duty's deadline, engine.duties): «Голосование закрывается через …
    (23:30 МСК)» where one votes, and in English."""
    box, _other = day_two(api)
    api.advance_to(at(2, "23:18"))
    ru = section(vote_page(api, "p01_03", box), "vote-deadline")
    assert ru == "Голосование закрывается через 12:00 (23:30 МСК)"
    en = section(vote_page(api, "p01_03", box, lang="en"), "vote-deadline")
    assert en == "Voting closes in 12:00 (23:30 MSK)"


def test_a_refused_withdrawal_changes_nothing_in_the_record(api: Api) -> None:
    """EXEC-8, EX-3: p01_05 never voted for p01_01; his «не казнить» is refused in words,
    and the log stays as it was."""
    box, _other = day_two(api)
    api.ok("p01_03", "g", "PostMessage", inbox=box, text="казнить")
    before = section(vote_page(api, "p01_04", box), "thread")
    answer = press(api, "p01_05", box, "не казнить")
    assert 'data-code="no_active_vote"' in answer
    assert "no_active_vote" not in text_of(answer), "a person never sees the code as the message"
    assert section(vote_page(api, "p01_04", box), "thread") == before


def test_the_open_ballot_stays_in_the_city_until_the_close(api: Api) -> None:
    """§9.2, INBOX-VOTE-1, EXEC-18: during the vote the log reaches the members of the
    voting inboxes only; Лепросицилия's p02_01 and an anonymous visitor see no voter."""
    box, _other = day_two(api)
    api.ok("p01_03", "g", "PostMessage", inbox=box, text="казнить")
    for viewer in ("p02_01", None):
        page = api.get(viewer, f"/games/g/votes/{quote(CITY)}/2").text
        assert "p01_03" not in page
        assert "data-testid=\"no-record\"" in page
    assert api.get("p02_01", f"/games/g/inboxes/{box}").status_code == 404
    member = api.get("p01_06", f"/games/g/votes/{quote(CITY)}/2").text
    assert "p01_03" in text_of(member) and "As it stands" not in member
    for path in (f"/games/g/votes/{quote(CITY)}/2/part", "/games/g/votes/part"):  # the live regions
        assert "p01_03" in api.get("p01_06", path).text
        assert "p01_03" not in api.get("p02_01", path).text


def cast_the_day(api: Api) -> tuple[str, str]:
    box, other = day_two(api)
    api.ok("p01_03", "g", "PostMessage", inbox=box, text="казнить")
    api.advance_to(at(2, "20:10"))
    api.ok("p01_04", "g", "PostMessage", inbox=box, text="казнить")
    api.advance_to(at(2, "20:20"))
    api.ok("p01_03", "g", "PostMessage", inbox=box, text="не казнить")
    api.advance_to(at(2, "20:40"))
    api.ok("p01_03", "g", "PostMessage", inbox=box, text="казнить")
    api.advance_to(at(2, "21:00"))
    api.ok("p01_06", "g", "PostMessage", inbox=other, text="казнить")
    api.advance_to(at(2, "23:30") + timedelta(seconds=1))
    return box, other


def test_at_the_close_the_vote_count_is_posted_in_the_city_inbox(api: Api) -> None:
    """EXEC-9, EXEC-14, EX-2, EX-12: in the Modbot style — each candidate with his tally and
    voters in order, who changed his mind, the condemned and his execution — posted in the
    city inbox among its messages (p01_02 asks «Итоги видели?» just after it)."""
    cast_the_day(api)
    city_box = api.state("g").current_inbox("city", CITY)
    api.ok("p01_02", "g", "PostMessage", inbox=city_box, text="Итоги видели?")
    page = api.get("p01_02", f"/games/g/inboxes/{city_box}").text
    post = section(page, "vote-post")
    assert "Итоги голосования · Лепроград · День 2" in post
    assert "p01_01 — 2 голоса: p01_04, p01_03" in post, "voters in the order of their counted vote"
    assert "Сменили мнение: p01_03" in post
    assert "p01_05 — 1 голос: p01_06" in post
    assert "Приговорён: p01_01" in post
    assert re.search(r"p01_01 казнён: он был (мафиози|честным жителем)\.", post)
    thread = section(page, "thread")
    assert thread.index("Итоги голосования") < thread.index("Итоги видели?"), "in the thread by time"


def test_the_closed_voting_inbox_keeps_its_log_and_the_count(api: Api) -> None:
    """INBOX-GEN-3: the killed voting inbox keeps its full vote log, and the count, read-only."""
    box, _other = cast_the_day(api)
    page = vote_page(api, "p01_04", box)
    assert section(page, "thread").startswith("20:05:00 p01_03 «казнить» 1 голос 20:10:00 p01_04")
    assert "Итоги голосования · Лепроград · День 2" in text_of(page)
    assert 'aria-pressed' not in page and 'data-testid="vote-deadline"' not in page
    assert f'href="/games/g/votes/{CITY}/2"' in unescape(page) or f"/games/g/votes/{quote(CITY)}/2" in page


def test_the_votes_page_per_city_and_day_is_public_after_the_close_and_linkable(api: Api) -> None:
    """EXEC-9 (derived: the full timestamped keyword log is published), §9.2: once closed,
    anyone — another city's resident, an anonymous visitor — reads the whole record at its
    own address; the game's nav and the index link to it; an unknown city is a 404."""
    cast_the_day(api)
    for viewer in (None, "p02_01"):
        page = api.get(viewer, f"/games/g/votes/{quote(CITY)}/2").text
        log = section(page, "vc-log")
        assert "20:20:00 p01_03 «не казнить» p01_01 1" in log
        assert "21:00:00 p01_06 «казнить» p01_05 1" in log
    index = api.get(None, "/games/g/votes").text
    assert f"/games/g/votes/{quote(CITY)}/2" in index or f"/games/g/votes/{CITY}/2" in unescape(index)
    assert 'data-testid="nav-votes"' in api.get("p02_01", "/games/g").text
    assert api.get(None, "/games/g/votes/Атлантида/2").status_code == 404
    english = text_of(api.get(None, f"/games/g/votes/{quote(CITY)}/2", lang="en").text)
    assert "Vote count · Лепроград · Day 2" in english and "p01_01 — 2 votes: p01_04, p01_03" in english
