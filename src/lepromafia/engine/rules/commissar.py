"""Commissar appointment and checks (COMM-APPT, COMM, SEC-1, SEC-2, SEC-3, SEC-6)."""

from __future__ import annotations

from datetime import datetime, timedelta

from .. import commands as cmd
from .. import events as ev
from ..audience import only
from ..errors import ErrorCode, check
from ..inboxes import Kind, inbox_id
from ..progress import Progress
from ..state import City, Faction, GameState, Offer
from . import ambush
from .common import (
    archive_inbox,
    cancel,
    living_resident,
    open_inbox,
    require_city,
    require_day,
    require_night,
    require_procurator,
    require_running,
    require_undecided,
    schedule,
)
from .pause import paused


def offer(p: Progress, c: cmd.OfferCommissar) -> None:
    """COMM-APPT-1 (AMB-21): a random living resident, drawn without replacement."""
    s = p.state
    require_procurator(s, c.actor)
    require_running(s)
    require_day(s)  # AMBUSH-9, COMM-APPT-7: appointments only in daytime
    city = require_city(s, c.city)
    require_undecided(city)
    pool = [u for u in s.living(city.name) if u not in city.offers_made]
    allowed = (
        city.appointment_open and city.offer is None and city.commissar is None
        and len(city.offers_made) < s.settings.commissar_offer_attempts and pool
    )
    check(bool(allowed), ErrorCode.OFFER_NOT_ALLOWED, "COMM-APPT-3")
    candidate = pool[c.draw % len(pool)]
    attempt = len(city.offers_made) + 1
    scope, generation = f"{city.name}/{attempt}", 0
    while inbox_id(Kind.OFFER, scope, generation) in s.inboxes:
        generation += 1  # a replacement round restarts the attempts; inbox ids never repeat
    box = inbox_id(Kind.OFFER, scope, generation)
    secret = only(s.procurator, candidate)  # §9.2: recipients are the Procurator's to know
    p.emit(ev.CommissarOffered, secret, city=city.name, attempt=attempt, candidate=candidate,
           inbox=box)
    open_inbox(p, Kind.OFFER, scope, city=city.name, subject=candidate, generation=generation)
    timeout = timedelta(minutes=s.settings.commissar_offer_timeout_minutes)
    schedule(p, f"offer_timeout:{city.name}:{attempt}", p.now + timeout, secret)
    # SEC-1: the answer reaches the Procurator at this reveal, never earlier, whenever the
    # candidate answers; scheduled now, so the answer itself changes nothing he sees.
    schedule(p, f"offer_reveal:{city.name}:{attempt}", _reveal_at(s, p.now), secret)


def _reveal_at(s: GameState, offered_at: datetime) -> datetime:
    return offered_at + timedelta(minutes=s.settings.commissar_offer_min_window_minutes)


def _open_offer_of(s: GameState, user: str) -> tuple[City, Offer] | None:
    for city in s.cities.values():
        o = city.offer
        if o and o.candidate == user and o.accepted is None and not o.lapsed:
            return city, o
    return None


def may_accept(s: GameState, user: str) -> bool:
    """COMM-APPT-2: an honest candidate may accept; a mafioso must refuse."""
    return s.residents[user].faction is not Faction.MAFIA


def answer(p: Progress, c: cmd.AnswerCommissarOffer) -> None:
    """COMM-APPT-2, SEC-1: a mafioso must refuse; the Procurator sees the answer late."""
    s = p.state
    found = _open_offer_of(s, c.actor)
    check(found is not None and s.phase.value == "day", ErrorCode.NO_OPEN_OFFER, "COMM-APPT-2")
    assert found is not None
    city, o = found
    living_resident(s, c.actor)
    if c.accept:
        check(may_accept(s, c.actor), ErrorCode.MAFIOSO_MUST_REFUSE,
              "COMM-APPT-2")
    p.emit(ev.CommissarOfferAnswered, only(c.actor), city=city.name, attempt=o.attempt,
           accepted=c.accept)
    if c.accept:
        _appoint(p, city.name, c.actor)
    # F3-3: before the reveal nothing the Procurator sees happens; the reveal closes it
    if p.now >= _reveal_at(s, o.offered_at):
        _close(p, city.name, o.attempt)


def _appoint(p: Progress, name: str, user: str) -> None:
    """COMM-APPT-5, INBOX-POLICE-1: the Police Station and a pseudonymous Commissar Line."""
    generation = sum(1 for i in p.state.inboxes.values() if i.kind == Kind.LINE and i.city == name)
    # COMM-1, SEC-6: the line's opening names no commissar; only his own notice does.
    line = open_inbox(p, Kind.LINE, name, city=name, generation=generation,
                      audience=only(user, p.state.consigliere))
    p.emit(ev.CommissarAppointed, only(user), city=name, commissar=user, line=line)
    ambush.grant_if_pending(p, name)  # AMBUSH-2, AMBUSH-10


def _close(p: Progress, name: str, attempt: int) -> None:
    """An answered offer at its reveal: the pending deadlines go, the answer shows."""
    cancel(p, f"offer_timeout:{name}:{attempt}")
    cancel(p, f"offer_reveal:{name}:{attempt}")
    _resolve(p, name, lapsed=False)


def _resolve(p: Progress, name: str, lapsed: bool) -> None:
    """The answer is shown to the Procurator (SEC-1)."""
    s = p.state
    o = s.cities[name].offer
    assert o is not None
    accepted = bool(o.accepted) and not lapsed
    p.emit(ev.CommissarOfferResolved, only(s.procurator, o.candidate), city=name,
           attempt=o.attempt, accepted=accepted, lapsed=lapsed)
    archive_inbox(p, o.inbox)
    city = p.state.cities[name]
    if not accepted and not city.appointment_open and city.commissar is None:
        # COMM-APPT-3: nobody but the Procurator learns that the city has no commissar.
        p.emit(ev.CommissarAppointmentFailed, only(s.procurator), city=name)
        ambush.grant_if_pending(p, name)  # AMBUSH-12: granted even if the replacement fails


def offer_timed_out(p: Progress, rest: str, seed: int) -> None:
    """COMM-APPT-7: an unanswered offer counts as a refusal."""
    name, _, attempt = rest.rpartition(":")
    o = p.state.cities[name].offer
    if o is not None and o.attempt == int(attempt) and o.accepted is None:
        cancel(p, f"offer_reveal:{name}:{o.attempt}")
        _resolve(p, name, lapsed=True)


def reveal_answer(p: Progress, rest: str, seed: int) -> None:
    name, _, attempt = rest.rpartition(":")
    o = p.state.cities[name].offer
    if o is not None and o.attempt == int(attempt) and o.accepted is not None:
        _close(p, name, o.attempt)


def lapse_open_offers(p: Progress) -> None:
    """COMM-APPT-7: an offer still open at night start lapses as a refusal."""
    for name, city in p.state.cities.items():
        o = city.offer
        if o is None:
            continue
        cancel(p, f"offer_timeout:{name}:{o.attempt}")
        cancel(p, f"offer_reveal:{name}:{o.attempt}")
        _resolve(p, name, lapsed=o.accepted is None)


def check_resident(p: Progress, c: cmd.CheckResident) -> None:
    """COMM-4, COMM-7, SEC-3: one check a night from Night 2, answered truthfully."""
    s = p.state
    resident = living_resident(s, c.actor)
    city = s.cities[resident.city]
    check(city.commissar == c.actor, ErrorCode.NOT_COMMISSAR, "COMM-4")
    require_running(s)
    require_night(s)
    require_undecided(city)
    check(s.day >= 2 and s.checks_open and not paused(city), ErrorCode.CHECKS_NOT_OPEN, "COMM-4")
    check(city.checked_tonight is None, ErrorCode.CHECK_ALREADY_USED, "COMM-4")
    target = s.residents.get(c.target)
    # SEC-4: the only rejection is about the target's city and life, never its faction.
    check(target is not None and target.alive and target.city == city.name and c.target != c.actor,
          ErrorCode.CHECK_TARGET_INVALID, "COMM-4")
    assert target is not None
    if s.settings.commissar_check_mode == "consigliere":
        p.emit(ev.CheckRequested, only(c.actor, s.consigliere), city=city.name, night=s.day,
               target=c.target)
    else:
        p.emit(ev.CheckAnswered, only(c.actor, s.consigliere), city=city.name, night=s.day,
               target=c.target, is_mafia=target.faction is Faction.MAFIA)
    ambush.expose_on_check(p, city.name, c.actor, c.target)


def answer_check(p: Progress, c: cmd.AnswerCheck) -> None:
    """COMM-4 (AMB-20): the Consigliere answers only "mafia" or "not mafia", and truly."""
    s = p.state
    check(c.actor == s.consigliere, ErrorCode.NOT_CONSIGLIERE, "COMM-4")
    require_running(s)
    city = require_city(s, c.city)
    check(city.check_pending and city.checked_tonight is not None, ErrorCode.NO_PENDING_CHECK, "COMM-4")
    assert city.checked_tonight is not None
    truth = s.residents[city.checked_tonight].faction is Faction.MAFIA
    check(c.is_mafia is truth, ErrorCode.CHECK_ANSWER_UNTRUE, "COMM-4")
    _answer(p, city.name, city.checked_tonight, truth)


def _answer(p: Progress, city: str, target: str, is_mafia: bool) -> None:
    """COMM-4: the answer goes to the commissar who asked, even if he left office since."""
    s = p.state
    commissar = s.cities[city].checked_by or s.cities[city].commissar
    p.emit(ev.CheckAnswered, only(commissar, s.consigliere), city=city, night=s.day, target=target,
           is_mafia=is_mafia)


def answer_pending_checks(p: Progress) -> None:
    """COMM-4, COMM-7: a check the Consigliere left unanswered is answered by the platform
    when checks close, so the commissar never loses a check he made in time."""
    for name, city in p.state.cities.items():
        if city.check_pending and city.checked_tonight is not None:
            target = city.checked_tonight
            _answer(p, name, target, p.state.residents[target].faction is Faction.MAFIA)
