"""The demo (``lepromafia serve --demo``): two games, created once, kept alive by bots.

- ``demo-live``: three cities already running at an accelerated ``time_scale``; the
  strategy bots (``bots.strategy.service``, issue 15) play every seat except ``demo`` (a
  resident of the first city, for a visitor), each from what its seat may see.
- ``demo-recruiting``: a game in recruitment with free seats.

Every seat has an account with the password ``DEMO_PASSWORD``, so a visitor can also
look through a host's or a resident's eyes.
"""

from __future__ import annotations

import asyncio
import random
from datetime import datetime, timedelta

from ..bots.service_bots import setup_service_game
from ..bots.setup import Cast
from ..bots.strategy.service import StrategyServiceBots
from ..engine.calendar import MOSCOW
from ..service.accounts import AccountError
from ..service.errors import ServiceError
from ..web.deps import Web

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


async def start_demo(web: Web) -> None:
    """Create the demo games if missing and start their bots (idempotent)."""
    rng = random.Random()
    live, recruiting = live_cast(), recruiting_cast()
    await _accounts(web, live, LIVE)
    await _accounts(web, recruiting, RECRUITING)
    scale = web.settings.time_scale
    if not await _exists(web, LIVE):
        # Day 1 starts two game minutes from now, so a newcomer sees play at once.
        start = datetime.fromtimestamp(web.service.clock.now(), MOSCOW) + timedelta(minutes=2)
        await setup_service_game(web.service, LIVE, live, rng, start.date(),
                                 settings={"population_per_city": 8, "supreme_court_mode": "never",
                                           "day_start_time": start.strftime("%H:%M")},
                                 title="Демо: идёт игра", time_scale=scale)
    if not await _exists(web, RECRUITING):
        await setup_service_game(web.service, RECRUITING, recruiting, rng, None,
                                 settings={"population_per_city": 6}, title="Демо: набор игроков",
                                 time_scale=scale, start=False)
    bots = StrategyServiceBots(web.service, LIVE, rng, humans={HUMAN_SEAT})
    web.tasks.append(asyncio.create_task(bots.run(interval=1.0)))
