"""The ambush (AMBUSH-1..12): a mafia that lost the chance to meet its commissar early
may lie in wait for the new one."""

from __future__ import annotations

from .. import commands as cmd
from .. import events as ev
from ..audience import only
from ..errors import ErrorCode, check
from ..progress import Progress
from ..state import City, Faction, GameState, PhaseKind
from .common import living_resident, mafia_audience, require_running, require_undecided


def grant_if_pending(p: Progress, name: str) -> None:
    """AMBUSH-2, -10, -12: when the replacement is decided (or fails), the right's nights
    are fixed and the mafia is told who the dead commissar was."""
    city = p.state.cities[name]
    if not city.ambush_pending or city.dead_commissar is None:
        return
    day = p.state.day
    nights = (day,) if day <= 2 else (day, day + 1)
    p.emit(ev.AmbushRightGranted, mafia_audience(p.state, name), city=name,
           dead_commissar=city.dead_commissar, nights=nights)


def ambush_night(s: GameState, city: City) -> int | None:
    """The night ambushes are being placed for now, if the window is open (AMBUSH-4)."""
    if s.phase is PhaseKind.DAY or (s.phase is PhaseKind.NIGHT and not s.ambush_closed):
        night = s.day
    else:
        return None
    return night if night in city.ambush_nights else None


def _mafioso_with_right(s: GameState, actor: str) -> City:
    resident = living_resident(s, actor)
    check(resident.faction is Faction.MAFIA, ErrorCode.NOT_MAFIOSO, "AMBUSH-3")
    require_running(s)
    city = s.cities[resident.city]
    require_undecided(city)
    check(ambush_night(s, city) is not None, ErrorCode.NO_AMBUSH_RIGHT, "AMBUSH-4")
    return city


def place(p: Progress, c: cmd.PlaceAmbush) -> None:
    """AMBUSH-3, -4, -5, -11: distinct targets, one per mafioso, at most n − 1."""
    s = p.state
    city = _mafioso_with_right(s, c.actor)
    target = s.residents.get(c.target)
    check(target is not None and target.alive and target.city == city.name,
          ErrorCode.AMBUSH_TARGET_INVALID, "AMBUSH-4")
    others = [a for a in city.ambushes if a[0] != c.actor]
    check(all(t != c.target for _, t in others), ErrorCode.AMBUSH_TARGET_TAKEN, "AMBUSH-5")
    ranked = standing(s, city.name, (*others, (c.actor, c.target)))
    check(any(m == c.actor for m, _ in ranked), ErrorCode.TOO_MANY_AMBUSHES, "AMBUSH-3")
    judge_order = city.judge is not None and city.night.order == city.judge
    check(not judge_order, ErrorCode.AMBUSH_BLOCKED_BY_JUDGE_KILL, "AMBUSH-11")
    p.emit(ev.AmbushPlaced, mafia_audience(s, city.name), city=city.name, mafioso=c.actor,
           target=c.target)


def standing(s: GameState, name: str, ambushes: tuple[tuple[str, str], ...]) -> tuple[tuple[str, str], ...]:
    """AMBUSH-3, AMBUSH-6 (D9): the n − 1 ambushes that stand. The Consigliere's order
    decides which; mafiosi he did not list, and any ambush without an order, follow in
    placement order (first come, first served)."""
    living = s.living_mafia(name)
    order = s.records.ambush_order(name)

    def rank(item: tuple[int, tuple[str, str]]) -> tuple[int, int]:
        index, (mafioso, _) = item
        return (order.index(mafioso) if mafioso in order else len(order), index)

    valid = [(i, a) for i, a in enumerate(ambushes) if a[0] in living and s.residents[a[1]].alive]
    kept = sorted(valid, key=rank)[: max(0, len(living) - 1)]
    return tuple(a for _, a in sorted(kept))


def withdraw(p: Progress, c: cmd.WithdrawAmbush) -> None:
    s = p.state
    city = _mafioso_with_right(s, c.actor)
    check(any(m == c.actor for m, _ in city.ambushes), ErrorCode.NOT_DECLARED, "AMBUSH-4")
    p.emit(ev.AmbushWithdrawn, mafia_audience(s, city.name), city=city.name, mafioso=c.actor)


def close_window(p: Progress, night: int) -> None:
    """AMBUSH-4, -8: fix and validate; an ambushed commissar is exposed and warned."""
    for name, city in p.state.cities.items():
        if night not in city.ambush_nights or city.decided is not None:
            continue
        s = p.state
        valid = standing(s, name, city.ambushes)
        p.emit(ev.AmbushesFixed, mafia_audience(s, name), city=name, night=night, ambushes=valid)
        commissar = city.commissar
        if commissar and any(t == commissar for _, t in valid):
            p.emit(ev.CommissarExposed, mafia_audience(s, name), city=name, commissar=commissar,
                   how="ambushed")
            p.emit(ev.CommissarWarned, only(commissar), city=name)


def expose_on_check(p: Progress, city_name: str, commissar: str, target: str) -> None:
    """AMBUSH-7: checking an ambushed resident exposes the commissar to the mafia only."""
    city = p.state.cities[city_name]
    if city.ambushes_fixed and any(t == target for _, t in city.ambushes):
        p.emit(ev.CommissarExposed, mafia_audience(p.state, city_name), city=city_name,
               commissar=commissar, how="checked_ambushed")


def blocks_judge_kill(city: City) -> bool:
    """AMBUSH-11: once an ambush stands for tonight, the judge cannot be killed."""
    return bool(city.ambushes)
