"""Nominations and execution votes (EXEC-1..19, TIME-7, TIME-8, START-1, START-4)."""

from __future__ import annotations

from datetime import datetime, timedelta

from .. import commands as cmd
from .. import events as ev
from ..audience import PUBLIC, only
from ..calendar import DayPlan, at_local
from ..errors import N_, ErrorCode, check
from ..inboxes import POLICY, Kind, live_inbox, readers
from ..keywords import Keyword
from ..progress import Progress
from ..state import City, DeathCause, GameState, Stage, VoteBook
from ..votes import rank, tallies
from . import citizens, court, deaths, night, outcome
from .common import (
    archive_inbox,
    living_resident,
    open_inbox,
    require_city,
    require_day,
    require_running,
    require_undecided,
    schedule,
)
from .pause import paused


def _vote_window(s: GameState, plan: DayPlan) -> tuple[datetime, datetime]:
    """The default window (20:00–23:30), on a long day at its last calendar date (AMB-30)."""
    last_date = plan.first_date + timedelta(days=plan.length_days - 1)
    opens = at_local(last_date, s.settings.default_vote_opens)
    closes = at_local(last_date, s.settings.default_vote_closes)
    end = plan.scheduled_end
    if closes > end or opens <= plan.midpoint:
        length = end - plan.start_at
        opens, closes = plan.start_at + length * 3 / 4, end
    return opens, closes


def schedule_default_vote(p: Progress, city: str, plan: DayPlan) -> None:
    opens, closes = _vote_window(p.state, plan)
    _announce(p, city, opens, closes, opens)


def _announce(p: Progress, city: str, opens: datetime, closes: datetime, nominations: datetime) -> None:
    day = p.state.day
    p.emit(ev.VoteScheduled, PUBLIC, city=city, day=day, opens_at=opens, closes_at=closes,
           nominations_close_at=nominations)
    schedule(p, f"vote_open:{city}:{day}", opens)
    schedule(p, f"vote_close:{city}:{day}", closes)


def _require_execution_day(s: GameState, city: City) -> None:
    require_running(s)
    require_day(s)
    require_undecided(city)
    check(s.day >= 2, ErrorCode.NO_EXECUTIONS_TODAY, "START-1")
    check(not paused(city), ErrorCode.CITY_RESTORING, "RESTORE-7")


def schedule_vote(p: Progress, c: cmd.ScheduleExecutionVote) -> None:
    """TIME-7, TIME-8, EXEC-4: the Tribune sets his city's vote in the first half of the day."""
    s = p.state
    city = require_city(s, c.city)
    stand_in = s.records.delegate_active(city.name, c.actor, p.now, s.tribunes())  # HOST-TRIB-2
    check(c.actor == city.tribune or stand_in, ErrorCode.NOT_TRIBUNE, "HOST-TRIB-1")
    _require_execution_day(s, city)
    plan = s.plans[s.day]
    check(p.now < plan.midpoint, ErrorCode.TOO_LATE, "TIME-7")
    check(city.voting is None, ErrorCode.TOO_LATE, "EXEC-4")
    nominations = c.nominations_close_at or c.opens_at
    for moment in (c.opens_at, c.closes_at, nominations):
        check(moment.tzinfo is not None, ErrorCode.SCHEDULE_INVALID, detail=N_("times need a timezone"))
    check(p.now < nominations <= c.opens_at < c.closes_at, ErrorCode.SCHEDULE_INVALID, "EXEC-4",
          detail=N_("the vote must open later than now and close after it opens; nominations close by then"))
    check(c.closes_at <= plan.scheduled_end, ErrorCode.SCHEDULE_INVALID, "TIME-8",
          detail=N_("the vote must end by the end of the day"))
    _announce(p, c.city, c.opens_at, c.closes_at, nominations)


def eligible(s: GameState, city: City, candidate: str) -> bool:
    """EXEC-3, JUDGE-4, MAFIA-DISCLOSE-1: a living resident, not the judge, not immune."""
    r = s.residents.get(candidate)
    return (
        r is not None and r.alive and r.city == city.name
        and candidate != city.judge and candidate not in city.immune
    )


def nominate(p: Progress, c: cmd.Nominate) -> None:
    s = p.state
    resident = living_resident(s, c.actor)
    city = s.cities[resident.city]
    _require_execution_day(s, city)
    closes = city.nominations_close_at
    check(city.voting is None and (closes is None or p.now < closes), ErrorCode.NOMINATIONS_CLOSED,
          "EXEC-4")
    check(eligible(s, city, c.candidate), ErrorCode.CANDIDATE_NOT_ELIGIBLE, "EXEC-3")
    check(s.settings.allow_self_nomination or c.candidate != c.actor,
          ErrorCode.SELF_NOMINATION_FORBIDDEN, "EXEC-3")
    # INBOX-PERS-2: declared to the Tribune in the personal inbox; nominators stay private
    # unless the game publishes them (EXEC-3, publish_nominators).
    audience = PUBLIC if s.settings.publish_nominators else only(c.actor, city.tribune)
    p.emit(ev.NominationMade, audience, city=city.name, nominator=c.actor, candidate=c.candidate)


def request_proxy(p: Progress, c: cmd.RequestProxyVote) -> None:
    """EXEC-11 (AMB-10): before the vote opens, naming candidates; accepted automatically."""
    s = p.state
    resident = living_resident(s, c.actor)
    city = s.cities[resident.city]
    _require_execution_day(s, city)
    check(city.voting is None, ErrorCode.PROXY_TOO_LATE, "EXEC-11")
    names = tuple(dict.fromkeys(c.candidates))
    check(0 < len(names) <= len(city.residents), ErrorCode.PROXY_INVALID, "EXEC-11")
    for name in names:
        check(name in city.residents, ErrorCode.PROXY_INVALID, "EXEC-11")
    p.emit(ev.ProxyRequested, only(c.actor, city.tribune), city=city.name, voter=c.actor,
           candidates=names)


def open_voting(p: Progress, rest: str, seed: int) -> None:
    name, _, _day = rest.rpartition(":")
    if p.state.cities[name].decided is not None:
        return
    if paused(p.state.cities[name]):
        p.emit(ev.NoExecution, PUBLIC, city=name, day=p.state.day, reason="restoration")
        return
    citizens.apply_suicides(p, name)
    s = p.state
    city = s.cities[name]
    if city.decided is not None or s.stage is Stage.FINISHED:
        return
    candidates = tuple(
        dict.fromkeys(cand for cand in city.nominations.values() if eligible(s, city, cand))
    )
    if not candidates:
        # EXEC-2 (AMB-4): no eligible nominee, nobody is executed; the Day Post says so.
        p.emit(ev.NoExecution, PUBLIC, city=name, day=s.day, reason="no_candidates")
        return
    p.emit(ev.VotingOpened, PUBLIC, city=name, day=s.day, candidates=candidates)
    for candidate in candidates:
        open_inbox(p, Kind.VOTING, f"{name}/{candidate}/{s.day}", city=name, subject=candidate)
    # EXEC-11: the Tribune casts proxy votes at the opening, timed at the opening.
    for voter, wanted in p.state.cities[name].proxies.items():
        if not p.state.residents[voter].alive:
            continue
        for candidate in wanted:
            if candidate in candidates:
                _cast(p, name, candidate, voter, Keyword.EXECUTE, proxy=True)


def voting_inbox(s: GameState, city: str, candidate: str) -> str | None:
    return live_inbox(s, Kind.VOTING, city, candidate)


def _cast(p: Progress, city: str, candidate: str, voter: str, keyword: Keyword,
          proxy: bool = False) -> None:
    inbox = voting_inbox(p.state, city, candidate)
    assert inbox is not None
    p.emit(ev.VoteCast, only(readers(p.state, inbox)), city=city, candidate=candidate, voter=voter,
           keyword=keyword.value, proxy=proxy)


def cast_vote(p: Progress, inbox_id: str, voter: str, keyword: Keyword) -> None:
    """EXEC-5..8: «казнить» casts, «не казнить» withdraws one's own active vote."""
    s = p.state
    inbox = s.inboxes[inbox_id]
    assert inbox.city is not None and inbox.subject is not None
    book = s.cities[inbox.city].voting
    check(book is not None and not book.closed and not inbox.archived, ErrorCode.VOTING_CLOSED,
          "INBOX-VOTE-3")
    assert book is not None
    allowed = POLICY[Kind.VOTING].keywords
    check(keyword in allowed, ErrorCode.NOT_A_KEYWORD, "EXEC-13", keywords=" / ".join(allowed))
    check(voter in s.residents, ErrorCode.INBOX_READ_ONLY, "INBOX-VOTE-1")
    active = voter in book.active[inbox.subject]
    if keyword is Keyword.EXECUTE:
        check(not active, ErrorCode.VOTE_ALREADY_ACTIVE, "EXEC-8")
    else:
        check(active, ErrorCode.NO_ACTIVE_VOTE, "EXEC-8")
    _cast(p, inbox.city, inbox.subject, voter, keyword)


def close_voting(p: Progress, rest: str, seed: int) -> None:
    """EXEC-9, -10, -14, -17: count, rank, publish; execute (no pardon without judges)."""
    name, _, _day = rest.rpartition(":")
    s = p.state
    city = s.cities[name]
    book = city.voting
    if city.decided is not None or book is None or book.closed or paused(city):
        return
    counted = tallies(book, city.immune)
    rankable = [cand for cand in book.candidates if eligible(s, city, cand)]
    ranking = rank(counted, rankable, seed, s.settings.min_votes_to_execute)
    condemned = ranking.order[0] if ranking.order else None
    p.emit(ev.VotingClosed, PUBLIC, city=name, day=s.day, tallies=counted, ranking=ranking.order,
           condemned=condemned, lot=ranking.lot, lot_seed=seed)
    publish_count(p, name, book, tuple(sorted(city.immune & set(book.candidates))))
    for candidate in book.candidates:
        inbox = voting_inbox(p.state, name, candidate)
        if inbox:
            archive_inbox(p, inbox)  # INBOX-GEN-3: killed; the log stays readable
    if condemned is None:
        p.emit(ev.NoExecution, PUBLIC, city=name, day=s.day, reason="no_eligible_candidate")
    elif court.pardon_possible(p.state, name):
        court.open_window(p, name, condemned, ranking.order[1:])  # EXEC-15, COURT-4
        return
    else:
        execute(p, name, condemned)  # EX-12: no Court, no window
    after_verdict(p)


def publish_count(p: Progress, city: str, book: VoteBook, immune: tuple[str, ...]) -> None:
    """EXEC-9, EXEC-14: the whole timestamped keyword log, posted at the close to the city
    inbox and the Court inbox at once (the open ballot becomes public, §9.2)."""
    s = p.state
    posted = (live_inbox(s, Kind.CITY, city), s.current_inbox(Kind.COURT.value))
    log = tuple(ev.VoteEntry(voter=r.voter, candidate=r.candidate, keyword=r.keyword, at=r.at,
                             proxy=r.proxy) for r in book.log)
    p.emit(ev.VoteCountPublished, PUBLIC, city=city, day=book.day, opened_at=book.opened_at,
           log=log, immune=immune, inboxes=tuple(i for i in posted if i))


def after_verdict(p: Progress) -> None:
    """Settle the cities; a day past its scheduled end waits only for the last verdict (§3)."""
    outcome.settle(p)
    if (p.state.stage is Stage.RUNNING and p.state.day_end_reached
            and all(c.execution_final for c in p.state.cities.values())):
        night.start_night(p)


def execute(p: Progress, city: str, user: str) -> None:
    """EXEC-17: the condemned dies when the verdict is final; his faction is announced."""
    deaths.die(p, user, DeathCause.EXECUTION, f"day {p.state.day}")
