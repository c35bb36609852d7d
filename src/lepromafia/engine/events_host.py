"""Events of the host-side rules: [HOST] decisions, the Sound Library, cases and relays.

Every ``HostDecision`` is one line of the game's audit log: who decided (``host``), under
which rule, and why (``reason``). Its audience is exactly who §9 lets know it.
"""

from __future__ import annotations

from dataclasses import dataclass
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




# --- sanctions (OMERTA-2, IMPEACH-5, PLAYER-7) -----------------------------------------



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




# --- private prosecution and bans (HOST-ARB-3, AMB-34) -------------------------------


@dataclass(**_E)
class PrivateCaseFiled(Event):
    case: int
    complainant: str
    accused: str
    charge: str
    evidence: tuple[MessageRef, ...]
    text: str





# --- inter-city mafia relay (MAFIA-COMM-1..3) --------------------------------------


@dataclass(**_E)
class MafiaRelaySubmitted(Event):
    relay: int
    from_city: str
    to_city: str
    kind: str
    text: str
    sender: str




# --- public discussion (POST-1, POST-2) -------------------------------------------------



# --- the decisions declared in engine/decisions (one module each): their old address -----

if TYPE_CHECKING:
    from .decisions.cases import ImpeachmentDecided as ImpeachmentDecided
    from .decisions.cases import InboxBanImposed as InboxBanImposed
    from .decisions.cases import InboxBanLifted as InboxBanLifted
    from .decisions.cases import NoConfidenceAnswered as NoConfidenceAnswered
    from .decisions.cases import NoConfidenceDecided as NoConfidenceDecided
    from .decisions.cases import PrivateCaseDecided as PrivateCaseDecided
    from .decisions.cases import TribuneReplaced as TribuneReplaced
    from .decisions.combination import CombinationAcknowledged as CombinationAcknowledged
    from .decisions.contests import ContestPublished as ContestPublished
    from .decisions.contests import ContestResultsRecorded as ContestResultsRecorded
    from .decisions.delegation import DelegationRevoked as DelegationRevoked
    from .decisions.delegation import TribuneDelegated as TribuneDelegated
    from .decisions.discussion import CommentHidden as CommentHidden
    from .decisions.mafia_rules import AmbushOrderSet as AmbushOrderSet
    from .decisions.mafia_rules import GodfatherElectionRuleSet as GodfatherElectionRuleSet
    from .decisions.mafia_rules import SilentGodfatherProcedureSet as SilentGodfatherProcedureSet
    from .decisions.relay import MafiaRelayDelivered as MafiaRelayDelivered
    from .decisions.relay import MafiaRelayReviewed as MafiaRelayReviewed
    from .decisions.sanctions import SanctionRecorded as SanctionRecorded
    from .decisions.sealed_records import RecordOpened as RecordOpened
    from .decisions.sealed_records import RecordSealed as RecordSealed
    from .decisions.sound_library import SoundEntryPublished as SoundEntryPublished
    from .decisions.sound_library import SoundRequestAnswered as SoundRequestAnswered
    from .decisions.sound_library import SoundRequestForwarded as SoundRequestForwarded


def __getattr__(name: str) -> type[Any]:
    """An event declared with ``@host_decision`` (``engine/decision.py``), by its old address;
    kept in the module once found, so the next read is a plain attribute (a read per command
    on the service's hot path went through here every time)."""
    if name.startswith("__"):  # the import system asks for __path__ and the like
        raise AttributeError(name)
    from .decision import declared

    found = globals()[name] = declared(name)
    return found
