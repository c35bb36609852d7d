"""evolve rules for the host-side events that are not host decisions (the citizens' sound
requests, signatures, complaints, cases and relays); registered into ``evolve._HANDLERS``.

A ``HostDecision`` is recorded only through its ``@host_decision`` (``engine/decision.py``),
which registers its evolve rule wrapped in ``audited``: one ``AuditEntry`` (§9.1 p.4).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any, TypeVar

from . import events_host as hev
from .evolve import _on
from .records import (
    AuditEntry,
    Complaint,
    Impeachment,
    PrivateCase,
    Relay,
    RequestState,
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



def _swap(items: tuple[Any, ...], number: int, **changes: Any) -> tuple[Any, ...]:
    return tuple(replace(x, **changes) if x.number == number else x for x in items)


# --- sanctions, sealed records (the other decisions evolve in engine/decisions) --------





# --- Sound Library --------------------------------------------------------------------


@_on(hev.SoundRequested)
def _sound_requested(state: GameState, e: hev.SoundRequested) -> GameState:
    req = SoundRequest(number=e.request, kind=SoundKind(e.kind), city=e.city,
                       requester=e.requester, target=e.target, handler=e.handler,
                       state=RequestState.SUBMITTED, submitted_at=e.at,
                       inalienable=e.inalienable, form=e.form)
    return _rec(state, sound_requests=(*state.records.sound_requests, req))





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




@_on(hev.NoConfidenceExpressed)
def _complaint(state: GameState, e: hev.NoConfidenceExpressed) -> GameState:
    complaint = Complaint(number=e.complaint, target=e.target, city=e.city,
                          complainant=e.complainant)
    return _rec(state, complaints=(*state.records.complaints, complaint))


@_on(hev.NoConfidenceReceipt)
def _no_change(state: GameState, e: Any) -> GameState:
    return state



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





# --- mafia relay ----------------------------------------------------------------------


@_on(hev.MafiaRelaySubmitted)
def _relay(state: GameState, e: hev.MafiaRelaySubmitted) -> GameState:
    relay = Relay(number=e.relay, from_city=e.from_city, to_city=e.to_city, kind=e.kind,
                  text=e.text)
    return _rec(state, relays=(*state.records.relays, relay))
