"""Game state: frozen dataclasses built only by ``evolve``.

Mappings inside the state are never mutated in place: ``evolve`` copies what it
changes (copy-on-write), so any state object handed out stays valid forever.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from enum import StrEnum

from .calendar import DayPlan, ShortDay
from .events import JudgeResult, VerdictNotice, VoteResult
from .records import HostRecords
from .seeds import Discussion, Notary
from .settings import GameSettings

NO_KILL = "-"
"""A night order or declaration that deliberately kills nobody (MAFIA-KILL-2)."""


class Stage(StrEnum):
    RECRUITING = "recruiting"
    FORMED = "formed"
    SEALED = "sealed"
    DEALT = "dealt"
    RUNNING = "running"
    FINISHED = "finished"


class PhaseKind(StrEnum):
    PREGAME = "pregame"
    DAY = "day"
    NIGHT = "night"
    OVER = "over"


class Faction(StrEnum):
    HONEST = "honest"
    MAFIA = "mafia"


class Office(StrEnum):
    PROCURATOR = "procurator"
    CONSIGLIERE = "consigliere"
    ARBITER = "arbiter"
    TRIBUNE = "tribune"


class DeathCause(StrEnum):
    EXECUTION = "execution"
    NIGHT_KILL = "night_kill"
    SUICIDE = "suicide"


class Outcome(StrEnum):
    """A city's or the game's result (WIN-1..4)."""

    HONEST = "honest"
    """No living mafiosi remain (city), or the mafia did not win more than half (game)."""
    MAFIA = "mafia"
    """No living honest residents remain (city), or mafia won more than half the cities."""
    DRAW = "draw"
    """Both sides eliminated in one step (city), or the even-split house rule (game)."""


@dataclass(frozen=True, slots=True)
class Resident:
    user: str
    city: str
    faction: Faction | None = None
    alive: bool = True
    cause: DeathCause | None = None
    died_at: datetime | None = None
    died_in: str | None = None
    """'day N' or 'night N' label of the death."""


@dataclass(frozen=True, slots=True)
class VoteRecord:
    voter: str
    candidate: str
    keyword: str
    """Either 'казнить' or 'не казнить'."""
    at: datetime
    proxy: bool = False


@dataclass(frozen=True, slots=True)
class VoteBook:
    """One city's execution vote of one day (EXEC-5..10)."""

    day: int
    candidates: tuple[str, ...]
    opened_at: datetime
    log: tuple[VoteRecord, ...] = ()
    active: Mapping[str, Mapping[str, datetime]] = field(default_factory=dict)
    """candidate -> voter -> time of his counted «казнить»."""
    closed: bool = False


@dataclass(frozen=True, slots=True)
class Offer:
    """One commissar offer (COMM-APPT-1..3, SEC-1)."""

    attempt: int
    candidate: str
    inbox: str
    offered_at: datetime
    answered_at: datetime | None = None
    accepted: bool | None = None
    lapsed: bool = False
    revealed: bool = False


@dataclass(frozen=True, slots=True)
class NightBook:
    """A city's mafia deliberation for one night (MAFIA-KILL, TOUR, GODFATHER)."""

    order: str | None = None
    """The Godfather's current order: a target, NO_KILL, or None (none given)."""
    declarations: Mapping[str, str] = field(default_factory=dict)
    """mafioso -> target or NO_KILL (confirmations; the fallback preset's votes)."""
    tour_order: str | None = None
    tour_declarations: Mapping[str, str] = field(default_factory=dict)
    spoke: frozenset[str] = frozenset()
    """Living mafiosi who posted or declared tonight (MAFIA-KILL-6)."""
    godfather_votes: Mapping[str, str] = field(default_factory=dict)
    reelection_demands: frozenset[str] = frozenset()


@dataclass(frozen=True, slots=True)
class Election:
    """One judge election in one city (JUDGE-ELECT)."""

    number: int
    announced_at: datetime
    opens_at: datetime
    closes_at: datetime
    after_removal: bool = False
    proposals: Mapping[str, str] = field(default_factory=dict)
    """proposer -> candidate; the latest proposal of a citizen counts."""
    declined: frozenset[str] = frozenset()
    proxies: Mapping[str, tuple[str, bool]] = field(default_factory=dict)
    candidates: tuple[str, ...] = ()
    votes: Mapping[str, Mapping[str, tuple[bool, datetime]]] = field(default_factory=dict)
    """candidate -> voter -> (in favour, when)."""
    opened: bool = False


@dataclass(frozen=True, slots=True)
class Verdict:
    """A condemned candidate before the Court (COURT-3, COURT-4)."""

    candidate: str
    ranking: tuple[str, ...]
    closes_at: datetime
    votes: Mapping[str, bool] = field(default_factory=dict)
    """judge -> pardon?"""


@dataclass(frozen=True, slots=True)
class Petition:
    """A judge removal petition (JUDGE-REMOVE)."""

    inbox: str
    organizer: str
    judge: str
    day: int
    confirmations: tuple[str, ...] = ()
    """Everyone who confirmed, the organizer first."""


@dataclass(frozen=True, slots=True)
class Restoration:
    """A destroyed city being restored (RESTORE-T2, RESTORE-1..7)."""

    new_name: str
    reason: str
    proposed_day: int
    expelled: tuple[str, ...] = ()
    signed: frozenset[str] = frozenset()
    began_day: int | None = None
    order: tuple[str, ...] = ()
    """The Consigliere's sealed list of the living residents (RANDOM-3)."""
    salt: str = ""
    commitment: str = ""
    mafia_count: int = 0
    dealt: bool = False


@dataclass(frozen=True, slots=True)
class RestoredDeal:
    """A restoration's deal, opened after the game like the first (RESTORE-3, RANDOM-5, §9.4)."""

    city: str
    new_name: str
    order: tuple[str, ...]
    salt: str
    commitment: str
    mafiosi: tuple[str, ...]
    factions_before: tuple[tuple[str, str], ...]
    """(resident, faction before the restoration) for every resident of the city."""


@dataclass(frozen=True, slots=True)
class City:
    name: str
    tribune: str
    residents: tuple[str, ...]
    initial_population: int
    mafia_count: int
    decided: Outcome | None = None
    decided_at: datetime | None = None
    # day business
    nominations: Mapping[str, str] = field(default_factory=dict)
    proxies: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    vote_opens_at: datetime | None = None
    vote_closes_at: datetime | None = None
    nominations_close_at: datetime | None = None
    voting: VoteBook | None = None
    execution_final: bool = True
    # offices
    commissar: str | None = None
    commissar_line: str | None = None
    offer: Offer | None = None
    offers_made: tuple[str, ...] = ()
    appointment_open: bool = False
    godfather: str | None = None
    godfather_election_open: bool = False
    godfather_election_failed: bool = False
    """The last election failed: the Consigliere may appoint (GODFATHER-3)."""
    judge: str | None = None
    immune: frozenset[str] = frozenset()
    election: Election | None = None
    removed_on: Mapping[str, int] = field(default_factory=dict)
    """A removed judge -> the day of his removal (JUDGE-REMOVE-8)."""
    removal_pending: bool = False
    """The vacancy follows a removal: 2 hours' notice (TIME-6)."""
    petition: Petition | None = None
    verdict: Verdict | None = None
    pardons_today: int = 0
    elections_held: int = 0
    immune_next: frozenset[str] = frozenset()
    """Disclosed mafiosi whose immunity day is the next one (MAFIA-DISCLOSE-4)."""
    # ambush (AMBUSH)
    ambush_pending: bool = False
    """A commissar died early; the nights follow from his replacement (AMBUSH-1, -10, -12)."""
    dead_commissar: str | None = None
    ambush_nights: frozenset[int] = frozenset()
    ambushes: tuple[tuple[str, str], ...] = ()
    """(mafioso, target) in placement order, for the coming or current night."""
    ambushes_fixed: bool = False
    # restoration (RESTORE)
    display_name: str = ""
    """The city's current name (RESTORE-1); empty means ``name``."""
    restoration: Restoration | None = None
    restored_at: datetime | None = None
    """When the city's latest restoration began: earlier deaths give no Spirits (RESTORE-7)."""
    # citizens' own acts
    suicides: frozenset[str] = frozenset()
    """Declared today and not withdrawn (SUICIDE-1)."""
    observers: frozenset[str] = frozenset()
    """Citizens of other cities watching this one (ROLE-OBS)."""
    spirits: frozenset[str] = frozenset()
    """Today's Spirits (SPIRIT-2)."""
    # night business
    night: NightBook = field(default_factory=NightBook)
    checked_tonight: str | None = None
    checked_by: str | None = None
    """The commissar who asked tonight's check: its answer is his (COMM-4)."""
    check_pending: bool = False
    """Tonight's check awaits the Consigliere's answer (commissar_check_mode = consigliere)."""
    last_mafia_death_at: datetime | None = None


@dataclass(frozen=True, slots=True)
class Inbox:
    """One private thread (INBOX-GEN-1). Who may read or post is ``inboxes.access``."""

    id: str
    kind: str
    city: str | None = None
    subject: str | None = None
    """The resident or candidate the inbox is about (personal, voting, offer)."""
    generation: int = 0
    opened_at: datetime | None = None
    archived: bool = False
    """Superseded by a renewal, or killed: every former member is read-only."""
    members: frozenset[str] = frozenset()
    """Explicit members, for kinds whose membership is not derived from roles."""
    former: frozenset[str] = frozenset()
    """Readers frozen when the inbox was archived."""
    title: str = ""


AUTHORS_BLOCK = 128
"""Names per full block of an ``Authors``."""


@dataclass(frozen=True, slots=True)
class Authors:
    """The author of each message of one live inbox, by number (message 1 first), kept in
    blocks: a new message copies the last block (fewer than ``AUTHORS_BLOCK`` names) and,
    once per block, the tuple of full blocks — never every earlier name, as one tuple of
    them did (a city's chat holds thousands of messages by Day 14, and each post copied
    them all: issue 17, a command's cost the same on Day 1 and Day 14)."""

    full: tuple[tuple[str, ...], ...] = ()
    """Blocks of exactly ``AUTHORS_BLOCK`` names."""
    last: tuple[str, ...] = ()

    def __len__(self) -> int:
        return len(self.full) * AUTHORS_BLOCK + len(self.last)

    def of(self, number: int) -> str | None:
        """The author of message ``number`` (1-based), or None if there is no such message."""
        if number < 1:
            return None
        block, at = divmod(number - 1, AUTHORS_BLOCK)
        if block < len(self.full):
            return self.full[block][at]
        return self.last[at] if block == len(self.full) and at < len(self.last) else None

    def added(self, author: str) -> Authors:
        """With the next message's author."""
        if len(self.last) < AUTHORS_BLOCK:
            return Authors(self.full, (*self.last, author))
        return Authors((*self.full, self.last), (author,))


@dataclass(frozen=True, slots=True)
class Deal:
    """RANDOM-1..5: sealed shuffled lists, the commitment, the named numbers."""

    commitment: str | None = None
    lists: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    salt: str = ""
    numbers: Mapping[str, tuple[int, ...]] = field(default_factory=dict)
    acknowledged: frozenset[str] = frozenset()
    digests: Mapping[str, str] = field(default_factory=dict)
    """The commit-reveal deal: party -> SHA-256 commitment (the server's once reveals open)."""
    values: Mapping[str, str] = field(default_factory=dict)
    """party -> revealed (or replacement) value."""
    reveals_open: bool = False


@dataclass(frozen=True, slots=True)
class DayNews:
    """Results published since the last Day Post, for the next one (POST-3, D17)."""

    votes: tuple[VoteResult, ...] = ()
    verdicts: tuple[VerdictNotice, ...] = ()
    judge_elections: tuple[JudgeResult, ...] = ()


@dataclass(frozen=True, slots=True)
class Archive:
    """After the game (§9.4): consents given or refused, and who asked for what."""

    consents: Mapping[str, Mapping[str, bool]] = field(default_factory=dict)
    """inbox -> member -> consent."""
    requested: Mapping[str, frozenset[str]] = field(default_factory=dict)
    """user -> inboxes opened to him on request."""


@dataclass(frozen=True, slots=True)
class GameState:
    title: str
    procurator: str
    settings: GameSettings
    created_at: datetime
    stage: Stage = Stage.RECRUITING
    phase: PhaseKind = PhaseKind.PREGAME
    day: int = 0
    """The current day number; during Night N it is N."""
    consigliere: str | None = None
    arbiter: str | None = None
    signups: tuple[str, ...] = ()
    cities: Mapping[str, City] = field(default_factory=dict)
    residents: Mapping[str, Resident] = field(default_factory=dict)
    deal: Deal = field(default_factory=Deal)
    plans: Mapping[int, DayPlan] = field(default_factory=dict)
    day_starts: Mapping[int, str] = field(default_factory=dict)
    """TIME-4: the Procurator's day start times, by day number."""
    long_days: Mapping[int, int] = field(default_factory=dict)
    short_days: Mapping[int, ShortDay] = field(default_factory=dict)
    deadlines: Mapping[str, datetime] = field(default_factory=dict)
    inboxes: Mapping[str, Inbox] = field(default_factory=dict)
    current: Mapping[str, str] = field(default_factory=dict)
    """'<kind>:<scope>' -> id of the live inbox of that kind (renewals advance it)."""
    ambush_closed: bool = False
    """Tonight's ambush window has closed (AMBUSH-4, SEC-3)."""
    touring_city: str | None = None
    tour_pointer: int = -1
    tours: tuple[tuple[int, str, str], ...] = ()
    """(night, touring city, the victim's city) of every tour kill the mafia decided (TOUR-1):
    what a gift or a fish answers (MAFIA-COMM-2, MAFIA-COMM-3)."""
    restored: tuple[RestoredDeal, ...] = ()
    """Every restoration's deal, in order (RESTORE-3)."""
    pending_kills: tuple[tuple[str, str], ...] = ()
    """(victim, killing city) fixed at the decision deadline, applied at day start."""
    day_end_reached: bool = False
    checks_open: bool = False
    decisions_closed: bool = False
    result: Outcome | None = None
    winning_mafia: tuple[str, ...] = ()
    secret_inboxes: int = 0
    pardon_votes_held: bool = False
    archive: Archive = field(default_factory=Archive)
    news: DayNews = field(default_factory=DayNews)
    """What the next Day Post will carry besides deaths (POST-3)."""
    records: HostRecords = field(default_factory=HostRecords)
    """The host-side sub-state: recorded [HOST] decisions (engine/records.py)."""
    discussion: Discussion = field(default_factory=Discussion)
    """POST-1, POST-2: comments under the posts (engine/seeds.py)."""
    notaries: Mapping[str, Notary] = field(default_factory=dict)
    """INBOX-NOTARY-1..3: inbox id -> the certified secret (engine/seeds.py)."""
    authors: Mapping[str, Authors] = field(default_factory=dict)
    """Live inbox id -> the author of each of its messages by number, for edits
    (``rules/posts.py``); dropped when the inbox is archived and nobody may edit."""
    last_posts: Mapping[str, datetime] = field(default_factory=dict)
    """PLAYER-2: resident -> the time of his last post in his own city's city or voting
    inbox (``engine/activity.py``)."""

    # --- small read helpers used across the engine ---------------------------------

    def resident(self, user: str) -> Resident | None:
        return self.residents.get(user)

    def city_of(self, user: str) -> City | None:
        r = self.residents.get(user)
        return self.cities[r.city] if r else None

    def living(self, city: str) -> list[str]:
        return [u for u in self.cities[city].residents if self.residents[u].alive]

    def living_mafia(self, city: str) -> list[str]:
        return [
            u
            for u in self.cities[city].residents
            if self.residents[u].alive and self.residents[u].faction is Faction.MAFIA
        ]

    def mafiosi(self, city: str) -> list[str]:
        """All mafiosi of the city, living and dead (INBOX-MAFIA-3)."""
        return [u for u in self.cities[city].residents if self.residents[u].faction is Faction.MAFIA]

    def is_mafia(self, user: str) -> bool:
        r = self.residents.get(user)
        return r is not None and r.faction is Faction.MAFIA

    def tribunes(self) -> set[str]:
        return {c.tribune for c in self.cities.values()}

    def hosts(self) -> set[str]:
        found = {self.procurator} | self.tribunes()
        for host in (self.consigliere, self.arbiter):
            if host:
                found.add(host)
        return found

    def current_inbox(self, kind: str, scope: str = "") -> str | None:
        return self.current.get(f"{kind}:{scope}")

    def plan(self) -> DayPlan | None:
        return self.plans.get(self.day)

    @property
    def has_court(self) -> bool:
        return self.settings.has_court
