"""Judges: elections, removal petitions and recusal (JUDGE, JUDGE-ELECT, JUDGE-REMOVE,
JUDGE-RECUSE, INBOX-POLL, INBOX-REMOVAL, TIME-5, TIME-6)."""

from __future__ import annotations

import random
from datetime import datetime, timedelta

from .. import commands as cmd
from .. import events as ev
from ..audience import PUBLIC, only
from ..errors import N_, ErrorCode, check
from ..inboxes import POLICY, Kind, inbox_id, live_inbox, readers
from ..keywords import Keyword
from ..progress import Progress
from ..state import City, Election, GameState
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
from .court import refresh_court, sitting_judges

ELECTION_HOURS = 3


def needs_election(s: GameState, city: City) -> bool:
    """JUDGE-3, JUDGE-ELECT-1 (AMB-44): no judge, undecided, nothing scheduled."""
    return s.has_court and city.decided is None and city.judge is None and city.election is None


def _notice(s: GameState, city: City) -> timedelta:
    hours = (s.settings.judge_election_notice_after_removal_hours if city.removal_pending
             else s.settings.judge_election_notice_hours)
    return timedelta(hours=hours)


def earliest_window(s: GameState, city: City, now: datetime) -> tuple[datetime, datetime]:
    """JUDGE-ELECT-4, TIME-6: the earliest election the notice rules allow from ``now``."""
    opens = now + _notice(s, city)
    return opens, opens + timedelta(hours=ELECTION_HOURS)


def schedule_vacancies(p: Progress) -> None:
    """AMB-44: the earliest time the notice rules allow, if it still fits into today."""
    s = p.state
    plan = s.plans.get(s.day)
    if plan is None or s.phase.value != "day":
        return
    for name, city in s.cities.items():
        if not needs_election(s, city):
            continue
        opens, closes = earliest_window(s, city, p.now)
        if closes <= plan.scheduled_end:
            _announce(p, name, opens, closes)


def _announce(p: Progress, name: str, opens: datetime, closes: datetime) -> None:
    city = p.state.cities[name]
    number = city.election.number if city.election else _next_number(p.state, name)
    p.emit(ev.JudgeElectionScheduled, PUBLIC, city=name, number=number, opens_at=opens,
           closes_at=closes, after_removal=city.removal_pending)
    schedule(p, f"poll_open:{name}:{number}", opens)
    schedule(p, f"poll_close:{name}:{number}", closes)


def _next_number(s: GameState, name: str) -> int:
    return s.cities[name].elections_held + 1


def schedule_election(p: Progress, c: cmd.ScheduleJudgeElection) -> None:
    """JUDGE-ELECT-4, TIME-5, TIME-6: the Arbiter sets the vote with 6 h (2 h) notice."""
    s = p.state
    check(c.actor == s.arbiter, ErrorCode.NOT_ARBITER, "HOST-ARB-1")
    require_running(s)
    require_day(s)
    city = require_city(s, c.city)
    require_undecided(city)
    check(s.has_court and city.judge is None, ErrorCode.NO_ELECTION_NEEDED, "JUDGE-3")
    check(city.election is None or not city.election.opened, ErrorCode.TOO_LATE, "JUDGE-ELECT-4")
    for moment in (c.opens_at, c.closes_at):
        check(moment.tzinfo is not None, ErrorCode.SCHEDULE_INVALID, detail=N_("times need a timezone"))
    rule = "TIME-6" if city.removal_pending else "TIME-5"
    check(c.opens_at - p.now >= _notice(s, city), ErrorCode.SCHEDULE_INVALID, rule,
          detail=N_("the election must be announced earlier: the settings require more notice"))
    check(c.opens_at < c.closes_at <= s.plans[s.day].scheduled_end, ErrorCode.SCHEDULE_INVALID,
          "JUDGE-ELECT-4", detail=N_("the election must end within the day"))
    _announce(p, c.city, c.opens_at, c.closes_at)


def eligible_candidate(s: GameState, city: City, user: str) -> bool:
    """JUDGE-ELECT-2 (AMB-9), JUDGE-REMOVE-8 (AMB-13): living, not lately removed, and not
    a candidate of today's open execution vote or before the Court (JUDGE-4 would void it)."""
    r = s.residents.get(user)
    if r is None or not r.alive or r.city != city.name:
        return False
    book = city.voting
    if book is not None and not book.closed and user in book.candidates:
        return False
    if city.verdict is not None and (user == city.verdict.candidate or user in city.verdict.ranking):
        return False
    removed = city.removed_on.get(user)
    return removed is None or s.day > removed + s.settings.removed_judge_ineligible_days


def _open_election(s: GameState, actor: str) -> tuple[City, Election]:
    resident = living_resident(s, actor)
    require_running(s)
    city = s.cities[resident.city]
    require_undecided(city)
    election = city.election
    check(election is not None and not election.opened, ErrorCode.NO_ELECTION_OPEN, "JUDGE-ELECT-2")
    assert election is not None
    return city, election


def propose(p: Progress, c: cmd.ProposeJudge) -> None:
    """JUDGE-ELECT-2: the Tribune collects candidates; one proposal per citizen."""
    s = p.state
    city, election = _open_election(s, c.actor)
    check(c.actor not in city.spirits, ErrorCode.NOT_ALIVE, "SPIRIT-7")
    check(c.actor not in election.proposals, ErrorCode.ALREADY_DECLARED, "JUDGE-ELECT-2")
    check(eligible_candidate(s, city, c.candidate), ErrorCode.CANDIDATE_NOT_ELIGIBLE, "JUDGE-ELECT-2")
    p.emit(ev.JudgeProposed, only(c.actor, city.tribune), city=city.name, proposer=c.actor,
           candidate=c.candidate)


def decline(p: Progress, c: cmd.DeclineCandidacy) -> None:
    """JUDGE-ELECT-2 (AMB-9): a proposed candidate may decline before voting opens."""
    s = p.state
    city, election = _open_election(s, c.actor)
    check(c.actor in election.proposals.values() and c.actor not in election.declined,
          ErrorCode.NOT_A_CANDIDATE, "JUDGE-ELECT-2")
    p.emit(ev.CandidacyDeclined, only(c.actor, city.tribune, s.arbiter), city=city.name,
           candidate=c.actor)


def request_proxy(p: Progress, c: cmd.RequestJudgeProxy) -> None:
    """JUDGE-ELECT-9 (AMB-10): to the Arbiter before the opening; counted at the opening."""
    s = p.state
    city, election = _open_election(s, c.actor)
    check(c.candidate in city.residents and c.actor not in election.proxies, ErrorCode.PROXY_INVALID,
          "JUDGE-ELECT-9")  # AMB-10: it names the direction and cannot be changed
    p.emit(ev.JudgeProxyRequested, only(c.actor, s.arbiter), city=city.name, voter=c.actor,
           candidate=c.candidate, in_favour=c.in_favour)


def open_polls(p: Progress, rest: str, seed: int) -> None:
    """JUDGE-ELECT-3, INBOX-POLL-3: one polling station per candidate."""
    name, _, number = rest.rpartition(":")
    s = p.state
    city = s.cities[name]
    election = city.election
    if election is None or election.number != int(number) or city.decided is not None:
        return
    candidates = tuple(dict.fromkeys(
        cand for cand in election.proposals.values()
        if cand not in election.declined and eligible_candidate(s, city, cand)
    ))
    if not candidates:
        _close(p, name, (), None, "no_candidates", (), seed)  # AMB-9: rescheduled later
        return
    p.emit(ev.PollingOpened, PUBLIC, city=name, number=election.number, candidates=candidates)
    for cand in candidates:
        open_inbox(p, Kind.POLLING, f"{name}/{cand}/{election.number}", city=name, subject=cand)
    for voter, (cand, in_favour) in election.proxies.items():
        if cand in candidates and p.state.residents[voter].alive:
            _cast(p, name, cand, voter, in_favour, proxy=True)


def polling_inbox(s: GameState, city: str, candidate: str) -> str | None:
    return live_inbox(s, Kind.POLLING, city, candidate)


def _cast(p: Progress, city: str, candidate: str, voter: str, in_favour: bool, proxy: bool = False) -> None:
    box = polling_inbox(p.state, city, candidate)
    assert box is not None
    keyword = Keyword.GANDHI if in_favour else Keyword.HITLER
    p.emit(ev.JudgeVoteCast, only(readers(p.state, box)), city=city, candidate=candidate, voter=voter,
           in_favour=in_favour, keyword=keyword.value, proxy=proxy)


def cast_vote(p: Progress, inbox: str, voter: str, keyword: Keyword) -> None:
    """JUDGE-ELECT-5, -6, -10: «Он — Ганди!» for, «Он — Гитлер!» against; irrevocable."""
    s = p.state
    box = s.inboxes[inbox]
    assert box.city is not None and box.subject is not None
    election = s.cities[box.city].election
    check(election is not None and election.opened and not box.archived, ErrorCode.VOTING_CLOSED,
          "INBOX-POLL-3")
    assert election is not None
    allowed = POLICY[Kind.POLLING].keywords
    check(keyword in allowed, ErrorCode.NOT_A_KEYWORD, "JUDGE-ELECT-10", keywords=" / ".join(allowed))
    check(voter not in election.votes[box.subject], ErrorCode.VOTE_ALREADY_CAST, "JUDGE-ELECT-6")
    check(voter in s.residents and s.residents[voter].alive, ErrorCode.INBOX_READ_ONLY, "INBOX-POLL-1")
    _cast(p, box.city, box.subject, voter, keyword is Keyword.GANDHI)


def close_polls(p: Progress, rest: str, seed: int) -> None:
    """JUDGE-ELECT-7, -8, -12..15: net score, then the earlier last «for», then a lot."""
    name, _, number = rest.rpartition(":")
    s = p.state
    city = s.cities[name]
    election = city.election
    if election is None or election.number != int(number) or not election.opened:
        return
    tallies = []
    for cand in election.candidates:
        votes = election.votes.get(cand, {})
        pro = sorted((v for v, (f, _) in votes.items() if f), key=lambda v: (votes[v][1], v))
        con = sorted((v for v, (f, _) in votes.items() if not f), key=lambda v: (votes[v][1], v))
        last_for = max((votes[v][1] for v in pro), default=None)
        tallies.append(ev.JudgeTally(candidate=cand, votes_for=tuple(pro), votes_against=tuple(con),
                                     net=len(pro) - len(con), last_for_at=last_for))
    st = s.settings
    electable = [t for t in tallies if t.net >= st.judge_min_net_votes
                 and len(t.votes_for) >= st.judge_min_for_votes and eligible_candidate(s, city, t.candidate)]

    def key(t: ev.JudgeTally) -> tuple[int, float]:
        return (-t.net, t.last_for_at.timestamp() if t.last_for_at else float("inf"))

    rng = random.Random(seed)
    electable.sort(key=lambda t: t.candidate)
    rng.shuffle(electable)
    electable.sort(key=key)
    lot: tuple[str, ...] = ()
    if len(electable) > 1 and key(electable[0]) == key(electable[1]):
        lot = tuple(sorted(t.candidate for t in electable if key(t) == key(electable[0])))
    elected = electable[0].candidate if electable else None
    _close(p, name, tuple(tallies), elected, "" if elected else "nobody_electable", lot, seed)


def _close(p: Progress, name: str, tallies: tuple[ev.JudgeTally, ...], elected: str | None,
           reason: str, lot: tuple[str, ...], seed: int) -> None:
    election = p.state.cities[name].election
    assert election is not None
    p.emit(ev.JudgeElectionClosed, PUBLIC, city=name, number=election.number, tallies=tallies,
           elected=elected, reason=reason, lot=lot, lot_seed=seed)
    for t in tallies:
        box = polling_inbox(p.state, name, t.candidate)
        if box and not p.state.inboxes[box].archived:
            archive_inbox(p, box)  # INBOX-GEN-3: killed; its log is in the result
    # JUDGE-ELECT-14, INBOX-COURT-3: one new Court inbox once the simultaneous elections close.
    if not any(_live_close(p.state, k) and due <= p.now for k, due in p.state.deadlines.items()):
        refresh_court(p)
    # JUDGE-ELECT-13 (AMB-9, AMB-44): a failed election is repeated from the next morning.


def _live_close(s: GameState, key: str) -> bool:
    """A pending poll_close of an open election (not a stale key left by a failed opening)."""
    kind, _, rest = key.partition(":")
    name, _, number = rest.rpartition(":")
    election = s.cities[name].election if kind == "poll_close" and name in s.cities else None
    return election is not None and election.opened and election.number == int(number)


# --- removal and recusal ------------------------------------------------------------


def removal_threshold(s: GameState, city: str) -> int:
    """JUDGE-REMOVE-2, -3 (AMB-12), EX-16: 5, or living mafiosi + 1 below four."""
    m = len(s.living_mafia(city))
    policy = s.settings.judge_removal_policy
    if policy == "fixed_5":
        return 5
    if m < 4:
        return m + 1
    return max(5, m + 1) if policy == "floor_always" else 5


def _petition_deadline(p: Progress, city: City) -> None:
    """JUDGE-REMOVE-5, -6: no later than 4 hours before the day's execution vote."""
    check(p.state.day >= 2, ErrorCode.NO_PETITIONS_TODAY, "JUDGE-REMOVE-7")
    opens = city.vote_opens_at
    hours = p.state.settings.judge_removal_deadline_hours
    check(opens is not None and p.now <= opens - timedelta(hours=hours), ErrorCode.TOO_LATE,
          "JUDGE-REMOVE-5")


def file_petition(p: Progress, c: cmd.FilePetition) -> None:
    """JUDGE-REMOVE-1, INBOX-REMOVAL-1: a living citizen of the judge's city files it."""
    s = p.state
    resident = living_resident(s, c.actor)
    require_running(s)
    require_day(s)
    city = s.cities[resident.city]
    require_undecided(city)
    check(city.judge is not None and city.judge in sitting_judges(s) and city.judge != c.actor,
          ErrorCode.NO_JUDGE, "JUDGE-REMOVE-1")
    check(city.petition is None, ErrorCode.PETITION_EXISTS, "JUDGE-REMOVE-1")
    _petition_deadline(p, city)
    assert city.judge is not None
    box = inbox_id(Kind.REMOVAL, f"{city.name}/{s.day}")
    open_inbox(p, Kind.REMOVAL, f"{city.name}/{s.day}", city=city.name, subject=c.actor,
               members=frozenset({c.actor}))
    p.emit(ev.PetitionFiled, only(c.actor), city=city.name, organizer=c.actor, judge=city.judge,
           inbox=box)
    _maybe_remove(p, city.name)


def confirm_petition(p: Progress, c: cmd.ConfirmPetition) -> None:
    """JUDGE-REMOVE-2, -6, -9: living citizens, on the day of filing, before the deadline."""
    s = p.state
    resident = living_resident(s, c.actor)
    require_running(s)
    require_day(s)
    city = s.cities[resident.city]
    petition = city.petition
    check(petition is not None and petition.day == s.day, ErrorCode.NO_PETITION, "JUDGE-REMOVE-9")
    assert petition is not None
    check(c.actor not in petition.confirmations and c.actor != petition.judge,
          ErrorCode.ALREADY_DECLARED, "JUDGE-REMOVE-2")
    _petition_deadline(p, city)
    count = _living_confirmations(s, city.name, (*petition.confirmations, c.actor))
    p.emit(ev.PetitionConfirmed, only(readers(s, petition.inbox), c.actor), city=city.name,
           user=c.actor, count=count, threshold=removal_threshold(s, city.name))
    _maybe_remove(p, city.name)


def _living_confirmations(s: GameState, city: str, users: tuple[str, ...]) -> int:
    return sum(1 for u in users if s.residents[u].alive)


def _maybe_remove(p: Progress, name: str) -> None:
    """JUDGE-REMOVE-4: reaching the threshold removes the judge at once."""
    s = p.state
    petition = s.cities[name].petition
    assert petition is not None
    if _living_confirmations(s, name, petition.confirmations) >= removal_threshold(s, name):
        p.emit(ev.JudgeRemoved, PUBLIC, city=name, judge=petition.judge)
        refresh_court(p)
        schedule_vacancies(p)


def recuse(p: Progress, c: cmd.Recuse) -> None:
    """JUDGE-RECUSE-1, -2: declared to the Arbiter 4 hours before the day's vote."""
    s = p.state
    resident = living_resident(s, c.actor)
    require_running(s)
    require_day(s)
    city = s.cities[resident.city]
    check(city.judge == c.actor, ErrorCode.NOT_JUDGE, "JUDGE-RECUSE-1")
    opens = city.vote_opens_at
    hours = s.settings.judge_recusal_deadline_hours
    check(opens is None or p.now <= opens - timedelta(hours=hours), ErrorCode.TOO_LATE, "JUDGE-RECUSE-2")
    p.emit(ev.JudgeRecused, PUBLIC, city=city.name, judge=c.actor)
    refresh_court(p)
    schedule_vacancies(p)
