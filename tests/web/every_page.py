"""Every page as every kind of seat, across the phases of a played game: the crawl shared by
``test_every_page_in_every_language.py`` (the words people read) and
``tests/browser/test_axe.py`` (accessibility).

The games: one still recruiting, one the bots play through the service from Day 1 (seen at
several moments: the first day, the first night, a day with a vote open, a later night), and
one the bots played to its end (imported, for the ending and the archive). The seats: an
anonymous visitor, a registered user outside the game, honest residents alive and dead, a
mafioso, the Godfather, the commissar, an observer and each host office.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import timedelta
from typing import Any
from urllib.parse import quote

from lepromafia.bots.service_bots import ServiceBots
from lepromafia.engine import commands as cmd
from lepromafia.engine.inboxes import can_read
from lepromafia.engine.state import GameState, PhaseKind, Stage

from ..service.finished_game import import_game, play_finished_game
from .conftest import Api, at, setup_game_via_api, small_cast

CAST = small_cast()
RUNNING = "story"
RECRUITING = "signup"
FINISHED = "done"
OUTSIDER = "visitor"
"""A registered user who takes no part in any game."""
OFFICES = ("procurator", "consigliere", "arbiter", "tribune")


@dataclass(frozen=True)
class Seat:
    kind: str
    user: str | None


@dataclass(frozen=True)
class Moment:
    """One moment of one game, and the seats that exist at it."""

    name: str
    game: str
    state: GameState
    seats: tuple[Seat, ...]


def seats_of(s: GameState, *, observer: str | None = None) -> tuple[Seat, ...]:
    """One user for every kind of seat the game has at this moment."""
    out = [Seat("anonymous", None), Seat("registered", OUTSIDER)]
    offices = {"procurator": s.procurator, "consigliere": s.consigliere, "arbiter": s.arbiter,
               "tribune": next((c.tribune for c in s.cities.values() if c.tribune), None)}
    out += [Seat(office, user) for office, user in offices.items() if user]
    taken: set[str] = set()

    def first(kind: str, users: Any) -> None:
        user = next((u for u in users if u not in taken), None)
        if user is not None:
            taken.add(user)
            out.append(Seat(kind, user))

    residents = s.residents
    commissars = [c.commissar for c in s.cities.values() if c.commissar]
    godfathers = [c.godfather for c in s.cities.values() if c.godfather]
    first("commissar", commissars)
    first("godfather", godfathers)
    first("mafioso", (u for u in residents if s.is_mafia(u) and residents[u].alive))
    if observer:
        first("observer", [observer])
    first("resident", (u for u, r in residents.items() if r.alive and not s.is_mafia(u)))
    first("dead", (u for u, r in residents.items() if not r.alive))
    if not residents:
        first("signed-up", s.signups)
    return tuple(out)


def pages(moment: Moment, seat: Seat) -> list[str]:
    """Every page this seat can reach in this game now, and the pages it cannot (their
    refusal is a page too)."""
    g, s, user = moment.game, moment.state, seat.user
    out = ["/", "/rules", "/login", "/register", f"/games/{g}", f"/games/{g}/role",
           f"/games/{g}/inboxes", f"/games/{g}/sound", f"/games/{g}/archive",
           f"/games/{g}/posts/recruitment/comments", f"/games/{g}/draw", "/games/no-such-game"]
    if user:
        out.append("/games/new")
    out += [f"/games/{g}/console/{office}" for office in OFFICES]
    out.append(f"/games/{g}/contacts")
    out += [f"/games/{g}/posts/{post}/comments" for post in day_posts(s)[:1]]
    kinds: set[str] = set()
    for inbox_id, inbox in s.inboxes.items():
        if s.stage is Stage.FINISHED:
            continue
        key = f"{inbox.kind}:{inbox.archived}"
        if key in kinds or not can_read(s, inbox_id, user):
            continue
        kinds.add(key)
        out.append(f"/games/{g}/inboxes/{quote(inbox_id, safe='')}")
    if s.stage is Stage.FINISHED:
        for inbox_id, inbox in s.inboxes.items():
            if inbox.kind not in kinds:
                kinds.add(inbox.kind)
                out.append(f"/games/{g}/archive/inbox?inbox={quote(inbox_id, safe='')}")
    elif s.inboxes:
        # a seat that may not read an inbox sees the refusal page
        hidden = next((i for i in s.inboxes if not can_read(s, i, user)), None)
        if hidden:
            out.append(f"/games/{g}/inboxes/{quote(hidden, safe='')}")
    return out


def day_posts(s: GameState) -> list[str]:
    return [str(day) for day in range(1, s.day + 1)] if s.stage is not Stage.RECRUITING else []


def register_everyone(api: Api) -> None:
    for user in [OUTSIDER, CAST.procurator, CAST.consigliere, CAST.arbiter, *CAST.tribunes,
                 *(u for us in CAST.cities.values() for u in us)]:
        if user not in api.tokens:
            api.register(user)


def recruiting(api: Api) -> Moment:
    register_everyone(api)
    r = api.post(CAST.procurator, "/api/games", {"game_id": RECRUITING, "title": "Набор",
                                                 "settings": {"city_count": 2, "population_per_city": 6,
                                                              "supreme_court_mode": "always"},
                                                 "command_id": api.command_id()})
    assert r.status_code == 201, r.text
    first_city = next(iter(CAST.cities.values()))
    for user in first_city[:3]:
        r = api.post(user, f"/api/games/{RECRUITING}/signup",
                     {"accepted": sorted(cmd.REQUIREMENTS), "contact": "+7 999 000 00 00",
                      "command_id": api.command_id()})
        assert r.status_code == 200, r.text
    s = api.state(RECRUITING)
    return Moment("recruiting", RECRUITING, s, seats_of(s))


def finished(api: Api) -> Moment:
    played = play_finished_game()
    api.client.portal.call(import_game, api.web.service.store, FINISHED, played.table)  # type: ignore[union-attr]
    s = api.state(FINISHED)
    return Moment("finished", FINISHED, s, seats_of(s))


MOMENTS = ("day", "night", "vote", "later night")


def running(api: Api, moments: tuple[str, ...] = MOMENTS) -> Iterator[Moment]:
    """The bots play the running game hour by hour; a moment at the first day, the first
    night, the first day with an open vote and a later night with a death behind it (or
    only the ``moments`` asked for, in that order)."""
    register_everyone(api)
    setup_game_via_api(api, RUNNING, CAST)
    api.advance_to(at(1, "10:05"))
    s = api.state(RUNNING)
    cities = list(s.cities)
    observer = next(u for u in s.living(cities[0]) if not s.is_mafia(u))
    api.ok(observer, RUNNING, "RequestObservation", city=cities[1])
    bots = ServiceBots(api.web.service, RUNNING, random.Random(3), activity=0.8, humans={observer})
    wanted = [name for name in MOMENTS if name in moments]
    for _ in range(24 * 5):
        s = api.state(RUNNING)
        if s.stage is Stage.FINISHED or not wanted:
            break
        name = wanted[0]
        voting = any(i.kind == "voting" and not i.archived for i in s.inboxes.values())
        dead = any(not r.alive for r in s.residents.values())
        if (name == "day" and s.phase is PhaseKind.DAY) \
                or (name == "night" and s.phase is PhaseKind.NIGHT) \
                or (name == "vote" and voting) \
                or (name == "later night" and s.phase is PhaseKind.NIGHT and dead):
            wanted.pop(0)
            yield Moment(name, RUNNING, s, seats_of(s, observer=observer))
        api.client.portal.call(bots.step, s)  # type: ignore[union-attr]
        api.advance(timedelta(minutes=60))
    assert not wanted, f"the game never reached: {wanted}"


def every_moment(api: Api, moments: tuple[str, ...] = MOMENTS) -> Iterator[Moment]:
    yield recruiting(api)
    yield from running(api, moments)
    yield finished(api)
