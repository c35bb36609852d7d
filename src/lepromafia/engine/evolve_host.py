"""evolve rules for the host-side events; registered into ``evolve._HANDLERS``.

Every ``HostDecision`` taken by a host also appends one ``AuditEntry`` (§9.1 p.4).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any, TypeVar

from . import events_host as hev
from .evolve import _city, _on
from .records import (
    AuditEntry,
    Complaint,
    Impeachment,
    InboxBan,
    PrivateCase,
    Relay,
    RequestState,
    Sanction,
    SealedRecord,
    SoundEntry,
    SoundKind,
    SoundRequest,
)
from .state import GameState

E = TypeVar("E", bound=hev.HostDecision)
Rule = Callable[[GameState, Any], GameState]


def _rec(state: GameState, **changes: Any) -> GameState:
    return replace(state, records=replace(state.records, **changes))


def audited(fn: Rule) -> Rule:
    """``fn``, and the audit line of a host's decision after it (§9.1 p.4)."""

    def apply(state: GameState, e: hev.HostDecision) -> GameState:
        new = fn(state, e)
        if e.host not in state.hosts():
            return new  # a player's own act (a self-recorded Last Word): no audit line
        entry = AuditEntry(number=len(new.records.audit) + 1, at=e.at, host=e.host,
                           rule=e.rule, action=type(e).__name__, reason=e.reason,
                           audience=e.audience)
        return _rec(new, audit=(*new.records.audit, entry))

    return apply


def _decision(event_type: type[E]) -> Callable[[Rule], Rule]:
    """Register an evolve rule that also writes the audit line of a host's decision."""

    def register(fn: Rule) -> Rule:
        _on(event_type)(audited(fn))
        return fn

    return register


def _swap(items: tuple[Any, ...], number: int, **changes: Any) -> tuple[Any, ...]:
    return tuple(replace(x, **changes) if x.number == number else x for x in items)


# --- sanctions, sealed records (the other decisions evolve in engine/decisions) --------


@_decision(hev.SanctionRecorded)
def _sanction(state: GameState, e: hev.SanctionRecorded) -> GameState:
    sanction = Sanction(number=e.sanction, user=e.user, rule=e.rule, until=e.until)
    return _rec(state, sanctions=(*state.records.sanctions, sanction))


@_decision(hev.RecordSealed)
def _sealed(state: GameState, e: hev.RecordSealed) -> GameState:
    record = SealedRecord(number=e.record, kind=e.kind, digest=e.digest, sealed_at=e.at,
                          content=e.content, opens_at_game_end=e.opens_at_game_end)
    return _rec(state, sealed=(*state.records.sealed, record))


@_on(hev.RecordOpened)
def _opened(state: GameState, e: hev.RecordOpened) -> GameState:
    return _rec(state, sealed=_swap(state.records.sealed, e.record, opened=True))


# --- Sound Library --------------------------------------------------------------------


@_on(hev.SoundRequested)
def _sound_requested(state: GameState, e: hev.SoundRequested) -> GameState:
    req = SoundRequest(number=e.request, kind=SoundKind(e.kind), city=e.city,
                       requester=e.requester, target=e.target, handler=e.handler,
                       state=RequestState.SUBMITTED, submitted_at=e.at,
                       inalienable=e.inalienable, form=e.form)
    return _rec(state, sound_requests=(*state.records.sound_requests, req))


@_decision(hev.SoundRequestForwarded)
def _sound_forwarded(state: GameState, e: hev.SoundRequestForwarded) -> GameState:
    return _rec(state, sound_requests=_swap(state.records.sound_requests, e.request,
                                            handler="procurator", state=RequestState.FORWARDED))


@_decision(hev.SoundRequestAnswered)
def _sound_answered(state: GameState, e: hev.SoundRequestAnswered) -> GameState:
    status = RequestState.ACCEPTED if e.accepted else RequestState.DECLINED
    return _rec(state, sound_requests=_swap(state.records.sound_requests, e.request, state=status))


@_decision(hev.SoundEntryPublished)
def _sound_entry(state: GameState, e: hev.SoundEntryPublished) -> GameState:
    entry = SoundEntry(number=e.entry, kind=SoundKind(e.kind), city=e.city,
                       participants=e.participants, requester=e.requester, host=e.host,
                       media=e.media, duration_seconds=e.duration_seconds, outcome=e.outcome,
                       request=e.request, at=e.at)
    new = _rec(state, sound_entries=(*state.records.sound_entries, entry))
    if e.request is not None:
        new = _rec(new, sound_requests=_swap(new.records.sound_requests, e.request,
                                             state=RequestState.DONE))
    return new


# --- impeachment, evidence, no-confidence ----------------------------------------------


@_on(hev.ImpeachmentSigned)
def _signed(state: GameState, e: hev.ImpeachmentSigned) -> GameState:
    return _rec(state, signatures=(*state.records.signatures, (e.city, e.user)))


@_on(hev.ImpeachmentDemanded)
def _demanded(state: GameState, e: hev.ImpeachmentDemanded) -> GameState:
    inbox = state.current_inbox("impeachment", e.city)
    assert inbox is not None
    imp = Impeachment(number=e.impeachment, city=e.city, tribune=e.tribune,
                      initiators=e.initiators, inbox=inbox, filed_at=e.at)
    signatures = tuple(x for x in state.records.signatures if x[0] != e.city)
    return _rec(state, impeachments=(*state.records.impeachments, imp), signatures=signatures)


@_on(hev.EvidenceLinked)
def _evidence(state: GameState, e: hev.EvidenceLinked) -> GameState:
    grants = {(e.viewer, ref.inbox, ref.seq) for ref in e.messages}
    return _rec(state, grants=state.records.grants | grants)


@_decision(hev.ImpeachmentDecided)
def _impeachment_decided(state: GameState, e: hev.ImpeachmentDecided) -> GameState:
    return _rec(state, impeachments=_swap(state.records.impeachments, e.impeachment,
                                          outcome=e.outcome))


@_decision(hev.TribuneReplaced)
def _tribune_replaced(state: GameState, e: hev.TribuneReplaced) -> GameState:
    """IMPEACH-6: every Tribune-organized inbox follows ``City.tribune``."""
    return _city(state, e.city, tribune=e.new)


@_on(hev.NoConfidenceExpressed)
def _complaint(state: GameState, e: hev.NoConfidenceExpressed) -> GameState:
    complaint = Complaint(number=e.complaint, target=e.target, city=e.city,
                          complainant=e.complainant)
    return _rec(state, complaints=(*state.records.complaints, complaint))


@_on(hev.NoConfidenceReceipt)
@_on(hev.NoConfidenceAnswered)
@_on(hev.MafiaRelayDelivered)
def _no_change(state: GameState, e: Any) -> GameState:
    return state


@_decision(hev.NoConfidenceDecided)
def _complaint_decided(state: GameState, e: hev.NoConfidenceDecided) -> GameState:
    return _rec(state, complaints=_swap(state.records.complaints, e.complaint, decided=True))


# --- private prosecution and bans ----------------------------------------------------


@_on(hev.PrivateCaseFiled)
def _case_filed(state: GameState, e: hev.PrivateCaseFiled) -> GameState:
    case = PrivateCase(number=e.case, complainant=e.complainant, accused=e.accused,
                       charge=e.charge, evidence=e.evidence, filed_at=e.at)
    new = _rec(state, cases=(*state.records.cases, case))
    if e.evidence and state.arbiter:
        grants = {(state.arbiter, ref.inbox, ref.seq) for ref in e.evidence}
        new = _rec(new, grants=new.records.grants | grants)
    return new


@_decision(hev.PrivateCaseDecided)
def _case_decided(state: GameState, e: hev.PrivateCaseDecided) -> GameState:
    verdict = "guilty" if e.guilty else "not_guilty"
    return _rec(state, cases=_swap(state.records.cases, e.case, decision=verdict))


@_decision(hev.InboxBanImposed)
def _ban(state: GameState, e: hev.InboxBanImposed) -> GameState:
    ban = InboxBan(case=e.case, user=e.user, lineage=e.lineage, until=e.until)
    return _rec(state, bans=(*state.records.bans, ban))


@_decision(hev.InboxBanLifted)
def _ban_lifted(state: GameState, e: hev.InboxBanLifted) -> GameState:
    bans = tuple(replace(b, lifted=True) if b.case == e.case else b for b in state.records.bans)
    return _rec(state, bans=bans)


# --- mafia relay ----------------------------------------------------------------------


@_on(hev.MafiaRelaySubmitted)
def _relay(state: GameState, e: hev.MafiaRelaySubmitted) -> GameState:
    relay = Relay(number=e.relay, from_city=e.from_city, to_city=e.to_city, kind=e.kind,
                  text=e.text)
    return _rec(state, relays=(*state.records.relays, relay))


@_decision(hev.MafiaRelayReviewed)
def _relay_reviewed(state: GameState, e: hev.MafiaRelayReviewed) -> GameState:
    status = "approved" if e.approved else "rejected"
    return _rec(state, relays=_swap(state.records.relays, e.relay, state=status))
