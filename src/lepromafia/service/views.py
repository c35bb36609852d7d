"""The typed read models the service hands to the pages and the JSON API.

Frozen values, built by ``service.queries`` from the engine's state and answers and
from the store's read models, already filtered for one viewer. ``web`` renders them
or serialises them (FastAPI turns a dataclass into JSON with its OpenAPI schema).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..store.event_store import GameMeta
from ..store.projection import GameClock

__all__ = ["DeadlineView", "DeathView", "GameClock", "GameMeta", "GamePublic", "GameSummary", "HostsView",
           "InboxHeader", "InboxListRow", "InboxView", "MessageVersion", "MessageView", "OfficeView",
           "ResidentCard", "RoleCard", "TallyView"]


@dataclass(frozen=True)
class GameSummary:
    """A game as the community sees it in the list of games."""

    game_id: str
    title: str
    stage: str
    phase: str
    day: int
    procurator: str | None
    signups: int
    seats: int
    cities: tuple[str, ...]
    result: str | None
    time_scale: float | None = None


@dataclass(frozen=True)
class MessageVersion:
    text: str
    at: str


@dataclass(frozen=True)
class MessageView:
    seq: int
    """The message's number in its inbox (1, 2, 3, …), never the game's global seq."""
    author: str
    text: str
    """The latest version (``service.posts.with_edits``)."""
    at: str
    """ISO time (game time, Moscow) of the message."""
    edited_at: str | None = None
    """When the latest version was written, if it was edited."""
    versions: tuple[MessageVersion, ...] = ()
    """The earlier versions, the original first: an edit never rewrites what was said."""


@dataclass(frozen=True)
class TallyView:
    """A live execution tally of one candidate as the engine counts it (INBOX-VOTE-1)."""

    city: str
    candidate: str
    inbox: str | None
    day: int
    votes: int
    voters: tuple[str, ...]
    closed: bool


@dataclass(frozen=True)
class InboxHeader:
    """An inbox as one viewer may know it: his access, and the member list where he may
    see it (INBOX-GEN-5: None where it is hidden)."""

    inbox: str
    kind: str
    city: str | None
    title: str
    subject: str | None
    archived: bool
    access: str
    """'write' or 'read'."""
    read_only: bool
    keywords_only: bool
    members: tuple[str, ...] | None


@dataclass(frozen=True)
class InboxListRow(InboxHeader):
    """One inbox in the viewer's list, with his unread count."""

    unread: int = 0
    messages: int = 0


@dataclass(frozen=True)
class InboxView(InboxHeader):
    """An inbox the viewer may read: its messages and, for a voting inbox, its tally."""

    messages: tuple[MessageView, ...] = ()
    tally: TallyView | None = None
    read_upto: int = 0
    """The viewer's read marker before this read, as a message number in this inbox: the
    messages after it are new to him."""
    earlier: int = 0
    """How many of the inbox's messages come before the ones shown (``GameQueries.thread``)."""
    next_at: str | None = None
    """When the message after the ones shown was posted, if the ones shown are an earlier
    page (what goes with them by time ends there: the vote counts in a city inbox)."""


@dataclass(frozen=True)
class DeadlineView:
    key: str
    kind: str
    due_at: str
    due_real: float | None
    """Unix seconds of the real clock, for countdowns."""


@dataclass(frozen=True)
class OfficeView:
    """A host office the viewer holds (a Tribune's names his city)."""

    office: str
    city: str | None = None


@dataclass(frozen=True)
class ResidentCard:
    """The viewer's own seat as a resident, as the deal told him (SEC-7): an honest
    resident gets the one notice identical for all and no list of anyone."""

    city: str
    alive: bool
    cause: str | None
    faction: str | None
    """'mafia' for a mafioso; None for the honest (they learn it from ``notice``)."""
    notice: str | None
    roles: tuple[str, ...]
    """godfather, commissar, judge, spirit."""
    observing: tuple[str, ...]
    mafia: tuple[str, ...] = ()
    """His city's mafiosi: a mafioso's own knowledge (MAFIA-KILL-1); empty for the honest."""
    acknowledged: bool | None = None
    """A mafioso's acknowledgement of his role (START-1); None for the honest."""


@dataclass(frozen=True)
class RoleCard:
    """The viewer's own role card."""

    game_id: str
    user: str
    offices: tuple[OfficeView, ...]
    signed_up: bool
    resident: ResidentCard | None


@dataclass(frozen=True)
class HostsView:
    """The hosts the community may know; the Consigliere only for himself and the Procurator
    (HOST-CONS-1)."""

    procurator: str | None
    arbiter: str | None
    tribunes: dict[str, str | None]
    consigliere: str | None = None


@dataclass(frozen=True)
class DeathView:
    user: str
    city: str
    cause: str | None
    label: str | None
    faction: str | None


@dataclass(frozen=True)
class GamePublic(GameSummary):
    """The Recruitment Post and the public record: non-default settings, sign-ups, city lists,
    the hosts, the dead, the Day Posts and results (as the outbound filter gives them)."""

    settings: dict[str, Any] = field(default_factory=dict)
    signup_list: tuple[str, ...] = ()
    city_lists: dict[str, tuple[str, ...]] = field(default_factory=dict)
    mafia_counts: dict[str, int] = field(default_factory=dict)
    hosts: HostsView | None = None
    dead: tuple[DeathView, ...] = ()
    day_posts: tuple[dict[str, Any], ...] = ()
    """Each visible ``DayPostPublished`` in its client form (``outbound.event_json``)."""
    results: tuple[dict[str, Any], ...] = ()
    commitment: str | None = None
