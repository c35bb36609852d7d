"""Set a scenario's game up through the real pre-game commands.

The chosen mafiosi are realised by the deal procedure itself (RANDOM-1..4): the
Consigliere seals a seeded shuffle of each city, and the Procurator names exactly
the positions at which the cast's mafiosi landed.
"""

from __future__ import annotations

import random
from datetime import datetime, time, timedelta

from ..engine import commands as cmd
from ..engine.calendar import MOSCOW
from ..engine.errors import RuleViolation
from ..engine.table import Table
from .model import CityCast, Scenario, ScenarioError


def setup(scenario: Scenario) -> tuple[Table, datetime]:
    """A dealt and started game, and the clock (3 days before Day 1, midnight)."""
    cast = scenario.cast
    rng = random.Random(scenario.seed)
    now = datetime.combine(scenario.first_day - timedelta(days=3), time(0, 0), MOSCOW)
    table = Table()
    settings = {"city_count": len(cast.cities), **scenario.settings}

    def do(command: cmd.Command, what: str) -> None:
        try:
            table.do(command, now)
        except RuleViolation as exc:
            raise ScenarioError(f"set-up failed at {what}: {exc.code} ({exc.message()})") from None

    do(cmd.CreateGame(actor=cast.procurator, title=scenario.name[:200], settings=settings),
       "CreateGame (check 'settings')")
    do(cmd.AppointHost(actor=cast.procurator, office="consigliere", user=cast.consigliere),
       "appointing the Consigliere")
    if cast.arbiter:
        do(cmd.AppointHost(actor=cast.procurator, office="arbiter", user=cast.arbiter),
           "appointing the Arbiter")
    for city in cast.cities:
        for user in city.residents:
            do(cmd.SignUp(actor=user, accepted=cmd.REQUIREMENTS, has_contact=True), f"sign-up of {user}")
    plans = tuple(
        cmd.CityPlan(name=c.name, tribune=c.tribune, residents=c.residents) for c in cast.cities
    )
    do(cmd.FormCities(actor=cast.procurator, cities=plans), "forming the cities")
    orders = {c.name: _order(c, rng) for c in cast.cities}
    salt = f"{rng.getrandbits(128):032x}"
    lists = tuple((name, order) for name, order in orders.items())
    do(cmd.SealDeal(actor=cast.consigliere, lists=lists, salt=salt), "sealing the deal")
    for city in cast.cities:
        count = table.game.cities[city.name].mafia_count
        numbers = city.numbers or _numbers(city, orders[city.name], count, rng)
        do(cmd.NameMafiaNumbers(actor=cast.procurator, city=city.name, numbers=numbers),
           f"naming the mafia numbers of {city.name}")
    for user in table.game.residents:
        if table.game.is_mafia(user):
            do(cmd.AcknowledgeRole(actor=user), f"{user} acknowledging his role")
    do(cmd.StartGame(actor=cast.procurator, first_day=scenario.first_day), "starting the game")
    return table, now


def _order(city: CityCast, rng: random.Random) -> tuple[str, ...]:
    if city.order is not None:
        return city.order
    order = list(city.residents)
    rng.shuffle(order)
    return tuple(order)


def _numbers(city: CityCast, order: tuple[str, ...], count: int, rng: random.Random) -> tuple[int, ...]:
    """Positions putting the named mafiosi, then unnamed fillers, on mafia numbers."""
    if len(city.mafia) > count:
        raise ScenarioError(
            f"city {city.name} deals {count} mafiosi (CITY-2) but the cast names {len(city.mafia)}"
        )
    fillers = [u for u in city.residents if u not in city.named]
    missing = count - len(city.mafia)
    if missing > len(fillers):
        raise ScenarioError(
            f"city {city.name} deals {count} mafiosi but the cast names {len(city.mafia)}: name "
            f"the other {missing} in 'mafia' or add unnamed residents with 'population'"
        )
    chosen = list(city.mafia) + rng.sample(fillers, missing)
    return tuple(sorted(order.index(u) + 1 for u in chosen))
