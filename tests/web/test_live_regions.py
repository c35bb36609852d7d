"""Live regions declare what changes them; live.js refreshes only those (issue 9, item 7).

Cast: the small game (Лепроград p01_01..p01_06, Лепросицилия p02_01..p02_06). On Day 2 the
Лепроград vote on p01_01 is open; p01_04 watches that voting inbox, p01_03 votes.
The matching rule is live.js's own ``matches``, run by node on the real page's attributes
and the real WebSocket frames.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from html import unescape
from pathlib import Path
from typing import Any

import pytest

from lepromafia.web.pages.regions import REGIONS

from .conftest import Api, at, setup_game_via_api, small_cast

LIVE_JS = Path(__file__).parents[2] / "src/lepromafia/web/static/js/live.js"
CAST = small_cast()
NODE = shutil.which("node")
pytestmark = pytest.mark.skipif(NODE is None, reason="node runs live.js")  # Debian's nodejs


def matches(cases: list[tuple[dict[str, Any], dict[str, Any], int]]) -> list[bool]:
    """live.js's ``LepromafiaLive.matches(region, event, seq)`` for each case."""
    script = (f"const m = require({json.dumps(str(LIVE_JS))});"
              f"const cases = {json.dumps(cases)};"
              "console.log(JSON.stringify(cases.map(c => m.matches(c[0], c[1], c[2]))));")
    out = subprocess.run([NODE or "node", "-e", script], capture_output=True, text=True, check=True)
    found: list[bool] = json.loads(out.stdout)
    return found


def regions(html: str) -> list[dict[str, Any]]:
    out = []
    for tag in re.findall(r"<[^>]*data-live-src=[^>]*>", html):
        attrs = {k: unescape(v) for k, v in re.findall(r'data-live-([a-z]+)="([^"]*)"', tag)}
        out.append({"src": attrs["src"], "kinds": attrs.get("kinds"), "inbox": attrs.get("inbox") or None,
                    "city": attrs.get("city") or None, "rendered": None})
    return out


def test_the_matching_rule_kinds_inbox_city_and_the_rendered_seq() -> None:
    """A region refreshes for a kind it names, about its inbox and city, after what it shows."""
    tally = {"kinds": "VoteCast VotingClosed", "city": "Лепроград", "inbox": None, "rendered": "10"}
    thread = {"kinds": "MessagePosted", "inbox": "city:Лепроград:1", "city": None, "rendered": None}
    legacy = {"kinds": None, "inbox": None, "city": None, "rendered": None}
    assert matches([
        (tally, {"type": "VoteCast", "city": "Лепроград"}, 11),
        (tally, {"type": "VoteCast", "city": "Лепросицилия"}, 11),  # another city's vote
        (tally, {"type": "MessagePosted", "inbox": "city:Лепроград:1"}, 11),  # not a kind it shows
        (tally, {"type": "VoteCast", "city": "Лепроград"}, 10),  # the echo of what it rendered
        (thread, {"type": "MessagePosted", "inbox": "city:Лепроград:1"}, 5),
        (thread, {"type": "MessagePosted", "inbox": "mafia:Лепроград:1"}, 5),  # another inbox
        (legacy, {"type": "AnythingAtAll"}, 3),
    ]) == [True, False, False, False, True, False, True]


def test_every_declared_kind_is_an_engine_event() -> None:
    from lepromafia.store.codec import EVENT_TYPES

    for name, classes in REGIONS.items():
        assert classes and all(EVENT_TYPES.get(c.__name__) is c for c in classes), name


def test_a_city_chat_message_refreshes_nothing_on_the_voting_inbox_and_a_vote_its_log_and_tally(
        api: Api) -> None:
    """EXEC-5, EXEC-18, INBOX-VOTE-1: p01_04 watches the voting inbox. A message in the city
    inbox reaches his socket but re-renders no region; p01_03's «казнить» re-renders the
    inbox's keyword log and the tally; p01_03's own page skips the echo of the vote its htmx
    answer already drew."""
    setup_game_via_api(api, "g", CAST)
    api.advance_to(at(2, "10:05"))
    s = api.state("g")
    city = next(iter(s.cities))
    candidate, nominator, voter, watcher = s.living(city)[:4]
    api.ok(nominator, "g", "Nominate", candidate=candidate)
    api.advance_to(at(2, "20:05"))
    s = api.state("g")
    box = s.current[f"voting:{city}/{candidate}"]
    page = api.get(watcher, f"/games/g/inboxes/{box}").text
    live = [r for r in regions(page) if not r["src"].endswith("/part/unread")]  # the menu's badge
    assert {r["src"].rsplit("/", 1)[-1] for r in live} == {"part", "tally"}
    assert all(r["kinds"] for r in live), "every region declares what changes it"
    version = api.client.portal.call(api.web.queries.position, "g", watcher)  # type: ignore[union-attr]
    with api.client.websocket_connect("/ws", headers=api.headers(watcher)) as ws:
        ws.send_json({"type": "subscribe", "game": "g", "since_seq": version})
        assert ws.receive_json()["type"] == "subscribed"
        api.ok(nominator, "g", "PostMessage", inbox=s.current_inbox("city", city), text="Кто за?")
        before = api.client.portal.call(api.web.queries.position, "g", voter)  # type: ignore[union-attr]
        frame = ws.receive_json()
        assert frame["type"] == "event" and frame["payload"]["type"] == "MessagePosted"
        assert matches([(r, frame["payload"], frame["seq"]) for r in live]) == [False, False]
        form = api.client.get(f"/games/g/inboxes/{box}", headers=api.headers(voter)).text
        token = re.search(r'name="csrf_token" value="([^"]+)"', form)
        assert token is not None
        r = api.client.post(f"/games/g/inboxes/{box}/post", headers={**api.headers(voter), "hx-request": "1"},
                            data={"csrf_token": token.group(1), "text": "казнить"})
        assert r.status_code == 200 and int(r.headers["x-live-seq"]) > before
        vote = ws.receive_json()
        assert vote["payload"]["type"] == "VoteCast"
        refreshed = [r["src"].rsplit("/", 1)[-1] for r, hit in
                     zip(live, matches([(r, vote["payload"], vote["seq"]) for r in live]), strict=True) if hit]
        assert refreshed == ["part", "tally"]
    (thread,) = [r for r in live if r["src"].endswith("/part")]
    assert f'data-voter="{voter}"' in api.get(watcher, thread["src"]).text, "the line, live"


def test_the_htmx_answer_to_one_s_own_message_is_not_fetched_again_on_its_echo(api: Api) -> None:
    """p01_03 posts in the city inbox with htmx: the answer carries X-Live-Seq (his own
    stream position), so the WebSocket echo of his message does not re-fetch his thread;
    a thread drawn before it (p01_04's) refreshes."""
    setup_game_via_api(api, "g", CAST)
    api.advance_to(at(1, "10:05"))
    s = api.state("g")
    city = next(iter(s.cities))
    poster = s.living(city)[2]
    inbox = s.current_inbox("city", city)
    page = api.get(poster, f"/games/g/inboxes/{inbox}").text
    (thread,) = [r for r in regions(page) if r["src"].endswith("/part")]
    assert thread["inbox"] == inbox
    version = api.client.portal.call(api.web.queries.position, "g", poster)  # type: ignore[union-attr]
    with api.client.websocket_connect("/ws", headers=api.headers(poster)) as ws:
        ws.send_json({"type": "subscribe", "game": "g", "since_seq": version})
        assert ws.receive_json()["type"] == "subscribed"
        token = re.search(r'name="csrf_token" value="([^"]+)"', page)
        assert token is not None
        r = api.client.post(f"/games/g/inboxes/{inbox}/post",
                            headers={**api.headers(poster), "hx-request": "1"},
                            data={"csrf_token": token.group(1), "text": "Я честный"})
        assert r.status_code == 200 and "Я честный" in r.text
        echo = ws.receive_json()
    assert echo["payload"]["type"] == "MessagePosted" and echo["seq"] == int(r.headers["x-live-seq"])
    posters = thread | {"rendered": r.headers["x-live-seq"]}
    assert matches([(posters, echo["payload"], echo["seq"]), (thread, echo["payload"], echo["seq"])]) \
        == [False, True]


def test_recipe_an_event_shown_on_a_page_the_procurator_s_contest(api: Api) -> None:
    """docs/architecture.md, "How to add an event shown on a page", done for
    ContestPublished (HOST-PROC-5): the event index keeps it without registration, the page
    helper reads it through the audience filter, the template shows it under its Day Post,
    and the posts region names it, so it refreshes for it and not for a city chat message."""
    from lepromafia.engine import events_host as hev
    from lepromafia.service.event_index import UNINDEXED, EventIndex
    from lepromafia.store.codec import EVENT_TYPES

    index = EventIndex(api.web.service.store)
    assert all(index.indexes(cls) == (cls not in UNINDEXED) for cls in EVENT_TYPES.values())
    setup_game_via_api(api, "g", CAST)
    api.advance_to(at(1, "10:05"))
    (posts,) = [r for r in regions(api.get("p01_04", "/games/g").text) if r["src"].endswith("/posts")]
    version = api.client.portal.call(api.web.queries.position, "g", "p01_04")  # type: ignore[union-attr]
    with api.client.websocket_connect("/ws", headers=api.headers('p01_04')) as ws:
        ws.send_json({"type": "subscribe", "game": "g", "since_seq": version})
        assert ws.receive_json()["type"] == "subscribed"
        api.ok(CAST.procurator, "g", "PublishContest", title="Шарада дня", text="Мой первый слог…")
        contest = ws.receive_json()
        city = api.state("g").current_inbox("city", next(iter(CAST.cities)))
        api.ok("p01_01", "g", "PostMessage", inbox=city, text="Сложно!")
        chat = ws.receive_json()
    assert contest["payload"]["type"] == hev.ContestPublished.__name__
    assert matches([(posts, contest["payload"], contest["seq"]), (posts, chat["payload"], chat["seq"])]) \
        == [True, False]
    assert "Шарада дня" in api.get("p01_04", posts["src"]).text
    assert "Шарада дня" in api.get(None, "/games/g").text
