"""Execution tallies, ranking and the vote record (EXEC-9, -10, -14, -18, -19, AMB-4,
AMB-10). Pure."""

from __future__ import annotations

import random
from collections.abc import Collection, Iterable
from dataclasses import dataclass, replace
from datetime import datetime

from .events import (
    Event,
    NoExecution,
    PardonWindowOpened,
    ResidentDied,
    Tally,
    VerdictReached,
    VoteCountPublished,
    VoteEntry,
    VotingClosed,
)
from .keywords import Keyword
from .state import DeathCause, GameState, VoteBook, VoteRecord


def tallies(book: VoteBook, immune: Collection[str] = ()) -> tuple[Tally, ...]:
    """Counted voters per candidate: those whose last keyword is «казнить» (EXEC-9).

    An immune candidate's tally counts as 0 (MAFIA-DISCLOSE-1).
    """
    changed: dict[str, list[str]] = {c: [] for c in book.candidates}
    for record in book.log:
        if record.keyword == "не казнить" and record.voter not in changed[record.candidate]:
            changed[record.candidate].append(record.voter)
    result = []
    for candidate in book.candidates:
        active = {} if candidate in immune else book.active.get(candidate, {})
        ordered = sorted(active, key=lambda v: (active[v], v))
        result.append(
            Tally(
                candidate=candidate,
                votes=len(active),
                last_vote_at=max(active.values()) if active else None,
                voters=tuple(ordered),
                changed_minds=tuple(changed[candidate]),
            )
        )
    return tuple(result)


def live_tallies(state: GameState, city: str) -> tuple[Tally, ...]:
    """The city's execution vote as it stands now, candidate by candidate (EXEC-9).

    A candidate whose disclosure was confirmed during the vote counts 0
    (MAFIA-DISCLOSE-4); empty when the city has no vote today. Pages, the tally API and
    the ``tallies`` read model all show this answer.
    """
    found = state.cities.get(city)
    if found is None or found.voting is None:
        return ()
    return tallies(found.voting, found.immune)


@dataclass(frozen=True, slots=True)
class Ranking:
    order: tuple[str, ...]
    lot: tuple[str, ...]
    """The tied candidates a lot was drawn among for first place (empty if none)."""


def rank(
    counted: tuple[Tally, ...], eligible: Collection[str], seed: int, min_votes: int = 0
) -> Ranking:
    """Order eligible candidates: most votes, then earliest last counted vote, then lot.

    Every remaining tie is settled by one seeded shuffle, so the whole order (the
    runner-up included, for pardons) is reproducible from the logged seed.
    """
    pool = [t for t in counted if t.candidate in eligible and t.votes >= min_votes]
    def key(t: Tally) -> tuple[int, float]:
        return (-t.votes, t.last_vote_at.timestamp() if t.last_vote_at else float("inf"))

    rng = random.Random(seed)
    shuffled = sorted(pool, key=lambda t: t.candidate)
    rng.shuffle(shuffled)
    ordered = sorted(shuffled, key=key)
    lot: tuple[str, ...] = ()
    if len(ordered) > 1 and key(ordered[0]) == key(ordered[1]):
        lot = tuple(sorted(t.candidate for t in ordered if key(t) == key(ordered[0])))
    return Ranking(tuple(t.candidate for t in ordered), lot)


# --- the vote record (EXEC-9, EXEC-14, EXEC-18) ---------------------------------------


@dataclass(frozen=True, slots=True)
class VoteLine:
    """One posted keyword with the candidate's tally right after it (EXEC-18)."""

    at: datetime
    voter: str
    candidate: str
    keyword: str
    proxy: bool
    tally: int | None
    """None for an immune candidate, who counts 0 (MAFIA-DISCLOSE-4)."""


@dataclass(frozen=True, slots=True)
class CandidateCount:
    candidate: str
    votes: int
    voters: tuple[str, ...]
    """Counted voters, in the order of their counted «казнить» (EXEC-9)."""
    changed_minds: tuple[str, ...]
    """Who posted «не казнить» for him (EXEC-9: the published results name them)."""
    immune: bool
    place: int | None
    """1 for the condemned, 2 for the runner-up, …; None if not ranked (EXEC-19)."""


@dataclass(frozen=True, slots=True)
class CourtStep:
    """What followed the close: a pardon window, a verdict, an execution or none."""

    kind: str
    """'window', 'verdict', 'executed' or 'no_execution'."""
    at: datetime
    candidate: str | None = None
    closes_at: datetime | None = None
    pardoned: bool | None = None
    pardon_votes: int = 0
    no_pardon_votes: int = 0
    faction: str | None = None
    reason: str | None = None


@dataclass(frozen=True, slots=True)
class VoteCount:
    """A city's execution vote of one day as the Tribune's vote count shows it."""

    city: str
    day: int
    opened_at: datetime | None
    closed_at: datetime | None
    """None while the vote is open."""
    candidates: tuple[CandidateCount, ...]
    lines: tuple[VoteLine, ...]
    lot: tuple[str, ...] = ()
    lot_seed: int | None = None
    condemned: str | None = None
    outcome: tuple[CourtStep, ...] = ()
    inboxes: tuple[str, ...] = ()
    no_vote: str | None = None
    """Why there was no vote at all (EXEC-2: 'no_candidates', 'restoration')."""

    @property
    def executed(self) -> str | None:
        return next((s.candidate for s in self.outcome if s.kind == "executed"), None)

    @property
    def awaiting_court(self) -> CourtStep | None:
        """The pardon window still open, if any (COURT-4)."""
        last = self.outcome[-1] if self.outcome else None
        return last if last is not None and last.kind == "window" else None

    @property
    def final(self) -> bool:
        return self.no_vote is not None or any(
            s.kind in ("executed", "no_execution") for s in self.outcome)


def vote_lines(log: Iterable[VoteRecord | VoteEntry], immune: Collection[str] = ()) -> tuple[VoteLine, ...]:
    """Each keyword in order, with the candidate's running tally after it (EXEC-9, -18)."""
    active: dict[str, set[str]] = {}
    lines = []
    for r in log:
        voters = active.setdefault(r.candidate, set())
        if r.keyword == Keyword.EXECUTE.value:
            voters.add(r.voter)
        else:
            voters.discard(r.voter)
        tally = None if r.candidate in immune else len(voters)
        lines.append(VoteLine(r.at, r.voter, r.candidate, r.keyword, r.proxy, tally))
    return tuple(lines)


def _counts(counted: tuple[Tally, ...], immune: Collection[str], ranking: tuple[str, ...]
            ) -> tuple[CandidateCount, ...]:
    place = {c: i + 1 for i, c in enumerate(ranking)}
    rows = [CandidateCount(t.candidate, t.votes, t.voters, t.changed_minds, t.candidate in immune,
                           place.get(t.candidate)) for t in counted]
    return tuple(sorted(rows, key=lambda r: (r.place is None, r.place or 0, -r.votes, r.candidate)))


def live_count(state: GameState, city: str) -> VoteCount | None:
    """The city's open vote as it stands (``live_tallies`` and the log so far), or None.
    Only for those who may read its voting inboxes (EXEC-18, INBOX-VOTE-1)."""
    found = state.cities.get(city)
    if found is None or found.voting is None or found.voting.closed:
        return None
    book = found.voting
    immune = found.immune & set(book.candidates)
    return VoteCount(city, book.day, book.opened_at, None, _counts(live_tallies(state, city), immune, ()),
                     vote_lines(book.log, immune))


def vote_counts(events: Iterable[Event]) -> tuple[VoteCount, ...]:
    """Every published vote count in ``events`` (public ones: filter them for the viewer
    first), each with what followed it — the Court's window and verdict, the execution —
    and the days a city had no vote at all (EXEC-2). Oldest first."""
    done: list[VoteCount] = []
    closing: dict[str, VotingClosed] = {}
    current: dict[str, int] = {}
    """city -> index in ``done`` of its latest count, until the next one."""
    for e in events:
        if isinstance(e, VotingClosed):
            closing[e.city] = e
        elif isinstance(e, VoteCountPublished) and e.city in closing:
            closed = closing.pop(e.city)
            current[e.city] = len(done)
            done.append(VoteCount(
                e.city, e.day, e.opened_at, closed.at, _counts(closed.tallies, e.immune, closed.ranking),
                vote_lines(e.log, e.immune), closed.lot, closed.lot_seed if closed.lot else None,
                closed.condemned, (), e.inboxes))
        elif isinstance(e, (PardonWindowOpened, VerdictReached, ResidentDied, NoExecution)):
            step = _court_step(e)
            index = current.get(e.city)
            if isinstance(e, NoExecution) and (index is None or done[index].day != e.day):
                done.append(VoteCount(e.city, e.day, None, None, (), (), no_vote=e.reason))
            elif step is not None and index is not None and not done[index].final:
                done[index] = replace(done[index], outcome=(*done[index].outcome, step))
    return tuple(done)


def _court_step(e: Event) -> CourtStep | None:
    if isinstance(e, PardonWindowOpened):
        return CourtStep("window", e.at, e.candidate, closes_at=e.closes_at)
    if isinstance(e, VerdictReached):
        return CourtStep("verdict", e.at, e.candidate, pardoned=e.pardoned,
                         pardon_votes=e.pardon_votes, no_pardon_votes=e.no_pardon_votes)
    if isinstance(e, ResidentDied):
        if e.cause != DeathCause.EXECUTION.value:
            return None
        return CourtStep("executed", e.at, e.user, faction=e.faction)
    if isinstance(e, NoExecution):
        return CourtStep("no_execution", e.at, reason=e.reason)
    return None
