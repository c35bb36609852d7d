"""The night (START-2, GODFATHER, MAFIA-KILL, TOUR, MAFIA-KILL-8, HOST-CONS-3)."""

from __future__ import annotations

from collections import Counter
from datetime import timedelta

from .. import commands as cmd
from .. import events as ev
from ..audience import PUBLIC, only
from ..calendar import DayPlan
from ..errors import ErrorCode, check
from ..progress import Progress
from ..state import NO_KILL, City, Faction, GameState, NightBook, Stage
from . import ambush, citizens, commissar
from .common import (
    living_resident,
    mafia_audience,
    require_city,
    require_night,
    require_running,
    require_undecided,
    schedule,
)
from .pause import paused


def start_night(p: Progress) -> None:
    """§3 (AMB-7): Night N, its ambush window, check and decision deadlines, then Day N+1."""
    number = p.state.day
    commissar.lapse_open_offers(p)
    for name, city in p.state.cities.items():
        if city.suicides and city.voting is None and city.decided is None:
            citizens.apply_suicides(p, name)  # SUICIDE-4: a day without a vote in the city
    if p.state.stage is Stage.FINISHED:
        return
    p.emit(ev.NightStarted, PUBLIC, night=number)
    _move_tour_on(p, number)
    s = p.state
    today: DayPlan = s.plans[number]
    next_start = s.plans[number + 1].start_at
    window = _or(today.ambush_window_minutes, s.settings.ambush_window_minutes)
    decision = _or(today.decision_offset_minutes, s.settings.mafia_decision_deadline_minutes)
    check_offset = _or(today.decision_offset_minutes, s.settings.commissar_check_deadline_minutes)
    decisions_at = max(p.now, next_start - timedelta(minutes=decision))
    checks_close_at = max(p.now, next_start - timedelta(minutes=check_offset))
    checks_open_at = min(p.now + timedelta(minutes=window), checks_close_at)
    schedule(p, f"checks_open:{number}", checks_open_at)
    schedule(p, f"checks_close:{number}", checks_close_at)
    schedule(p, f"night_decisions:{number}", decisions_at)
    schedule(p, f"day_start:{number + 1}", next_start)


def _or(value: int | None, default: int) -> int:
    return default if value is None else value


def _move_tour_on(p: Progress, night: int) -> None:
    """TOUR-2 (D5): a touring city decided by day, or left without living mafia, passes
    tonight's tour on to the next city of the rotation."""
    s = p.state
    touring = s.touring_city
    if night < 2 or touring is None:
        return
    city = s.cities[touring]
    if city.decided is not None or not s.living_mafia(touring):
        announce_tour(p, night)


def announce_tour(p: Progress, night: int) -> str | None:
    """TOUR-2 (AMB-31): the next city in Recruitment Post order with living mafia.

    A tour needs another undecided city to go to; with none, nobody tours.
    """
    s = p.state
    names = list(s.cities)
    chosen: str | None = None
    pointer = s.tour_pointer
    undecided = [n for n in names if s.cities[n].decided is None]
    for step in range(1, len(names) + 1 if len(undecided) > 1 else 1):
        index = (s.tour_pointer + step) % len(names)
        city = s.cities[names[index]]
        if city.decided is None and not paused(city) and s.living_mafia(city.name):
            chosen, pointer = city.name, index
            break
    p.emit(ev.TourAnnounced, PUBLIC, night=night, city=chosen, pointer=pointer)
    return chosen


# --- the mafia's commands -----------------------------------------------------------


def _living_mafioso(s: GameState, actor: str) -> City:
    resident = living_resident(s, actor)
    check(resident.faction is Faction.MAFIA, ErrorCode.NOT_MAFIOSO, "ROLE-MAFIA-1")
    return s.cities[resident.city]


def _require_deciding(s: GameState, city: City) -> None:
    require_running(s)
    require_night(s)
    require_undecided(city)
    check(not s.decisions_closed, ErrorCode.DECISIONS_CLOSED, "MAFIA-KILL-8")


def declare_kill(p: Progress, c: cmd.DeclareKill) -> None:
    """MAFIA-KILL-1..4, TOUR-1..6: the Godfather orders; other mafiosi give their voice."""
    s = p.state
    city = _living_mafioso(s, c.actor)
    _require_deciding(s, city)
    check(s.day >= 2 and not paused(city), ErrorCode.NO_KILLS_TONIGHT, "START-2")
    if c.tour:
        check(s.touring_city == city.name, ErrorCode.NOT_TOURING, "TOUR-2")
        check(c.target == NO_KILL or valid_tour_target(s, city, c.target),
              ErrorCode.TOUR_TARGET_INVALID, "TOUR-4")
    else:
        # SEC-4: these rejections reach only the mafioso who issued them.
        check(c.target == NO_KILL or valid_kill_target(s, city, c.target),
              ErrorCode.KILL_TARGET_INVALID, "MAFIA-KILL-1")
        check(c.target != city.judge or not ambush.blocks_judge_kill(city),
              ErrorCode.JUDGE_KILL_AFTER_AMBUSH, "AMBUSH-11")
    is_order = city.godfather == c.actor
    p.emit(ev.KillDeclared, mafia_audience(s, city.name), city=city.name, mafioso=c.actor,
           target=c.target, tour=c.tour, is_order=is_order)


def valid_kill_target(s: GameState, city: City, target: str) -> bool:
    """AMB-40: a living honest resident of the own city (the judge only unanimously)."""
    r = s.residents.get(target)
    return r is not None and r.alive and r.city == city.name and r.faction is Faction.HONEST


def valid_tour_target(s: GameState, city: City, target: str) -> bool:
    """TOUR-4, TOUR-5, WIN-5: a living resident of another undecided city, not its judge."""
    r = s.residents.get(target)
    if r is None or not r.alive or r.city == city.name:
        return False
    other = s.cities[r.city]
    return other.decided is None and other.judge != target and not paused(other)


def vote_godfather(p: Progress, c: cmd.VoteGodfather) -> None:
    """GODFATHER-2 (AMB-16): plurality of the living mafiosi before the night deadline."""
    s = p.state
    city = _living_mafioso(s, c.actor)
    _require_deciding(s, city)
    check(city.godfather_election_open, ErrorCode.NO_GODFATHER_ELECTION, "GODFATHER-2")
    check(c.candidate in s.living_mafia(city.name), ErrorCode.GODFATHER_CANDIDATE_INVALID,
          "GODFATHER-1")
    p.emit(ev.GodfatherVoteCast, mafia_audience(s, city.name), city=city.name, voter=c.actor,
           candidate=c.candidate)


def appointment_open(city: City) -> bool:
    """GODFATHER-3: the city has no Godfather and its election failed and is closed."""
    return city.godfather is None and city.godfather_election_failed and not city.godfather_election_open


def appoint_godfather(p: Progress, c: cmd.AppointGodfather) -> None:
    """GODFATHER-3: after a failed election the Consigliere may appoint the Godfather."""
    s = p.state
    check(c.actor == s.consigliere, ErrorCode.NOT_CONSIGLIERE, "GODFATHER-3")
    require_running(s)
    city = require_city(s, c.city)
    require_undecided(city)
    check(appointment_open(city), ErrorCode.NO_GODFATHER_ELECTION, "GODFATHER-3")
    check(c.godfather in s.living_mafia(city.name), ErrorCode.GODFATHER_CANDIDATE_INVALID,
          "GODFATHER-1")
    p.emit(ev.GodfatherElected, mafia_audience(s, city.name), city=city.name, godfather=c.godfather,
           appointed=True)


def demand_reelection(p: Progress, c: cmd.DemandGodfatherReelection) -> None:
    """GODFATHER-4 (AMB-16): a majority of living mafiosi reopens the election tonight."""
    s = p.state
    city = _living_mafioso(s, c.actor)
    _require_deciding(s, city)
    check(city.godfather is not None and not city.godfather_election_open,
          ErrorCode.NO_GODFATHER_ELECTION, "GODFATHER-4")
    demands = city.night.reelection_demands | {c.actor}
    living = len(s.living_mafia(city.name))
    any_member = s.settings.godfather_reelection_demand == "any_member"
    opened = any_member or 2 * len(demands) > living
    p.emit(ev.GodfatherReelectionDemanded, mafia_audience(s, city.name), city=city.name,
           user=c.actor, opened=opened)


# --- the decision deadline ----------------------------------------------------------


def fix_decisions(p: Progress, rest: str, seed: int) -> None:
    """MAFIA-KILL-8: elections close, orders are fixed and reported (HOST-CONS-3)."""
    number = int(rest)
    for name in list(p.state.cities):
        city = p.state.cities[name]
        if city.decided is not None or not p.state.living_mafia(name):
            continue
        if city.godfather_election_open:
            _close_godfather_election(p, name)
        if number < 2 or paused(city):
            continue  # START-2, RESTORE-7: no kills and no tours
        _fix(p, name, number, tour=False)
        if p.state.touring_city == name:
            _fix(p, name, number, tour=True)
    p.emit(ev.DecisionsClosed, PUBLIC, night=number)


def _close_godfather_election(p: Progress, name: str) -> None:
    s = p.state
    living = set(s.living_mafia(name))
    votes = Counter(
        cand for voter, cand in s.cities[name].night.godfather_votes.items()
        if voter in living and cand in living
    )
    audience = mafia_audience(s, name)
    if votes:
        top = max(votes.values())
        leaders = sorted(c for c, n in votes.items() if n == top)
        rule = s.records.godfather_rule(name)  # GODFATHER-2: the Consigliere's rule
        needed = {"plurality": 1, "majority": len(living) // 2 + 1, "unanimity": len(living)}[rule]
        if len(leaders) == 1 and top >= needed:
            p.emit(ev.GodfatherElected, audience, city=name, godfather=leaders[0])
            return
        p.emit(ev.GodfatherElectionFailed, audience, city=name,
               tied=tuple(leaders) if len(leaders) > 1 else ())
        return
    p.emit(ev.GodfatherElectionFailed, audience, city=name, tied=())


def decide_target(s: GameState, name: str, tour: bool) -> tuple[str | None, str]:
    """The night's effective target and why (MAFIA-KILL-3..6, AMB-17)."""
    city = s.cities[name]
    book: NightBook = city.night
    living = s.living_mafia(name)
    order = book.tour_order if tour else book.order
    voices = book.tour_declarations if tour else book.declarations
    godfather_alive = city.godfather in living
    if godfather_alive and order is not None:
        target, basis = order, "godfather"
    elif not book.spoke & set(living):
        return None, "silence"  # MAFIA-KILL-6
    else:
        # MAFIA-KILL-5: the Consigliere's procedure; default a majority, a tie kills nobody.
        procedure = s.records.silent_procedure(name)
        counted = Counter(voices[u] for u in living if u in voices)
        if not counted or procedure == "no_kill":
            return None, "no_order"
        (target, n), *rest = counted.most_common()
        if procedure == "plurality":
            if rest and rest[0][1] == n:
                return None, "no_majority"
            basis = "plurality"
        else:
            if 2 * n <= len(living):
                return None, "no_majority"
            basis = "majority"
    if target == NO_KILL:
        return None, "declined"
    valid = valid_tour_target(s, city, target) if tour else valid_kill_target(s, city, target)
    if not valid:
        return None, "target_invalid"
    other_judge = s.cities[s.residents[target].city].judge
    if not tour and target == other_judge and ambush.blocks_judge_kill(city):
        return None, "ambush_night"  # AMBUSH-11
    if not tour and target == other_judge:
        confirmed = all(voices.get(u) == target or u == city.godfather for u in living)
        if not confirmed:
            return None, "judge_kill_not_unanimous"  # MAFIA-KILL-4
    return target, basis


def _fix(p: Progress, name: str, number: int, tour: bool) -> None:
    target, basis = decide_target(p.state, name, tour)
    p.emit(ev.NightDecisionFixed, mafia_audience(p.state, name), city=name, night=number,
           target=target, tour=tour, basis=basis)
    p.emit(ev.KillReported, only(p.state.procurator, p.state.consigliere), city=name, night=number,
           target=target, tour=tour)
