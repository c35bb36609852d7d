"""Commands of the host-side rules. Every [HOST] decision is one, issued by the host who decides."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime
from typing import TYPE_CHECKING, Any

from .commands import Command
from .records import MessageRef

_C = {"frozen": True, "slots": True, "kw_only": True}


@dataclass(**_C)
class RecordSanction(Command):
    """OMERTA-2, IMPEACH-5, AMB-38: a game ban for a period (``until``) or for life (None)."""

    user: str
    rule: str
    until: date | None
    reason: str


@dataclass(**_C)
class RevealSealedRecord(Command):
    """IMPEACH-3: after the game, the Procurator may disclose his sealed reasons."""

    record: int


# --- Sound Library -----------------------------------------------------------------


@dataclass(**_C)
class RequestSound(Command):
    """A confrontation, interrogation, Last Word or séance request (SOUND, ROLE-CIT-5)."""

    kind: str
    target: str | None = None
    to_procurator: bool = False
    form: str | None = None
    note: str = ""


@dataclass(**_C)
class ForwardSoundRequest(Command):
    """ROLE-CIT-5: the Tribune passes a request on to the Procurator."""

    request: int
    reason: str = ""


@dataclass(**_C)
class AnswerSoundRequest(Command):
    request: int
    accept: bool
    scheduled_for: datetime | None = None
    reason: str = ""


@dataclass(**_C)
class PublishSoundEntry(Command):
    """Publish a recording (or a confrontation refused / not attended, AMB-28)."""

    kind: str
    media: str
    duration_seconds: int
    request: int | None = None
    city: str | None = None
    participants: tuple[str, ...] = ()
    outcome: str = "recorded"
    notes: str = ""


# --- impeachment, no-confidence, private prosecution -------------------------------


@dataclass(**_C)
class SignImpeachment(Command):
    """IMPEACH-1: one citizen's signature under his city's demand against its Tribune."""

    grievance: str = ""


@dataclass(**_C)
class LinkEvidence(Command):
    """IMPEACH-2, HOST-ARB-3, SEC-12: show the case's host exactly these messages."""

    case: str
    """'impeachment:<n>' or 'private:<n>'."""
    messages: tuple[MessageRef, ...]


@dataclass(**_C)
class DecideImpeachment(Command):
    impeachment: int
    outcome: str
    reason: str
    new_tribune: str | None = None
    bonus: str = ""
    consulted_consigliere: bool = True


@dataclass(**_C)
class ExpressNoConfidence(Command):
    """NOCONF-1 (target 'arbiter') or NOCONF-2 (target 'consigliere')."""

    target: str
    text: str


@dataclass(**_C)
class DecideNoConfidence(Command):
    complaint: int
    justified: bool
    reason: str
    bonus: str = ""


@dataclass(**_C)
class FilePrivateCase(Command):
    """HOST-ARB-3: insult, slander or 'moral abuse'."""

    accused: str
    charge: str
    text: str
    evidence: tuple[MessageRef, ...] = ()


@dataclass(**_C)
class DecidePrivateCase(Command):
    case: int
    guilty: bool
    reason: str
    inboxes: tuple[str, ...] = ()
    until: datetime | None = None


@dataclass(**_C)
class LiftInboxBan(Command):
    case: int
    reason: str


# --- inter-city mafia relay --------------------------------------------------------


@dataclass(**_C)
class SendMafiaRelay(Command):
    """MAFIA-COMM-1..3: 'message', 'gift' or 'fish' to another city's Godfather."""

    to_city: str
    kind: str
    text: str = ""


@dataclass(**_C)
class ReviewMafiaRelay(Command):
    relay: int
    approve: bool
    reason: str = ""


# --- the decisions declared in engine/decisions (one module each): their old address -----

if TYPE_CHECKING:
    from .decisions.combination import AcknowledgeCombination as AcknowledgeCombination
    from .decisions.contests import PublishContest as PublishContest
    from .decisions.contests import RecordContestResults as RecordContestResults
    from .decisions.delegation import DelegateTribune as DelegateTribune
    from .decisions.delegation import RevokeDelegation as RevokeDelegation
    from .decisions.mafia_rules import SetAmbushOrder as SetAmbushOrder
    from .decisions.mafia_rules import SetGodfatherElectionRule as SetGodfatherElectionRule
    from .decisions.mafia_rules import SetSilentGodfatherProcedure as SetSilentGodfatherProcedure


def __getattr__(name: str) -> type[Any]:
    """A command declared with ``@host_decision`` (``engine/decision.py``), by its old address."""
    if name.startswith("__"):  # the import system asks for __path__ and the like
        raise AttributeError(name)
    from .decision import declared

    return declared(name)
