"""Set up a whole game in one call: hosts, recruits, cities, the deal, the start.

Used by the simulator, the demo and tests. All randomness comes from ``rng``.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from typing import Any

from ..engine import commands as cmd
from ..engine.calendar import MOSCOW
from ..engine.commands import REQUIREMENTS
from ..engine.deal import value_digest
from ..engine.table import Table

CITY_NAMES = (
    "Лепроград", "Лепросицилия", "Глюкоград", "Пыжиков", "Баянск", "Тролльск",
    "Коптильня", "Плюсовск", "Минусинск", "Карманск",
)


@dataclass(frozen=True)
class Cast:
    procurator: str
    consigliere: str
    arbiter: str
    tribunes: tuple[str, ...]
    cities: dict[str, tuple[str, ...]]


def default_cast(cities: int, population: int) -> Cast:
    names = [CITY_NAMES[i] if i < len(CITY_NAMES) else f"Город-{i + 1}" for i in range(cities)]
    residents = {
        name: tuple(f"p{c + 1:02d}_{i + 1:02d}" for i in range(population))
        for c, name in enumerate(names)
    }
    tribunes = tuple(f"tribune{c + 1}" for c in range(cities))
    return Cast("procurator", "consigliere", "arbiter", tribunes, residents)


def draw_deal(t: Table, rng: random.Random, cast: Cast, now: datetime) -> datetime:
    """The commit-reveal deal played as the service plays it: the Procurator, the
    Consigliere and one player commit; the server commits and reveals as the reveals open;
    the player sometimes stays silent and is replaced when the window closes. Returns the
    moment the deal was complete."""
    player = next(iter(cast.cities.values()))[0]
    values = {u: f"{rng.getrandbits(128):032x}" for u in (cast.procurator, cast.consigliere, player)}
    for user, value in values.items():
        t.do(cmd.CommitDealEntropy(actor=user, digest=value_digest(value)), now)
    server = f"{rng.getrandbits(256):064x}"
    t.do(cmd.OpenDealReveals(actor=cast.procurator, server_digest=value_digest(server)), now)
    t.do(cmd.RevealDealEntropy(actor="system", value=server), now)
    silent = rng.random() < 0.5
    for user, value in values.items():
        if not (silent and user == player):
            t.do(cmd.RevealDealEntropy(actor=user, value=value), now)
    if silent:
        due = now + timedelta(minutes=t.game.settings.deal_reveal_minutes)
        t.advance(due)
        return due
    return now


def setup_game(
    rng: random.Random,
    cast: Cast,
    settings: dict[str, Any] | None = None,
    first_day: date = date(2026, 12, 1),
    title: str = "Лепромафия",
) -> Table:
    """A game dealt and started; the first deadline is Day 1's start."""
    t = Table()
    now = datetime.combine(first_day - timedelta(days=3), datetime.min.time(), MOSCOW)
    opts = {"city_count": len(cast.cities), **(settings or {})}
    t.do(cmd.CreateGame(actor=cast.procurator, title=title, settings=opts), now)
    t.do(cmd.AppointHost(actor=cast.procurator, office="consigliere", user=cast.consigliere), now)
    t.do(cmd.AppointHost(actor=cast.procurator, office="arbiter", user=cast.arbiter), now)
    for users in cast.cities.values():
        for user in users:
            t.do(cmd.SignUp(actor=user, accepted=REQUIREMENTS, has_contact=True), now)
    plans = tuple(
        cmd.CityPlan(name=name, tribune=cast.tribunes[i], residents=users)
        for i, (name, users) in enumerate(cast.cities.items())
    )
    t.do(cmd.FormCities(actor=cast.procurator, cities=plans), now)
    lists = []
    for name, users in cast.cities.items():
        order = list(users)
        rng.shuffle(order)
        lists.append((name, tuple(order)))
    salt = f"{rng.getrandbits(128):032x}"
    t.do(cmd.SealDeal(actor=cast.consigliere, lists=tuple(lists), salt=salt), now)
    if t.game.settings.deal_method == "commit_reveal":
        now = draw_deal(t, rng, cast, now)
    else:
        for name in cast.cities:
            city = t.game.cities[name]
            numbers = tuple(rng.sample(range(1, len(city.residents) + 1), city.mafia_count))
            t.do(cmd.NameMafiaNumbers(actor=cast.procurator, city=name, numbers=numbers), now)
    for user in t.game.residents:
        if t.game.is_mafia(user):
            t.do(cmd.AcknowledgeRole(actor=user), now)
    t.do(cmd.StartGame(actor=cast.procurator, first_day=first_day), now)
    return t
