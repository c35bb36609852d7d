"""Inbox membership and bans: one declarative policy table (RULES.md §5, INBOX-*).

Every question "may X read / post in inbox I?" is answered by ``access`` from the
``POLICY`` row of the inbox's kind. Rows are data; predicates are small pure
functions of the game state.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from enum import IntEnum, StrEnum
from typing import TYPE_CHECKING

from .errors import N_
from .keywords import Keyword
from .state import DeathCause, GameState, Inbox

if TYPE_CHECKING:
    from .progress import Progress


class Kind(StrEnum):
    CITY = "city"
    PERSONAL = "personal"
    MAFIA = "mafia"
    CEMETERY = "cemetery"
    COURT = "court"
    POLICE = "police"
    OFFICE = "office"
    BAR = "bar"
    VOTING = "voting"
    POLLING = "polling"
    REMOVAL = "removal"
    IMPEACHMENT = "impeachment"
    NOTARY = "notary"
    SECRET = "secret"  # noqa: S105 - an inbox kind, not a password
    OFFER = "offer"
    LINE = "line"
    CERTIFICATE = "certificate"
    """INBOX-NOTARY for anyone: a participant's certified secret (engine/seeds.py)."""


class Access(IntEnum):
    NONE = 0
    READ = 1
    """A banned member: reads, cannot post (INBOX-GEN-1)."""
    WRITE = 2


class AfterGame(StrEnum):
    """§9.4 disclosure once the game has ended."""

    OPEN = "open"
    ON_REQUEST = "on_request"
    RESIDENT_CONSENT = "resident_consent"
    ALL_MEMBERS_CONSENT = "all_members_consent"
    ORGANIZER = "organizer"
    GONE = "gone"


Members = Callable[[GameState, Inbox], set[str]]
Ballot = Callable[["Progress", str, str, Keyword], None]
"""A vote handler: (progress, inbox id, voter, keyword) -> emits the vote or raises."""


@dataclass(frozen=True, slots=True)
class InboxPolicy:
    kind: Kind
    rules: tuple[str, ...]
    organizer: Members
    writers: Members
    """Members with write access, besides the organizer."""
    readers: Members
    """Banned (read-only) members."""
    created: str
    renewable: bool
    after_game: AfterGame
    order: int
    """Where the kind stands in a viewer's inbox list (smaller first)."""
    label: str = "{kind}{number}"
    """The inbox's name as a format over ``kind`` (the translated kind), ``city``,
    ``subject``, ``title`` and ``number`` (" #2" for a renewal); a format naming a field the
    inbox lacks falls back to ``"{kind}{number}"``."""
    keywords: tuple[Keyword, ...] = ()
    """The only texts accepted here (EXEC-13, JUDGE-ELECT-10); empty: free text."""
    ballot: Ballot | None = None
    """The rule a keyword is dispatched to; set exactly when ``keywords`` are."""
    pseudonymous: bool = False
    member_list_visible: bool = True
    words: str = ""
    """The kind's name as people read it (a msgid; pages translate it, ``term('kind', …)``)."""

    @property
    def keywords_only(self) -> bool:
        return bool(self.keywords)


def _none(state: GameState, inbox: Inbox) -> set[str]:
    return set()


def _tribune(state: GameState, inbox: Inbox) -> set[str]:
    return {state.cities[inbox.city].tribune} if inbox.city else set()


def _procurator(state: GameState, inbox: Inbox) -> set[str]:
    return {state.procurator}


def _consigliere(state: GameState, inbox: Inbox) -> set[str]:
    return {state.consigliere} if state.consigliere else set()


def _arbiter(state: GameState, inbox: Inbox) -> set[str]:
    return {state.arbiter} if state.arbiter else set()


def _explicit(state: GameState, inbox: Inbox) -> set[str]:
    return set(inbox.members)


def _living_explicit(state: GameState, inbox: Inbox) -> set[str]:
    """Explicit members, less residents who died: the dead have no rights (ROLE-DEAD-3)."""
    return {u for u in inbox.members if u not in state.residents or state.residents[u].alive}


def _dead_explicit(state: GameState, inbox: Inbox) -> set[str]:
    """Members who died: banned, read-only (INBOX-REMOVAL-3)."""
    return set(inbox.members) - _living_explicit(state, inbox)


def _subject(state: GameState, inbox: Inbox) -> set[str]:
    return {inbox.subject} if inbox.subject else set()


def _living_residents(state: GameState, inbox: Inbox) -> set[str]:
    if inbox.city is None:
        return set()
    return {u for u in state.cities[inbox.city].residents if state.residents[u].alive}


def _dead_residents(state: GameState, inbox: Inbox) -> set[str]:
    if inbox.city is None:
        return set()
    return {u for u in state.cities[inbox.city].residents if not state.residents[u].alive}


def _city_readers(state: GameState, inbox: Inbox) -> set[str]:
    """INBOX-CITY-1, -5, ROLE-OBS-3: the dead, Spirits and observers read only."""
    readers = _dead_residents(state, inbox)
    if inbox.city is not None:
        after_death = state.settings.observer_access_after_death
        readers |= {
            u for u in state.cities[inbox.city].observers
            if after_death or state.residents[u].alive
        }
    return readers


def _voters(state: GameState, inbox: Inbox) -> set[str]:
    """INBOX-VOTE-1, SPIRIT-5: the living citizens and the day's Spirits."""
    spirits = state.cities[inbox.city].spirits if inbox.city else frozenset()
    return _living_residents(state, inbox) | set(spirits)


def _subject_if_alive(state: GameState, inbox: Inbox) -> set[str]:
    r = state.residents.get(inbox.subject or "")
    return {r.user} if r and r.alive else set()


def _subject_if_dead(state: GameState, inbox: Inbox) -> set[str]:
    r = state.residents.get(inbox.subject or "")
    return {r.user} if r and not r.alive else set()


def _city_mafiosi(state: GameState, inbox: Inbox) -> set[str]:
    """INBOX-MAFIA-1, -3; a restored city's new inbox lists its new mafiosi (RESTORE-7)."""
    if inbox.members:
        return set(inbox.members)
    return set(state.mafiosi(inbox.city)) if inbox.city else set()


def _cemetery_members(state: GameState, inbox: Inbox) -> set[str]:
    """INBOX-CEM-1/4: the dead of the city, but not suicides (SUICIDE-2)."""
    cities = [inbox.city] if inbox.city else list(state.cities)
    return {
        u
        for c in cities
        for u in state.cities[c].residents
        if not state.residents[u].alive
        and state.residents[u].cause is not DeathCause.SUICIDE
        and u not in state.cities[c].spirits  # SPIRIT-3
    }


def _commissars_in_office(state: GameState, inbox: Inbox) -> set[str]:
    return {c.commissar for c in state.cities.values() if c.commissar}


def _office_members(state: GameState, inbox: Inbox) -> set[str]:
    return state.tribunes() | _arbiter(state, inbox)


def _offer_open(state: GameState, inbox: Inbox) -> set[str]:
    offer = state.cities[inbox.city].offer if inbox.city else None
    if offer and offer.inbox == inbox.id and offer.accepted is None and not offer.lapsed:
        return {offer.candidate}
    return set()


def _offer_answered(state: GameState, inbox: Inbox) -> set[str]:
    return _subject(state, inbox) - _offer_open(state, inbox)


def _line_members(state: GameState, inbox: Inbox) -> set[str]:
    return _subject(state, inbox) | _consigliere(state, inbox)


def _line_writers(state: GameState, inbox: Inbox) -> set[str]:
    """COMM-1, COMM-2: the commissar in office and the Consigliere talk through his line."""
    city = state.cities.get(inbox.city or "")
    if city is None or city.commissar_line != inbox.id or city.commissar != inbox.subject:
        return set()
    return _line_members(state, inbox)


def _impeachment_banned(state: GameState, inbox: Inbox) -> set[str]:
    if inbox.city is None:
        return set()
    return set(state.cities[inbox.city].residents) - _living_explicit(state, inbox)


def _execution_ballot(p: Progress, inbox: str, voter: str, keyword: Keyword) -> None:
    from .rules.execution import cast_vote  # the rule lives with its group (no import cycle)

    cast_vote(p, inbox, voter, keyword)


def _judge_ballot(p: Progress, inbox: str, voter: str, keyword: Keyword) -> None:
    from .rules.judges import cast_vote

    cast_vote(p, inbox, voter, keyword)


_CITY = "{kind} · {city}"
_CANDIDATE = "{kind} · {subject} ({city})"

POLICY: dict[Kind, InboxPolicy] = {
    p.kind: p
    for p in (
        InboxPolicy(Kind.CITY, ("INBOX-CITY-1", "INBOX-CITY-5"), _tribune, _living_residents,
                    _city_readers, "city founding", True, AfterGame.ON_REQUEST, 2, _CITY,
                    words=N_("City inbox")),
        InboxPolicy(Kind.PERSONAL, ("INBOX-PERS-1", "INBOX-PERS-4"), _tribune, _subject_if_alive,
                    _subject_if_dead, "city founding", True, AfterGame.RESIDENT_CONSENT, 3,
                    "{kind} · {subject}",
                    words=N_("Personal inbox")),
        InboxPolicy(Kind.MAFIA, ("INBOX-MAFIA-1", "INBOX-MAFIA-3"), _consigliere, _city_mafiosi,
                    _none, "the deal", True, AfterGame.OPEN, 4, _CITY,
                    words=N_("Mafia inbox")),
        InboxPolicy(Kind.CEMETERY, ("INBOX-CEM-1", "INBOX-CEM-4"), _procurator, _cemetery_members,
                    _none, "city founding", True, AfterGame.ON_REQUEST, 14, _CITY,
                    words=N_("Cemetery")),
        InboxPolicy(Kind.COURT, ("INBOX-COURT-1", "INBOX-COURT-4"), _arbiter, _explicit,
                    _none, "Day 1 after judge elections", True, AfterGame.ON_REQUEST, 5,
                    words=N_("Supreme Court")),
        InboxPolicy(Kind.POLICE, ("INBOX-POLICE-1", "INBOX-POLICE-2"), _procurator,
                    _commissars_in_office, _none, "pre-game, empty", True, AfterGame.ON_REQUEST, 8,
                    member_list_visible=False,
                    words=N_("Police station")),
        InboxPolicy(Kind.OFFICE, ("INBOX-OFFICE-1",), _procurator, _office_members, _none,
                    "pre-game", True, AfterGame.OPEN, 9,
                    words=N_("Chancellery")),
        InboxPolicy(Kind.BAR, ("INBOX-BAR-1",), _procurator, _consigliere, _none, "pre-game",
                    True, AfterGame.OPEN, 10,
                    words=N_("Bar")),
        InboxPolicy(Kind.VOTING, ("INBOX-VOTE-1", "INBOX-VOTE-4"), _tribune, _voters,
                    _none, "execution vote start", False, AfterGame.GONE, 0, _CANDIDATE,
                    keywords=(Keyword.EXECUTE, Keyword.WITHDRAW), ballot=_execution_ballot,
                    words=N_("Voting inbox")),
        InboxPolicy(Kind.POLLING, ("INBOX-POLL-1",), _arbiter, _living_residents, _none,
                    "judge vote start", False, AfterGame.GONE, 1, _CANDIDATE,
                    keywords=(Keyword.GANDHI, Keyword.HITLER), ballot=_judge_ballot,
                    words=N_("Polling station")),
        InboxPolicy(Kind.REMOVAL, ("INBOX-REMOVAL-1", "INBOX-REMOVAL-2"), _subject_if_alive,
                    _living_explicit, _dead_explicit, "any day but Day 1", False, AfterGame.OPEN,
                    11, _CITY,
                    words=N_("Judge removal")),
        InboxPolicy(Kind.IMPEACHMENT, ("IMPEACH-4",), _procurator, _living_explicit,
                    _impeachment_banned, "impeachment demand", False, AfterGame.ON_REQUEST, 12, _CITY,
                    words=N_("Impeachment")),
        InboxPolicy(Kind.NOTARY, ("INBOX-NOTARY-1", "INBOX-NOTARY-2"), _none, _none, _subject,
                    "any time", False, AfterGame.ORGANIZER, 15,
                    words=N_("Notary")),
        InboxPolicy(Kind.SECRET, ("INBOX-SECRET-1", "INBOX-SECRET-2"), _subject, _explicit, _none,
                    "any time", False, AfterGame.ALL_MEMBERS_CONSENT, 13, "{kind} · {title}",
                    words=N_("Secret inbox")),
        InboxPolicy(Kind.OFFER, ("COMM-APPT-1",), _procurator, _offer_open, _offer_answered,
                    "each offer", False, AfterGame.ON_REQUEST, 6, _CITY,
                    words=N_("Commissar offer")),
        InboxPolicy(Kind.LINE, ("COMM-1", "COMM-2", "COMM-5"), _none, _line_writers, _line_members,
                    "commissar takes office", False, AfterGame.ON_REQUEST, 7, _CITY,
                    pseudonymous=True, member_list_visible=False,
                    words=N_("Commissar line")),
        InboxPolicy(Kind.CERTIFICATE, ("INBOX-NOTARY-1", "INBOX-NOTARY-3"), _none, _none,
                    _explicit, "any time", False, AfterGame.ORGANIZER, 16, "{kind} · {title}",
                    member_list_visible=False,
                    words=N_("Notary inbox")),
    )
}


def inbox_key(kind: Kind | str, city: str | None = None, subject: str | None = None) -> str:
    """The key of the live inbox of a kind in ``GameState.current`` (renewals advance it).

    Voting and polling inboxes are per city and candidate, personal ones per resident, the
    rest per city (or subject, or game-wide).
    """
    name = Kind(kind).value
    if name in (Kind.VOTING, Kind.POLLING):
        return f"{name}:{city}/{subject}"
    if name == Kind.PERSONAL:
        return f"{name}:{subject}"
    return f"{name}:{city or subject or ''}"


def live_inbox(state: GameState, kind: Kind | str, city: str | None = None,
               subject: str | None = None) -> str | None:
    """The id of the live inbox of that kind, or None."""
    return state.current.get(inbox_key(kind, city, subject))


def access(state: GameState, inbox_id: str, user: str | None, *, now: datetime) -> Access:
    """What ``user`` may do in the inbox at ``now`` (INBOX-GEN-1). Hosts get no god view.

    A member under an Arbiter's ban (HOST-ARB-3) reads only until the ban expires, so the
    time is required: every caller says which moment it asks about.
    """
    return _access(state, inbox_id, user, now)


def _access(state: GameState, inbox_id: str, user: str | None, now: datetime | None) -> Access:
    inbox = state.inboxes.get(inbox_id)
    if inbox is None or user is None:
        return Access.NONE
    if inbox.archived:
        return Access.READ if user in inbox.former else Access.NONE
    policy = POLICY[Kind(inbox.kind)]
    if user in policy.organizer(state, inbox):
        return Access.WRITE
    if user in policy.writers(state, inbox):
        return Access.READ if state.records.banned(inbox_id, user, now) else Access.WRITE
    if user in policy.readers(state, inbox):
        return Access.READ
    return Access.NONE


def readers(state: GameState, inbox_id: str) -> frozenset[str]:
    """Everyone who may read the inbox now: the audience of a message posted there."""
    return readers_of(state, state.inboxes[inbox_id])


def readers_of(state: GameState, inbox: Inbox) -> frozenset[str]:
    if inbox.archived:
        return inbox.former
    policy = POLICY[Kind(inbox.kind)]
    return frozenset(
        policy.organizer(state, inbox) | policy.writers(state, inbox) | policy.readers(state, inbox)
    )


def can_read(state: GameState, inbox_id: str, user: str | None) -> bool:
    """Reading needs no clock: a ban only ever takes the pen, never the page (HOST-ARB-3)."""
    return _access(state, inbox_id, user, None) >= Access.READ


def can_post(state: GameState, inbox_id: str, user: str | None, *, now: datetime) -> bool:
    return access(state, inbox_id, user, now=now) is Access.WRITE


def member_list(state: GameState, inbox_id: str, viewer: str | None) -> list[str] | None:
    """INBOX-GEN-5: members see the member list, except where it would leak (AMB-21)."""
    if not can_read(state, inbox_id, viewer):
        return None
    inbox = state.inboxes[inbox_id]
    policy = POLICY[Kind(inbox.kind)]
    visible = policy.member_list_visible or (
        inbox.kind == Kind.POLICE and state.settings.police_station_member_list_visible
    )
    if not visible and viewer != state.procurator:
        return None
    return sorted(readers(state, inbox_id))


def author_label(state: GameState, inbox: Inbox, user: str) -> str:
    """How an author appears in the inbox (COMM-APPT-5, SEC-5, SEC-6)."""
    if POLICY[Kind(inbox.kind)].pseudonymous:
        if user == state.consigliere:
            return "consigliere"
        return f"commissar:{inbox.city}"
    return user


def inbox_id(kind: Kind, scope: str = "", generation: int = 0) -> str:
    return f"{kind.value}:{scope}:{generation}"
