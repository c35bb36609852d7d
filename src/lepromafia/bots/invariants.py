"""Invariants every game must keep, checked over simulated games (python-chess fuzz idea).

Two checkers:

* ``StepChecker.attempt`` wraps one command while playing: a rejected command must
  leave the table untouched; an accepted one must be legal for its actor and phase;
  a move the caller knows to be illegal must be rejected.
* ``check_game(table)`` replays the whole log event by event and checks population,
  executions, the dead, phases, replay equality and who may see what (RULES.md §9).

Both return human-readable violation strings; an empty list means the game is sound.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, fields
from datetime import datetime
from typing import Any

from ..engine import commands as cmd
from ..engine import events as ev
from ..engine import events_host as hev
from ..engine.duties import duties
from ..engine.errors import RuleViolation
from ..engine.events import Event
from ..engine.evolve import evolve
from ..engine.rules.court import sitting_judges
from ..engine.state import GameState, PhaseKind, Stage
from ..engine.table import Table
from ..engine.visibility import visible_to
from .rule_checks import RuleTracker, court_problems

DEAD_MAY_POST = frozenset({"mafia", "cemetery", "secret"})
"""INBOX-MAFIA-3, INBOX-CEM-1, INBOX-SECRET-1: the only inboxes where the dead still write."""

DAY_COMMANDS: tuple[type[cmd.Command], ...] = (
    cmd.Nominate, cmd.RequestProxyVote, cmd.ScheduleExecutionVote, cmd.OfferCommissar,
    cmd.AnswerCommissarOffer,
)
NIGHT_COMMANDS: tuple[type[cmd.Command], ...] = (
    cmd.DeclareKill, cmd.VoteGodfather, cmd.DemandGodfatherReelection, cmd.CheckResident,
)
RESIDENT_ACTS: tuple[type[cmd.Command], ...] = (
    cmd.DeclareSuicide, cmd.WithdrawSuicide, cmd.Nominate, cmd.RequestProxyVote,
    cmd.AnswerCommissarOffer, cmd.DeclareKill,
    cmd.VoteGodfather, cmd.DemandGodfatherReelection, cmd.CheckResident,
)
"""Commands that are game rights of a living resident (ROLE-DEAD-3)."""


# --- per step ----------------------------------------------------------------------


@dataclass
class StepChecker:
    """Checks each command as it is played; collects violations instead of raising."""

    violations: list[str] = field(default_factory=list)
    accepted: int = 0
    rejected: int = 0
    illegal_tried: int = 0
    probes: Counter[str] = field(default_factory=Counter)
    """Illegal moves tried, by command kind."""

    def attempt(self, table: Table, command: cmd.Command, now: datetime,
                illegal: bool = False) -> list[Event]:
        """Play ``command``; ``illegal`` marks a move the engine must reject."""
        before, logged = table.state, len(table.events)
        self.illegal_tried += illegal
        if illegal:
            self.probes[type(command).__name__] += 1
        try:
            events = table.do(command, now)
        except RuleViolation:
            self.rejected += 1
            if table.state is not before or len(table.events) != logged:
                self.violations.append(f"rejected {_show(command)} changed the table")
            return []
        self.accepted += 1
        if illegal:
            self.violations.append(f"accepted illegal {_show(command)} at {now.isoformat()}")
        if before is not None:
            self.violations.extend(command_problems(before, command, events))
        return events


def command_problems(before: GameState, command: cmd.Command, events: list[Event]) -> list[str]:
    """Why an accepted ``command`` should have been rejected in ``before`` (empty if fine)."""
    problems: list[str] = []
    if before.stage is Stage.FINISHED and events:
        problems.append(f"{_show(command)} changed a finished game")
    actor = before.residents.get(command.actor)
    if actor is not None and not actor.alive:
        if isinstance(command, RESIDENT_ACTS):
            problems.append(f"dead {command.actor} acted: {_show(command)} (ROLE-DEAD-3)")
        elif isinstance(command, cmd.PostMessage):
            inbox = before.inboxes.get(command.inbox)
            spirit = inbox is not None and inbox.kind == "voting" and _is_spirit(before, command.actor)
            if inbox is not None and inbox.kind not in DEAD_MAY_POST and not spirit:
                problems.append(f"dead {command.actor} posted in {command.inbox} (ROLE-DEAD-3)")
    if isinstance(command, DAY_COMMANDS) and before.phase is not PhaseKind.DAY:
        problems.append(f"{_show(command)} accepted at {before.phase.value} (TIME-10)")
    if isinstance(command, NIGHT_COMMANDS) and before.phase is not PhaseKind.NIGHT:
        problems.append(f"{_show(command)} accepted at {before.phase.value} (TIME-10)")
    return problems


def _is_spirit(s: GameState, user: str) -> bool:
    """SPIRIT-2/5: a dead honest resident who is one of his city's Spirits today."""
    r = s.residents.get(user)
    return r is not None and user in s.cities[r.city].spirits


def _show(command: cmd.Command) -> str:
    return f"{type(command).__name__}({command.actor})"


# --- whole game --------------------------------------------------------------------


def check_game(table: Table) -> list[str]:
    """Every invariant violated by the game held in ``table`` (empty if none)."""
    return check_events(table.events, table.state)


def check_events(events: Iterable[Event], final: GameState | None = None) -> list[str]:
    events = list(events)
    problems: list[str] = []
    state: GameState | None = None
    executions: set[tuple[str, int]] = set()
    population: frozenset[str] | None = None
    ended = False
    rules = RuleTracker()
    for n, event in enumerate(events, 1):
        where = f"event {n} {type(event).__name__}"
        ended = ended or isinstance(event, ev.GameEnded)
        if state is not None:
            if n > 1 and event.at != events[n - 2].at:
                # Every event of one command shares its moment: between moments the state
                # is at rest, and the Court inbox must match the bench (INBOX-COURT-4),
                # and the game must have something to wait for (liveness).
                problems.extend(f"before {where}: {p}" for p in court_problems(state))
                problems.extend(f"before {where}: {p}"
                                for p in liveness_problems(state, events[n - 2].at))
            if not ended:
                problems.extend(f"{where}: {p}" for p in visibility_problems(state, event))
            problems.extend(f"{where}: {p}" for p in event_problems(state, event, executions))
            problems.extend(f"{where}: {p}" for p in rules.before(state, event))
        try:
            after = evolve(state, event)
        except Exception as exc:  # the log itself is corrupt
            problems.append(f"{where}: evolve failed: {exc}")
            return problems
        if population is None and after.residents:
            population = frozenset(after.residents)
        if state is not None and after.residents is not state.residents:
            problems.extend(f"{where}: {p}" for p in population_problems(state, after, population))
        state = after
    # The fold above is replay(events) (same evolve, event by event); folding once
    # serves both the per-event checks and the replay-equality invariant.
    if state is not None:
        problems.extend(f"at the end: {p}" for p in court_problems(state))
        last = events[-1].at if events else None
        problems.extend(f"at the end: {p}" for p in liveness_problems(state, last))
    if final is not None and state != final:
        problems.append("replay(events) differs from the state reached step by step")
    return problems


# --- liveness: no game can get stuck (issue 10, review D7) ------------------------------


def host_duty_with_deadline(s: GameState, now: datetime | None) -> bool:
    """An open duty of a host that carries its own deadline (``engine.duties``)."""
    if now is None:
        return False
    return any(d.deadline is not None for host in s.hosts() for d in duties(s, host, now))


def liveness_problems(s: GameState, now: datetime | None = None) -> list[str]:
    """A running game at rest always waits for something: a pending deadline, or a host
    duty with a deadline. Otherwise no timer and no obligation moves it on: it is stuck."""
    if s.stage is not Stage.RUNNING or s.deadlines or host_duty_with_deadline(s, now):
        return []
    return [f"stuck: {s.phase.value} {s.day} with no pending deadline and no host duty due"]


def population_problems(before: GameState, after: GameState,
                        population: frozenset[str] | None) -> list[str]:
    """Residents never appear or vanish; the dead have a cause and stay dead."""
    problems = []
    if population is not None and frozenset(after.residents) != population:
        problems.append("the set of residents changed")
    for user, now in after.residents.items():
        was = before.residents.get(user)
        if now.alive:
            if was is not None and not was.alive:
                problems.append(f"{user} came back from the dead")
        elif now.cause is None or now.died_in is None:
            problems.append(f"{user} is dead without a cause")
    return problems


def event_problems(s: GameState, e: Event, executions: set[tuple[str, int]]) -> list[str]:
    """What ``e`` must not do in state ``s``: the dead act, phases, one execution a day."""
    problems: list[str] = []

    def alive(user: str, what: str) -> None:
        r = s.residents.get(user)
        if r is not None and not r.alive:
            problems.append(f"dead {user} {what} (ROLE-DEAD-3)")

    def phase(kind: PhaseKind) -> None:
        if s.phase is not kind:
            problems.append(f"happened at {s.phase.value}, not {kind.value} (TIME-10)")

    if isinstance(e, ev.ResidentDied):
        if not s.residents[e.user].alive:
            problems.append(f"{e.user} died twice")
        if e.cause == "execution":
            key = (e.city, s.day)
            if key in executions:
                problems.append(f"a second execution in {e.city} on day {s.day} (EXEC-1)")
            executions.add(key)
            phase(PhaseKind.DAY)
    elif isinstance(e, ev.NominationMade):
        alive(e.nominator, "nominated")
        alive(e.candidate, "was nominated")
        phase(PhaseKind.DAY)
    elif isinstance(e, ev.ProxyRequested):
        alive(e.voter, "requested a proxy")
        phase(PhaseKind.DAY)
    elif isinstance(e, ev.VoteCast):
        if not _is_spirit(s, e.voter):  # SPIRIT-5: the day's Spirits vote
            alive(e.voter, "voted")
        book = s.cities[e.city].voting
        if book is None or book.closed:
            problems.append(f"vote by {e.voter} outside an open vote (INBOX-VOTE-3)")
        phase(PhaseKind.DAY)
    elif isinstance(e, ev.KillDeclared | ev.GodfatherVoteCast | ev.GodfatherReelectionDemanded):
        actor = e.mafioso if isinstance(e, ev.KillDeclared) else (
            e.voter if isinstance(e, ev.GodfatherVoteCast) else e.user)
        alive(actor, "acted at night")
        if not s.is_mafia(actor):
            problems.append(f"{actor} is not a mafioso (ROLE-MAFIA-1)")
        phase(PhaseKind.NIGHT)
    elif isinstance(e, ev.CheckAnswered):
        commissar = s.cities[e.city].commissar
        if commissar is None:
            problems.append(f"a check in {e.city} without a commissar")
        else:
            alive(commissar, "checked")
        phase(PhaseKind.NIGHT)
    elif isinstance(e, ev.CommissarOffered | ev.CommissarOfferAnswered):
        phase(PhaseKind.DAY)
    elif isinstance(e, ev.MessagePosted):
        inbox = s.inboxes[e.inbox]
        if inbox.kind not in DEAD_MAY_POST and not _is_spirit(s, e.author):
            alive(e.author, f"posted in {inbox.kind}")
    return problems


# --- visibility (§9) ---------------------------------------------------------------


Allowed = Callable[[GameState, Any], set[str] | None]


def _mafia_side(s: GameState, city: str) -> set[str]:
    """The city's mafiosi (living and dead) and the Consigliere (§9.2)."""
    return set(s.mafiosi(city)) | _cons(s)


def _cons(s: GameState) -> set[str]:
    return {s.consigliere} if s.consigliere else set()


def _commissar_knowers(s: GameState) -> set[str]:
    """§9.2: the commissars themselves and the Procurator — not the Consigliere."""
    return {c.commissar for c in s.cities.values() if c.commissar} | {s.procurator}


def _commissar_of(s: GameState, city: str) -> set[str]:
    commissar = s.cities[city].commissar
    return {commissar} if commissar else set()


def _offer_of(s: GameState, city: str) -> set[str]:
    o = s.cities[city].offer
    return {s.procurator} | ({o.candidate} if o else set())


def _arb(s: GameState) -> set[str]:
    return {s.arbiter} if s.arbiter else set()


def _personal(s: GameState, user: str) -> set[str]:
    """§9.2: the personal inbox — the resident and his city's Tribune."""
    return {user, s.cities[s.residents[user].city].tribune}


def _voters(s: GameState, city: str) -> set[str]:
    """§9.2, INBOX-VOTE-1: the voting inbox — the living, the day's Spirits, the Tribune."""
    c = s.cities[city]
    return set(s.living(city)) | set(c.spirits) | {c.tribune}


def _city_inbox_readers(s: GameState, city: str) -> set[str]:
    c = s.cities[city]
    return set(c.residents) | set(c.observers) | {c.tribune}


def _court(s: GameState) -> set[str]:
    """§9.2: Court deliberation — the sitting judges and the Arbiter."""
    return sitting_judges(s) | _arb(s)


def _petitioners(s: GameState, city: str) -> set[str]:
    petition = s.cities[city].petition
    return (set(petition.confirmations) if petition else set()) | _arb(s)


def _impeachment_side(s: GameState, city: str) -> set[str]:
    """IMPEACH-4: the impeachment inbox (initiators write, the city is banned), its
    Tribune and the Procurator."""
    return set(s.cities[city].residents) | {s.cities[city].tribune, s.procurator}


def _impeachment_city(s: GameState, number: int) -> str:
    return next(i.city for i in s.records.impeachments if i.number == number)


def _complaint(s: GameState, number: int) -> Any:
    return next(c for c in s.records.complaints if c.number == number)


def _case_side(s: GameState, number: int) -> set[str]:
    """HOST-ARB-3: the Arbiter, both parties, and the organizers of the banned inboxes."""
    case = next(c for c in s.records.cases if c.number == number)
    return _arb(s) | {case.complainant, case.accused, s.procurator} | s.tribunes()


def _handler(s: GameState, city: str, handler: str) -> str:
    """ROLE-CIT-5, HOST-PROC-4: a request goes to the city's Tribune or to the Procurator."""
    return s.procurator if handler == "procurator" else s.cities[city].tribune


def _sound(s: GameState, number: int) -> Any:
    return next(r for r in s.records.sound_requests if r.number == number)


def _sound_side(s: GameState, number: int) -> set[str]:
    """Who holds a sound request: the requester, its target (SOUND-CONF-3 agrees the time
    with both), the city's Tribune and the Procurator (a forwarded one passed both)."""
    r = _sound(s, number)
    return {r.requester, s.cities[r.city].tribune, s.procurator} | ({r.target} if r.target else set())


def _city_watchers(s: GameState, city: str) -> set[str]:
    """SOUND-2 (AMB-29) ``city_only``: the city's residents, its observers and the hosts."""
    return set(s.cities[city].residents) | set(s.cities[city].observers) | s.hosts()


def _office(s: GameState) -> set[str]:
    """INBOX-OFFICE-1: the Tribunes, the Procurator and the Arbiter."""
    return s.tribunes() | {s.procurator} | _arb(s)


def _restoration_signers(s: GameState, city: str) -> set[str]:
    """RESTORE-T2: the Procurator, the Consigliere and the city's Tribune."""
    return {s.procurator, s.cities[city].tribune} | _cons(s)


def _inbox_allowed(s: GameState, inbox_id: str, e: Event) -> set[str] | None:
    """Who may ever see traffic of a secret inbox kind; None for kinds not checked here."""
    inbox = s.inboxes.get(inbox_id)
    if inbox is None and isinstance(e, ev.InboxOpened):
        kind, city, subject, members = e.kind, e.city, e.subject, e.members
    elif inbox is not None:
        kind, city, subject, members = inbox.kind, inbox.city, inbox.subject, inbox.members
    else:
        return None
    if kind == "mafia" and city:
        return _mafia_side(s, city)
    if kind == "line":
        # SEC-6: the Consigliere reads the Line but never learns whose it is, so an event
        # naming the commissar (an opening with a subject, an archive listing readers)
        # is for the commissar alone.
        if isinstance(e, ev.InboxArchived):  # names both the commissar and the Consigliere
            return {s.procurator}
        if isinstance(e, ev.InboxOpened) and e.subject:
            return {subject or ""}
        if isinstance(e, ev.InboxOpened):  # names nobody: still no host or other city
            return set(s.cities[city].residents) | _cons(s) if city else _cons(s)
        return {subject or ""} | _cons(s)
    if kind == "offer":
        return {s.procurator, subject or ""}
    if kind == "personal" and city:
        return {subject or "", s.cities[city].tribune}
    if kind == "notary":
        return {subject or ""}
    if kind == "certificate":  # INBOX-NOTARY-1/3: the organizer and whom he let in
        return set(members)
    if kind == "bar":
        return {s.procurator} | _cons(s)
    if kind == "secret":
        return set(members)
    if kind == "police":
        return _commissar_knowers(s)
    former = set(inbox.former) if inbox is not None else set()
    if kind in ("court", "removal"):  # INBOX-COURT-1, INBOX-REMOVAL-1/2: named members
        return set(members) | former | _arb(s)
    if kind == "polling" and city:  # INBOX-POLL-1
        return set(s.cities[city].residents) | _arb(s)
    if kind == "voting" and city:  # INBOX-VOTE-1
        return set(s.cities[city].residents) | {s.cities[city].tribune}
    if kind == "office":  # INBOX-OFFICE-1
        return s.tribunes() | {s.procurator} | _arb(s)
    return None


def _deadline_allowed(s: GameState, e: Event) -> set[str] | None:
    key = e.key if isinstance(e, ev.DeadlineScheduled | ev.DeadlineFired) else ""
    if key.startswith("offer"):
        city = key.split(":")[1]
        return _offer_of(s, city)
    return None


ALLOWED: dict[type[Event], Allowed] = {
    ev.MafiaDealt: lambda s, e: set(e.mafiosi) | _cons(s),
    ev.KillDeclared: lambda s, e: _mafia_side(s, e.city),
    ev.NightDecisionFixed: lambda s, e: _mafia_side(s, e.city),
    ev.GodfatherElected: lambda s, e: _mafia_side(s, e.city),
    ev.GodfatherElectionFailed: lambda s, e: _mafia_side(s, e.city),
    ev.GodfatherVoteCast: lambda s, e: _mafia_side(s, e.city),
    ev.GodfatherReelectionDemanded: lambda s, e: _mafia_side(s, e.city),
    ev.CheckAnswered: lambda s, e: _commissar_of(s, e.city) | _cons(s),
    ev.CheckRequested: lambda s, e: _commissar_of(s, e.city) | _cons(s),
    ev.HostAppointed: lambda s, e: {s.procurator, e.user} if e.office == "consigliere" else None,
    ev.CommissarOffered: lambda s, e: {s.procurator, e.candidate},
    ev.CommissarOfferAnswered: lambda s, e: _offer_of(s, e.city),
    ev.CommissarOfferResolved: lambda s, e: _offer_of(s, e.city),
    ev.CommissarAppointmentFailed: lambda s, e: {s.procurator} | _cons(s),
    ev.CommissarAppointed: lambda s, e: {s.procurator, e.commissar},
    ev.KillReported: lambda s, e: {s.procurator} | _cons(s),
    ev.NominationMade: lambda s, e: None if s.settings.publish_nominators  # EXEC-3
    else {e.nominator, s.cities[e.city].tribune},
    ev.ProxyRequested: lambda s, e: {e.voter, s.cities[e.city].tribune},
    ev.DealListsRecorded: lambda s, e: _cons(s),
    ev.MafiaNumbersNamed: lambda s, e: {s.procurator} | _cons(s),
    ev.RoleAcknowledged: lambda s, e: {e.user} | _cons(s),
    ev.HonestNoticeIssued: lambda s, e: {u for u in s.cities[e.city].residents if not s.is_mafia(u)},
    ev.MafiaAcknowledged: lambda s, e: {s.procurator} | _cons(s),
    # --- engine II ---
    ev.VoteCast: lambda s, e: _voters(s, e.city),
    ev.SuicideDeclared: lambda s, e: _personal(s, e.user),
    ev.SuicideWithdrawn: lambda s, e: _personal(s, e.user),
    ev.ObserverJoined: lambda s, e: _city_inbox_readers(s, e.city) | {e.user},
    ev.JudgeProposed: lambda s, e: _personal(s, e.proposer),
    ev.CandidacyDeclined: lambda s, e: _personal(s, e.candidate) | _arb(s),
    ev.JudgeProxyRequested: lambda s, e: _personal(s, e.voter) | _arb(s),
    ev.JudgeVoteCast: lambda s, e: set(s.living(e.city)) | _arb(s),  # INBOX-POLL-1
    ev.PardonVoteCast: lambda s, e: _court(s),
    ev.PardonPresetChosen: lambda s, e: _court(s),
    ev.PetitionFiled: lambda s, e: {e.organizer},
    ev.PetitionConfirmed: lambda s, e: _petitioners(s, e.city) | {e.user},
    ev.CommissarVacated: lambda s, e: {s.procurator},
    ev.AmbushRightGranted: lambda s, e: _mafia_side(s, e.city),
    ev.AmbushPlaced: lambda s, e: _mafia_side(s, e.city),
    ev.AmbushWithdrawn: lambda s, e: _mafia_side(s, e.city),
    ev.AmbushesFixed: lambda s, e: _mafia_side(s, e.city),
    ev.CommissarExposed: lambda s, e: _mafia_side(s, e.city),
    ev.CommissarWarned: lambda s, e: _commissar_of(s, e.city),
    ev.CommissarDisclosed: lambda s, e: {s.procurator} | _commissar_of(s, e.city),
    ev.RestorationProposed: lambda s, e: _restoration_signers(s, e.city),
    ev.RestorationSigned: lambda s, e: _restoration_signers(s, e.city),
    ev.RestorationListRecorded: lambda s, e: _cons(s),
    ev.CityRedealt: lambda s, e: set(e.mafiosi) | _cons(s),
    # --- host rules: the inter-city mafia relay (MAFIA-COMM-1..3) ---
    hev.MafiaRelaySubmitted: lambda s, e: _mafia_side(s, e.from_city),
    hev.MafiaRelayReviewed: lambda s, e: _mafia_side(s, e.from_city),
    hev.MafiaRelayDelivered: lambda s, e: _mafia_side(s, e.to_city),
    # --- the Consigliere's procedures (GODFATHER-2, MAFIA-KILL-5) ---
    hev.GodfatherElectionRuleSet: lambda s, e: _mafia_side(s, e.city),
    hev.SilentGodfatherProcedureSet: lambda s, e: _mafia_side(s, e.city),
    # --- host decisions the simulator's hosts play (bots/hosts.py: HostDecisions) ---
    hev.TribuneDelegated: lambda s, e: _office(s),  # HOST-TRIB-2: the Office
    hev.DelegationRevoked: lambda s, e: _office(s),
    hev.AmbushOrderSet: lambda s, e: _mafia_side(s, e.city),  # AMBUSH-6
    hev.SanctionRecorded: lambda s, e: {s.procurator, e.user},  # OMERTA-2: omertà names a mafioso
    hev.RecordSealed: lambda s, e: {s.procurator} | _cons(s),  # COMM-APPT-6, IMPEACH-3: sealed
    # --- cases (bots/hosts.py: CaseMoves): IMPEACH-1..6, NOCONF-1/2, HOST-ARB-3 ---
    hev.ImpeachmentSigned: lambda s, e: {s.procurator, e.user} | set(s.records.signers(e.city)),
    hev.ImpeachmentDemanded: lambda s, e: _impeachment_side(s, e.city),
    hev.ImpeachmentDecided: lambda s, e: _impeachment_side(s, _impeachment_city(s, e.impeachment)),
    hev.NoConfidenceExpressed: lambda s, e: {s.procurator} | ({e.complainant} if e.complainant else set()),
    hev.NoConfidenceReceipt: lambda s, e: set(s.mafiosi(_complaint(s, e.complaint).city)),
    hev.NoConfidenceDecided: lambda s, e: {s.procurator} | (
        {c} if (c := _complaint(s, e.complaint).complainant) else set()),
    hev.NoConfidenceAnswered: lambda s, e: _mafia_side(s, _complaint(s, e.complaint).city),
    hev.PrivateCaseFiled: lambda s, e: _arb(s) | {e.complainant, e.accused},
    hev.PrivateCaseDecided: lambda s, e: _case_side(s, e.case),
    hev.InboxBanImposed: lambda s, e: _case_side(s, e.case),
    hev.InboxBanLifted: lambda s, e: _case_side(s, e.case),
    # --- HOST-2, sound (SOUND, ROLE-CIT-5, HOST-PROC-4), evidence (SEC-12) ---
    hev.CombinationAcknowledged: lambda s, e: (
        {s.procurator, e.user} if "consigliere" in e.offices else None),  # HOST-CONS-5
    hev.SoundRequested: lambda s, e: {e.requester, _handler(s, e.city, e.handler)},
    hev.SoundRequestForwarded: lambda s, e: {_sound(s, e.request).requester, e.host, s.procurator},
    hev.SoundRequestAnswered: lambda s, e: _sound_side(s, e.request) | {e.host},
    hev.SoundEntryPublished: lambda s, e: (
        None if s.settings.sound_library_visibility == "public" else _city_watchers(s, e.city)),
    hev.EvidenceLinked: lambda s, e: {e.grantor, e.viewer},  # exactly this viewer
    # --- seed systems: notary inboxes for anyone (INBOX-NOTARY-1..3) ---
    ev.NotaryContentRecorded: lambda s, e: set(s.inboxes[e.inbox].members),
    ev.NotaryAccessGranted: lambda s, e: set(s.inboxes[e.inbox].members) | {e.user},
}
"""Restricted event kinds: who §9.2 lets see each (a superset of the event's audience)."""

OPEN_EVENTS: frozenset[type[Event]] = frozenset({
    ev.GameCreated, ev.PlayerSignedUp, ev.SignUpWithdrawn, ev.CitiesFormed, ev.DealSealed,
    ev.DealCompleted, ev.GameStarted, ev.DayStartSet, ev.LongDayDeclared, ev.DayShortened,
    ev.DayStarted, ev.DayEndReached, ev.NightStarted, ev.TourAnnounced, ev.ChecksOpened,
    ev.ChecksClosed, ev.DayPostPublished, ev.VoteScheduled, ev.VotingOpened, ev.VotingClosed,
    ev.ResidentDied, ev.NoExecution, ev.SpiritsChosen, ev.JudgeElectionScheduled, ev.PollingOpened,
    ev.JudgeElectionClosed, ev.PardonWindowOpened, ev.VerdictReached, ev.JudgeRemoved,
    ev.JudgeRecused, ev.DecisionsClosed, ev.MafiosoDisclosed, ev.RestorationBegan,
    ev.RestorationListSealed, ev.RestorationCompleted, ev.CityDecided, ev.GameResultFixed,
    ev.GameEnded,
    ev.CommentPosted, hev.CommentHidden, ev.NotarySealed, ev.NotaryPublished,  # POST-1/2, AMB-39
    hev.ContestPublished, hev.ContestResultsRecorded,  # HOST-PROC-5, POST-2: in the Day Post
    hev.RecordOpened, hev.TribuneReplaced,  # §9.4 / AMB-39; IMPEACH-6: public
    # the commit-reveal deal (issue 14): commitments and values are public, the hosts by office
    ev.DealEntropyCommitted, ev.DealRevealsOpened, ev.DealEntropyRevealed, ev.DealEntropyReplaced,
})
"""Event kinds §9.2 makes public (resident lists, judges, results, the calendar...): nothing
to restrict. Every event kind is in exactly one of ALLOWED, OPEN_EVENTS and ROUTED_EVENTS,
so a new kind cannot slip past the visibility check unclassified (tests/sim)."""

AFTER_GAME_EVENTS: frozenset[type[Event]] = frozenset({ev.ArchiveConsentGiven, ev.ArchiveOpened})
"""§9.4 archives: they follow GameEnded, where the visibility check stops."""

BASE_EVENTS: frozenset[type[Event]] = frozenset({hev.HostDecision})
"""Base classes that are never emitted themselves (every host decision is a subclass)."""

ROUTED_EVENTS: frozenset[type[Event]] = frozenset({
    ev.MessagePosted, ev.InboxOpened, ev.InboxArchived,  # by inbox kind: _inbox_allowed
    ev.DeadlineScheduled, ev.DeadlineFired,  # by deadline key: _deadline_allowed
})

FACTION_REVEALING: tuple[type[Event], ...] = (
    ev.MafiaDealt, ev.KillDeclared, ev.NightDecisionFixed, ev.GodfatherElected,
    ev.GodfatherElectionFailed, ev.GodfatherVoteCast, ev.GodfatherReelectionDemanded,
    ev.CheckAnswered, ev.DealListsRecorded, ev.AmbushRightGranted, ev.AmbushPlaced,
    ev.AmbushWithdrawn, ev.AmbushesFixed, ev.CommissarExposed, ev.RestorationListRecorded,
    ev.CityRedealt,
)
"""Events that show a living resident's faction (or let the Procurator derive it)."""


def visibility_problems(s: GameState, e: Event) -> list[str]:
    """Viewers who may see ``e`` although §9 forbids it (checked until GameEnded)."""
    allowed: set[str] | None = None
    rule = ALLOWED.get(type(e))
    if rule is not None:
        allowed = rule(s, e)
    elif isinstance(e, ev.MessagePosted | ev.InboxOpened | ev.InboxArchived):
        allowed = _inbox_allowed(s, e.inbox, e)
    elif isinstance(e, ev.DeadlineScheduled | ev.DeadlineFired):
        allowed = _deadline_allowed(s, e)
    problems: list[str] = []
    if allowed is not None:
        if visible_to(e, None):
            problems.append("a secret event is public (§9.2)")
        else:
            # Same as asking visible_to(e, viewer) for every viewer outside ``allowed``.
            leaked = sorted(u for u in e.audience.users - allowed if visible_to(e, u))
            if leaked:
                problems.append(f"visible to {', '.join(leaked)} (§9.2)")
    problems.extend(_host_proc_7(s, e))
    problems.extend(_consigliere_identity(s, e))
    return problems


def _host_proc_7(s: GameState, e: Event) -> list[str]:
    """HOST-PROC-7, §9.1: the Procurator, Tribunes and Arbiter see no living faction."""
    reveals = isinstance(e, FACTION_REVEALING)
    if not reveals and isinstance(e, ev.MessagePosted | ev.InboxOpened | ev.InboxArchived):
        inbox = s.inboxes.get(e.inbox)
        reveals = (inbox.kind if inbox else getattr(e, "kind", "")) == "mafia"
    if not reveals:
        return []
    blind = {s.procurator, *s.tribunes(), *([s.arbiter] if s.arbiter else [])} - _cons(s)
    seen = sorted(u for u in blind if visible_to(e, u))
    return [f"reveals a faction to host {', '.join(seen)} (HOST-PROC-7)"] if seen else []


def _consigliere_identity(s: GameState, e: Event) -> list[str]:
    """HOST-CONS-5, SEC-5: an event naming the Consigliere reaches only those who know him."""
    cons = s.consigliere
    if isinstance(e, ev.HostAppointed) and e.office == "consigliere":
        cons = e.user
    if cons is None or cons not in _strings(e):
        return []
    knowers = {s.procurator, cons} | {u for u, r in s.residents.items() if s.is_mafia(u)}
    if visible_to(e, None):
        return ["names the Consigliere publicly (HOST-CONS-5)"]
    seen = sorted(e.audience.users - knowers)
    return [f"names the Consigliere to {', '.join(seen)} (HOST-CONS-5)"] if seen else []


_FIELDS: dict[type[Event], tuple[str, ...]] = {}


def _string_fields(event_type: type[Event]) -> tuple[str, ...]:
    names = _FIELDS.get(event_type)
    if names is None:
        names = tuple(f.name for f in fields(event_type) if f.name not in ("at", "audience"))
        _FIELDS[event_type] = names
    return names


def _strings(e: Event) -> set[str]:
    """The user-like strings an event carries in its own fields (one level deep)."""
    found: set[str] = set()
    for name in _string_fields(type(e)):
        value = getattr(e, name)
        if isinstance(value, str):
            found.add(value)
        elif isinstance(value, tuple | frozenset):
            found.update(v for v in value if isinstance(v, str))
    return found
