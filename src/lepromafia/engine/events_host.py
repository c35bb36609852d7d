"""Events of the host-side rules: [HOST] decisions, the Sound Library, cases and relays.

Every ``HostDecision`` is one line of the game's audit log: who decided (``host``), under
which rule, and why (``reason``). Its audience is exactly who §9 lets know it.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime
from typing import TYPE_CHECKING, Any

from .events import Event
from .records import MessageRef

_E = {"frozen": True, "slots": True, "kw_only": True}


@dataclass(**_E)
class HostDecision(Event):
    host: str
    rule: str
    reason: str


# --- notary records and sealed reasons (COMM-APPT-6, IMPEACH-3) ------------------------


@dataclass(**_E)
class RecordSealed(HostDecision):
    """The sealed content is the organizer's alone until it opens."""

    record: int
    kind: str
    digest: str
    content: tuple[tuple[str, str], ...]
    opens_at_game_end: bool


@dataclass(**_E)
class RecordOpened(Event):
    """§9.4, AMB-39: a sealed record made public, checkable against its digest."""

    record: int
    kind: str
    digest: str
    content: tuple[tuple[str, str], ...]
    sealed_at: datetime
    opened_by: str


# --- sanctions (OMERTA-2, IMPEACH-5, PLAYER-7) -----------------------------------------


@dataclass(**_E)
class SanctionRecorded(HostDecision):
    sanction: int
    user: str
    until: date | None
    """None: for life."""


# --- Sound Library (SOUND, ROLE-CIT-5, ROLE-DEAD-2, HOST-PROC-4) -----------------------


@dataclass(**_E)
class SoundRequested(Event):
    request: int
    kind: str
    city: str
    requester: str
    target: str | None
    handler: str
    inalienable: bool
    form: str | None
    note: str


@dataclass(**_E)
class SoundRequestForwarded(HostDecision):
    request: int
    to: str


@dataclass(**_E)
class SoundRequestAnswered(HostDecision):
    request: int
    accepted: bool
    scheduled_for: datetime | None


@dataclass(**_E)
class SoundEntryPublished(HostDecision):
    """``host`` is whoever ran or recorded it; for a self-recorded Last Word, the candidate."""

    entry: int
    kind: str
    city: str
    participants: tuple[str, ...]
    requester: str | None
    media: str
    duration_seconds: int
    outcome: str
    request: int | None
    notes: str


# --- impeachment and evidence (IMPEACH-1..6, SEC-12) ----------------------------------


@dataclass(**_E)
class ImpeachmentSigned(Event):
    city: str
    user: str
    signatures: int
    needed: int
    grievance: str


@dataclass(**_E)
class ImpeachmentDemanded(Event):
    impeachment: int
    city: str
    tribune: str
    initiators: tuple[str, ...]
    living: int
    needed: int


@dataclass(**_E)
class EvidenceLinked(Event):
    """SEC-12: read access to exactly these messages, for exactly this viewer."""

    case: str
    grantor: str
    viewer: str
    messages: tuple[MessageRef, ...]


@dataclass(**_E)
class ImpeachmentDecided(HostDecision):
    impeachment: int
    city: str
    outcome: str
    """'replace', 'bonus', 'unfounded' or 'insignificant' (reasons sealed)."""
    bonus: str
    sealed_record: int | None


@dataclass(**_E)
class TribuneReplaced(HostDecision):
    """IMPEACH-6: the new Tribune organizes every inbox of the city from now on."""

    city: str
    old: str
    new: str
    warnings: tuple[str, ...]


# --- no-confidence (NOCONF-1/2, HOST-ARB-4, HOST-CONS-8) -------------------------------


@dataclass(**_E)
class NoConfidenceExpressed(Event):
    complaint: int
    target: str
    city: str
    complainant: str | None
    """None for a complaint against the Consigliere: the Procurator learns the city only."""
    text: str


@dataclass(**_E)
class NoConfidenceReceipt(Event):
    """The sender's own copy of a complaint whose author the Procurator must not learn."""

    complaint: int
    target: str
    text: str


@dataclass(**_E)
class NoConfidenceAnswered(Event):
    """NOCONF-2: the Procurator's answer, posted to the complaining city's mafia."""

    complaint: int
    justified: bool
    bonus: str


@dataclass(**_E)
class NoConfidenceDecided(HostDecision):
    complaint: int
    target: str
    city: str
    justified: bool
    bonus: str


# --- private prosecution and bans (HOST-ARB-3, AMB-34) -------------------------------


@dataclass(**_E)
class PrivateCaseFiled(Event):
    case: int
    complainant: str
    accused: str
    charge: str
    evidence: tuple[MessageRef, ...]
    text: str


@dataclass(**_E)
class PrivateCaseDecided(HostDecision):
    case: int
    guilty: bool
    inboxes: tuple[str, ...]
    until: datetime | None


@dataclass(**_E)
class InboxBanImposed(HostDecision):
    """Carried out by the platform on behalf of the inbox's organizer (INBOX-GEN-4)."""

    case: int
    user: str
    inbox: str
    lineage: str
    organizer: str
    until: datetime


@dataclass(**_E)
class InboxBanLifted(HostDecision):
    case: int
    user: str


# --- inter-city mafia relay (MAFIA-COMM-1..3) --------------------------------------


@dataclass(**_E)
class MafiaRelaySubmitted(Event):
    relay: int
    from_city: str
    to_city: str
    kind: str
    text: str
    sender: str


@dataclass(**_E)
class MafiaRelayReviewed(HostDecision):
    relay: int
    from_city: str
    approved: bool


@dataclass(**_E)
class MafiaRelayDelivered(Event):
    """Shown to the receiving Godfather as from 'the mafia of <city>', via 'Consigliere'."""

    relay: int
    from_city: str
    to_city: str
    kind: str
    text: str


# --- public discussion (POST-1, POST-2) -------------------------------------------------


@dataclass(**_E)
class CommentHidden(HostDecision):
    """The Procurator hid a comment; its place shows "hidden by the Procurator: <reason>"."""

    comment: int


# --- the decisions declared in engine/decisions (one module each): their old address -----

if TYPE_CHECKING:
    from .decisions.combination import CombinationAcknowledged as CombinationAcknowledged
    from .decisions.contests import ContestPublished as ContestPublished
    from .decisions.contests import ContestResultsRecorded as ContestResultsRecorded
    from .decisions.delegation import DelegationRevoked as DelegationRevoked
    from .decisions.delegation import TribuneDelegated as TribuneDelegated
    from .decisions.mafia_rules import AmbushOrderSet as AmbushOrderSet
    from .decisions.mafia_rules import GodfatherElectionRuleSet as GodfatherElectionRuleSet
    from .decisions.mafia_rules import SilentGodfatherProcedureSet as SilentGodfatherProcedureSet


def __getattr__(name: str) -> type[Any]:
    """An event declared with ``@host_decision`` (``engine/decision.py``), by its old address."""
    if name.startswith("__"):  # the import system asks for __path__ and the like
        raise AttributeError(name)
    from .decision import declared

    return declared(name)
