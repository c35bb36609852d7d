"""Issue 13 in the web, as the residents of Лепроград and their Tribune use it:
following an inbox (a notification for new messages, at most one an hour, only for an
inbox one may read, gone after unfollowing) and the Tribune's list of inactive residents
(PLAYER-2), which a resident may not open."""

from __future__ import annotations

import re
from datetime import datetime, time, timedelta
from pathlib import Path
from urllib.parse import quote

from lepromafia.engine.calendar import MOSCOW
from lepromafia.engine.inboxes import live_inbox
from lepromafia.service.notify.dispatcher import Dispatcher

from ..web.conftest import FIRST_DAY, Api, make_api, setup_game_via_api, small_cast

TOKEN = re.compile(r'name="csrf_token" value="([^"]+)"')
CAST = small_cast()
HX = {"HX-Request": "true"}


def _step(api: Api) -> None:
    dispatcher: Dispatcher = api.web.notify.dispatcher  # type: ignore[union-attr]
    while api.client.portal.call(dispatcher.step):  # type: ignore[union-attr]
        pass


def _followed(api: Api, user: str) -> list[dict]:
    return [n for n in api.get(user, "/api/notifications").json() if n["kind"] == "followed_inbox"]


def _follow(api: Api, user: str, inbox: str, on: bool, game: str = "g") -> str:
    block = api.client.get(f"/games/{game}/follow", params={"inbox": inbox},
                           headers={**api.headers(user), **HX})
    assert block.status_code == 200, block.text
    token = TOKEN.search(block.text).group(1)  # type: ignore[union-attr]
    r = api.client.post(f"/games/{game}/follow", headers=api.headers(user),
                        data={"csrf_token": token, "inbox": inbox, "on": "1" if on else "0"})
    assert r.status_code == 200
    return str(r.text)


def test_a_resident_follows_the_city_inbox_and_hears_of_new_messages_once_an_hour(tmp_path: Path) -> None:
    """Ana follows Лепроград's city inbox from its page. Boris writes three messages within
    the hour: Ana gets one notification, Boris none; the text names no inbox and no person.
    A resident of the other city may not follow it (refused in words, nothing stored).
    After Ana unfollows, the next hour's message tells her nothing."""
    for api in make_api(tmp_path, notify_dispatch=False):
        state = setup_game_via_api(api, "g", CAST)
        city, other = list(state.cities)
        ana, boris = state.cities[city].residents[:2]
        stranger = state.cities[other].residents[0]
        inbox = live_inbox(state, "city", city)
        assert inbox
        api.advance_to(datetime.combine(FIRST_DAY, time(10, 5), MOSCOW))
        api.client.cookies.set("lang", "en")
        page = api.get(ana, f"/games/g/inboxes/{quote(inbox, safe='')}")
        assert page.status_code == 200 and 'data-testid="follow"' in page.text
        block = api.client.get("/games/g/follow", params={"inbox": inbox}, headers={**api.headers(ana), **HX})
        assert "Follow this inbox" in block.text
        assert "You will be notified of new messages here." in _follow(api, ana, inbox, True)
        block = api.client.get("/games/g/follow", params={"inbox": inbox}, headers={**api.headers(ana), **HX})
        assert "Stop following" in block.text
        plain = api.get(ana, "/games/g/follow", inbox=inbox)  # without JavaScript: a page of its own
        assert plain.status_code == 200 and "<html" in plain.text and "Stop following" in plain.text

        assert api.get(stranger, "/games/g/follow", inbox=inbox).status_code == 404
        token = TOKEN.search(api.get(stranger, "/account/notifications").text).group(1)  # type: ignore[union-attr]
        r = api.client.post("/games/g/follow", headers=api.headers(stranger),
                            data={"csrf_token": token, "inbox": inbox, "on": "1"})
        assert r.status_code == 200 and 'data-code="notify_setting_invalid"' in r.text
        store = api.web.notify.store  # type: ignore[union-attr]
        assert api.client.portal.call(store.follows_of, stranger, "g") == set()  # type: ignore[union-attr]

        for text in ("Доброе утро", "Кто за кого?", "Я за мир"):
            api.ok(boris, "g", "PostMessage", inbox=inbox, text=text)
            api.advance(timedelta(minutes=5))
        _step(api)
        (note,) = _followed(api, ana)
        assert note["text"] == "«Тест»: new messages in an inbox you follow."
        assert boris not in note["text"] and inbox not in note["text"]
        assert _followed(api, boris) == [] and _followed(api, stranger) == []

        assert "no longer" in _follow(api, ana, inbox, False)
        api.advance(timedelta(hours=1))
        api.ok(boris, "g", "PostMessage", inbox=inbox, text="Тишина")
        _step(api)
        assert len(_followed(api, ana)) == 1


def test_two_followers_talking_hear_of_each_other_once_an_hour(tmp_path: Path) -> None:
    """Ana and Boris both follow Лепроград's city inbox. Within the hour Ana writes, Boris
    answers twice and Ana writes again: each hears once, of the other's messages, never of
    his own. The next hour Boris writes again: Ana hears once more."""
    for api in make_api(tmp_path, notify_dispatch=False):
        state = setup_game_via_api(api, "g", CAST)
        city = next(iter(state.cities))
        ana, boris = state.cities[city].residents[:2]
        inbox = live_inbox(state, "city", city)
        assert inbox
        api.advance_to(datetime.combine(FIRST_DAY, time(10, 5), MOSCOW))
        _follow(api, ana, inbox, True)
        _follow(api, boris, inbox, True)
        _step(api)
        for author, text in ((ana, "Доброе утро"), (boris, "И тебе"), (boris, "Кто за кого?"),
                             (ana, "Пока не знаю")):
            api.ok(author, "g", "PostMessage", inbox=inbox, text=text)
            api.advance(timedelta(minutes=5))
        _step(api)
        assert len(_followed(api, ana)) == 1 and len(_followed(api, boris)) == 1
        api.advance(timedelta(hours=1))
        api.ok(boris, "g", "PostMessage", inbox=inbox, text="Новый час")
        _step(api)
        assert len(_followed(api, ana)) == 2 and len(_followed(api, boris)) == 1


def test_the_tribune_sees_who_has_not_posted_and_a_resident_may_not(tmp_path: Path) -> None:
    """Two-hour setting. Day 1, 10:30 Boris posts; at 12:10 the Tribune's console loads the
    list: everyone of his city but Boris, each «no post yet». Later Boris is listed with
    his last post. A resident asking for the list is refused. PLAYER-2."""
    for api in make_api(tmp_path, notify_dispatch=False):
        state = setup_game_via_api(api, "g", CAST, settings={"inactivity_hours": 2})
        city = next(iter(state.cities))
        tribune = state.cities[city].tribune
        ana, boris = state.cities[city].residents[:2]
        api.client.cookies.set("lang", "en")
        api.advance_to(datetime.combine(FIRST_DAY, time(10, 30), MOSCOW))
        api.ok(boris, "g", "PostMessage", inbox=live_inbox(state, "city", city), text="Я здесь")
        api.advance_to(datetime.combine(FIRST_DAY, time(12, 10), MOSCOW))
        console = api.get(tribune, "/games/g/console/tribune")
        assert console.status_code == 200 and 'data-testid="inactive-residents"' in console.text
        part = api.client.get("/games/g/inactive", headers={**api.headers(tribune), **HX})
        assert part.status_code == 200 and part.headers.get("X-Live-Seq")
        listed = set(re.findall(r'data-user="([^"]+)"', part.text))
        assert listed == set(state.cities[city].residents) - {boris}
        assert "no post yet" in part.text
        api.advance_to(datetime.combine(FIRST_DAY, time(12, 40), MOSCOW))
        part = api.client.get("/games/g/inactive", headers={**api.headers(tribune), **HX})
        assert f'data-user="{boris}"' in part.text and "last post" in part.text
        assert api.get(ana, "/games/g/inactive").status_code == 403


def test_a_socket_that_asks_hears_its_unread_count_change(tmp_path: Path) -> None:
    """Ana's WebSocket opened with ``?unread=1``: Boris mentions her in the city inbox, the
    dispatcher writes her notification and her socket gets ``unread`` with the new count;
    reading them all sends 0. Only a number crosses: no text, no kind."""
    for api in make_api(tmp_path, notify_dispatch=False):
        state = setup_game_via_api(api, "g", CAST)
        city = next(iter(state.cities))
        ana, boris = state.cities[city].residents[:2]
        api.advance_to(datetime.combine(FIRST_DAY, time(10, 5), MOSCOW))
        _step(api)
        api.post(ana, "/api/notifications/read", {})
        with api.client.websocket_connect("/ws?unread=1", headers=api.headers(ana)) as ws:
            ws.send_json({"type": "ping"})
            assert ws.receive_json()["type"] == "pong"  # the socket is listening
            api.ok(boris, "g", "PostMessage", inbox=live_inbox(state, "city", city), text=f"@{ana}, ты тут?")
            _step(api)
            frame = ws.receive_json()
            assert frame == {"type": "unread", "count": api.get(ana, "/api/notifications/count").json()["unread"]}
            assert frame["count"] >= 1
            api.post(ana, "/api/notifications/read", {})
            assert ws.receive_json() == {"type": "unread", "count": 0}


def test_followers_of_two_games_are_read_in_one_statement_and_kept_apart(tmp_path: Path) -> None:
    """Two games with the same cast, whose city inboxes have the same ids. Ana follows her
    city inbox in game «g», and a resident of the same city in game «h» follows it there.
    A message in that inbox in both games; one dispatcher pass: Ana hears of game «g» alone,
    the other follower of «h» alone, and the followers of both games were read with one
    statement (issue 17: one a pass, not one a game)."""
    for api in make_api(tmp_path, notify_dispatch=False):
        first = setup_game_via_api(api, "g", CAST)
        second = setup_game_via_api(api, "h", CAST)
        city = next(iter(first.cities))
        ana, boris = first.cities[city].residents[:2]
        inbox = live_inbox(first, "city", city)
        assert inbox
        home = next(c for c in second.cities if live_inbox(second, "city", c) == inbox)
        writer, reader = [r for r in second.cities[home].residents if r != ana][:2]
        api.advance_to(datetime.combine(FIRST_DAY, time(10, 5), MOSCOW))
        _follow(api, ana, inbox, True)
        _follow(api, reader, inbox, True, game="h")
        store = api.web.notify.store  # type: ignore[union-attr]
        asked: list[set[tuple[str, str]]] = []
        followers = store.followers

        async def counted(inboxes, asked=asked, followers=followers):  # type: ignore[no-untyped-def]
            wanted = set(inboxes)
            if wanted:  # an empty ask reads nothing
                asked.append(wanted)
            return await followers(wanted)

        store.followers = counted  # type: ignore[method-assign]
        api.ok(boris, "g", "PostMessage", inbox=inbox, text="Доброе утро")
        api.ok(writer, "h", "PostMessage", inbox=inbox, text="Доброе утро и вам")
        _step(api)
        assert asked == [{("g", inbox), ("h", inbox)}]
        (note,) = _followed(api, ana)
        assert note["game_id"] == "g"
        (note,) = _followed(api, reader)
        assert note["game_id"] == "h"


def test_a_message_in_an_inbox_nobody_follows_gives_the_dispatcher_nothing(tmp_path: Path) -> None:
    """Ana follows her city inbox in game «g». Boris writes there; Vera writes in the other
    city's inbox of «g», which nobody follows; Gleb writes in game «h», where nobody follows
    anything. Only Boris's message leaves a notice for the dispatcher to expand (issue 17:
    a chat line nobody follows costs no outbox row), and Ana hears of it."""
    for api in make_api(tmp_path, notify_dispatch=False):
        first = setup_game_via_api(api, "g", CAST)
        second = setup_game_via_api(api, "h", CAST)
        city, other = list(first.cities)
        ana, boris = first.cities[city].residents[:2]
        vera = first.cities[other].residents[0]
        gleb = second.cities[next(iter(second.cities))].residents[0]
        inbox, unfollowed = live_inbox(first, "city", city), live_inbox(first, "city", other)
        assert inbox and unfollowed
        api.advance_to(datetime.combine(FIRST_DAY, time(10, 5), MOSCOW))
        _follow(api, ana, inbox, True)
        _step(api)  # what the game's start left due
        dispatcher: Dispatcher = api.web.notify.dispatcher  # type: ignore[union-attr]
        claimed: list[tuple[str, str]] = []
        claim = dispatcher.claim_outbox

        async def counted(claim=claim, claimed=claimed):  # type: ignore[no-untyped-def]
            rows = await claim()
            claimed.extend((r["game_id"], r["kind"]) for r in rows)
            return rows

        dispatcher.claim_outbox = counted  # type: ignore[method-assign]
        api.ok(boris, "g", "PostMessage", inbox=inbox, text="Доброе утро")
        api.ok(vera, "g", "PostMessage", inbox=unfollowed, text="И у нас утро")
        api.ok(gleb, "h", "PostMessage", inbox=live_inbox(second, "city", next(iter(second.cities))),
               text="Доброе утро и вам")
        _step(api)
        assert claimed == [("g", "followed_inbox")]
        (note,) = _followed(api, ana)
        assert note["game_id"] == "g"
