"""OMERTA-2, IMPEACH-5, PLAYER-7 (AMB-38): the Procurator records a game ban, for a period or
for life; the community registry enforces it at sign-up."""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import date

from ..audience import only
from ..calendar import MOSCOW
from ..commands import Command
from ..decision import AuditLine, host_decision, options
from ..errors import N_, ErrorCode, check
from ..events_host import HostDecision
from ..progress import Progress
from ..records import Sanction
from ..rules.common import require_procurator
from ..rules.host import SANCTION_RULES, reason_of
from ..state import GameState

_C = {"frozen": True, "slots": True, "kw_only": True}

SANCTION_WORDS: dict[str, str] = {
    "OMERTA-2": N_("Breaking omertà"),
    "IMPEACH-5": N_("Forged evidence"),
    "RESTORE-T1": N_("A leak that destroys the game"),
}
"""The bans a Procurator may record (PLAYER-7, ``SANCTION_RULES``), by what they punish."""
assert tuple(SANCTION_WORDS) == SANCTION_RULES


@dataclass(**_C)
class RecordSanction(Command):
    """OMERTA-2, IMPEACH-5, AMB-38: a game ban for a period (``until``) or for life (None)."""

    user: str
    rule: str
    until: date | None
    reason: str


@dataclass(**_C)
class SanctionRecorded(HostDecision):
    sanction: int
    user: str
    until: date | None
    """None: for life."""


def _recorded(state: GameState, e: SanctionRecorded) -> GameState:
    sanction = Sanction(number=e.sanction, user=e.user, rule=e.rule, until=e.until)
    return replace(state, records=replace(state.records,
                                          sanctions=(*state.records.sanctions, sanction)))


def _line(e: SanctionRecorded) -> str:
    if e.until is None:
        return N_("Recorded a game ban of {user} for life")
    return N_("Recorded a game ban of {user} until {until}")


@host_decision(
    "sanction", office="procurator", command=RecordSanction, event=SanctionRecorded,
    rule="PLAYER-7", title=N_("Game bans"),
    explain=N_("A ban for breaking omertà, forged evidence or a game-destroying leak keeps the "
               "player out of games until its date."),
    evolve=_recorded, submit=N_("Record the ban"),
    labels={"user": N_("User"), "rule": N_("Violation"), "until": N_("Until"),
            "reason": N_("Reason")},
    choices={"rule": options(*SANCTION_WORDS.items())}, limits={"user": 64, "rule": 20},
    none_flag={"until": ("life", N_("For life"))},
    audit=AuditLine("sanction", _line, lambda e: {"user": e.user, "until": e.until},
                    rule=lambda e: e.rule),
    bespoke_form=True)
def record_sanction(p: Progress, c: RecordSanction) -> None:
    """The engine records the decision; the community registry enforces it at sign-up.

    No faction check: an omertà sanction on an honest resident would otherwise be rejected,
    and the rejection would tell the Procurator a faction (HOST-PROC-7).
    """
    s = p.state
    require_procurator(s, c.actor)
    check(c.user in s.residents or c.user in s.signups, ErrorCode.NOT_A_PARTICIPANT, "PLAYER-7",
          user=c.user)
    check(c.rule in SANCTION_RULES, ErrorCode.SANCTION_INVALID, "PLAYER-7",
          detail=N_("choose one of the offered grounds"))
    today = p.now.astimezone(MOSCOW).date()
    check(c.until is None or c.until > today, ErrorCode.SANCTION_INVALID, "PLAYER-7",
          detail=N_("a period must end in the future (or be for life)"))
    # The sanction's reason may concern the mafia: the sanctioned player and the Procurator only.
    p.emit(SanctionRecorded, only(s.procurator, c.user), host=c.actor, rule=c.rule,
           reason=reason_of(s, c.reason), sanction=len(s.records.sanctions) + 1, user=c.user,
           until=c.until)
