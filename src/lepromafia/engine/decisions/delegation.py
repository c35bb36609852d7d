"""HOST-TRIB-2 (AMB-27): a Tribune lets another city's Tribune run his city's votes for a
recorded period — voting operations only, no personal inboxes, no contacts."""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import datetime

from ..commands import Command
from ..decision import AuditLine, Option, host_decision
from ..errors import N_, ErrorCode, check
from ..events_host import HostDecision
from ..progress import Progress
from ..records import Delegation
from ..rules.common import require_city
from ..rules.host import office_audience, reason_of
from ..state import GameState, Stage

_C = {"frozen": True, "slots": True, "kw_only": True}


def _own_cities(s: GameState, actor: str) -> tuple[Option, ...]:
    return tuple(Option(c.name) for c in s.cities.values() if c.tribune == actor)


def _other_tribunes(s: GameState, actor: str) -> tuple[Option, ...]:
    return tuple(Option(t) for t in dict.fromkeys(s.tribunes()) if t != actor)


@dataclass(**_C)
class DelegateTribune(Command):
    """HOST-TRIB-2: the city's Tribune lets another city's Tribune run its votes for a period."""

    city: str
    delegate: str
    starts_at: datetime
    until: datetime
    reason: str


@dataclass(**_C)
class TribuneDelegated(HostDecision):
    delegation: int
    city: str
    delegate: str
    starts_at: datetime
    until: datetime
    scope: str


def _delegated(state: GameState, e: TribuneDelegated) -> GameState:
    d = Delegation(number=e.delegation, city=e.city, delegate=e.delegate, starts_at=e.starts_at,
                   until=e.until, scope=e.scope)
    return replace(state, records=replace(state.records,
                                          delegations=(*state.records.delegations, d)))


@host_decision(
    "delegate", office="tribune", command=DelegateTribune, event=TribuneDelegated,
    rule="HOST-TRIB-2", title=N_("Delegate the votes"),
    explain=N_("If you will be away, a stand-in Tribune runs your city's votes from these pages "
               "for the time you set."),
    evolve=_delegated,
    labels={"city": N_("City"), "delegate": N_("Stand-in Tribune"), "starts_at": N_("From"),
            "until": N_("Until"), "reason": N_("Reason")},
    choices={"city": _own_cities, "delegate": _other_tribunes}, limits={"delegate": 64},
    audit=AuditLine("delegation", N_("Delegated the votes of {city} to {delegate}, {starts} – {until}"),
                    lambda e: {"city": e.city, "delegate": e.delegate, "starts": e.starts_at,
                               "until": e.until}),
    bespoke_form=True)
def delegate_tribune(p: Progress, c: DelegateTribune) -> None:
    """AMB-27: voting operations only, for a recorded period; no personal inboxes, no contacts."""
    s = p.state
    check(s.stage not in (Stage.RECRUITING, Stage.FINISHED), ErrorCode.WRONG_STAGE,
          stage=s.stage.value)
    city = require_city(s, c.city)
    check(c.actor == city.tribune, ErrorCode.NOT_TRIBUNE, "HOST-TRIB-2")
    check(c.delegate in s.tribunes() and c.delegate != c.actor, ErrorCode.DELEGATION_INVALID,
          "HOST-TRIB-2", detail=N_("the stand-in must be another city's Tribune"))
    check(c.starts_at.tzinfo is not None and c.until.tzinfo is not None,
          ErrorCode.DELEGATION_INVALID, detail=N_("times need a timezone"))
    check(c.starts_at < c.until and p.now < c.until, ErrorCode.DELEGATION_INVALID, "HOST-TRIB-2",
          detail=N_("the period must end after it starts, in the future"))
    reason = reason_of(s, c.reason)
    p.emit(TribuneDelegated, office_audience(s), host=c.actor, rule="HOST-TRIB-2",
           reason=reason, delegation=len(s.records.delegations) + 1, city=city.name,
           delegate=c.delegate, starts_at=c.starts_at, until=c.until,
           scope=s.settings.tribune_delegation_scope)


@dataclass(**_C)
class RevokeDelegation(Command):
    delegation: int
    reason: str


@dataclass(**_C)
class DelegationRevoked(HostDecision):
    delegation: int
    city: str


def _revoked(state: GameState, e: DelegationRevoked) -> GameState:
    delegations = tuple(replace(d, revoked=True) if d.number == e.delegation else d
                        for d in state.records.delegations)
    return replace(state, records=replace(state.records, delegations=delegations))


def _may_revoke(s: GameState, actor: str) -> bool:
    return any(actor in (s.cities[d.city].tribune, d.delegate) and not d.revoked
               for d in s.records.delegations)


@host_decision(
    "revoke_delegation", office="tribune", command=RevokeDelegation, event=DelegationRevoked,
    rule="HOST-TRIB-2", title=N_("Revoke a delegation"),
    explain=N_("End a stand-in's period before it runs out."), evolve=_revoked,
    labels={"delegation": N_("Delegation"), "reason": N_("Reason")},
    audit=AuditLine("delegation", N_("Revoked delegation {number} for {city}"),
                    lambda e: {"number": e.delegation, "city": e.city}),
    offered=_may_revoke, bespoke_form=True)
def revoke_delegation(p: Progress, c: RevokeDelegation) -> None:
    s = p.state
    found = next((d for d in s.records.delegations if d.number == c.delegation), None)
    check(found is not None, ErrorCode.UNKNOWN_RECORD)
    assert found is not None
    check(c.actor in (s.cities[found.city].tribune, found.delegate), ErrorCode.NOT_TRIBUNE,
          "HOST-TRIB-2")
    check(not found.revoked and p.now < found.until, ErrorCode.ALREADY_DECIDED, "HOST-TRIB-2")
    p.emit(DelegationRevoked, office_audience(s), host=c.actor, rule="HOST-TRIB-2",
           reason=reason_of(s, c.reason), delegation=found.number, city=found.city)
