"""The host-side sub-state: every recorded [HOST] decision and what later rules need of it.

``GameState.records`` holds one ``HostRecords``. It is built only by ``evolve_host`` and,
like the rest of the state, never mutated in place.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import date, datetime
from enum import StrEnum

from .audience import Audience

EXPECTED_GAME_DAYS = (10, 14)
"""TIME-9: a game is expected to last 10–14 calendar days. Informational, never enforced."""


@dataclass(frozen=True, slots=True)
class AuditEntry:
    """One line of the host audit log (§9.1 p.4): who decided what, when and why."""

    number: int
    at: datetime
    host: str
    rule: str
    action: str
    reason: str
    audience: Audience
    """The entry is readable by exactly the audience of the event that recorded it."""


@dataclass(frozen=True, slots=True)
class MessageRef:
    """A link to one message: its inbox and its position in the game log (IMPEACH-2)."""

    inbox: str
    seq: int


@dataclass(frozen=True, slots=True)
class Delegation:
    """HOST-TRIB-2 (AMB-27): another city's Tribune stands in for voting operations."""

    number: int
    city: str
    delegate: str
    starts_at: datetime
    until: datetime
    scope: str
    revoked: bool = False


class SoundKind(StrEnum):
    CONFRONTATION = "confrontation"
    INTERROGATION = "interrogation"
    LAST_WORD = "last_word"
    SEANCE = "seance"


class RequestState(StrEnum):
    SUBMITTED = "submitted"
    FORWARDED = "forwarded"
    ACCEPTED = "accepted"
    DECLINED = "declined"
    DONE = "done"


@dataclass(frozen=True, slots=True)
class SoundRequest:
    """A Sound Library request the requester can follow (ROLE-CIT-5, SOUND-*)."""

    number: int
    kind: SoundKind
    city: str
    """The city whose library will publish the entry (SOUND-CONF-6, SOUND-SEANCE-3)."""
    requester: str
    target: str | None
    handler: str
    """Who holds the request now: 'tribune' (of ``city``) or 'procurator'."""
    state: RequestState
    submitted_at: datetime
    inalienable: bool = False
    """SOUND-LW-5: made while the candidate's voting inbox lived; it must be honoured."""
    form: str | None = None
    """Séance: 'acoustic' or 'visual' (SOUND-SEANCE-2)."""


@dataclass(frozen=True, slots=True)
class SoundEntry:
    """A published Sound Library entry. Media storage is not the engine's: an id and a length."""

    number: int
    kind: SoundKind
    city: str
    participants: tuple[str, ...]
    requester: str | None
    host: str
    media: str
    duration_seconds: int
    outcome: str
    request: int | None
    at: datetime


@dataclass(frozen=True, slots=True)
class Impeachment:
    """IMPEACH-1..6: one demand against one city's Tribune."""

    number: int
    city: str
    tribune: str
    initiators: tuple[str, ...]
    inbox: str
    filed_at: datetime
    outcome: str | None = None


@dataclass(frozen=True, slots=True)
class InboxBan:
    """HOST-ARB-3 (AMB-34): read-only in an inbox lineage (its renewals too) until ``until``."""

    case: int
    user: str
    lineage: str
    """'<kind>:<scope>': the inbox id without its generation, so renewals keep the ban."""
    until: datetime
    lifted: bool = False


@dataclass(frozen=True, slots=True)
class PrivateCase:
    """HOST-ARB-3: a private-prosecution case file."""

    number: int
    complainant: str
    accused: str
    charge: str
    evidence: tuple[MessageRef, ...]
    filed_at: datetime
    decision: str | None = None


@dataclass(frozen=True, slots=True)
class Complaint:
    """NOCONF-1/2. A complaint against the Consigliere carries the city only, never the sender."""

    number: int
    target: str
    city: str
    complainant: str | None
    decided: bool = False


@dataclass(frozen=True, slots=True)
class Relay:
    """MAFIA-COMM-1..3: a message, gift or fish waiting for the Consigliere's review."""

    number: int
    from_city: str
    to_city: str
    kind: str
    text: str
    state: str = "pending"


@dataclass(frozen=True, slots=True)
class SealedRecord:
    """A notary-style sealed record: immutable, timestamped, hashed (AMB-39)."""

    number: int
    kind: str
    digest: str
    sealed_at: datetime
    content: tuple[tuple[str, str], ...]
    opens_at_game_end: bool
    opened: bool = False


@dataclass(frozen=True, slots=True)
class Contest:
    """HOST-PROC-5: a charade or contest published in the Day Post."""

    number: int
    day: int
    title: str
    results_recorded: bool = False


@dataclass(frozen=True, slots=True)
class Sanction:
    """PLAYER-7, OMERTA-2, IMPEACH-5: a recorded game ban, for a period or for life."""

    number: int
    user: str
    rule: str
    until: date | None


@dataclass(frozen=True, slots=True)
class HostRecords:
    audit: tuple[AuditEntry, ...] = ()
    acknowledged: frozenset[str] = frozenset()
    """HOST-2: users whose host-role combination the Procurator acknowledged."""
    contests: tuple[Contest, ...] = ()
    delegations: tuple[Delegation, ...] = ()
    sound_requests: tuple[SoundRequest, ...] = ()
    sound_entries: tuple[SoundEntry, ...] = ()
    impeachments: tuple[Impeachment, ...] = ()
    signatures: tuple[tuple[str, str], ...] = ()
    """(city, user): signatures of the pending impeachment demand of each city."""
    grants: frozenset[tuple[str, str, int]] = frozenset()
    """(viewer, inbox, seq): read access to single messages given as evidence (SEC-12)."""
    cases: tuple[PrivateCase, ...] = ()
    bans: tuple[InboxBan, ...] = ()
    complaints: tuple[Complaint, ...] = ()
    relays: tuple[Relay, ...] = ()
    sealed: tuple[SealedRecord, ...] = ()
    sanctions: tuple[Sanction, ...] = ()
    ambush_orders: tuple[tuple[str, tuple[str, ...]], ...] = ()
    """(city, mafiosi in order): the Consigliere's ambush order (AMBUSH-6)."""
    godfather_rules: tuple[tuple[str, str], ...] = ()
    """(city, rule): the Consigliere's Godfather election rule (GODFATHER-2)."""
    silent_procedures: tuple[tuple[str, str], ...] = ()
    """(city, procedure): the Consigliere's procedure for a silent Godfather (MAFIA-KILL-5)."""

    # --- queries used across the engine ----------------------------------------------

    def delegate_active(self, city: str, user: str, now: datetime, tribunes: Iterable[str]) -> bool:
        """HOST-TRIB-2: ``user`` stands in for ``city``'s Tribune at ``now``."""
        if user not in set(tribunes):
            return False
        return any(
            d.city == city and d.delegate == user and not d.revoked and d.starts_at <= now < d.until
            for d in self.delegations
        )

    def banned(self, inbox_id: str, user: str, now: datetime | None) -> bool:
        """HOST-ARB-3: an unlifted ban on the inbox's lineage, in force at ``now``.

        Without a clock a ban cannot be shown to have expired, so it counts as in force.
        """
        lineage = inbox_id.rsplit(":", 1)[0]
        return any(
            b.user == user and b.lineage == lineage and not b.lifted
            and (now is None or now < b.until)
            for b in self.bans
        )

    def granted(self, viewer: str, ref: MessageRef) -> bool:
        """SEC-12: ``viewer`` was shown exactly this message as evidence."""
        return (viewer, ref.inbox, ref.seq) in self.grants

    def audit_for(self, viewer: str | None) -> list[AuditEntry]:
        """The audit log as ``viewer`` may read it (§9.1 p.4)."""
        return [e for e in self.audit if viewer in e.audience]

    def ambush_order(self, city: str) -> tuple[str, ...]:
        return next((order for c, order in self.ambush_orders if c == city), ())

    def godfather_rule(self, city: str) -> str:
        return next((rule for c, rule in self.godfather_rules if c == city), "plurality")

    def silent_procedure(self, city: str) -> str:
        return next((proc for c, proc in self.silent_procedures if c == city), "majority")

    def open_impeachment(self, city: str) -> Impeachment | None:
        return next((i for i in self.impeachments if i.city == city and i.outcome is None), None)

    def signers(self, city: str) -> tuple[str, ...]:
        return tuple(u for c, u in self.signatures if c == city)
