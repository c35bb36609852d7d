"""Commands: what somebody asks for, in the imperative. Frozen.

``actor`` is the user issuing the command. Randomness arrives only here: a shuffle
(``SealDeal.lists``), a drawn number (``OfferCommissar.draw``), a lot seed
(``FireDeadline.seed``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date, datetime
from typing import Any

_C = {"frozen": True, "slots": True, "kw_only": True}

REQUIREMENTS = frozenset({"active", "rules_read", "voice_contact", "no_insults", "omerta"})
"""PLAYER-2..6, which a player accepts by signing up (PLAYER-1)."""


@dataclass(**_C)
class Command:
    actor: str


@dataclass(**_C)
class CreateGame(Command):
    title: str
    settings: dict[str, Any] = field(default_factory=dict)


@dataclass(**_C)
class SignUp(Command):
    accepted: frozenset[str]
    has_contact: bool


@dataclass(**_C)
class WithdrawSignUp(Command):
    pass


@dataclass(**_C)
class AppointHost(Command):
    office: str
    user: str


@dataclass(**_C)
class CityPlan:
    name: str
    tribune: str
    residents: tuple[str, ...]


@dataclass(**_C)
class FormCities(Command):
    cities: tuple[CityPlan, ...]


@dataclass(**_C)
class SealDeal(Command):
    lists: tuple[tuple[str, tuple[str, ...]], ...]
    salt: str


@dataclass(**_C)
class NameMafiaNumbers(Command):
    city: str
    numbers: tuple[int, ...]


@dataclass(**_C)
class CommitDealEntropy(Command):
    """The commit-reveal deal: commit to a value by its SHA-256 (lowercase hex)."""

    digest: str


@dataclass(**_C)
class OpenDealReveals(Command):
    """The Procurator closes the commitments; the service supplies its own commitment."""

    server_digest: str = ""


@dataclass(**_C)
class RevealDealEntropy(Command):
    value: str


@dataclass(**_C)
class AcknowledgeRole(Command):
    pass


@dataclass(**_C)
class StartGame(Command):
    first_day: date


@dataclass(**_C)
class FireDeadline(Command):
    """Issued by the scheduler (actor 'system'); stale keys are ignored."""

    key: str
    seed: int = 0


@dataclass(**_C)
class SetDayStart(Command):
    day: int
    time: str


@dataclass(**_C)
class DeclareLongDay(Command):
    day: int
    length_days: int


@dataclass(**_C)
class ShortenDay(Command):
    day: int
    end_at: datetime
    next_start_at: datetime
    decision_offset_minutes: int = 120
    ambush_window_minutes: int = 60


@dataclass(**_C)
class ScheduleExecutionVote(Command):
    city: str
    opens_at: datetime
    closes_at: datetime
    nominations_close_at: datetime | None = None


@dataclass(**_C)
class Nominate(Command):
    candidate: str


@dataclass(**_C)
class RequestProxyVote(Command):
    candidates: tuple[str, ...]


@dataclass(**_C)
class DeclareSuicide(Command):
    pass


@dataclass(**_C)
class WithdrawSuicide(Command):
    pass


@dataclass(**_C)
class RequestObservation(Command):
    city: str


@dataclass(**_C)
class PostMessage(Command):
    inbox: str
    text: str


@dataclass(**_C)
class CreateSecretInbox(Command):
    """INBOX-SECRET-1. ``key`` names the inbox: 16–32 hex digits the platform draws (F3-6), so
    no one learns from a secret inbox's id how many others exist."""

    title: str
    members: tuple[str, ...]
    key: str


@dataclass(**_C)
class CloseSecretInbox(Command):
    inbox: str


@dataclass(**_C)
class RenewInbox(Command):
    inbox: str


@dataclass(**_C)
class OfferCommissar(Command):
    city: str
    draw: int


@dataclass(**_C)
class AnswerCommissarOffer(Command):
    accept: bool


@dataclass(**_C)
class VoteGodfather(Command):
    candidate: str


@dataclass(**_C)
class AppointGodfather(Command):
    city: str
    godfather: str


@dataclass(**_C)
class DemandGodfatherReelection(Command):
    pass


@dataclass(**_C)
class DeclareKill(Command):
    """From the Godfather an order; from another mafioso his voice (confirmation/vote)."""

    target: str
    """A resident, or NO_KILL."""
    tour: bool = False


@dataclass(**_C)
class CheckResident(Command):
    target: str


@dataclass(**_C)
class ScheduleJudgeElection(Command):
    city: str
    opens_at: datetime
    closes_at: datetime


@dataclass(**_C)
class ProposeJudge(Command):
    candidate: str


@dataclass(**_C)
class DeclineCandidacy(Command):
    pass


@dataclass(**_C)
class RequestJudgeProxy(Command):
    candidate: str
    in_favour: bool


@dataclass(**_C)
class VotePardon(Command):
    city: str
    pardon: bool


@dataclass(**_C)
class ChoosePardonPreset(Command):
    majority: str


@dataclass(**_C)
class FilePetition(Command):
    pass


@dataclass(**_C)
class ConfirmPetition(Command):
    pass


@dataclass(**_C)
class Recuse(Command):
    pass


@dataclass(**_C)
class PlaceAmbush(Command):
    target: str


@dataclass(**_C)
class WithdrawAmbush(Command):
    pass


@dataclass(**_C)
class ConfirmMafiosoDisclosure(Command):
    user: str
    reason: str


@dataclass(**_C)
class ConfirmCommissarDisclosure(Command):
    city: str
    reason: str


@dataclass(**_C)
class ProposeRestoration(Command):
    city: str
    new_name: str
    reason: str
    expelled: tuple[str, ...] = ()


@dataclass(**_C)
class SignRestoration(Command):
    city: str


@dataclass(**_C)
class SealRestorationList(Command):
    city: str
    order: tuple[str, ...]
    salt: str


@dataclass(**_C)
class NameRestorationNumbers(Command):
    city: str
    numbers: tuple[int, ...]


@dataclass(**_C)
class GiveArchiveConsent(Command):
    inbox: str
    consent: bool


@dataclass(**_C)
class RequestArchive(Command):
    inbox: str


@dataclass(**_C)
class AnswerCheck(Command):
    """The Consigliere's answer to a pending check: "mafia" (True) or "not mafia" (False)."""

    city: str
    is_mafia: bool


# --- community seed systems: public discussion, notary inboxes (engine/seeds.py) ------


@dataclass(**_C)
class PostComment(Command):
    """POST-1, POST-2: comment under the Recruitment Post (``recruitment``) or a Day Post
    (``day:<n>``). Any member of the community may; the web checks the registry ban."""

    post: str
    text: str


@dataclass(**_C)
class HideComment(Command):
    """POST-1, POST-2: the Procurator, organizer of the posts, hides a comment, saying why."""

    comment: int
    reason: str


@dataclass(**_C)
class CreateNotaryInbox(Command):
    """INBOX-NOTARY-1/2: certify a secret; ``salt`` (random, from the caller) makes the
    published SHA-256 digest unguessable."""

    title: str
    content: str
    salt: str


@dataclass(**_C)
class GrantNotaryAccess(Command):
    """INBOX-NOTARY-3: the organizer lets ``user`` read the secret and check the digest."""

    inbox: str
    user: str


@dataclass(**_C)
class PublishNotaryInbox(Command):
    """§9.4 ("other notary inboxes: at the organizer's discretion"): open it to everyone
    once the game has ended."""

    inbox: str
