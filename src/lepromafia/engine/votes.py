"""Execution tallies and ranking (EXEC-9, EXEC-10, EXEC-19, AMB-4, AMB-10). Pure."""

from __future__ import annotations

import random
from collections.abc import Collection
from dataclasses import dataclass

from .events import Tally
from .state import GameState, VoteBook


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
