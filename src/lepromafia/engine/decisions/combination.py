"""HOST-2 (AMB-27): the Procurator acknowledges, on the record, that one person holds two
host offices."""

from __future__ import annotations

from dataclasses import dataclass, replace

from ..audience import PUBLIC, only
from ..commands import Command
from ..decision import AuditLine, host_decision
from ..errors import N_, ErrorCode, check
from ..events_host import HostDecision
from ..progress import Progress
from ..rules.common import require_procurator
from ..rules.host import offices_of, reason_of
from ..state import GameState, Stage

_C = {"frozen": True, "slots": True, "kw_only": True}

@dataclass(**_C)
class AcknowledgeCombination(Command):
    """HOST-2: the Procurator acknowledges a combination of host roles in one person."""

    user: str
    reason: str


@dataclass(**_C)
class CombinationAcknowledged(HostDecision):
    user: str
    offices: tuple[str, ...]


def _acknowledged(state: GameState, e: CombinationAcknowledged) -> GameState:
    return replace(state, records=replace(state.records,
                                          acknowledged=state.records.acknowledged | {e.user}))


@host_decision(
    "acknowledge_combination", office="procurator", command=AcknowledgeCombination,
    event=CombinationAcknowledged, rule="HOST-2", title=N_("A combination of offices"),
    explain=N_("One person holds two host offices: acknowledge it on the record."),
    evolve=_acknowledged, labels={"user": N_("User"), "reason": N_("Reason")},
    limits={"user": 64},
    audit=AuditLine("appointment", N_("Acknowledged that {user} holds several offices"),
                    lambda e: {"user": e.user}),
    bespoke_form=True)
def acknowledge_combination(p: Progress, c: AcknowledgeCombination) -> None:
    """HOST-2 (AMB-27): the warning given at appointment is acknowledged, on the record."""
    s = p.state
    require_procurator(s, c.actor)
    check(s.stage is not Stage.FINISHED, ErrorCode.GAME_FINISHED)
    offices = offices_of(s, c.user)
    check(len(offices) >= 2, ErrorCode.NO_COMBINATION, "HOST-2", user=c.user)
    check(c.user not in s.records.acknowledged, ErrorCode.ALREADY_DECIDED, "HOST-2")
    reason = reason_of(s, c.reason)
    # HOST-CONS-5: a combination that includes the Consigliere names him; keep it in the Bar.
    audience = only(s.procurator, c.user) if "consigliere" in offices else PUBLIC
    p.emit(CombinationAcknowledged, audience, host=c.actor, rule="HOST-2", reason=reason,
           user=c.user, offices=offices)
