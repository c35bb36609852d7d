"""Suspicion from what a seat sees: votes, deaths' factions, disclosures, claims.

A score above 0 leans «mafia», below 0 «honest». The public part (vote patterns against
the factions the dead turned out to have) is the same for everyone, so it is computed once
per city and log length from public events alone; each seat then adds what only it knows
(its own checks, its team, the claims it read in its city inbox) and its own noise.
"""

from __future__ import annotations

import random
from collections import defaultdict
from dataclasses import dataclass

from ...engine.events import ResidentDied, VotingClosed
from ...engine.state import DeathCause, Faction
from .claims import Claim
from .knowledge import SeatView

MAFIA, HONEST = Faction.MAFIA.value, Faction.HONEST.value
CERTAIN = 50.0


@dataclass(frozen=True)
class Temper:
    """How a skill level reasons: noise in its judgement, trust in claims, weight of votes."""

    noise: float
    trust: float
    memory: float


TEMPERS = {
    1: Temper(noise=2.0, trust=0.3, memory=0.5),
    2: Temper(noise=1.0, trust=0.7, memory=1.0),
    3: Temper(noise=0.7, trust=1.0, memory=1.2),
}


def public_evidence(view: SeatView, city: str) -> dict[str, float]:
    """Vote patterns against the factions of the dead (public, shared by every seat)."""
    deaths = view.deaths(city)
    closed_all = view.tallies(city)
    return view.memo(("evidence", city, len(closed_all), len(deaths)),
                     lambda: _public_evidence(deaths, closed_all))


def _public_evidence(deaths: dict[str, ResidentDied], closed_all: list[VotingClosed]) -> dict[str, float]:
    score: dict[str, float] = defaultdict(float)
    for closed in closed_all:
        for tally in closed.tallies:
            died = deaths.get(tally.candidate)
            if died is not None:
                # a bandwagon says less about each of its riders
                sign = (1.0 if died.faction == HONEST else -1.0) * 4.0 / max(4, len(tally.voters))
                for voter in tally.voters:
                    if voter != tally.candidate:
                        score[voter] += sign  # voted an honest man dead, or a mafioso
                if died.faction == MAFIA:
                    for voter in tally.changed_minds:
                        score[voter] += 0.5  # took back a vote on a mafioso: a defence
            mafia_voters = [v for v in tally.voters if v in deaths and deaths[v].faction == MAFIA]
            if mafia_voters:
                score[tally.candidate] -= 0.8 * len(mafia_voters)  # the mafia wanted him gone
                for voter in tally.voters:
                    if voter not in mafia_voters:
                        score[voter] += 0.3  # voted along with a mafioso
    for died in deaths.values():
        if died.cause != DeathCause.NIGHT_KILL.value:
            continue
        for closed in closed_all[-2:]:  # the mafia silences its loudest accusers
            for tally in closed.tallies:
                if died.user in tally.voters:
                    score[tally.candidate] += 0.4
    return dict(score)


def claim_evidence(view: SeatView, city: str, trust: float) -> dict[str, float]:
    """What the city inbox's suspicions and commissar claims suggest to this reader."""
    deaths = view.deaths(city)
    claims = view.claims(city)
    return view.memo(("claim-evidence", view.seat, city, trust, len(claims), len(deaths)),
                     lambda: _claim_evidence(deaths, claims, trust))


def _claim_evidence(deaths: dict[str, ResidentDied], claims: list[Claim], trust: float) -> dict[str, float]:
    verified: dict[tuple[str, bool], int] = defaultdict(int)
    refuted: dict[tuple[str, bool], int] = defaultdict(int)
    for claim in claims:
        died = deaths.get(claim.target)
        if died is not None:
            if (died.faction == MAFIA) == claim.mafia:
                verified[claim.author, claim.commissar] += 1
            else:
                refuted[claim.author, claim.commissar] += 1
    commissars = {c.author for c in claims if c.commissar}
    score: dict[str, float] = defaultdict(float)
    for author in commissars:
        if refuted[author, True]:
            score[author] += 4.0  # a false commissar lies for the mafia
        elif len(commissars) > 1 and not verified[author, True]:
            score[author] += 1.0  # two claimants: one of them lies
    for (author, commissar), wrong in refuted.items():
        if not commissar:
            score[author] += 0.3 * wrong * trust  # he keeps pointing at honest men
    for claim in claims:
        key = (claim.author, claim.commissar)
        author_dead = deaths.get(claim.author)
        if (claim.commissar and refuted[key]) or (author_dead is not None and author_dead.faction == MAFIA):
            continue
        if claim.commissar:
            weight = 2.5 * trust * (1 + verified[key]) / (1 + 0.5 * (len(commissars) - 1))
        else:
            weight = 0.15 * trust * (1 + verified[key]) / (1 + 2 * refuted[key])
        score[claim.target] += weight if claim.mafia else -weight
    return dict(score)


def suspicions(view: SeatView, city: str, skill: int, rng: random.Random) -> dict[str, float]:
    """Every living resident of ``city`` but the seat itself -> how much the seat suspects him."""
    temper = TEMPERS[max(1, min(3, skill))]
    evidence = public_evidence(view, city)
    claimed = claim_evidence(view, city, temper.trust)
    checks = view.checks() if view.home == city else {}
    team = view.team() if view.home == city else frozenset()
    scores = {}
    for user in view.living(city):
        if user == view.seat:
            continue
        if user in checks:
            scores[user] = CERTAIN if checks[user] else -CERTAIN
        elif user in team:
            scores[user] = CERTAIN
        else:
            scores[user] = (temper.memory * evidence.get(user, 0.0) + claimed.get(user, 0.0)
                            + rng.gauss(0.0, temper.noise))
    return scores


def most(scores: dict[str, float], among: list[str] | None = None) -> str | None:
    pool = [u for u in (among if among is not None else scores) if u in scores]
    return max(pool, key=lambda u: (scores[u], u)) if pool else None


def least(scores: dict[str, float], among: list[str] | None = None) -> str | None:
    pool = [u for u in (among if among is not None else scores) if u in scores]
    return min(pool, key=lambda u: (scores[u], u)) if pool else None


def town_view(view: SeatView, city: str) -> dict[str, float]:
    """How the town is likely to see each living resident, as this seat reads the town:
    the public evidence and the claims in the city inbox it can read, without noise."""
    evidence = public_evidence(view, city)
    claimed = claim_evidence(view, city, TEMPERS[2].trust)
    return {u: evidence.get(u, 0.0) + claimed.get(u, 0.0) for u in view.living(city)}
