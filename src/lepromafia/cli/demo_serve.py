"""The demo (``lepromafia serve --demo``): two games, created once, kept alive by bots.

- ``demo-live``: three cities already running at an accelerated ``time_scale`` (slowed so
  the vote lasts at least two real minutes); the strategy bots (``bots.strategy.service``,
  issue 15) play every seat except ``demo`` (a resident of the first city, for a visitor),
  each from what its seat may see, and never move against that seat. When the game ends,
  the next one (``demo-live-2``, …) starts after a pause: the demo loops.
- ``demo-recruiting``: a game in recruitment with free seats.

Each live game opens with a Sound Library of three interrogations (``demo_sound``, m13).

Every seat has an account with the password ``DEMO_PASSWORD``, so a visitor can also
look through a host's or a resident's eyes.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
from dataclasses import replace
from datetime import datetime, timedelta
from typing import Any

from ..bots.service_bots import setup_service_game
from ..bots.setup import Cast
from ..bots.strategy.service import StrategyServiceBots
from ..engine import commands as cmd
from ..engine.calendar import MOSCOW
from ..engine.errors import RuleViolation
from ..engine.state import NO_KILL, GameState, PhaseKind, Stage
from ..service.accounts import AccountError
from ..service.errors import ServiceError
from ..web.deps import Web
from .demo_sound import seed_sound_library

LIVE = "demo-live"
RECRUITING = "demo-recruiting"
DEMO_PASSWORD = "demo-lepromafia"  # noqa: S105 - public by design: the demo's seats
HUMAN_SEAT = "demo"


def live_cast() -> Cast:
    names = ("Лепроград", "Глюкоград", "Баянск")
    cities = {}
    for c, name in enumerate(names):
        residents = [f"p{c + 1}_{i + 1:02d}" for i in range(8)]
        if c == 0:
            residents[0] = HUMAN_SEAT
        cities[name] = tuple(residents)
    return Cast("procurator", "consigliere", "arbiter", ("tribune1", "tribune2", "tribune3"), cities)


def recruiting_cast() -> Cast:
    return Cast("procurator2", "consigliere2", "arbiter2", ("tribune2_1", "tribune2_2"),
                {"Пыжиков": tuple(f"r1_{i + 1:02d}" for i in range(3)),
                 "Тролльск": tuple(f"r2_{i + 1:02d}" for i in range(2))})


def _users(cast: Cast) -> list[str]:
    users = [cast.procurator, cast.consigliere, cast.arbiter, *cast.tribunes]
    return users + [u for us in cast.cities.values() for u in us]


async def _accounts(web: Web, cast: Cast, game_id: str) -> None:
    residents = {u for us in cast.cities.values() for u in us}
    for user in _users(cast):
        try:
            await web.accounts.register(user, DEMO_PASSWORD, user)
        except AccountError:
            continue  # exists already: the demo is idempotent
        if user in residents:
            await web.accounts.save_contact(game_id, user, f"+7 900 000-00-{len(user):02d} / skype:{user}")


async def _exists(web: Web, game_id: str) -> bool:
    try:
        await web.service.state(game_id)
    except ServiceError:
        return False
    return True


DAY_START = "06:00"
VOTE_OPENS, VOTE_CLOSES = "15:30", "23:50"
"""The demo's calendar: the vote window is 8 h 20 min of game time (after the day's midpoint,
15:00, before its end at midnight), nominations run from 06:00 to 15:30."""
MIN_VOTE_SECONDS = 150.0
"""Real seconds the vote window lasts at least (review M8: it was 17 s at scale 720)."""
ENDING_PAUSE = 120.0
"""Real seconds a finished demo game stays the newest before the next one starts."""


def demo_scale(requested: float) -> float:
    """The demo game's speed: the one asked for, slowed so the vote lasts MIN_VOTE_SECONDS."""
    window = (_minutes(VOTE_CLOSES) - _minutes(VOTE_OPENS)) * 60
    return min(requested, window / MIN_VOTE_SECONDS)


def _minutes(hhmm: str) -> int:
    h, m = hhmm.split(":")
    return int(h) * 60 + int(m)


def live_id(n: int) -> str:
    """The n-th demo game: ``demo-live``, then ``demo-live-2``, … (a game's log is never reused)."""
    return LIVE if n == 1 else f"{LIVE}-{n}"


class DemoBots(StrategyServiceBots):
    """The demo's bots, which never move against the visitor's seat (M8): no nomination
    of him, no «казнить» in his voting inbox, no kill (a kill of him becomes «no kill»)."""

    def __init__(self, *args: Any, protected: frozenset[str], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.protected = protected
        self.state: GameState | None = None

    async def step(self, s: GameState) -> None:
        self.state = s
        await super().step(s)

    async def do(self, command: cmd.Command) -> bool:
        if isinstance(command, cmd.Nominate) and command.candidate in self.protected:
            return False
        if isinstance(command, cmd.DeclareKill) and command.target in self.protected:
            command = replace(command, target=NO_KILL)
        if isinstance(command, cmd.PostMessage) and self.state is not None:
            inbox = self.state.inboxes.get(command.inbox)
            if inbox is not None and inbox.kind == "voting" and inbox.subject in self.protected:
                return False
        return await super().do(command)


async def _mornings(web: Web, game_id: str, procurator: str) -> None:
    """Every day after the first starts at DAY_START (Day 1 starts two minutes after the game
    is created, whatever the hour): the Procurator sets the next day's start (TIME-4)."""
    s = await web.service.state(game_id)
    if s.stage is not Stage.RUNNING:
        return
    nxt = s.day + 1 if s.phase is PhaseKind.DAY else s.day + 2
    if s.day_starts.get(nxt) is None:
        with contextlib.suppress(RuleViolation, ServiceError):  # too late: the game's own hour
            await web.service.execute(game_id, cmd.SetDayStart(actor=procurator, day=nxt, time=DAY_START),
                                      f"demo-morning-{game_id}-{nxt}")


async def _new_live_game(web: Web, game_id: str, n: int, rng: random.Random) -> None:
    start = datetime.fromtimestamp(web.service.clock.now(), MOSCOW) + timedelta(minutes=2)
    title = "Демо: идёт игра" if n == 1 else f"Демо: идёт игра · {n}"
    await setup_service_game(web.service, game_id, live_cast(), rng, start.date(),
                             settings={"population_per_city": 8, "supreme_court_mode": "never",
                                       "day_start_time": start.strftime("%H:%M"),
                                       "default_vote_opens": VOTE_OPENS,
                                       "default_vote_closes": VOTE_CLOSES},
                             title=title, time_scale=demo_scale(web.settings.time_scale))
    await seed_sound_library(web, game_id)  # m13: recordings to play from the first minute


async def _newest(web: Web) -> int:
    n = 1
    while await _exists(web, live_id(n + 1)):
        n += 1
    return n


async def _stage_of(web: Web, game_id: str) -> str:
    return (await web.service.state(game_id)).stage.value


async def _play(web: Web, game_id: str, rng: random.Random, poll: float) -> None:
    """The bots play ``game_id`` until it ends; the Procurator's mornings are kept meanwhile."""
    bots = DemoBots(web.service, game_id, rng, humans={HUMAN_SEAT}, protected=frozenset({HUMAN_SEAT}))
    task = asyncio.create_task(bots.run(interval=1.0))
    try:
        while not task.done():
            await _mornings(web, game_id, live_cast().procurator)
            await asyncio.sleep(poll)
    finally:
        task.cancel()


async def keep_live_demo(web: Web, rng: random.Random, pause: float = ENDING_PAUSE,
                         poll: float = 2.0) -> None:
    """Run the live demo for ever: bots play it; when it ends, the ending stays on show for
    ``pause`` seconds and the next game (``demo-live-2``, …) starts (M8)."""
    n = await _newest(web)
    while True:
        game_id = live_id(n)
        if not await _exists(web, game_id):
            await _new_live_game(web, game_id, n, rng)
        if await _stage_of(web, game_id) != Stage.FINISHED.value:
            await _play(web, game_id, rng, poll)
            await asyncio.sleep(pause)
        n += 1


async def start_demo(web: Web) -> None:
    """Create the demo games if missing and start their bots (idempotent)."""
    rng = random.Random()
    live, recruiting = live_cast(), recruiting_cast()
    await _accounts(web, live, LIVE)
    await _accounts(web, recruiting, RECRUITING)
    if not await _exists(web, RECRUITING):
        await setup_service_game(web.service, RECRUITING, recruiting, rng, None,
                                 settings={"population_per_city": 6}, title="Демо: набор игроков",
                                 time_scale=web.settings.time_scale, start=False)
    web.tasks.append(asyncio.create_task(keep_live_demo(web, rng)))
