"""Restoring a destroyed city (RESTORE-T2, RESTORE-1..7): three hosts sign, the city gets a
new name and a new deal among its living, and resumes the next day."""

from __future__ import annotations

from datetime import datetime

from .. import commands as cmd
from .. import events as ev
from ..audience import PUBLIC, only
from ..calendar import MOSCOW
from ..deal import commitment, mafia_count, mafiosi_at
from ..errors import ErrorCode, check
from ..inboxes import Kind, live_inbox
from ..progress import Progress
from ..state import City, DeathCause, GameState, PhaseKind
from . import court, deaths, execution, outcome
from .common import (
    archive_inbox,
    cancel,
    open_inbox,
    require_city,
    require_procurator,
    require_running,
)


def _signers(s: GameState, city: City) -> frozenset[str]:
    return frozenset({s.procurator, city.tribune} | ({s.consigliere} if s.consigliere else set()))


def _names_taken(s: GameState, except_city: str) -> set[str]:
    return {
        (c.display_name or c.name).casefold() for n, c in s.cities.items() if n != except_city
    } | {except_city.casefold()}


def propose(p: Progress, c: cmd.ProposeRestoration) -> None:
    """RESTORE-T2, RESTORE-1, AMB-26: the Procurator proposes, with a new name."""
    s = p.state
    require_procurator(s, c.actor)
    require_running(s)
    city = require_city(s, c.city)
    check(city.decided is None and city.restoration is None, ErrorCode.WRONG_PHASE, "RESTORE-T2")
    name = c.new_name.strip()
    check(0 < len(name) <= 60 and ":" not in name and "/" not in name, ErrorCode.CITY_NAME_INVALID,
          "RESTORE-1")
    check(name.casefold() not in _names_taken(s, c.city), ErrorCode.CITY_NAME_TAKEN, "CITY-8", city=name)
    check(bool(c.reason.strip()), ErrorCode.REASON_REQUIRED, "RESTORE-T2")
    for user in c.expelled:
        r = s.residents.get(user)
        check(r is not None and r.alive and r.city == c.city, ErrorCode.MEMBERS_INVALID, "AMB-26")
    p.emit(ev.RestorationProposed, only(_signers(s, city)), city=c.city, new_name=name,
           reason=c.reason.strip(), expelled=tuple(dict.fromkeys(c.expelled)))


def sign(p: Progress, c: cmd.SignRestoration) -> None:
    """RESTORE-T2: the Consigliere and the city's Tribune sign; then it begins."""
    s = p.state
    require_running(s)
    city = require_city(s, c.city)
    proposal = city.restoration
    check(proposal is not None and proposal.began_day is None, ErrorCode.NO_RESTORATION, "RESTORE-T2")
    assert proposal is not None
    check(c.actor in _signers(s, city) and c.actor not in proposal.signed, ErrorCode.NOT_A_SIGNER,
          "RESTORE-T2")
    # HOST-CONS-5: the Tribune must not learn who the Consigliere is from his signature.
    seen_by = _signers(s, city) - ({city.tribune} if c.actor == s.consigliere else set())
    p.emit(ev.RestorationSigned, only(seen_by), city=c.city, host=c.actor)
    if _signers(s, city) <= proposal.signed | {c.actor}:
        _begin(p, c.city)


def _begin(p: Progress, name: str) -> None:
    """RESTORE-2, -6, -7: expel, vacate, archive the mafia inbox; pause until the next day."""
    s = p.state
    proposal = s.cities[name].restoration
    assert proposal is not None
    for user in proposal.expelled:  # AMB-26: recorded like a suicide
        deaths.die(p, user, DeathCause.SUICIDE, f"{s.phase.value} {s.day}")
    city = p.state.cities[name]
    waited = not city.execution_final
    if city.voting is not None and not city.voting.closed:
        for candidate in city.voting.candidates:
            box = live_inbox(p.state, Kind.VOTING, name, candidate)
            if box and not p.state.inboxes[box].archived:
                archive_inbox(p, box)
        p.emit(ev.NoExecution, PUBLIC, city=name, day=s.day, reason="restoration")
    elif city.verdict is not None:
        # D21: a pardon window open at the restoration ends with a published outcome.
        for key in [k for k in p.state.deadlines if k.startswith(f"pardon_close:{name}:")]:
            cancel(p, key)
        p.emit(ev.NoExecution, PUBLIC, city=name, day=s.day, reason="restoration")
    if city.commissar_line and not p.state.inboxes[city.commissar_line].archived:
        archive_inbox(p, city.commissar_line)
    mafia_box = p.state.current_inbox(Kind.MAFIA.value, name)
    if mafia_box:
        archive_inbox(p, mafia_box)
    p.emit(ev.RestorationBegan, PUBLIC, city=name, new_name=proposal.new_name,
           day=restoration_day(p.state, p.now))
    court.refresh_court(p)
    if waited and p.state.phase is PhaseKind.DAY:
        execution.after_verdict(p)  # §3: the night no longer waits for this city's verdict


def restoration_day(s: GameState, now: datetime) -> int:
    """RESTORE-6: «на следующий день после восстановления» — the game day whose calendar
    date the restoration falls on (after midnight in Night N that is Day N+1); the city
    resumes at the start of the day after it."""
    today = now.astimezone(MOSCOW).date()
    days = [n for n, plan in s.plans.items()
            if n <= s.day + 1 and plan.start_at.astimezone(MOSCOW).date() <= today]
    return max(days, default=s.day)


def _restoring(s: GameState, name: str) -> City:
    city = require_city(s, name)
    check(city.restoration is not None and city.restoration.began_day is not None,
          ErrorCode.NO_RESTORATION, "RESTORE-3")
    return city


def seal_list(p: Progress, c: cmd.SealRestorationList) -> None:
    """RESTORE-3, -4, RANDOM-3: a sealed shuffled list of the living; 20% of them, rounded up."""
    s = p.state
    check(c.actor == s.consigliere, ErrorCode.NOT_CONSIGLIERE, "RESTORE-3")
    city = _restoring(s, c.city)
    assert city.restoration is not None
    check(not city.restoration.order, ErrorCode.DEAL_ALREADY_SEALED, "RESTORE-3")
    living = s.living(c.city)
    check(sorted(c.order) == sorted(living) and len(set(c.order)) == len(c.order) and len(c.salt) >= 16,
          ErrorCode.DEAL_LIST_INVALID, "RESTORE-3", city=c.city)
    count = mafia_count(len(living), s.settings.mafia_share_percent, "ceil")
    generation = sum(1 for i in s.inboxes.values() if i.kind == Kind.NOTARY)
    open_inbox(p, Kind.NOTARY, f"restoration/{c.city}", subject=s.consigliere, generation=generation,
               title="RESTORE-3")
    p.emit(ev.RestorationListRecorded, only(s.consigliere), city=c.city, order=c.order, salt=c.salt)
    p.emit(ev.RestorationListSealed, PUBLIC, city=c.city,
           commitment=commitment({c.city: c.order}, c.salt), mafia_count=count)


def name_numbers(p: Progress, c: cmd.NameRestorationNumbers) -> None:
    """RESTORE-3, RANDOM-4: the Procurator names the numbers; a new mafia inbox opens."""
    s = p.state
    require_procurator(s, c.actor)
    city = _restoring(s, c.city)
    proposal = city.restoration
    assert proposal is not None
    check(bool(proposal.order), ErrorCode.DEAL_NOT_SEALED, "RESTORE-3")
    check(not proposal.dealt, ErrorCode.NUMBERS_ALREADY_NAMED, "RESTORE-3", city=c.city)
    size = len(proposal.order)
    valid = (len(c.numbers) == proposal.mafia_count and len(set(c.numbers)) == len(c.numbers)
             and all(1 <= n <= size for n in c.numbers))
    check(valid, ErrorCode.NUMBERS_INVALID, "RESTORE-4", count=proposal.mafia_count, population=size)
    mafiosi = mafiosi_at(proposal.order, c.numbers)
    p.emit(ev.CityRedealt, only(mafiosi, s.consigliere), city=c.city, mafiosi=mafiosi)
    generation = 1 + max((i.generation for i in s.inboxes.values()
                          if i.kind == Kind.MAFIA and i.city == c.city), default=0)
    open_inbox(p, Kind.MAFIA, c.city, city=c.city, members=frozenset(mafiosi), generation=generation)
    honest = [u for u in proposal.order if u not in mafiosi]
    p.emit(ev.HonestNoticeIssued, only(honest), city=c.city)
    outcome.settle(p)


def resume_due(p: Progress) -> None:
    """RESTORE-6: a dealt city resumes play on the day after its restoration."""
    for name, city in p.state.cities.items():
        r = city.restoration
        if r and r.began_day is not None and r.dealt and p.state.day > r.began_day:
            p.emit(ev.RestorationCompleted, PUBLIC, city=name, mafia_count=city.mafia_count)
