"""Verdicts: the Court votes, and the condemned or the runner-up dies (COURT-3..8, EXEC-15)."""

from __future__ import annotations

from .. import commands as cmd
from .. import events as ev
from ..audience import PUBLIC, only
from ..errors import ErrorCode, check
from ..progress import Progress
from .common import require_running
from .court import (
    counts,
    court_audience,
    early_outcome,
    open_window,
    pardon_possible,
    pardoned_at_close,
    sitting_judges,
)
from .execution import after_verdict, eligible, execute


def vote_pardon(p: Progress, c: cmd.VotePardon) -> None:
    """COURT-3, COURT-6, COURT-8: every sitting judge votes once; the Arbiter does not."""
    s = p.state
    require_running(s)
    check(c.actor in sitting_judges(s), ErrorCode.NOT_JUDGE, "COURT-6")
    city = s.cities.get(c.city)
    check(city is not None and city.verdict is not None, ErrorCode.NO_PENDING_VERDICT, "COURT-4")
    assert city is not None and city.verdict is not None
    check(c.actor not in city.verdict.votes, ErrorCode.VOTE_ALREADY_CAST, "COURT-3")
    p.emit(ev.PardonVoteCast, only(court_audience(s)), city=c.city, judge=c.actor, pardon=c.pardon)
    decided = early_outcome(p.state, c.city)
    if decided is not None:
        finish(p, c.city, pardoned=decided)


def close_window(p: Progress, rest: str, seed: int) -> None:
    """COURT-4: a candidate not pardoned within the window is sentenced to death."""
    name = rest.split(":")[0]
    if p.state.cities[name].verdict is not None:
        finish(p, name, pardoned_at_close(p.state, name))


def finish(p: Progress, name: str, pardoned: bool) -> None:
    """EXEC-15, COURT-3, COURT-7: the verdict; after a pardon the runner-up dies."""
    s = p.state
    verdict = s.cities[name].verdict
    assert verdict is not None
    pardons, refusals, _ = counts(s, name)
    for key in [k for k in s.deadlines if k.startswith(f"pardon_close:{name}:")]:
        p.emit(ev.DeadlineFired, PUBLIC, key=key, due_at=s.deadlines[key])
    p.emit(ev.VerdictReached, PUBLIC, city=name, day=s.day, candidate=verdict.candidate,
           pardoned=pardoned, pardon_votes=pardons, no_pardon_votes=refusals)
    if not pardoned:
        execute(p, name, verdict.candidate)
    else:
        city = p.state.cities[name]
        rest = tuple(c for c in verdict.ranking if eligible(p.state, city, c))
        if not rest:
            p.emit(ev.NoExecution, PUBLIC, city=name, day=s.day, reason="pardoned_no_runner_up")
        elif pardon_possible(p.state, name):
            open_window(p, name, rest[0], rest[1:])
        else:
            execute(p, name, rest[0])
    after_verdict(p)
