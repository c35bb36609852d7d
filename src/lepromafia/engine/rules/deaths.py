"""One way to die: the death, its announcement and what it vacates (CITY-5, AMB-15)."""

from __future__ import annotations

from .. import events as ev
from ..audience import PUBLIC, only
from ..progress import Progress
from ..state import DeathCause, Faction


def die(p: Progress, user: str, cause: DeathCause, label: str) -> None:
    """The faction is announced for every death (HOST-PROC-3, SEC-9); an office is not."""
    s = p.state
    r = s.residents[user]
    city = s.cities[r.city]
    was_commissar = city.commissar == user
    faction = r.faction.value if r.faction else Faction.HONEST.value
    p.emit(ev.ResidentDied, PUBLIC, user=user, city=r.city, faction=faction, cause=cause.value,
           label=label)
    if was_commissar:
        _commissar_died(p, r.city, user, cause, label)


def _commissar_died(p: Progress, city: str, user: str, cause: DeathCause, label: str) -> None:
    """AMBUSH-1 (AMB-14): executed on Day ≤ 2 or killed on Night ≤ 2 → a replacement and
    the right of ambush; any other death → no replacement (COMM-9, AMB-41)."""
    kind, _, number = label.partition(" ")
    early = int(number) <= 2 and (
        (cause is DeathCause.EXECUTION and kind == "day")
        or (cause is DeathCause.NIGHT_KILL and kind == "night")
    )
    # SEC-10: applied together with the public death; only the Procurator is told.
    p.emit(ev.CommissarVacated, only(p.state.procurator), city=city, commissar=user,
           reason=cause.value, replace=early, ambush=early)
