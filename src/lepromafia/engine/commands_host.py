"""Commands of the host-side rules. Every [HOST] decision is one, issued by the host who decides."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from .commands import Command
from .records import MessageRef

_C = {"frozen": True, "slots": True, "kw_only": True}




# --- Sound Library -----------------------------------------------------------------


@dataclass(**_C)
class RequestSound(Command):
    """A confrontation, interrogation, Last Word or séance request (SOUND, ROLE-CIT-5)."""

    kind: str
    target: str | None = None
    to_procurator: bool = False
    form: str | None = None
    note: str = ""





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
class ExpressNoConfidence(Command):
    """NOCONF-1 (target 'arbiter') or NOCONF-2 (target 'consigliere')."""

    target: str
    text: str



@dataclass(**_C)
class FilePrivateCase(Command):
    """HOST-ARB-3: insult, slander or 'moral abuse'."""

    accused: str
    charge: str
    text: str
    evidence: tuple[MessageRef, ...] = ()




# --- inter-city mafia relay --------------------------------------------------------


@dataclass(**_C)
class SendMafiaRelay(Command):
    """MAFIA-COMM-1..3: 'message', 'gift' or 'fish' to another city's Godfather."""

    to_city: str
    kind: str
    text: str = ""



# --- the decisions declared in engine/decisions (one module each): their old address -----

if TYPE_CHECKING:
    from .decisions.cases import DecideImpeachment as DecideImpeachment
    from .decisions.cases import DecideNoConfidence as DecideNoConfidence
    from .decisions.cases import DecidePrivateCase as DecidePrivateCase
    from .decisions.cases import LiftInboxBan as LiftInboxBan
    from .decisions.combination import AcknowledgeCombination as AcknowledgeCombination
    from .decisions.contests import PublishContest as PublishContest
    from .decisions.contests import RecordContestResults as RecordContestResults
    from .decisions.delegation import DelegateTribune as DelegateTribune
    from .decisions.delegation import RevokeDelegation as RevokeDelegation
    from .decisions.mafia_rules import SetAmbushOrder as SetAmbushOrder
    from .decisions.mafia_rules import SetGodfatherElectionRule as SetGodfatherElectionRule
    from .decisions.mafia_rules import SetSilentGodfatherProcedure as SetSilentGodfatherProcedure
    from .decisions.relay import ReviewMafiaRelay as ReviewMafiaRelay
    from .decisions.sanctions import RecordSanction as RecordSanction
    from .decisions.sealed_records import RevealSealedRecord as RevealSealedRecord
    from .decisions.sound_library import AnswerSoundRequest as AnswerSoundRequest
    from .decisions.sound_library import ForwardSoundRequest as ForwardSoundRequest
    from .decisions.sound_library import PublishSoundEntry as PublishSoundEntry


def __getattr__(name: str) -> type[Any]:
    """A command declared with ``@host_decision`` (``engine/decision.py``), by its old address;
    kept in the module once found, so the next read is a plain attribute (a read per command
    on the service's hot path went through here every time)."""
    if name.startswith("__"):  # the import system asks for __path__ and the like
        raise AttributeError(name)
    from .decision import declared

    found = globals()[name] = declared(name)
    return found
