"""A citizen's own acts and states: suicide, observing, the Spirit rule (SUICIDE, ROLE-OBS, SPIRIT)."""

from __future__ import annotations

from .. import commands as cmd
from .. import events as ev
from ..audience import PUBLIC, only
from ..errors import ErrorCode, check
from ..inboxes import Kind, readers
from ..progress import Progress
from ..state import DeathCause, Faction, GameState
from . import deaths, outcome
from .common import living_resident, require_city, require_day, require_running, require_undecided
from .pause import paused


def _before_nominations_close(p: Progress, city_name: str) -> None:
    city = p.state.cities[city_name]
    closes = city.nominations_close_at
    check(city.voting is None and (closes is None or p.now < closes), ErrorCode.NOMINATIONS_CLOSED,
          "SUICIDE-1")


def declare_suicide(p: Progress, c: cmd.DeclareSuicide) -> None:
    """SUICIDE-1: declared in the personal inbox before nominations close."""
    s = p.state
    resident = living_resident(s, c.actor)
    require_running(s)
    require_day(s)
    require_undecided(s.cities[resident.city])
    _before_nominations_close(p, resident.city)
    check(c.actor not in s.cities[resident.city].suicides, ErrorCode.ALREADY_DECLARED, "SUICIDE-1")
    p.emit(ev.SuicideDeclared, only(c.actor, s.cities[resident.city].tribune), city=resident.city,
           user=c.actor)


def withdraw_suicide(p: Progress, c: cmd.WithdrawSuicide) -> None:
    """SUICIDE-4 (AMB-25): the declaration may be withdrawn until nominations close."""
    s = p.state
    resident = living_resident(s, c.actor)
    require_running(s)
    require_day(s)
    check(c.actor in s.cities[resident.city].suicides, ErrorCode.NOT_DECLARED, "SUICIDE-4")
    _before_nominations_close(p, resident.city)
    p.emit(ev.SuicideWithdrawn, only(c.actor, s.cities[resident.city].tribune), city=resident.city,
           user=c.actor)


def apply_suicides(p: Progress, city_name: str) -> None:
    """SUICIDE-1, -4: the Tribune confirms at the vote start; the status is announced."""
    for user in sorted(p.state.cities[city_name].suicides):
        if p.state.residents[user].alive:
            deaths.die(p, user, DeathCause.SUICIDE, f"day {p.state.day}")
    outcome.settle(p)


def request_observation(p: Progress, c: cmd.RequestObservation) -> None:
    """ROLE-OBS-1..3: self-service, read-only, the Tribune notified; not one's own city."""
    s = p.state
    resident = living_resident(s, c.actor)
    require_running(s)
    city = require_city(s, c.city)
    require_undecided(city)
    check(resident.city != c.city and c.actor not in city.observers, ErrorCode.OBSERVER_INVALID,
          "ROLE-OBS-2")
    check(c.actor not in s.cities[resident.city].spirits, ErrorCode.NOT_ALIVE, "SPIRIT-7")
    inbox = s.current_inbox(Kind.CITY.value, c.city)
    members = readers(s, inbox) if inbox else frozenset()
    p.emit(ev.ObserverJoined, only(members, c.actor), city=c.city, user=c.actor)


def spirits_of(s: GameState, name: str, day: int) -> tuple[str, ...]:
    """SPIRIT-1, -2, -6 (AMB-11): at parity, last night's honest victims, else the latest."""
    mafia = len(s.living_mafia(name))
    honest = len(s.living(name)) - mafia
    if not s.settings.spirit_rule_enabled or mafia == 0 or honest != mafia:
        return ()
    restored_at = s.cities[name].restored_at  # RESTORE-2, -7 (D2): only deaths after it
    victims = [
        s.residents[u] for u in s.cities[name].residents
        if s.residents[u].cause is DeathCause.NIGHT_KILL and s.residents[u].faction is Faction.HONEST
        and (restored_at is None or (s.residents[u].died_at or restored_at) > restored_at)
    ]
    last_night = [r.user for r in victims if r.died_in == f"night {day - 1}"]
    if last_night:
        return tuple(sorted(last_night))
    if not victims:
        return ()
    latest = max(r.died_at for r in victims if r.died_at)
    return tuple(sorted(r.user for r in victims if r.died_at == latest))


def choose_spirits(p: Progress, day: int) -> None:
    """SPIRIT-7: re-evaluated every morning; per_day Spirits lapse, cumulative ones stay."""
    for name, city in p.state.cities.items():
        if city.decided is not None or paused(city):
            continue
        chosen = set(spirits_of(p.state, name, day))
        if p.state.settings.spirit_persistence == "cumulative":
            chosen |= city.spirits
        if chosen != set(city.spirits):
            p.emit(ev.SpiritsChosen, PUBLIC, city=name, day=day, spirits=tuple(sorted(chosen)))
