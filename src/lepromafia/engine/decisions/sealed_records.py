"""AMB-39, COMM-APPT-6, IMPEACH-3: sealed notary records — immutable, timestamped, hashed —
and the Procurator's disclosure of his sealed reasons after the game.

Records are sealed by the decisions that need one (``rules.host.seal``: each commissar draw,
an impeachment found insignificant); the ones marked so open by themselves at the game's
end (``rules.host.open_sealed_at_game_end``); the rest the Procurator may open afterwards.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import datetime

from ..commands import Command
from ..decision import AuditLine, Option, Recorded, host_decision
from ..errors import N_, ErrorCode, check
from ..events import Event
from ..events_host import HostDecision
from ..progress import Progress
from ..records import SealedRecord
from ..rules.common import require_procurator
from ..rules.host import open_record
from ..state import GameState, Stage

_C = {"frozen": True, "slots": True, "kw_only": True}


@dataclass(**_C)
class RevealSealedRecord(Command):
    """IMPEACH-3: after the game, the Procurator may disclose his sealed reasons."""

    record: int


@dataclass(**_C)
class RecordSealed(HostDecision):
    """The sealed content is the organizer's alone until it opens."""

    record: int
    kind: str
    digest: str
    content: tuple[tuple[str, str], ...]
    opens_at_game_end: bool


@dataclass(**_C)
class RecordOpened(Event):
    """§9.4, AMB-39: a sealed record made public, checkable against its digest."""

    record: int
    kind: str
    digest: str
    content: tuple[tuple[str, str], ...]
    sealed_at: datetime
    opened_by: str


def _records(state: GameState, sealed: tuple[SealedRecord, ...]) -> GameState:
    return replace(state, records=replace(state.records, sealed=sealed))


def _sealed(state: GameState, e: RecordSealed) -> GameState:
    record = SealedRecord(number=e.record, kind=e.kind, digest=e.digest, sealed_at=e.at,
                          content=e.content, opens_at_game_end=e.opens_at_game_end)
    return _records(state, (*state.records.sealed, record))


def _opened(state: GameState, e: RecordOpened) -> GameState:
    return _records(state, tuple(replace(r, opened=True) if r.number == e.record else r
                                 for r in state.records.sealed))


def _still_sealed(s: GameState, actor: str) -> tuple[Option, ...]:
    return tuple(Option(str(r.number)) for r in s.records.sealed if not r.opened)


def _may_reveal(s: GameState, actor: str) -> bool:
    return (actor == s.procurator and s.stage is Stage.FINISHED
            and any(not r.opened for r in s.records.sealed))


@host_decision(
    "reveal_record", office="procurator", command=RevealSealedRecord, event=RecordOpened,
    rule="IMPEACH-3", title=N_("Sealed records"),
    explain=N_("After the game you may open a sealed record; everyone can check it against "
               "its published digest."),
    evolve=_opened, submit=N_("Open the record"), labels={"record": N_("Record")},
    choices={"record": _still_sealed}, offered=_may_reveal,
    also=(Recorded(RecordSealed, _sealed, rule="AMB-39", audit=AuditLine(
        "record", N_("Sealed a record; digest {digest}…"), lambda e: {"digest": e.digest[:12]},
        rule=lambda e: e.rule, any_office=True, platform=True)),))
def reveal_sealed_record(p: Progress, c: RevealSealedRecord) -> None:
    """IMPEACH-3: reasons may be disclosed no earlier than the end of the game."""
    s = p.state
    require_procurator(s, c.actor)
    record = next((r for r in s.records.sealed if r.number == c.record), None)
    check(record is not None, ErrorCode.UNKNOWN_RECORD)
    assert record is not None
    check(s.stage is Stage.FINISHED, ErrorCode.RECORD_STILL_SEALED, "IMPEACH-3")
    check(not record.opened, ErrorCode.ALREADY_DECIDED)
    open_record(p, record.number, c.actor)
