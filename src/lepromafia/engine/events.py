"""Events: what happened, in the past tense. Frozen; each carries its audience (§9).

``at`` is the moment the event happened (the command's ``ctx.now``).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime

from .audience import Audience
from .settings import GameSettings

_E = {"frozen": True, "slots": True, "kw_only": True}


@dataclass(**_E)
class Event:
    at: datetime
    audience: Audience


@dataclass(**_E)
class CitySpec:
    name: str
    tribune: str
    residents: tuple[str, ...]
    mafia_count: int = 0


# --- recruitment, hosts, cities ------------------------------------------------------


@dataclass(**_E)
class GameCreated(Event):
    title: str
    procurator: str
    settings: GameSettings


@dataclass(**_E)
class PlayerSignedUp(Event):
    user: str


@dataclass(**_E)
class SignUpWithdrawn(Event):
    user: str


@dataclass(**_E)
class HostAppointed(Event):
    office: str
    user: str
    warnings: tuple[str, ...] = ()


@dataclass(**_E)
class CitiesFormed(Event):
    cities: tuple[CitySpec, ...]


# --- the deal (DIST, RANDOM) ---------------------------------------------------------


@dataclass(**_E)
class DealSealed(Event):
    """RANDOM-3: the public commitment to the sealed lists."""

    commitment: str


@dataclass(**_E)
class DealListsRecorded(Event):
    """RANDOM-2/3: the notary inbox content, the Consigliere's alone until game end."""

    lists: tuple[tuple[str, tuple[str, ...]], ...]
    salt: str


@dataclass(**_E)
class MafiaNumbersNamed(Event):
    city: str
    numbers: tuple[int, ...]


@dataclass(**_E)
class MafiaDealt(Event):
    city: str
    mafiosi: tuple[str, ...]


@dataclass(**_E)
class DealEntropyCommitted(Event):
    """The commit-reveal deal (docs/verification.md): a party's SHA-256 commitment."""

    party: str
    digest: str


@dataclass(**_E)
class DealRevealsOpened(Event):
    """No more commitments; the server's own is added; the parties reveal until ``closes_at``."""

    parties: tuple[str, ...]
    server_digest: str
    closes_at: datetime


@dataclass(**_E)
class DealEntropyRevealed(Event):
    party: str
    value: str


@dataclass(**_E)
class DealEntropyReplaced(Event):
    """A party silent when the reveals closed: the value that stands in for his, recorded."""

    party: str
    value: str


@dataclass(**_E)
class HonestNoticeIssued(Event):
    """DIST-5 / SEC-7: the one notice every honest resident gets, identical for all."""

    city: str


@dataclass(**_E)
class DealCompleted(Event):
    mafia_counts: tuple[tuple[str, int], ...]


@dataclass(**_E)
class RoleAcknowledged(Event):
    user: str


@dataclass(**_E)
class MafiaAcknowledged(Event):
    """DIST-3: every mafioso of the city acknowledged; no names."""

    city: str


@dataclass(**_E)
class GameStarted(Event):
    first_day: date


# --- calendar -----------------------------------------------------------------------


@dataclass(**_E)
class DeadlineScheduled(Event):
    key: str
    due_at: datetime


@dataclass(**_E)
class DeadlineFired(Event):
    key: str
    due_at: datetime


@dataclass(**_E)
class DayStartSet(Event):
    day: int
    time: str


@dataclass(**_E)
class LongDayDeclared(Event):
    day: int
    length_days: int


@dataclass(**_E)
class DayShortened(Event):
    day: int
    end_at: datetime
    next_start_at: datetime
    decision_offset_minutes: int
    ambush_window_minutes: int


@dataclass(**_E)
class DayStarted(Event):
    day: int
    start_at: datetime
    scheduled_end: datetime


@dataclass(**_E)
class DayEndReached(Event):
    """The scheduled end of the day; night waits for verdicts still pending (§3)."""

    day: int


@dataclass(**_E)
class NightStarted(Event):
    night: int


@dataclass(**_E)
class TourAnnounced(Event):
    """TOUR-2: tonight's touring city, public and by rotation."""

    night: int
    city: str | None
    pointer: int


@dataclass(**_E)
class ChecksOpened(Event):
    """SEC-3: checks open everywhere at the same moment, every night."""

    night: int


@dataclass(**_E)
class ChecksClosed(Event):
    """COMM-7: the night's checks close 2 hours before the next day starts."""

    night: int


@dataclass(**_E)
class DeathNotice:
    user: str
    city: str
    faction: str
    cause: str


@dataclass(**_E)
class VoteResult:
    """One city's execution vote as published (EXEC-9, EXEC-14): tallies with the counted
    voters and who changed his mind, and the condemned."""

    city: str
    day: int
    tallies: tuple[Tally, ...]
    condemned: str | None
    ranking: tuple[str, ...] = ()
    """The candidates in the order of EXEC-10 (most votes, earliest last vote, the lot)."""
    lot: tuple[str, ...] = ()
    """The tied candidates a logged lot chose among (EXEC-10), empty if none was drawn."""


@dataclass(**_E)
class VerdictNotice:
    """The Court's verdict (COURT-7), announced by the Tribune in the Day Post."""

    city: str
    day: int
    candidate: str
    pardoned: bool
    pardon_votes: int
    no_pardon_votes: int


@dataclass(**_E)
class JudgeResult:
    """A judge election's result (JUDGE-ELECT-15); ``elected`` None: it failed."""

    city: str
    elected: str | None
    tallies: tuple[JudgeTally, ...]


@dataclass(**_E)
class DayPostPublished(Event):
    """POST-2, POST-3, HOST-PROC-3: the day's official news, generated from the record:
    everything published since the previous Day Post (D17)."""

    day: int
    night_deaths: tuple[DeathNotice, ...]
    executions: tuple[DeathNotice, ...]
    """The previous day's executions (EXEC-16)."""
    no_execution: tuple[str, ...]
    """Cities where nobody was executed the previous day (EXEC-2)."""
    touring_city: str | None
    decided: tuple[tuple[str, str], ...]
    votes: tuple[VoteResult, ...] = ()
    """Each city's execution vote (EXEC-14, HOST-TRIB-1)."""
    verdicts: tuple[VerdictNotice, ...] = ()
    """The Court's verdicts (COURT-7)."""
    suicides: tuple[DeathNotice, ...] = ()
    """The previous day's suicides (SUICIDE-1), with the faction like every death."""
    judge_elections: tuple[JudgeResult, ...] = ()
    """Judge elections closed since the previous Day Post (JUDGE-ELECT-15)."""
    final: bool = False
    """The post of the morning the game ended (D18)."""


# --- inboxes and messages -----------------------------------------------------------


@dataclass(**_E)
class InboxOpened(Event):
    inbox: str
    kind: str
    city: str | None = None
    subject: str | None = None
    generation: int = 0
    members: frozenset[str] = frozenset()
    title: str = ""


@dataclass(**_E)
class InboxArchived(Event):
    inbox: str
    readers: frozenset[str]


@dataclass(**_E)
class MessagePosted(Event):
    inbox: str
    author: str
    """The author as this inbox shows him: a user, or a pseudonym (Commissar Line)."""
    text: str


@dataclass(**_E)
class MessageEdited(Event):
    """A new version of message ``number`` of the inbox; the earlier ones stay in the log
    and on the page, so an edit never rewrites evidence."""

    inbox: str
    number: int
    author: str
    text: str


# --- day: nominations and execution votes -------------------------------------------


@dataclass(**_E)
class VoteScheduled(Event):
    city: str
    day: int
    opens_at: datetime
    closes_at: datetime
    nominations_close_at: datetime


@dataclass(**_E)
class NominationMade(Event):
    city: str
    nominator: str
    candidate: str


@dataclass(**_E)
class ProxyRequested(Event):
    city: str
    voter: str
    candidates: tuple[str, ...]


@dataclass(**_E)
class VotingOpened(Event):
    city: str
    day: int
    candidates: tuple[str, ...]


@dataclass(**_E)
class VoteCast(Event):
    city: str
    candidate: str
    voter: str
    keyword: str
    proxy: bool = False


@dataclass(**_E)
class Tally:
    candidate: str
    votes: int
    last_vote_at: datetime | None
    voters: tuple[str, ...]
    changed_minds: tuple[str, ...]


@dataclass(**_E)
class VotingClosed(Event):
    """EXEC-9/10/14: the published result with counted voters and the ranking."""

    city: str
    day: int
    tallies: tuple[Tally, ...]
    ranking: tuple[str, ...]
    condemned: str | None
    lot: tuple[str, ...] = ()
    """The candidates a logged lot chose among (EXEC-10), empty if none was drawn."""
    lot_seed: int = 0


@dataclass(**_E)
class VoteEntry:
    """One keyword of an execution vote's log, as posted (EXEC-5..8, EXEC-11)."""

    voter: str
    candidate: str
    keyword: str
    at: datetime
    proxy: bool = False
    """Cast by the Tribune at the opening on the voter's request (EXEC-11)."""


@dataclass(**_E)
class VoteCountPublished(Event):
    """EXEC-9, EXEC-14, INBOX-GEN-3: the vote count posted at the close, public: every
    keyword of the day's vote with its time, in order, and where it was posted (the city
    inbox and the Court inbox). The result itself is the ``VotingClosed`` just before."""

    city: str
    day: int
    opened_at: datetime
    log: tuple[VoteEntry, ...]
    immune: tuple[str, ...] = ()
    """Candidates counted at 0 at the close (MAFIA-DISCLOSE-4)."""
    inboxes: tuple[str, ...] = ()


@dataclass(**_E)
class ResidentDied(Event):
    user: str
    city: str
    faction: str
    cause: str
    label: str


@dataclass(**_E)
class NoExecution(Event):
    city: str
    day: int
    reason: str


@dataclass(**_E)
class SuicideDeclared(Event):
    city: str
    user: str


@dataclass(**_E)
class SuicideWithdrawn(Event):
    city: str
    user: str


@dataclass(**_E)
class ObserverJoined(Event):
    """ROLE-OBS-2: a read-only member of another city's inbox; its Tribune is notified."""

    city: str
    user: str


@dataclass(**_E)
class SpiritsChosen(Event):
    """SPIRIT-1, SPIRIT-2: today's Spirits of a city at parity (empty: the rule lapses)."""

    city: str
    day: int
    spirits: tuple[str, ...]


# --- judges and the Supreme Court ---------------------------------------------------


@dataclass(**_E)
class JudgeElectionScheduled(Event):
    city: str
    number: int
    opens_at: datetime
    closes_at: datetime
    after_removal: bool = False


@dataclass(**_E)
class JudgeProposed(Event):
    city: str
    proposer: str
    candidate: str


@dataclass(**_E)
class CandidacyDeclined(Event):
    city: str
    candidate: str


@dataclass(**_E)
class JudgeProxyRequested(Event):
    city: str
    voter: str
    candidate: str
    in_favour: bool


@dataclass(**_E)
class PollingOpened(Event):
    city: str
    number: int
    candidates: tuple[str, ...]


@dataclass(**_E)
class JudgeVoteCast(Event):
    city: str
    candidate: str
    voter: str
    in_favour: bool
    keyword: str
    proxy: bool = False


@dataclass(**_E)
class JudgeTally:
    candidate: str
    votes_for: tuple[str, ...]
    votes_against: tuple[str, ...]
    net: int
    last_for_at: datetime | None


@dataclass(**_E)
class JudgeElectionClosed(Event):
    """JUDGE-ELECT-7..15: the result with the full vote log; ``elected`` None = failed."""

    city: str
    number: int
    tallies: tuple[JudgeTally, ...]
    elected: str | None
    reason: str = ""
    lot: tuple[str, ...] = ()
    lot_seed: int = 0


@dataclass(**_E)
class PardonWindowOpened(Event):
    """COURT-2, COURT-4: the results before the Court; 30 minutes to pardon."""

    city: str
    day: int
    candidate: str
    ranking: tuple[str, ...]
    """The rest of the ranking: the runner-up if the Court pardons (EXEC-15)."""
    closes_at: datetime


@dataclass(**_E)
class PardonVoteCast(Event):
    city: str
    judge: str
    pardon: bool


@dataclass(**_E)
class VerdictReached(Event):
    """COURT-3, COURT-7, EXEC-16: the verdict, public at once."""

    city: str
    day: int
    candidate: str
    pardoned: bool
    pardon_votes: int
    no_pardon_votes: int


@dataclass(**_E)
class PardonPresetChosen(Event):
    """COURT-5: the Arbiter's voting rules, shown in the Court inbox."""

    majority: str


@dataclass(**_E)
class PetitionFiled(Event):
    city: str
    organizer: str
    judge: str
    inbox: str


@dataclass(**_E)
class PetitionConfirmed(Event):
    city: str
    user: str
    count: int
    threshold: int


@dataclass(**_E)
class JudgeRemoved(Event):
    city: str
    judge: str


@dataclass(**_E)
class JudgeRecused(Event):
    city: str
    judge: str


# --- night --------------------------------------------------------------------------


@dataclass(**_E)
class GodfatherVoteCast(Event):
    city: str
    voter: str
    candidate: str


@dataclass(**_E)
class GodfatherElected(Event):
    city: str
    godfather: str
    appointed: bool = False


@dataclass(**_E)
class GodfatherElectionFailed(Event):
    city: str
    tied: tuple[str, ...]


@dataclass(**_E)
class GodfatherReelectionDemanded(Event):
    city: str
    user: str
    opened: bool


@dataclass(**_E)
class KillDeclared(Event):
    city: str
    mafioso: str
    target: str
    tour: bool = False
    is_order: bool = False


@dataclass(**_E)
class NightDecisionFixed(Event):
    city: str
    night: int
    target: str | None
    tour: bool
    basis: str


@dataclass(**_E)
class DecisionsClosed(Event):
    """MAFIA-KILL-8: the night's mafia decisions are fixed."""

    night: int


@dataclass(**_E)
class KillReported(Event):
    """HOST-CONS-3: the decision reaches the Procurator without who made it."""

    city: str
    night: int
    target: str | None
    tour: bool


@dataclass(**_E)
class CheckAnswered(Event):
    """COMM-4/5: the truthful answer, logged for the commissar and the Consigliere."""

    city: str
    night: int
    target: str
    is_mafia: bool


@dataclass(**_E)
class CheckRequested(Event):
    """COMM-4 (AMB-20, commissar_check_mode = consigliere): the question, to be answered by
    the Consigliere, who sees the city and the target but not the commissar."""

    city: str
    night: int
    target: str


# --- commissar appointment ----------------------------------------------------------


@dataclass(**_E)
class CommissarOffered(Event):
    city: str
    attempt: int
    candidate: str
    inbox: str


@dataclass(**_E)
class CommissarOfferAnswered(Event):
    city: str
    attempt: int
    accepted: bool


@dataclass(**_E)
class CommissarOfferResolved(Event):
    city: str
    attempt: int
    accepted: bool
    lapsed: bool


@dataclass(**_E)
class CommissarAppointed(Event):
    city: str
    commissar: str
    line: str


@dataclass(**_E)
class CommissarAppointmentFailed(Event):
    city: str


@dataclass(**_E)
class CommissarVacated(Event):
    """A commissar left office (death or disclosure); whether he is replaced (COMM-9,
    AMBUSH-1, COMM-DISCLOSE-1). Only the Procurator learns it (COMM-APPT-3, SEC-2)."""

    city: str
    commissar: str
    reason: str
    replace: bool
    ambush: bool


@dataclass(**_E)
class AmbushRightGranted(Event):
    """AMBUSH-2, AMBUSH-10, AMBUSH-12: the mafia learns who the dead commissar was."""

    city: str
    dead_commissar: str
    nights: tuple[int, ...]


@dataclass(**_E)
class AmbushPlaced(Event):
    city: str
    mafioso: str
    target: str


@dataclass(**_E)
class AmbushWithdrawn(Event):
    city: str
    mafioso: str


@dataclass(**_E)
class AmbushesFixed(Event):
    """AMBUSH-4: fixed and validated when the window closes."""

    city: str
    night: int
    ambushes: tuple[tuple[str, str], ...]


@dataclass(**_E)
class CommissarExposed(Event):
    """AMBUSH-7, AMBUSH-8: the mafia (and so the Consigliere) learns who the commissar is."""

    city: str
    commissar: str
    how: str


@dataclass(**_E)
class CommissarWarned(Event):
    """AMBUSH-8: the commissar learns he was ambushed and that the mafia knows him."""

    city: str


@dataclass(**_E)
class MafiosoDisclosed(Event):
    """MAFIA-DISCLOSE-1..4: confirmed by the Procurator; immune on ``immunity_day``."""

    city: str
    user: str
    immunity_day: int
    reason: str


@dataclass(**_E)
class CommissarDisclosed(Event):
    """COMM-DISCLOSE-3, -4: confirmed by the Procurator; the commissar loses his office."""

    city: str
    reason: str


@dataclass(**_E)
class RestorationProposed(Event):
    city: str
    new_name: str
    reason: str
    expelled: tuple[str, ...]


@dataclass(**_E)
class RestorationSigned(Event):
    city: str
    host: str


@dataclass(**_E)
class RestorationBegan(Event):
    """RESTORE-1, -6, -7: the new name, public; the city pauses until the next day."""

    city: str
    new_name: str
    day: int


@dataclass(**_E)
class RestorationListSealed(Event):
    """RESTORE-3, RANDOM-3: the commitment to the new list of the living."""

    city: str
    commitment: str
    mafia_count: int


@dataclass(**_E)
class RestorationListRecorded(Event):
    city: str
    order: tuple[str, ...]
    salt: str


@dataclass(**_E)
class CityRedealt(Event):
    """RESTORE-3, -4: the new mafiosi among the living (their own and the Consigliere's)."""

    city: str
    mafiosi: tuple[str, ...]


@dataclass(**_E)
class RestorationCompleted(Event):
    city: str
    mafia_count: int


# --- outcome ------------------------------------------------------------------------


@dataclass(**_E)
class CityDecided(Event):
    city: str
    outcome: str


@dataclass(**_E)
class GameResultFixed(Event):
    result: str
    winning_mafia: tuple[str, ...]
    score: tuple[tuple[str, str], ...]


@dataclass(**_E)
class ArchiveConsentGiven(Event):
    """INBOX-PERS-3, INBOX-SECRET-3: a member opens (or keeps closed) his inbox to outsiders."""

    inbox: str
    user: str
    consent: bool


@dataclass(**_E)
class ArchiveOpened(Event):
    """§9.4, AMB-33: an inbox open 'to anyone who asks' was asked for."""

    inbox: str
    user: str


@dataclass(**_E)
class RestorationReveal:
    """A restoration's deal opened at the game's end (RESTORE-3, RANDOM-5)."""

    city: str
    new_name: str
    order: tuple[str, ...]
    salt: str
    commitment: str
    mafiosi: tuple[str, ...]
    factions_before: tuple[tuple[str, str], ...]
    """(resident, faction before the restoration): the reveal shows before and after."""


@dataclass(**_E)
class GameEnded(Event):
    """§9.4: the secrets open. Contact details are never part of any event."""

    result: str
    factions: tuple[tuple[str, str], ...]
    consigliere: str | None
    commissars: tuple[tuple[str, str], ...]
    deal_lists: tuple[tuple[str, tuple[str, ...]], ...]
    deal_salt: str
    commitment: str | None
    restorations: tuple[RestorationReveal, ...] = ()
    """§9.4 (D15): every restoration's deal and the factions it replaced."""


# --- community seed systems (engine/seeds.py) ------------------------------------------


@dataclass(**_E)
class CommentPosted(Event):
    """POST-1, POST-2: a public comment under the Recruitment Post or a Day Post."""

    comment: int
    post: str
    author: str
    text: str


@dataclass(**_E)
class NotarySealed(Event):
    """INBOX-NOTARY-2, AMB-39: the public commitment to a certified secret. It names
    neither the organizer nor the content: only the inbox, its title and the digest."""

    inbox: str
    title: str
    digest: str


@dataclass(**_E)
class NotaryContentRecorded(Event):
    """INBOX-NOTARY-2: the sealed content and salt, for the organizer alone."""

    inbox: str
    content: str
    salt: str


@dataclass(**_E)
class NotaryAccessGranted(Event):
    """INBOX-NOTARY-3: the organizer and the one he lets verify (content and salt included,
    so the grantee can recompute the published digest)."""

    inbox: str
    user: str
    content: str
    salt: str
    digest: str


@dataclass(**_E)
class NotaryPublished(Event):
    """§9.4: after the game the organizer opens his notary inbox to everyone."""

    inbox: str
    title: str
    content: str
    salt: str
    digest: str
    sealed_at: datetime
