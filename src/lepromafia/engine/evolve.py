"""evolve(state, event) -> state, and replay(events) -> Replay.

Pure and total over valid histories: no clock, no randomness, no I/O.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any, TypeVar

from . import events as ev
from .activity import counts_as_activity
from .calendar import DayPlan, ShortDay, plan_day, plan_next
from .inboxes import inbox_key
from .state import (
    Authors,
    City,
    DayNews,
    Deal,
    DeathCause,
    Election,
    Faction,
    GameState,
    Inbox,
    NightBook,
    Offer,
    Outcome,
    Petition,
    PhaseKind,
    Resident,
    Restoration,
    RestoredDeal,
    Stage,
    Verdict,
    VoteBook,
    VoteRecord,
)

NO_AUTHORS = Authors()
K = TypeVar("K")
T = TypeVar("T")
V = TypeVar("V")

Handler = Callable[[GameState, Any], GameState]
_HANDLERS: dict[type[ev.Event], Handler] = {}


def _on(event_type: type[ev.Event]) -> Callable[[Handler], Handler]:
    def register(fn: Handler) -> Handler:
        _HANDLERS[event_type] = fn
        return fn

    return register


_Setter = Callable[[Any, Any], None]
_COPIERS: dict[type[Any], tuple[Callable[[Any], Any], dict[str, _Setter]]] = {}


def _copier(cls: type[Any]) -> tuple[Callable[[Any], Any], dict[str, _Setter]]:
    """A straight-line copy function for one slotted state class, built the way
    ``dataclasses`` builds ``__init__``: from the class's own field names."""
    assert not hasattr(cls, "__post_init__"), cls
    names = [f.name for f in dataclasses.fields(cls)]
    setters = {name: getattr(cls, name).__set__ for name in names}
    env: dict[str, Any] = {"_new": object.__new__, "_cls": cls}
    lines = ["def copy(o):", "    n = _new(_cls)"]
    for i, name in enumerate(names):
        env[f"_s{i}"] = setters[name]
        lines.append(f"    _s{i}(n, o.{name})")
    lines.append("    return n")
    exec("\n".join(lines), env)  # noqa: S102 - generated from field names only
    return env["copy"], setters


def replace(obj: T, /, **changes: Any) -> T:
    """``dataclasses.replace`` for the engine's frozen, slotted state classes, ~2.5x faster.

    The hot spot of every evolve (docs/performance.md). Same result: all fields copied,
    the named ones changed, an unknown name a TypeError. Skipping ``__init__`` is exact
    because these classes have no ``__post_init__``, InitVar or init=False fields.
    """
    cls = type(obj)
    entry = _COPIERS.get(cls)
    if entry is None:
        entry = _COPIERS[cls] = _copier(cls)
    copy, setters = entry
    new: T = copy(obj)
    for name, value in changes.items():
        setter = setters.get(name)
        if setter is None:
            raise TypeError(f"{cls.__name__} has no field {name!r}")
        setter(new, value)
    return new


def _put(mapping: Mapping[K, V], key: K, value: V) -> dict[K, V]:
    new = dict(mapping)
    new[key] = value
    return new


def _city(state: GameState, name: str, **changes: Any) -> GameState:
    return replace(state, cities=_put(state.cities, name, replace(state.cities[name], **changes)))


def _night(state: GameState, name: str, **changes: Any) -> GameState:
    return _city(state, name, night=replace(state.cities[name].night, **changes))


def evolve(state: GameState | None, event: ev.Event) -> GameState:
    """Apply one event. ``state`` is None only before ``GameCreated``."""
    if state is None:
        if not isinstance(event, ev.GameCreated):
            raise ValueError(f"the first event must be GameCreated, not {type(event).__name__}")
        return GameState(
            title=event.title, procurator=event.procurator, settings=event.settings, created_at=event.at
        )
    handler = _HANDLERS.get(type(event))
    if handler is None:
        raise ValueError(f"no evolve rule for {type(event).__name__}")
    return handler(state, event)


@dataclass(frozen=True, slots=True)
class Replay:
    """The longest valid prefix of a log and, if any, why it stopped (scalachess Replay)."""

    state: GameState | None
    applied: int
    error: str | None = None


def replay(events: Iterable[ev.Event]) -> Replay:
    state: GameState | None = None
    applied = 0
    for event in events:
        try:
            state = evolve(state, event)
        except Exception as exc:  # a corrupt log: report the first bad event
            return Replay(state, applied, f"event {applied + 1} ({type(event).__name__}): {exc}")
        applied += 1
    return Replay(state, applied)


# --- recruitment and setup ----------------------------------------------------------


@_on(ev.GameCreated)
def _game_created(state: GameState, e: ev.GameCreated) -> GameState:
    raise ValueError("GameCreated twice")


@_on(ev.PlayerSignedUp)
def _signed_up(state: GameState, e: ev.PlayerSignedUp) -> GameState:
    return replace(state, signups=(*state.signups, e.user))


@_on(ev.SignUpWithdrawn)
def _withdrawn(state: GameState, e: ev.SignUpWithdrawn) -> GameState:
    return replace(state, signups=tuple(u for u in state.signups if u != e.user))


@_on(ev.HostAppointed)
def _host_appointed(state: GameState, e: ev.HostAppointed) -> GameState:
    if e.office == "consigliere":
        return replace(state, consigliere=e.user)
    return replace(state, arbiter=e.user)


@_on(ev.CitiesFormed)
def _cities_formed(state: GameState, e: ev.CitiesFormed) -> GameState:
    cities = {
        c.name: City(
            name=c.name,
            tribune=c.tribune,
            residents=c.residents,
            initial_population=len(c.residents),
            mafia_count=c.mafia_count,
        )
        for c in e.cities
    }
    residents = {u: Resident(user=u, city=c.name) for c in e.cities for u in c.residents}
    return replace(state, cities=cities, residents=residents, stage=Stage.FORMED)


@_on(ev.DealEntropyCommitted)
def _entropy_committed(state: GameState, e: ev.DealEntropyCommitted) -> GameState:
    deal = state.deal
    return replace(state, deal=replace(deal, digests=_put(deal.digests, e.party, e.digest)))


@_on(ev.DealRevealsOpened)
def _reveals_opened(state: GameState, e: ev.DealRevealsOpened) -> GameState:
    deal = state.deal
    digests = _put(deal.digests, "system", e.server_digest)
    return replace(state, deal=replace(deal, digests=digests, reveals_open=True))


@_on(ev.DealEntropyRevealed)
def _entropy_revealed(state: GameState, e: ev.DealEntropyRevealed) -> GameState:
    deal = state.deal
    return replace(state, deal=replace(deal, values=_put(deal.values, e.party, e.value)))


@_on(ev.DealEntropyReplaced)
def _entropy_replaced(state: GameState, e: ev.DealEntropyReplaced) -> GameState:
    deal = state.deal
    return replace(state, deal=replace(deal, values=_put(deal.values, e.party, e.value)))


@_on(ev.DealSealed)
def _deal_sealed(state: GameState, e: ev.DealSealed) -> GameState:
    return replace(state, deal=replace(state.deal, commitment=e.commitment), stage=Stage.SEALED)


@_on(ev.DealListsRecorded)
def _deal_lists(state: GameState, e: ev.DealListsRecorded) -> GameState:
    return replace(state, deal=replace(state.deal, lists=dict(e.lists), salt=e.salt))


@_on(ev.MafiaNumbersNamed)
def _numbers_named(state: GameState, e: ev.MafiaNumbersNamed) -> GameState:
    deal: Deal = state.deal
    return replace(state, deal=replace(deal, numbers=_put(deal.numbers, e.city, e.numbers)))


@_on(ev.MafiaDealt)
def _mafia_dealt(state: GameState, e: ev.MafiaDealt) -> GameState:
    residents = dict(state.residents)
    mafiosi = set(e.mafiosi)
    for user in state.cities[e.city].residents:
        faction = Faction.MAFIA if user in mafiosi else Faction.HONEST
        residents[user] = replace(residents[user], faction=faction)
    return replace(state, residents=residents)


@_on(ev.DealCompleted)
def _deal_completed(state: GameState, e: ev.DealCompleted) -> GameState:
    return replace(state, stage=Stage.DEALT)


@_on(ev.RoleAcknowledged)
def _acknowledged(state: GameState, e: ev.RoleAcknowledged) -> GameState:
    deal = state.deal
    return replace(state, deal=replace(deal, acknowledged=deal.acknowledged | {e.user}))


def _no_change(state: GameState, e: ev.Event) -> GameState:
    return state


for _t in (
    ev.HonestNoticeIssued,
    ev.MafiaAcknowledged,
    ev.KillReported,
    ev.CommissarAppointmentFailed,
    ev.CommissarExposed,
    ev.CommissarWarned,
    ev.MessageEdited,  # the read side shows the versions; the author stays the same
    ev.VoteCountPublished,  # EXEC-14: a publication; the result is VotingClosed's
):
    _HANDLERS[_t] = _no_change


@_on(ev.GameStarted)
def _game_started(state: GameState, e: ev.GameStarted) -> GameState:
    plan = _with_overrides(state, plan_day(1, e.first_day, _start_time(state, 1)))
    return replace(state, stage=Stage.RUNNING, plans={1: plan})


# --- calendar -----------------------------------------------------------------------


def _start_time(state: GameState, day: int) -> str:
    return state.day_starts.get(day, state.settings.day_start_time)


def _with_overrides(state: GameState, plan: DayPlan) -> DayPlan:
    length = state.long_days.get(plan.number)
    if length:
        plan = replace(plan, length_days=length)
    short = state.short_days.get(plan.number)
    if short:
        plan = replace(
            plan,
            end_at=short.end_at,
            next_start_at=short.next_start_at,
            decision_offset_minutes=short.decision_offset_minutes,
            ambush_window_minutes=short.ambush_window_minutes,
        )
    return plan


def _replan(state: GameState, day: int) -> GameState:
    """Re-apply overrides to a planned but not yet started (or current) day."""
    plan = state.plans.get(day)
    if plan is None:
        return state
    previous = state.plans.get(day - 1)
    base = plan_next(previous, _start_time(state, day)) if previous else plan_day(
        day, plan.first_date, _start_time(state, day)
    )
    if day <= state.day and state.phase is PhaseKind.DAY:
        base = replace(base, start_at=plan.start_at)
    return replace(state, plans=_put(state.plans, day, _with_overrides(state, base)))


@_on(ev.DayStartSet)
def _day_start_set(state: GameState, e: ev.DayStartSet) -> GameState:
    return _replan(replace(state, day_starts=_put(state.day_starts, e.day, e.time)), e.day)


@_on(ev.LongDayDeclared)
def _long_day(state: GameState, e: ev.LongDayDeclared) -> GameState:
    return _replan(replace(state, long_days=_put(state.long_days, e.day, e.length_days)), e.day)


@_on(ev.DayShortened)
def _day_shortened(state: GameState, e: ev.DayShortened) -> GameState:
    short = ShortDay(e.end_at, e.next_start_at, e.decision_offset_minutes, e.ambush_window_minutes)
    state = _replan(replace(state, short_days=_put(state.short_days, e.day, short)), e.day)
    return _replan(state, e.day + 1)


@_on(ev.DeadlineScheduled)
def _deadline_scheduled(state: GameState, e: ev.DeadlineScheduled) -> GameState:
    return replace(state, deadlines=_put(state.deadlines, e.key, e.due_at))


@_on(ev.DeadlineFired)
def _deadline_fired(state: GameState, e: ev.DeadlineFired) -> GameState:
    deadlines = dict(state.deadlines)
    deadlines.pop(e.key, None)
    return replace(state, deadlines=deadlines)


@_on(ev.DayStarted)
def _day_started(state: GameState, e: ev.DayStarted) -> GameState:
    cities = {
        name: replace(
            c,
            nominations={},
            proxies={},
            vote_opens_at=None,
            vote_closes_at=None,
            nominations_close_at=None,
            voting=None,
            # RESTORE-7: a city paused by its restoration has no execution to wait for.
            execution_final=c.decided is not None or e.day < 2 or (
                c.restoration is not None and c.restoration.began_day is not None),
            suicides=frozenset(),
            immune=c.immune_next,
            immune_next=frozenset(),
            ambushes=(),
            ambushes_fixed=False,
            petition=None,
            pardons_today=0,
            # START-0 step 7: commissar appointments open in every city on Day 1.
            appointment_open=c.appointment_open or e.day == 1,
        )
        for name, c in state.cities.items()
    }
    return replace(
        state,
        phase=PhaseKind.DAY,
        day=e.day,
        cities=cities,
        pending_kills=(),
        ambush_closed=False,
        day_end_reached=False,
        checks_open=False,
        decisions_closed=False,
    )


@_on(ev.DayEndReached)
def _day_end_reached(state: GameState, e: ev.DayEndReached) -> GameState:
    return replace(state, day_end_reached=True)


@_on(ev.NightStarted)
def _night_started(state: GameState, e: ev.NightStarted) -> GameState:
    cities = {
        name: replace(
            c,
            night=NightBook(),
            checked_tonight=None,
            checked_by=None,
            check_pending=False,
            godfather_election_open=c.godfather is None and c.decided is None,
            godfather_election_failed=False,
        )
        for name, c in state.cities.items()
    }
    today = state.plans[e.night]
    nxt = _with_overrides(state, plan_next(today, _start_time(state, e.night + 1)))
    return replace(
        state, phase=PhaseKind.NIGHT, cities=cities, plans=_put(state.plans, e.night + 1, nxt),
        touring_city=state.touring_city,
    )


@_on(ev.ChecksClosed)
def _checks_closed(state: GameState, e: ev.ChecksClosed) -> GameState:
    return replace(state, checks_open=False)


@_on(ev.ChecksOpened)
def _checks_opened(state: GameState, e: ev.ChecksOpened) -> GameState:
    return replace(state, checks_open=True, ambush_closed=True)


# --- inboxes ------------------------------------------------------------------------


@_on(ev.InboxOpened)
def _inbox_opened(state: GameState, e: ev.InboxOpened) -> GameState:
    inbox = Inbox(
        id=e.inbox,
        kind=e.kind,
        city=e.city,
        subject=e.subject,
        generation=e.generation,
        opened_at=e.at,
        members=e.members,
        title=e.title,
    )
    key = inbox_key(e.kind, e.city, e.subject)
    return replace(
        state, inboxes=_put(state.inboxes, e.inbox, inbox), current=_put(state.current, key, e.inbox)
    )


@_on(ev.InboxArchived)
def _inbox_archived(state: GameState, e: ev.InboxArchived) -> GameState:
    inbox = replace(state.inboxes[e.inbox], archived=True, former=e.readers)
    authors = {k: v for k, v in state.authors.items() if k != e.inbox}  # nobody edits now
    return replace(state, inboxes=_put(state.inboxes, e.inbox, inbox), authors=authors)


@_on(ev.MessagePosted)
def _message_posted(state: GameState, e: ev.MessagePosted) -> GameState:
    state = replace(state, authors=_put(state.authors, e.inbox,
                                        state.authors.get(e.inbox, NO_AUTHORS).added(e.author)))
    inbox = state.inboxes[e.inbox]
    if counts_as_activity(state, inbox, e.author):
        state = replace(state, last_posts=_put(state.last_posts, e.author, e.at))
    if inbox.kind == "mafia" and state.phase is PhaseKind.NIGHT and inbox.city:
        author = state.residents.get(e.author)
        if author and author.alive and author.city == inbox.city:
            night = state.cities[inbox.city].night
            return _night(state, inbox.city, spoke=night.spoke | {e.author})
    return state


# --- day business -------------------------------------------------------------------


@_on(ev.VoteScheduled)
def _vote_scheduled(state: GameState, e: ev.VoteScheduled) -> GameState:
    return _city(
        state,
        e.city,
        vote_opens_at=e.opens_at,
        vote_closes_at=e.closes_at,
        nominations_close_at=e.nominations_close_at,
    )


@_on(ev.NominationMade)
def _nominated(state: GameState, e: ev.NominationMade) -> GameState:
    city = state.cities[e.city]
    return _city(state, e.city, nominations=_put(city.nominations, e.nominator, e.candidate))


@_on(ev.ProxyRequested)
def _proxy(state: GameState, e: ev.ProxyRequested) -> GameState:
    city = state.cities[e.city]
    return _city(state, e.city, proxies=_put(city.proxies, e.voter, e.candidates))


@_on(ev.SuicideDeclared)
def _suicide_declared(state: GameState, e: ev.SuicideDeclared) -> GameState:
    return _city(state, e.city, suicides=state.cities[e.city].suicides | {e.user})


@_on(ev.SuicideWithdrawn)
def _suicide_withdrawn(state: GameState, e: ev.SuicideWithdrawn) -> GameState:
    return _city(state, e.city, suicides=state.cities[e.city].suicides - {e.user})


@_on(ev.ObserverJoined)
def _observer_joined(state: GameState, e: ev.ObserverJoined) -> GameState:
    return _city(state, e.city, observers=state.cities[e.city].observers | {e.user})


@_on(ev.SpiritsChosen)
def _spirits_chosen(state: GameState, e: ev.SpiritsChosen) -> GameState:
    return _city(state, e.city, spirits=frozenset(e.spirits))


@_on(ev.VotingOpened)
def _voting_opened(state: GameState, e: ev.VotingOpened) -> GameState:
    book = VoteBook(day=e.day, candidates=e.candidates, opened_at=e.at,
                    active={c: {} for c in e.candidates})
    return _city(state, e.city, voting=book)


@_on(ev.VoteCast)
def _vote_cast(state: GameState, e: ev.VoteCast) -> GameState:
    book = state.cities[e.city].voting
    assert book is not None
    votes = dict(book.active[e.candidate])
    if e.keyword == "казнить":
        votes[e.voter] = e.at
    else:
        votes.pop(e.voter, None)
    record = VoteRecord(voter=e.voter, candidate=e.candidate, keyword=e.keyword, at=e.at, proxy=e.proxy)
    book = replace(book, log=(*book.log, record), active=_put(book.active, e.candidate, votes))
    return _city(state, e.city, voting=book)


@_on(ev.VotingClosed)
def _voting_closed(state: GameState, e: ev.VotingClosed) -> GameState:
    book = state.cities[e.city].voting
    assert book is not None
    result = ev.VoteResult(city=e.city, day=e.day, tallies=e.tallies, condemned=e.condemned,
                          ranking=e.ranking, lot=e.lot)
    state = _news(state, votes=(*state.news.votes, result))
    return _city(state, e.city, voting=replace(book, closed=True))


def _news(state: GameState, **changes: Any) -> GameState:
    return replace(state, news=replace(state.news, **changes))


@_on(ev.DayPostPublished)
def _day_post(state: GameState, e: ev.DayPostPublished) -> GameState:
    return replace(state, news=DayNews())


@_on(ev.NoExecution)
def _no_execution(state: GameState, e: ev.NoExecution) -> GameState:
    return _city(state, e.city, execution_final=True)


@_on(ev.ResidentDied)
def _resident_died(state: GameState, e: ev.ResidentDied) -> GameState:
    cause = DeathCause(e.cause)
    resident = replace(state.residents[e.user], alive=False, cause=cause, died_at=e.at, died_in=e.label)
    state = replace(state, residents=_put(state.residents, e.user, resident))
    city = state.cities[e.city]
    changes: dict[str, Any] = {}
    if city.godfather == e.user:
        changes["godfather"] = None
        changes["godfather_election_failed"] = False  # GODFATHER-5: the mafia elects first
    if city.commissar == e.user:
        changes["commissar"] = None
    if city.judge == e.user:
        changes["judge"] = None
    if resident.faction is Faction.MAFIA:
        changes["last_mafia_death_at"] = e.at
    if cause is DeathCause.EXECUTION:
        changes["execution_final"] = True
    return _city(state, e.city, **changes) if changes else state


# --- judges and the Court -----------------------------------------------------------


def _election(state: GameState, name: str, **changes: Any) -> GameState:
    election = state.cities[name].election
    assert election is not None
    return _city(state, name, election=replace(election, **changes))


@_on(ev.JudgeElectionScheduled)
def _election_scheduled(state: GameState, e: ev.JudgeElectionScheduled) -> GameState:
    city = state.cities[e.city]
    current = city.election
    if current is not None and current.number == e.number:  # rescheduled by the Arbiter
        return _election(state, e.city, opens_at=e.opens_at, closes_at=e.closes_at, announced_at=e.at)
    election = Election(number=e.number, announced_at=e.at, opens_at=e.opens_at, closes_at=e.closes_at,
                        after_removal=e.after_removal)
    return _city(state, e.city, election=election)


@_on(ev.JudgeProposed)
def _judge_proposed(state: GameState, e: ev.JudgeProposed) -> GameState:
    election = state.cities[e.city].election
    assert election is not None
    return _election(state, e.city, proposals=_put(election.proposals, e.proposer, e.candidate))


@_on(ev.CandidacyDeclined)
def _declined(state: GameState, e: ev.CandidacyDeclined) -> GameState:
    election = state.cities[e.city].election
    assert election is not None
    return _election(state, e.city, declined=election.declined | {e.candidate})


@_on(ev.JudgeProxyRequested)
def _judge_proxy(state: GameState, e: ev.JudgeProxyRequested) -> GameState:
    election = state.cities[e.city].election
    assert election is not None
    return _election(state, e.city,
                     proxies=_put(election.proxies, e.voter, (e.candidate, e.in_favour)))


@_on(ev.PollingOpened)
def _polling_opened(state: GameState, e: ev.PollingOpened) -> GameState:
    return _election(state, e.city, candidates=e.candidates, opened=True,
                     votes={c: {} for c in e.candidates})


@_on(ev.JudgeVoteCast)
def _judge_vote(state: GameState, e: ev.JudgeVoteCast) -> GameState:
    election = state.cities[e.city].election
    assert election is not None
    station = _put(election.votes[e.candidate], e.voter, (e.in_favour, e.at))
    return _election(state, e.city, votes=_put(election.votes, e.candidate, station))


@_on(ev.JudgeElectionClosed)
def _election_closed(state: GameState, e: ev.JudgeElectionClosed) -> GameState:
    held = state.cities[e.city].elections_held + 1
    result = ev.JudgeResult(city=e.city, elected=e.elected, tallies=e.tallies)
    state = _news(state, judge_elections=(*state.news.judge_elections, result))
    if e.elected is None:
        return _city(state, e.city, election=None, elections_held=held)
    return _city(state, e.city, election=None, judge=e.elected, removal_pending=False, elections_held=held)


@_on(ev.PardonWindowOpened)
def _pardon_window(state: GameState, e: ev.PardonWindowOpened) -> GameState:
    verdict = Verdict(candidate=e.candidate, ranking=e.ranking, closes_at=e.closes_at)
    return _city(state, e.city, verdict=verdict, execution_final=False)


@_on(ev.PardonVoteCast)
def _pardon_vote(state: GameState, e: ev.PardonVoteCast) -> GameState:
    verdict = state.cities[e.city].verdict
    assert verdict is not None
    state = replace(state, pardon_votes_held=True)
    return _city(state, e.city, verdict=replace(verdict, votes=_put(verdict.votes, e.judge, e.pardon)))


@_on(ev.VerdictReached)
def _verdict_reached(state: GameState, e: ev.VerdictReached) -> GameState:
    notice = ev.VerdictNotice(city=e.city, day=e.day, candidate=e.candidate, pardoned=e.pardoned,
                              pardon_votes=e.pardon_votes, no_pardon_votes=e.no_pardon_votes)
    state = _news(state, verdicts=(*state.news.verdicts, notice))
    city = state.cities[e.city]
    return _city(state, e.city, verdict=None, pardons_today=city.pardons_today + (1 if e.pardoned else 0))


@_on(ev.PardonPresetChosen)
def _preset(state: GameState, e: ev.PardonPresetChosen) -> GameState:
    return replace(state, settings=replace(state.settings, pardon_majority=e.majority))


@_on(ev.PetitionFiled)
def _petition_filed(state: GameState, e: ev.PetitionFiled) -> GameState:
    petition = Petition(inbox=e.inbox, organizer=e.organizer, judge=e.judge, day=state.day,
                        confirmations=(e.organizer,))
    return _city(state, e.city, petition=petition)


@_on(ev.PetitionConfirmed)
def _petition_confirmed(state: GameState, e: ev.PetitionConfirmed) -> GameState:
    petition = state.cities[e.city].petition
    assert petition is not None
    box = state.inboxes[petition.inbox]
    state = replace(state, inboxes=_put(state.inboxes, box.id, replace(box, members=box.members | {e.user})))
    return _city(state, e.city, petition=replace(petition, confirmations=(*petition.confirmations, e.user)))


@_on(ev.JudgeRemoved)
def _judge_removed(state: GameState, e: ev.JudgeRemoved) -> GameState:
    city = state.cities[e.city]
    if city.petition is not None and state.arbiter:
        box = state.inboxes[city.petition.inbox]
        box = replace(box, members=box.members | {state.arbiter})  # INBOX-REMOVAL-2
        state = replace(state, inboxes=_put(state.inboxes, box.id, box))
    return _city(state, e.city, judge=None, petition=None, removal_pending=True,
                 removed_on=_put(city.removed_on, e.judge, state.day))


@_on(ev.JudgeRecused)
def _judge_recused(state: GameState, e: ev.JudgeRecused) -> GameState:
    return _city(state, e.city, judge=None)


# --- night business -----------------------------------------------------------------


@_on(ev.GodfatherVoteCast)
def _godfather_vote(state: GameState, e: ev.GodfatherVoteCast) -> GameState:
    night = state.cities[e.city].night
    state = _night(state, e.city, godfather_votes=_put(night.godfather_votes, e.voter, e.candidate),
                   spoke=night.spoke | {e.voter})
    return state


@_on(ev.GodfatherElected)
def _godfather_elected(state: GameState, e: ev.GodfatherElected) -> GameState:
    """GODFATHER-1, -4: a new Godfather's word is final at once; his voice tonight is his order
    and the deposed one's order lapses. A re-elected Godfather keeps his."""
    city = state.cities[e.city]
    night = city.night
    state = _city(state, e.city, godfather=e.godfather, godfather_election_open=False,
                  godfather_election_failed=False)
    if city.godfather != e.godfather:
        state = _night(state, e.city, order=night.declarations.get(e.godfather),
                       tour_order=night.tour_declarations.get(e.godfather))
    return _night(state, e.city, godfather_votes={}, reelection_demands=frozenset())


@_on(ev.GodfatherElectionFailed)
def _godfather_failed(state: GameState, e: ev.GodfatherElectionFailed) -> GameState:
    return _city(state, e.city, godfather_election_open=False, godfather_election_failed=True)


@_on(ev.GodfatherReelectionDemanded)
def _reelection(state: GameState, e: ev.GodfatherReelectionDemanded) -> GameState:
    night = state.cities[e.city].night
    state = _night(state, e.city, reelection_demands=night.reelection_demands | {e.user},
                   spoke=night.spoke | {e.user})
    if e.opened:
        state = _city(state, e.city, godfather_election_open=True)
        state = _night(state, e.city, godfather_votes={})
    return state


@_on(ev.KillDeclared)
def _kill_declared(state: GameState, e: ev.KillDeclared) -> GameState:
    night = state.cities[e.city].night
    spoke = night.spoke | {e.mafioso}
    if e.tour:
        if e.is_order:
            return _night(state, e.city, tour_order=e.target, spoke=spoke)
        decl = _put(night.tour_declarations, e.mafioso, e.target)
        return _night(state, e.city, tour_declarations=decl, spoke=spoke)
    if e.is_order:
        return _night(state, e.city, order=e.target, spoke=spoke)
    return _night(state, e.city, declarations=_put(night.declarations, e.mafioso, e.target), spoke=spoke)


@_on(ev.NightDecisionFixed)
def _decision_fixed(state: GameState, e: ev.NightDecisionFixed) -> GameState:
    if e.target is None:
        return state
    kills = (*state.pending_kills, (e.target, e.city))
    if not e.tour:
        return replace(state, pending_kills=kills)
    tour = (e.night, e.city, state.residents[e.target].city)
    return replace(state, pending_kills=kills, tours=(*state.tours, tour))


@_on(ev.DecisionsClosed)
def _decisions_closed(state: GameState, e: ev.DecisionsClosed) -> GameState:
    return replace(state, decisions_closed=True)


@_on(ev.CheckAnswered)
def _check_answered(state: GameState, e: ev.CheckAnswered) -> GameState:
    return _city(state, e.city, checked_tonight=e.target, check_pending=False)


@_on(ev.CheckRequested)
def _check_requested(state: GameState, e: ev.CheckRequested) -> GameState:
    asker = state.cities[e.city].commissar
    return _city(state, e.city, checked_tonight=e.target, check_pending=True, checked_by=asker)


# --- commissar appointment ----------------------------------------------------------


@_on(ev.CommissarOffered)
def _offered(state: GameState, e: ev.CommissarOffered) -> GameState:
    city = state.cities[e.city]
    offer = Offer(attempt=e.attempt, candidate=e.candidate, inbox=e.inbox, offered_at=e.at)
    return _city(state, e.city, offer=offer, offers_made=(*city.offers_made, e.candidate),
                 appointment_open=True)


@_on(ev.CommissarOfferAnswered)
def _answered(state: GameState, e: ev.CommissarOfferAnswered) -> GameState:
    offer = state.cities[e.city].offer
    assert offer is not None
    return _city(state, e.city, offer=replace(offer, answered_at=e.at, accepted=e.accepted))


@_on(ev.CommissarOfferResolved)
def _resolved(state: GameState, e: ev.CommissarOfferResolved) -> GameState:
    city = state.cities[e.city]
    offer = city.offer
    assert offer is not None
    exhausted = not e.accepted and len(city.offers_made) >= state.settings.commissar_offer_attempts
    return _city(
        state, e.city, offer=None,
        appointment_open=not e.accepted and not exhausted,
    )


@_on(ev.CommissarAppointed)
def _appointed(state: GameState, e: ev.CommissarAppointed) -> GameState:
    line = replace(state.inboxes[e.line], subject=e.commissar)
    state = replace(state, inboxes=_put(state.inboxes, e.line, line))
    return _city(state, e.city, commissar=e.commissar, commissar_line=e.line)


# --- ambush and disclosures ---------------------------------------------------------


@_on(ev.CommissarVacated)
def _commissar_vacated(state: GameState, e: ev.CommissarVacated) -> GameState:
    city = state.cities[e.city]
    return _city(state, e.city, commissar=None, appointment_open=e.replace, offers_made=(),
                 ambush_pending=e.ambush or city.ambush_pending,
                 dead_commissar=e.commissar if e.ambush else city.dead_commissar)


@_on(ev.AmbushRightGranted)
def _ambush_granted(state: GameState, e: ev.AmbushRightGranted) -> GameState:
    city = state.cities[e.city]
    return _city(state, e.city, ambush_pending=False, ambush_nights=city.ambush_nights | set(e.nights))


@_on(ev.AmbushPlaced)
def _ambush_placed(state: GameState, e: ev.AmbushPlaced) -> GameState:
    kept = tuple(a for a in state.cities[e.city].ambushes if a[0] != e.mafioso)
    return _city(state, e.city, ambushes=(*kept, (e.mafioso, e.target)))


@_on(ev.AmbushWithdrawn)
def _ambush_withdrawn(state: GameState, e: ev.AmbushWithdrawn) -> GameState:
    kept = tuple(a for a in state.cities[e.city].ambushes if a[0] != e.mafioso)
    return _city(state, e.city, ambushes=kept)


@_on(ev.AmbushesFixed)
def _ambushes_fixed(state: GameState, e: ev.AmbushesFixed) -> GameState:
    return _city(state, e.city, ambushes=e.ambushes, ambushes_fixed=True)


@_on(ev.MafiosoDisclosed)
def _mafioso_disclosed(state: GameState, e: ev.MafiosoDisclosed) -> GameState:
    city = state.cities[e.city]
    if e.immunity_day == state.day:
        return _city(state, e.city, immune=city.immune | {e.user})
    return _city(state, e.city, immune_next=city.immune_next | {e.user})


@_on(ev.CommissarDisclosed)
def _commissar_disclosed(state: GameState, e: ev.CommissarDisclosed) -> GameState:
    return _city(state, e.city, commissar=None)


# --- restoration --------------------------------------------------------------------


def _restoration(state: GameState, name: str, **changes: Any) -> GameState:
    current = state.cities[name].restoration
    assert current is not None
    return _city(state, name, restoration=replace(current, **changes))


@_on(ev.RestorationProposed)
def _restoration_proposed(state: GameState, e: ev.RestorationProposed) -> GameState:
    proposal = Restoration(new_name=e.new_name, reason=e.reason, proposed_day=state.day,
                           expelled=e.expelled, signed=frozenset({state.procurator}))
    return _city(state, e.city, restoration=proposal)


@_on(ev.RestorationSigned)
def _restoration_signed(state: GameState, e: ev.RestorationSigned) -> GameState:
    current = state.cities[e.city].restoration
    assert current is not None
    return _restoration(state, e.city, signed=current.signed | {e.host})


@_on(ev.RestorationBegan)
def _restoration_began(state: GameState, e: ev.RestorationBegan) -> GameState:
    """RESTORE-7: offices vacated, ambush rights and Spirits cleared."""
    state = _restoration(state, e.city, began_day=e.day)
    # RESTORE-2, -7 (D1): kills fixed before the restoration, by or on the city, are void.
    kills = tuple(k for k in state.pending_kills
                  if k[1] != e.city and state.residents[k[0]].city != e.city)
    state = replace(state, pending_kills=kills)
    return _city(state, e.city, display_name=e.new_name, restored_at=e.at, judge=None, godfather=None,
                 godfather_election_failed=False, commissar=None,
                 offer=None, appointment_open=False, ambush_pending=False, ambush_nights=frozenset(),
                 ambushes=(), spirits=frozenset(), night=NightBook(), nominations={}, proxies={},
                 execution_final=True, verdict=None, election=None, petition=None)


@_on(ev.RestorationListSealed)
def _restoration_sealed(state: GameState, e: ev.RestorationListSealed) -> GameState:
    return _restoration(state, e.city, mafia_count=e.mafia_count, commitment=e.commitment)


@_on(ev.RestorationListRecorded)
def _restoration_recorded(state: GameState, e: ev.RestorationListRecorded) -> GameState:
    return _restoration(state, e.city, order=e.order, salt=e.salt)


@_on(ev.CityRedealt)
def _city_redealt(state: GameState, e: ev.CityRedealt) -> GameState:
    city = state.cities[e.city]
    r = city.restoration
    assert r is not None
    before = tuple((u, (state.residents[u].faction or Faction.HONEST).value) for u in city.residents)
    record = RestoredDeal(city=e.city, new_name=r.new_name, order=r.order, salt=r.salt,
                          commitment=r.commitment, mafiosi=e.mafiosi, factions_before=before)
    state = replace(state, restored=(*state.restored, record))
    residents = dict(state.residents)
    mafiosi = set(e.mafiosi)
    for user in state.cities[e.city].residents:
        if residents[user].alive:
            faction = Faction.MAFIA if user in mafiosi else Faction.HONEST
            residents[user] = replace(residents[user], faction=faction)
    state = replace(state, residents=residents)
    state = _restoration(state, e.city, dealt=True)
    return _city(state, e.city, mafia_count=len(e.mafiosi))


@_on(ev.RestorationCompleted)
def _restoration_completed(state: GameState, e: ev.RestorationCompleted) -> GameState:
    city = state.cities[e.city]
    living = sum(1 for u in city.residents if state.residents[u].alive)
    return _city(state, e.city, restoration=None, offers_made=(), execution_final=False,
                 appointment_open=2 * living > city.initial_population)  # RESTORE-5


# --- outcome ------------------------------------------------------------------------


@_on(ev.CityDecided)
def _city_decided(state: GameState, e: ev.CityDecided) -> GameState:
    judge = state.cities[e.city].judge if state.settings.decided_city_judge == "keeps_seat" else None
    return _city(state, e.city, decided=Outcome(e.outcome), decided_at=e.at, execution_final=True,
                 judge=judge, election=None, verdict=None)


@_on(ev.GameResultFixed)
def _result_fixed(state: GameState, e: ev.GameResultFixed) -> GameState:
    return replace(state, result=Outcome(e.result), winning_mafia=e.winning_mafia)


@_on(ev.ArchiveConsentGiven)
def _consent(state: GameState, e: ev.ArchiveConsentGiven) -> GameState:
    archive = state.archive
    given = _put(archive.consents.get(e.inbox, {}), e.user, e.consent)
    return replace(state, archive=replace(archive, consents=_put(archive.consents, e.inbox, given)))


@_on(ev.ArchiveOpened)
def _archive_opened(state: GameState, e: ev.ArchiveOpened) -> GameState:
    archive = state.archive
    mine = archive.requested.get(e.user, frozenset()) | {e.inbox}
    return replace(state, archive=replace(archive, requested=_put(archive.requested, e.user, mine)))


@_on(ev.GameEnded)
def _game_ended(state: GameState, e: ev.GameEnded) -> GameState:
    return replace(state, stage=Stage.FINISHED, phase=PhaseKind.OVER, deadlines={})


@_on(ev.TourAnnounced)
def _tour_announced(state: GameState, e: ev.TourAnnounced) -> GameState:
    return replace(state, touring_city=e.city, tour_pointer=e.pointer)


# registers the host-side rules and the seed systems' rules
from . import evolve_host, evolve_seeds  # noqa: E402,F401
