"""MAFIA-COMM-1..3, SEC-5: the Consigliere reviews each relay one city's mafia sends another
city's Godfather, and forwards it (delivered as from «the mafia of <city>») or rejects it
with a reason. Sending is the mafia's own act (``rules/relay.py``)."""

from __future__ import annotations

from dataclasses import dataclass, replace

from ..audience import only
from ..commands import Command
from ..decision import AuditLine, Recorded, host_decision
from ..errors import N_, ErrorCode, check
from ..events import Event
from ..events_host import HostDecision
from ..progress import Progress
from ..rules.common import mafia_audience, require_running
from ..rules.host import reason_of, text_of
from ..state import GameState

_C = {"frozen": True, "slots": True, "kw_only": True}


@dataclass(**_C)
class ReviewMafiaRelay(Command):
    relay: int
    approve: bool
    reason: str = ""


@dataclass(**_C)
class MafiaRelayReviewed(HostDecision):
    relay: int
    from_city: str
    approved: bool


@dataclass(**_C)
class MafiaRelayDelivered(Event):
    """Shown to the receiving Godfather as from 'the mafia of <city>', via 'Consigliere'."""

    relay: int
    from_city: str
    to_city: str
    kind: str
    text: str


def _reviewed(state: GameState, e: MafiaRelayReviewed) -> GameState:
    status = "approved" if e.approved else "rejected"
    relays = tuple(replace(r, state=status) if r.number == e.relay else r
                   for r in state.records.relays)
    return replace(state, records=replace(state.records, relays=relays))


def _line(e: MafiaRelayReviewed) -> str:
    if e.approved:
        return N_("Passed on a relay from the mafia of {city}")
    return N_("Held back a relay from the mafia of {city}")


@host_decision(
    "review_relay", office="consigliere", command=ReviewMafiaRelay, event=MafiaRelayReviewed,
    rule="MAFIA-COMM-1", title=N_("Mafia relay"),
    explain=N_("A city's mafia sends a message, a gift or a fish to another city's Godfather "
               "through you; forward it or reject it with a reason."),
    evolve=_reviewed, submit=N_("Forward"),
    labels={"relay": N_("Relay"), "approve": N_("Forward"), "reason": N_("Reason")},
    audit=AuditLine("relay", _line, lambda e: {"city": e.from_city}),
    also=(Recorded(MafiaRelayDelivered, lambda state, e: state),),
    bespoke_form=True)
def review_relay(p: Progress, c: ReviewMafiaRelay) -> None:
    s = p.state
    check(c.actor == s.consigliere, ErrorCode.NOT_CONSIGLIERE, "MAFIA-COMM-1")
    require_running(s)
    relay = next((r for r in s.records.relays if r.number == c.relay), None)
    check(relay is not None, ErrorCode.UNKNOWN_RECORD)
    assert relay is not None
    check(relay.state == "pending", ErrorCode.ALREADY_DECIDED, "MAFIA-COMM-1")
    godfather = s.cities[relay.to_city].godfather
    if c.approve:
        check(godfather is not None and s.residents[godfather].alive,
              ErrorCode.NO_GODFATHER_TO_RECEIVE, "MAFIA-COMM-1", city=relay.to_city)
        reason = text_of(s, c.reason, required=False)
    else:
        reason = reason_of(s, c.reason)
    p.emit(MafiaRelayReviewed, mafia_audience(s, relay.from_city), host=c.actor,
           rule="MAFIA-COMM-1", reason=reason, relay=relay.number, from_city=relay.from_city,
           approved=c.approve)
    if c.approve:
        # SEC-5: the Godfather sees 'the mafia of <city>' via 'Consigliere'; no names.
        p.emit(MafiaRelayDelivered, only(godfather, s.consigliere), relay=relay.number,
               from_city=relay.from_city, to_city=relay.to_city, kind=relay.kind, text=relay.text)
