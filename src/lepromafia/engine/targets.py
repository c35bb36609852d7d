"""The valid targets of every action, answered by the rules' own predicates.

Pages, duties and bots list choices from here; the rule that decides the command uses
the very same predicate, so a listed target is never refused for being the wrong one.
"""

from __future__ import annotations

from .rules import ambush, execution, judges, night
from .rules.pause import paused
from .state import NO_KILL, GameState


def kill_targets(s: GameState, city: str) -> tuple[str, ...]:
    """MAFIA-KILL-1 (AMB-40), AMBUSH-11: living honest residents of the city; the judge
    is no target once an ambush stands. Declining (``NO_KILL``) is always possible."""
    c = s.cities[city]
    return tuple(
        u for u in c.residents
        if night.valid_kill_target(s, c, u) and not (u == c.judge and ambush.blocks_judge_kill(c))
    )


def tour_targets(s: GameState, city: str) -> tuple[str, ...]:
    """TOUR-2, TOUR-4, TOUR-5: tonight's touring city may strike a living resident of
    another undecided, unpaused city, never its judge; empty when the city does not tour."""
    if s.touring_city != city:
        return ()
    c = s.cities[city]
    return tuple(
        u for other in s.cities.values() if other.name != city
        for u in other.residents if night.valid_tour_target(s, c, u)
    )


def check_targets(s: GameState, commissar: str) -> tuple[str, ...]:
    """COMM-4: any other living resident of the commissar's city."""
    r = s.residents.get(commissar)
    if r is None:
        return ()
    return tuple(u for u in s.living(r.city) if u != commissar)


def ambush_targets(s: GameState, mafioso: str) -> tuple[str, ...]:
    """AMBUSH-4, AMBUSH-5: a living resident of the own city no other mafioso lies in wait for."""
    r = s.residents.get(mafioso)
    if r is None:
        return ()
    c = s.cities[r.city]
    taken = {t for m, t in c.ambushes if m != mafioso}
    return tuple(u for u in s.living(c.name) if u not in taken)


def nomination_candidates(s: GameState, nominator: str) -> tuple[str, ...]:
    """EXEC-3, JUDGE-4, MAFIA-DISCLOSE-1: eligible residents of the nominator's city
    (himself only where the game allows self-nomination)."""
    r = s.residents.get(nominator)
    if r is None:
        return ()
    c = s.cities[r.city]
    own = s.settings.allow_self_nomination
    return tuple(
        u for u in c.residents
        if execution.eligible(s, c, u) and (own or u != nominator)
    )


def godfather_candidates(s: GameState, city: str) -> tuple[str, ...]:
    """GODFATHER-1: the city's living mafiosi."""
    return tuple(s.living_mafia(city))


def judge_candidates(s: GameState, city: str) -> tuple[str, ...]:
    """JUDGE-ELECT-2 (AMB-9, AMB-13): who may be proposed as the city's judge."""
    c = s.cities[city]
    return tuple(u for u in c.residents if judges.eligible_candidate(s, c, u))


def may_strike(s: GameState, city: str) -> bool:
    """START-2, RESTORE-7: kills and tours from Night 2, not in a city being restored."""
    return s.day >= 2 and not paused(s.cities[city])


__all__ = [
    "NO_KILL", "ambush_targets", "check_targets", "godfather_candidates", "judge_candidates",
    "kill_targets", "may_strike", "nomination_candidates", "tour_targets",
]
