"""What a page may show one viewer: small read helpers over the state and the visible events.

Secrets (factions, the Consigliere, commissars, mafia inboxes, check results) never come
from the state directly unless the viewer's own seat entitles him to them; inbox contents
come only from events ``visible_to`` the viewer (RULES.md §9). Templates get plain values.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime

from ...engine import events as ev
from ...engine.events import Event
from ...engine.inboxes import POLICY, Access, Kind, access, can_read, live_inbox
from ...engine.keywords import Keyword
from ...engine.state import GameState, PhaseKind, Stage
from ...engine.votes import live_tallies
from ...service.outbound import visible

Seq = int


@dataclass(frozen=True)
class Seat:
    """Everything the viewer himself is in this game."""

    user: str | None
    procurator: bool = False
    consigliere: bool = False
    arbiter: bool = False
    tribune_of: tuple[str, ...] = ()
    city: str | None = None
    """The city he lives in, if a resident."""
    alive: bool = True
    faction: str | None = None
    signed_up: bool = False
    commissar: bool = False
    godfather: bool = False
    judge: bool = False

    @property
    def host(self) -> bool:
        return self.procurator or self.consigliere or self.arbiter or bool(self.tribune_of)

    @property
    def consoles(self) -> list[str]:
        found = []
        for office in ("procurator", "tribune", "arbiter", "consigliere"):
            if (office == "tribune" and self.tribune_of) or getattr(self, office, False) is True:
                found.append(office)
        return found


def seat_of(state: GameState, user: str | None) -> Seat:
    if user is None:
        return Seat(None)
    resident = state.residents.get(user)
    city = state.cities.get(resident.city) if resident else None
    return Seat(
        user,
        procurator=user == state.procurator,
        consigliere=user == state.consigliere,
        arbiter=user == state.arbiter,
        tribune_of=tuple(name for name, c in state.cities.items() if c.tribune == user),
        city=resident.city if resident else None,
        alive=resident.alive if resident else True,
        faction=resident.faction.value if resident and resident.faction else None,
        signed_up=user in state.signups,
        commissar=bool(city and city.commissar == user),
        godfather=bool(city and city.godfather == user),
        judge=bool(city and city.judge == user),
    )


def phase_key(state: GameState) -> str:
    if state.stage is Stage.FINISHED or state.phase is PhaseKind.OVER:
        return "finished"
    if state.stage is not Stage.RUNNING:
        return state.stage.value
    return state.phase.value


# --- inboxes ------------------------------------------------------------------------


@dataclass
class InboxRow:
    id: str
    kind: str
    city: str | None
    subject: str | None
    title: str
    access: str
    """'write' or 'read'."""
    archived: bool
    messages: int = 0
    unread: int = 0
    last_seq: int = 0


def inbox_kind_order(kind: str) -> int:
    """The policy table's order of kinds in a viewer's inbox list."""
    try:
        return POLICY[Kind(kind)].order
    except ValueError:
        return len(POLICY)


def readable_inboxes(
    state: GameState, viewer: str | None, *, now: datetime, include_archived: bool = False
) -> list[InboxRow]:
    """The inboxes the viewer may read, with what he may do there at ``now`` (a ban may
    have expired, HOST-ARB-3)."""
    rows = []
    for inbox in state.inboxes.values():
        level = access(state, inbox.id, viewer, now=now)
        if level is Access.NONE or (inbox.archived and not include_archived):
            continue
        rows.append(
            InboxRow(
                inbox.id,
                inbox.kind,
                inbox.city,
                inbox.subject,
                inbox.title,
                "write" if level is Access.WRITE else "read",
                inbox.archived,
            )
        )
    rows.sort(key=lambda r: (r.archived, inbox_kind_order(r.kind), r.city or "", r.subject or "", r.id))
    return rows


def keywords_of(kind: str) -> tuple[Keyword, ...]:
    """The vote buttons of an inbox kind: its keywords in the policy table."""
    try:
        return POLICY[Kind(kind)].keywords
    except ValueError:
        return ()


# --- votes --------------------------------------------------------------------------


@dataclass
class TallyRow:
    candidate: str
    inbox: str | None
    votes: int
    voters: list[str] = field(default_factory=list)
    readable: bool = True


def execution_tally(state: GameState, city: str, viewer: str | None) -> list[TallyRow] | None:
    """The engine's live tally of a city's open execution vote (``votes.live_tallies``:
    an immune candidate counts 0, MAFIA-DISCLOSE-4), shown where the viewer may read the
    candidate's voting inbox (INBOX-VOTE-1); None if no vote is open."""
    c = state.cities.get(city)
    if c is None or c.voting is None:
        return None
    rows = []
    for t in live_tallies(state, city):
        inbox = live_inbox(state, Kind.VOTING, city, t.candidate)
        readable = inbox is not None and can_read(state, inbox, viewer)
        rows.append(TallyRow(t.candidate, inbox, t.votes if readable else 0,
                             list(t.voters) if readable else [], readable))
    rows.sort(key=lambda r: (-r.votes, r.candidate))
    return rows


def last_closed_vote(events: Sequence[tuple[Seq, Event]], city: str) -> ev.VotingClosed | None:
    for _seq, e in reversed(events):
        if isinstance(e, ev.VotingClosed) and e.city == city:
            return e
    return None


# --- public record ------------------------------------------------------------------


def day_posts(events: Sequence[tuple[Seq, Event]]) -> list[tuple[Seq, ev.DayPostPublished]]:
    return visible(events, None, ev.DayPostPublished)
