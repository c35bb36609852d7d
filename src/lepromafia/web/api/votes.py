"""The vote record over HTTP (issue 11, B1): every execution vote of a game, per city and
day, as the votes page shows it.

What a viewer may receive is decided in one place, ``service.outbound``: a closed vote is
made of public events (``VotingClosed``, ``VoteCountPublished`` and what followed, EXEC-9,
EXEC-14), filtered by ``outbound.visible``; an open vote reaches only the readers of the
city's voting inboxes (EXEC-18, INBOX-VOTE-1), checked by ``outbound.admits`` against the
engine's readers. Every count, tally and running total is the engine's
(``engine.votes``); the pages (``web.pages.votes``) use the same two functions.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime
from typing import Literal

from fastapi import APIRouter, Path, Query
from pydantic import BaseModel, Field

from ...engine import events as ev
from ...engine.audience import Audience
from ...engine.inboxes import Kind, live_inbox, readers
from ...engine.state import GameState
from ...engine.votes import VoteCount, live_count, vote_counts
from ...service.event_index import Events
from ...service.outbound import admits, visible
from ..deps import CurrentUser, WebDep
from ..errors import WebError, WebErrorCode
from .models import MAX_INT, ErrorOut

RECORD_EVENTS = (ev.VotingClosed, ev.VoteCountPublished, ev.PardonWindowOpened,
                 ev.VerdictReached, ev.ResidentDied, ev.NoExecution)
"""What the published vote counts are made of (``engine.votes.vote_counts``)."""


def published_counts(events: Iterable[tuple[int, ev.Event]], viewer: str | None) -> tuple[VoteCount, ...]:
    """Every closed vote's count the viewer may see (public ones), oldest first; computed
    once per set of events seen (issue 17: not the game's whole record on every page)."""
    seen = visible(events, viewer, RECORD_EVENTS)
    if isinstance(events, Events):
        key = ("vote_counts", *(seq for seq, _e in seen))
        return events.memo(key, lambda: vote_counts(e for _s, e in seen))
    return vote_counts(e for _seq, e in seen)


def open_vote(state: GameState, city: str, viewer: str | None) -> VoteCount | None:
    """The city's open vote as it stands, if the viewer reads its voting inboxes."""
    found = live_count(state, city)
    if found is None or not found.candidates:
        return None
    box = live_inbox(state, Kind.VOTING, city, found.candidates[0].candidate)
    if box is None or not admits(Audience(users=readers(state, box)), viewer):
        return None
    return found


# --- the JSON shapes --------------------------------------------------------------------


class VoteLineOut(BaseModel):
    at: datetime
    voter: str
    candidate: str
    keyword: Literal["казнить", "не казнить"]
    proxy: bool = Field(description="Cast by the Tribune at the opening on the voter's request (EXEC-11)")
    tally: int | None = Field(description="The candidate's count right after this keyword; null "
                                          "for a candidate immune that day (MAFIA-DISCLOSE-4)")


class CandidateOut(BaseModel):
    candidate: str
    votes: int
    voters: list[str] = Field(description="Counted voters, in the order of their counted «казнить»")
    changed_minds: list[str] = Field(description="Who posted «не казнить» for him")
    immune: bool
    place: int | None = Field(description="1 for the condemned, 2 for the runner-up, …; null if not ranked")


class CourtStepOut(BaseModel):
    kind: Literal["window", "verdict", "executed", "no_execution"]
    at: datetime
    candidate: str | None = None
    closes_at: datetime | None = None
    pardoned: bool | None = None
    pardon_votes: int = 0
    no_pardon_votes: int = 0
    faction: str | None = Field(default=None,
                                description="The executed resident's faction, announced (EXEC-16)")
    reason: str | None = None


class VoteCountOut(BaseModel):
    """One city's execution vote of one day."""

    city: str
    day: int
    status: Literal["open", "closed", "no_vote"]
    opened_at: datetime | None
    closed_at: datetime | None
    candidates: list[CandidateOut]
    lines: list[VoteLineOut] = Field(description="Every keyword in order, with the running tally")
    lot: list[str] = Field(description="The tied candidates a logged lot chose among (EXEC-10)")
    lot_seed: int | None
    condemned: str | None
    executed: str | None
    outcome: list[CourtStepOut] = Field(description="What followed the close: the Court's window, "
                                                    "its verdict, the execution or none")
    no_vote: str | None = Field(description="Why there was no vote at all (EXEC-2)")
    posted_in: list[str] = Field(description="The inboxes the count was posted in (EXEC-14)")
    page: str = Field(description="The count's page")


class VoteRecordOut(BaseModel):
    game_id: str
    counts: list[VoteCountOut] = Field(description="Oldest first; an open vote last")


def count_out(game_id: str, vc: VoteCount) -> VoteCountOut:
    status: Literal["open", "closed", "no_vote"] = (
        "no_vote" if vc.no_vote else "closed" if vc.closed_at is not None else "open")
    return VoteCountOut(
        city=vc.city, day=vc.day, status=status, opened_at=vc.opened_at, closed_at=vc.closed_at,
        candidates=[CandidateOut(candidate=c.candidate, votes=c.votes, voters=list(c.voters),
                                 changed_minds=list(c.changed_minds), immune=c.immune, place=c.place)
                    for c in vc.candidates],
        lines=[VoteLineOut(at=line.at, voter=line.voter, candidate=line.candidate,
                           keyword=line.keyword, proxy=line.proxy, tally=line.tally)  # type: ignore[arg-type]
               for line in vc.lines],
        lot=list(vc.lot), lot_seed=vc.lot_seed, condemned=vc.condemned, executed=vc.executed,
        outcome=[CourtStepOut(kind=s.kind, at=s.at, candidate=s.candidate,  # type: ignore[arg-type]
                              closes_at=s.closes_at, pardoned=s.pardoned,
                              pardon_votes=s.pardon_votes, no_pardon_votes=s.no_pardon_votes,
                              faction=s.faction, reason=s.reason) for s in vc.outcome],
        no_vote=vc.no_vote, posted_in=list(vc.inboxes),
        page=f"/games/{game_id}/votes/{vc.city}/{vc.day}",
    )


# --- the routes -------------------------------------------------------------------------

NOT_FOUND = {"model": ErrorOut, "description": "No such game; or no such city or day; or a "
             "vote still open and the viewer is not a reader of its voting inboxes (the same "
             "answer, on purpose)"}
INVALID = {"model": ErrorOut, "description": "A parameter out of range (``day`` below 1, …)"}

router = APIRouter(tags=["votes"])


async def record_of(web: WebDep, game_id: str, viewer: str | None) -> list[VoteCount]:
    current = await web.queries.current(game_id)  # an unknown game: 404
    closed = published_counts(await web.queries.events(current), viewer)
    live = [c for c in (open_vote(current.state, name, viewer) for name in current.state.cities)
            if c is not None]
    return [*closed, *live]


@router.get("/games/{game_id}/votes", responses={404: NOT_FOUND, 422: INVALID})
async def votes(game_id: str, user: CurrentUser, web: WebDep,
                city: str | None = Query(None, max_length=120, description="Only this city"),
                day: int | None = Query(None, ge=1, le=MAX_INT, description="Only this day")
                ) -> VoteRecordOut:
    """Every execution vote of the game the viewer may see (B1): the closed ones to
    everyone, an open one to the readers of its voting inboxes only (EXEC-18)."""
    found = await record_of(web, game_id, user.user_id if user else None)
    chosen = [c for c in found if (city is None or c.city == city) and (day is None or c.day == day)]
    return VoteRecordOut(game_id=game_id, counts=[count_out(game_id, c) for c in chosen])


@router.get("/games/{game_id}/votes/{city}/{day}", responses={404: NOT_FOUND, 422: INVALID})
async def vote_of_day(game_id: str, city: str, user: CurrentUser, web: WebDep,
                      day: int = Path(ge=1, le=MAX_INT)) -> VoteCountOut:
    """One city's vote of one day: the count, the voters in order, every keyword with its
    time and running tally, the lot, the condemned and what the Court did."""
    found = await record_of(web, game_id, user.user_id if user else None)
    chosen = [c for c in found if c.city == city and c.day == day]
    if not chosen:
        raise WebError(WebErrorCode.NOT_FOUND, what=f"{city} / {day}")
    return count_out(game_id, chosen[-1])
