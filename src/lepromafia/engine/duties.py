"""What a viewer can and must do now: ``duties(state, viewer, now)``. Pure.

One declarative table, ``TABLE``: each row names a seat (an office or a role), a duty
kind, the command it takes, the rule, whether it is required, and two small functions —
``when`` (where the duty stands now, with its prefilled arguments and choices) and
``due`` (its deadline). ``duties`` walks the table for the seats the viewer holds. The
predicates are the rules' own (``engine.targets``, ``engine.rules.*``), so a duty listed
here is one ``decide`` accepts when issued with its arguments and one of its choices;
``may_fail`` names what else may refuse it (a field the viewer fills in freely).

A viewer only ever sees duties of seats he holds himself: a commissar's check, a
mafioso's order or the Consigliere's answer never reach anyone else (§9).

The Day Post is not a duty: the platform publishes it at day start (POST-2).
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum
from typing import Any

from . import commands as cmd
from . import commands_host as hc
from . import targets
from .errors import ErrorCode
from .inboxes import Access, Kind, access, live_inbox
from .keywords import Keyword
from .rules import ambush, court, deal_draw, night
from .rules.commissar import may_accept
from .rules.pause import paused
from .state import NO_KILL, City, Faction, GameState, PhaseKind, Stage


class Seat(StrEnum):
    """Who a duty belongs to. Secret seats (mafioso, Godfather, commissar, Consigliere)
    are known only to their holders."""

    PROCURATOR = "procurator"
    CONSIGLIERE = "consigliere"
    ARBITER = "arbiter"
    TRIBUNE = "tribune"
    RESIDENT = "resident"
    MAFIOSO = "mafioso"
    GODFATHER = "godfather"
    COMMISSAR = "commissar"
    JUDGE = "judge"


class DutyKind(StrEnum):
    """Stable names: pages translate them (``duty:<kind>``), never show them raw."""

    APPOINT_CONSIGLIERE = "appoint_consigliere"
    APPOINT_ARBITER = "appoint_arbiter"
    FORM_CITIES = "form_cities"
    SEAL_DEAL = "seal_deal"
    NAME_NUMBERS = "name_numbers"
    COMMIT_ENTROPY = "commit_entropy"
    OPEN_REVEALS = "open_reveals"
    REVEAL_ENTROPY = "reveal_entropy"
    ACKNOWLEDGE_ROLE = "acknowledge_role"
    START_GAME = "start_game"
    NOMINATE = "nominate"
    VOTE = "vote"
    SCHEDULE_VOTE = "schedule_vote"
    OFFER_COMMISSAR = "offer_commissar"
    ANSWER_OFFER = "answer_offer"
    SCHEDULE_JUDGE_ELECTION = "schedule_judge_election"
    PROPOSE_JUDGE = "propose_judge"
    CHOOSE_PARDON_PRESET = "choose_pardon_preset"
    VOTE_PARDON = "vote_pardon"
    ORDER_KILL = "order_kill"
    DECLARE_KILL = "declare_kill"
    ORDER_TOUR = "order_tour"
    DECLARE_TOUR = "declare_tour"
    VOTE_GODFATHER = "vote_godfather"
    APPOINT_GODFATHER = "appoint_godfather"
    PLACE_AMBUSH = "place_ambush"
    CHECK = "check"
    ANSWER_CHECK = "answer_check"
    SIGN_RESTORATION = "sign_restoration"
    REVIEW_RELAY = "review_relay"


@dataclass(frozen=True, slots=True)
class Duty:
    kind: DutyKind
    seat: Seat
    rule: str
    command: type[cmd.Command]
    required: bool
    """Must be done (by ``deadline``); otherwise the viewer may do it."""
    deadline: datetime | None
    args: tuple[tuple[str, Any], ...] = ()
    """Prefilled command fields: city, inbox, day, …"""
    choice: str | None = None
    """The field the viewer picks, one of ``choices``."""
    choices: tuple[Any, ...] = ()
    may_fail: frozenset[ErrorCode] = frozenset()
    """What deciding may still refuse: the fields the viewer fills in freely."""
    scope: str | None = None
    """The city the duty stands in (None: game-wide)."""

    @property
    def arguments(self) -> dict[str, Any]:
        return dict(self.args)

    @property
    def city(self) -> str | None:
        city = self.arguments.get("city")
        return city if isinstance(city, str) else None

    def command_for(self, actor: str, **fields: Any) -> cmd.Command:
        """The command this duty takes: its prefilled arguments (context such as the
        candidate of a voting inbox left out) and ``fields``, usually the choice."""
        names = set(self.command.__dataclass_fields__)
        prefilled = {k: v for k, v in self.arguments.items() if k in names}
        return self.command(actor=actor, **{**prefilled, **fields})


@dataclass(frozen=True, slots=True)
class Open:
    """Where a duty stands now: one per city, inbox or verdict it applies to."""

    scope: str | None = None
    """The city (or None for a game-wide duty)."""
    args: Mapping[str, Any] | None = None
    choices: tuple[Any, ...] = ()
    required: bool | None = None
    """Overrides the row's ``required`` where it depends on the moment."""


When = Callable[[GameState, str, datetime], Iterable[Open]]
Due = Callable[[GameState, Open], datetime | None]


@dataclass(frozen=True, slots=True)
class Row:
    seat: Seat
    kind: DutyKind
    command: type[cmd.Command]
    rule: str
    required: bool
    when: When
    due: Due
    choice: str | None = None
    may_fail: frozenset[ErrorCode] = frozenset()


# --- seats ----------------------------------------------------------------------------


def _running(s: GameState) -> bool:
    return s.stage is Stage.RUNNING


def _day(s: GameState) -> bool:
    return _running(s) and s.phase is PhaseKind.DAY


def _night(s: GameState) -> bool:
    return _running(s) and s.phase is PhaseKind.NIGHT


def _home(s: GameState, viewer: str) -> City | None:
    """The viewer's city if he is a living resident of an undecided city."""
    r = s.residents.get(viewer)
    if r is None or not r.alive:
        return None
    city = s.cities[r.city]
    return city if city.decided is None else None


def _mafia_home(s: GameState, viewer: str) -> City | None:
    city = _home(s, viewer)
    return city if city and s.residents[viewer].faction is Faction.MAFIA else None


def _one(scope: str | None = None, **args: Any) -> tuple[Open, ...]:
    return (Open(scope, args),)


def _no(*_: Any) -> None:
    return None


# --- set-up (§2) ----------------------------------------------------------------------


def _appoint(office: str) -> When:
    def when(s: GameState, viewer: str, now: datetime) -> Iterable[Open]:
        court_needed = office != "arbiter" or s.has_court
        if viewer == s.procurator and s.stage is Stage.RECRUITING and getattr(s, office) is None \
                and court_needed:
            return _one(office=office)
        return ()
    return when


def _form_cities(s: GameState, viewer: str, now: datetime) -> Iterable[Open]:
    if viewer != s.procurator or s.stage is not Stage.RECRUITING:
        return ()
    return _one(signups=len(s.signups))


def _seal_deal(s: GameState, viewer: str, now: datetime) -> Iterable[Open]:
    return _one() if viewer == s.consigliere and s.stage is Stage.FORMED else ()


def _name_numbers(s: GameState, viewer: str, now: datetime) -> Iterable[Open]:
    if viewer != s.procurator or s.stage is not Stage.SEALED or deal_draw.by_draw(s):
        return ()
    return [Open(n, {"city": n}) for n in s.cities if n not in s.deal.numbers]


def _party_seat(s: GameState, viewer: str, seat: Seat) -> bool:
    """Whether the viewer takes part in the drawn deal in this seat: a host by office, a
    player (signed up or a resident) as himself."""
    if seat is Seat.PROCURATOR:
        return viewer == s.procurator
    if seat is Seat.CONSIGLIERE:
        return viewer == s.consigliere
    return viewer not in (s.procurator, s.consigliere)


def _commit_entropy(seat: Seat) -> When:
    """RANDOM-4 by lot (issue 14): the two hosts must commit; a player may
    (``deal_draw.may_commit``: the draw page offers it, it is no duty of his)."""
    def when(s: GameState, viewer: str, now: datetime) -> Iterable[Open]:
        return _one() if _party_seat(s, viewer, seat) and deal_draw.may_commit(s, viewer) else ()
    return when


def _open_reveals(s: GameState, viewer: str, now: datetime) -> Iterable[Open]:
    return _one() if viewer == s.procurator and deal_draw.may_open_reveals(s) else ()


def _reveal_entropy(seat: Seat) -> When:
    """Every committed party reveals before the window closes, or is replaced."""
    def when(s: GameState, viewer: str, now: datetime) -> Iterable[Open]:
        return _one() if _party_seat(s, viewer, seat) and deal_draw.may_reveal(s, viewer) else ()
    return when


def _reveals_close(s: GameState, o: Open) -> datetime | None:
    return s.deadlines.get(deal_draw.DEADLINE)


def _acknowledge(s: GameState, viewer: str, now: datetime) -> Iterable[Open]:
    r = s.residents.get(viewer)
    if r is None or r.faction is not Faction.MAFIA or viewer in s.deal.acknowledged \
            or s.stage not in (Stage.DEALT, Stage.RUNNING):
        return ()
    return _one(r.city)


def _start(s: GameState, viewer: str, now: datetime) -> Iterable[Open]:
    return _one() if viewer == s.procurator and s.stage is Stage.DEALT else ()


# --- the day: nominations, votes, offers (EXEC, COMM-APPT) ----------------------------


def _nominate(s: GameState, viewer: str, now: datetime) -> Iterable[Open]:
    city = _home(s, viewer)
    if city is None or not _day(s) or s.day < 2 or paused(city) or city.voting is not None:
        return ()
    closes = city.nominations_close_at
    if closes is not None and now >= closes:
        return ()
    choices = targets.nomination_candidates(s, viewer)
    return [Open(city.name, {}, choices)] if choices else ()


def _nominations_due(s: GameState, o: Open) -> datetime | None:
    city = s.cities[o.scope or ""]
    return city.nominations_close_at or city.vote_opens_at


def _vote(s: GameState, viewer: str, now: datetime) -> Iterable[Open]:
    """EXEC-5..8: one duty per candidate whose voting inbox the viewer may post in."""
    r = s.residents.get(viewer)
    name = r.city if r else next((n for n, c in s.cities.items() if viewer in c.spirits), None)
    book = s.cities[name].voting if name else None
    if name is None or book is None or book.closed or not _running(s):
        return ()
    voted = any(viewer in active for active in book.active.values())
    found = []
    for candidate in book.candidates:
        box = live_inbox(s, Kind.VOTING, name, candidate)
        if box is None or access(s, box, viewer, now=now) is not Access.WRITE:
            continue
        active = viewer in book.active.get(candidate, {})
        keyword = Keyword.WITHDRAW if active else Keyword.EXECUTE
        found.append(Open(name, {"inbox": box, "candidate": candidate}, (keyword.value,),
                          required=not voted))
    return found


def _vote_due(s: GameState, o: Open) -> datetime | None:
    return s.cities[o.scope or ""].vote_closes_at


def _schedule_vote(s: GameState, viewer: str, now: datetime) -> Iterable[Open]:
    """TIME-7, EXEC-4: the Tribune (or his stand-in) may move his city's vote in the
    first half of the day."""
    plan = s.plans.get(s.day)
    if not _day(s) or s.day < 2 or plan is None or now >= plan.midpoint:
        return ()
    tribunes = s.tribunes()
    return [
        Open(n, {"city": n} | ({"opens_at": c.vote_opens_at, "closes_at": c.vote_closes_at}
                               if c.vote_opens_at and c.vote_closes_at else {}),
             required=c.vote_opens_at is None)
        for n, c in s.cities.items()
        if (c.tribune == viewer or s.records.delegate_active(n, viewer, now, tribunes))
        and c.decided is None and c.voting is None and not paused(c)
    ]


def _midday(s: GameState, o: Open) -> datetime | None:
    plan = s.plans.get(s.day)
    return plan.midpoint if plan else None


def _offer(s: GameState, viewer: str, now: datetime) -> Iterable[Open]:
    """COMM-APPT-1, -3: the Procurator offers the office while attempts remain."""
    if viewer != s.procurator or not _day(s):
        return ()
    return [
        Open(n, {"city": n, "attempt": len(c.offers_made) + 1})
        for n, c in s.cities.items()
        if c.appointment_open and c.offer is None and c.commissar is None and c.decided is None
        and len(c.offers_made) < s.settings.commissar_offer_attempts
        and any(u not in c.offers_made for u in s.living(n))
    ]


def _answer_offer(s: GameState, viewer: str, now: datetime) -> Iterable[Open]:
    """COMM-APPT-2, SEC-1: a mafioso may only refuse."""
    city = _home(s, viewer)
    o = city.offer if city else None
    if city is None or o is None or o.candidate != viewer or o.accepted is not None or o.lapsed \
            or not _day(s):
        return ()
    choices = (True, False) if may_accept(s, viewer) else (False,)
    return [Open(city.name, {"inbox": o.inbox, "attempt": o.attempt}, choices)]


def _offer_due(s: GameState, o: Open) -> datetime | None:
    return s.deadlines.get(f"offer_timeout:{o.scope}:{(o.args or {}).get('attempt')}")


# --- judges and the Court (JUDGE-ELECT, COURT) -----------------------------------------


def _schedule_election(s: GameState, viewer: str, now: datetime) -> Iterable[Open]:
    if viewer != s.arbiter or not _day(s) or not s.has_court:
        return ()
    return [
        Open(n, {"city": n} | ({"opens_at": c.election.opens_at, "closes_at": c.election.closes_at}
                               if c.election else {}),
             required=c.election is None)
        for n, c in s.cities.items()
        if c.decided is None and c.judge is None and (c.election is None or not c.election.opened)
    ]


def _propose_judge(s: GameState, viewer: str, now: datetime) -> Iterable[Open]:
    city = _home(s, viewer)
    e = city.election if city else None
    if city is None or e is None or e.opened or not _running(s) or viewer in e.proposals \
            or viewer in city.spirits:
        return ()
    choices = targets.judge_candidates(s, city.name)
    return [Open(city.name, {}, choices)] if choices else ()


def _election_opens(s: GameState, o: Open) -> datetime | None:
    e = s.cities[o.scope or ""].election
    return e.opens_at if e else None


def _preset(s: GameState, viewer: str, now: datetime) -> Iterable[Open]:
    """COURT-5: before the first pardon vote of the game."""
    if viewer != s.arbiter or not s.has_court or s.pardon_votes_held or s.stage is not Stage.RUNNING:
        return ()
    return [Open(None, {}, ("of_sitting", "of_votes_cast"))]


def _pardon(s: GameState, viewer: str, now: datetime) -> Iterable[Open]:
    """COURT-3, COURT-6: every sitting judge votes once on every pending verdict."""
    if not _running(s) or viewer not in court.sitting_judges(s):
        return ()
    return [
        Open(n, {"city": n, "candidate": c.verdict.candidate}, (True, False))
        for n, c in s.cities.items() if c.verdict is not None and viewer not in c.verdict.votes
    ]


def _pardon_due(s: GameState, o: Open) -> datetime | None:
    verdict = s.cities[o.scope or ""].verdict
    return verdict.closes_at if verdict else None


# --- the night (MAFIA-KILL, TOUR, GODFATHER, AMBUSH, COMM) ------------------------------


def _deciding(s: GameState, viewer: str) -> City | None:
    city = _mafia_home(s, viewer)
    if city is None or not _night(s) or s.decisions_closed or not targets.may_strike(s, city.name):
        return None
    return city


def _strike(godfather: bool, tour: bool) -> When:
    """The Godfather orders; without a living Godfather the mafiosi's majority decides
    (MAFIA-KILL-5), so each of them must speak; with one, the others may confirm."""
    def when(s: GameState, viewer: str, now: datetime) -> Iterable[Open]:
        city = _deciding(s, viewer)
        if city is None or (city.godfather == viewer) is not godfather:
            return ()
        if tour and s.touring_city != city.name:
            return ()
        found = targets.tour_targets(s, city.name) if tour else targets.kill_targets(s, city.name)
        headless = city.godfather not in s.living_mafia(city.name)
        return [Open(city.name, {"tour": tour}, (*found, NO_KILL), required=godfather or headless)]
    return when


def _night_decisions(s: GameState, o: Open) -> datetime | None:
    return s.deadlines.get(f"night_decisions:{s.day}")


def _vote_godfather(s: GameState, viewer: str, now: datetime) -> Iterable[Open]:
    city = _deciding_any_night(s, viewer)
    if city is None or not city.godfather_election_open:
        return ()
    return [Open(city.name, {}, targets.godfather_candidates(s, city.name),
                 required=viewer not in city.night.godfather_votes)]


def _deciding_any_night(s: GameState, viewer: str) -> City | None:
    """GODFATHER-2: elections run on any night, Night 1 included."""
    city = _mafia_home(s, viewer)
    return city if city and _night(s) and not s.decisions_closed else None


def _appoint_godfather(s: GameState, viewer: str, now: datetime) -> Iterable[Open]:
    """GODFATHER-3: after a failed election the Consigliere may appoint one."""
    if viewer != s.consigliere or not _running(s):
        return ()
    return [
        Open(n, {"city": n}, targets.godfather_candidates(s, n))
        for n, c in s.cities.items()
        if c.decided is None and night.appointment_open(c) and s.living_mafia(n)
    ]


def _ambush(s: GameState, viewer: str, now: datetime) -> Iterable[Open]:
    """AMBUSH-3, -4, -5, -11: while the window is open, one target per mafioso, n − 1 in all."""
    city = _mafia_home(s, viewer)
    if city is None or not _running(s) or ambush.ambush_night(s, city) is None:
        return ()
    placed = any(m == viewer for m, _ in city.ambushes)
    room = len([a for a in city.ambushes if a[0] != viewer]) + 1 <= len(s.living_mafia(city.name)) - 1
    judge_order = city.judge is not None and city.night.order == city.judge
    if placed or not room or judge_order:
        return ()
    choices = targets.ambush_targets(s, viewer)
    return [Open(city.name, {}, choices)] if choices else ()


def _ambush_due(s: GameState, o: Open) -> datetime | None:
    return s.deadlines.get(f"checks_open:{s.day}")


def _check(s: GameState, viewer: str, now: datetime) -> Iterable[Open]:
    """COMM-4: one check a night from Night 2, while checks are open."""
    city = _home(s, viewer)
    if city is None or city.commissar != viewer or not _night(s) or s.day < 2 or not s.checks_open \
            or paused(city) or city.checked_tonight is not None:
        return ()
    choices = targets.check_targets(s, viewer)
    return [Open(city.name, {}, choices)] if choices else ()


def _checks_close(s: GameState, o: Open) -> datetime | None:
    return s.deadlines.get(f"checks_close:{s.day}")


def _answer_check(s: GameState, viewer: str, now: datetime) -> Iterable[Open]:
    """COMM-4 (AMB-20): the Consigliere answers truly, so the true answer is prefilled."""
    if viewer != s.consigliere or not _running(s):
        return ()
    return [
        Open(n, {"city": n, "target": c.checked_tonight},
             (s.residents[c.checked_tonight].faction is Faction.MAFIA,))
        for n, c in s.cities.items() if c.check_pending and c.checked_tonight is not None
    ]


# --- restoration (RESTORE-2) -----------------------------------------------------------


def _sign_restoration(seat: Seat) -> When:
    """RESTORE-2: the Procurator, the Consigliere and the city's Tribune sign."""
    def when(s: GameState, viewer: str, now: datetime) -> Iterable[Open]:
        if not _running(s):
            return ()
        return [
            Open(n, {"city": n})
            for n, c in s.cities.items()
            if c.restoration is not None and c.restoration.began_day is None
            and viewer not in c.restoration.signed
            and viewer == {Seat.PROCURATOR: s.procurator, Seat.CONSIGLIERE: s.consigliere,
                           Seat.TRIBUNE: c.tribune}[seat]
        ]
    return when


# --- the mafia relay (MAFIA-COMM-1) ------------------------------------------------------


def _review_relay(s: GameState, viewer: str, now: datetime) -> Iterable[Open]:
    """MAFIA-COMM-1: the Consigliere forwards a pending relay to the receiving city's living
    Godfather, or rejects it (with a reason, the field he types)."""
    if viewer != s.consigliere or not _running(s):
        return ()
    found = []
    for r in s.records.relays:
        if r.state != "pending":
            continue
        godfather = s.cities[r.to_city].godfather
        forwardable = godfather is not None and s.residents[godfather].alive
        found.append(Open(r.from_city, {"relay": r.number}, (True, False) if forwardable else (False,)))
    return found


_FREE_SCHEDULE = frozenset({ErrorCode.SCHEDULE_INVALID})

TABLE: tuple[Row, ...] = (
    Row(Seat.PROCURATOR, DutyKind.APPOINT_CONSIGLIERE, cmd.AppointHost, "HOST-PROC-1", True,
        _appoint("consigliere"), _no, "user", frozenset({ErrorCode.HOST_CANNOT_PLAY})),
    Row(Seat.PROCURATOR, DutyKind.APPOINT_ARBITER, cmd.AppointHost, "HOST-PROC-1", True,
        _appoint("arbiter"), _no, "user", frozenset({ErrorCode.HOST_CANNOT_PLAY})),
    Row(Seat.PROCURATOR, DutyKind.FORM_CITIES, cmd.FormCities, "CITY-3", True, _form_cities, _no,
        "cities", frozenset(ErrorCode)),
    Row(Seat.CONSIGLIERE, DutyKind.SEAL_DEAL, cmd.SealDeal, "RANDOM-2", True, _seal_deal, _no,
        "lists", frozenset({ErrorCode.DEAL_LIST_INVALID})),
    Row(Seat.PROCURATOR, DutyKind.NAME_NUMBERS, cmd.NameMafiaNumbers, "RANDOM-4", True,
        _name_numbers, _no, "numbers", frozenset({ErrorCode.NUMBERS_INVALID})),
    *(Row(seat, DutyKind.COMMIT_ENTROPY, cmd.CommitDealEntropy, "RANDOM-4", True,
          _commit_entropy(seat), _no, "digest", frozenset({ErrorCode.ENTROPY_DIGEST_INVALID}))
      for seat in (Seat.PROCURATOR, Seat.CONSIGLIERE)),
    Row(Seat.PROCURATOR, DutyKind.OPEN_REVEALS, cmd.OpenDealReveals, "RANDOM-4", True, _open_reveals,
        _no),
    *(Row(seat, DutyKind.REVEAL_ENTROPY, cmd.RevealDealEntropy, "RANDOM-4", True,
          _reveal_entropy(seat), _reveals_close, "value", frozenset({ErrorCode.ENTROPY_MISMATCH}))
      for seat in (Seat.PROCURATOR, Seat.CONSIGLIERE, Seat.RESIDENT)),
    Row(Seat.MAFIOSO, DutyKind.ACKNOWLEDGE_ROLE, cmd.AcknowledgeRole, "DIST-3", True, _acknowledge, _no),
    Row(Seat.PROCURATOR, DutyKind.START_GAME, cmd.StartGame, "START-4", True, _start, _no,
        "first_day", frozenset({ErrorCode.DEAL_INCOMPLETE, ErrorCode.SCHEDULE_INVALID})),
    Row(Seat.RESIDENT, DutyKind.NOMINATE, cmd.Nominate, "EXEC-3", False, _nominate, _nominations_due,
        "candidate"),
    Row(Seat.RESIDENT, DutyKind.VOTE, cmd.PostMessage, "EXEC-5", True, _vote, _vote_due, "text"),
    Row(Seat.TRIBUNE, DutyKind.SCHEDULE_VOTE, cmd.ScheduleExecutionVote, "TIME-7", False,
        _schedule_vote, _midday, None, _FREE_SCHEDULE),
    Row(Seat.PROCURATOR, DutyKind.OFFER_COMMISSAR, cmd.OfferCommissar, "COMM-APPT-1", True, _offer, _no,
        "draw"),
    Row(Seat.RESIDENT, DutyKind.ANSWER_OFFER, cmd.AnswerCommissarOffer, "COMM-APPT-2", True,
        _answer_offer, _offer_due, "accept"),
    Row(Seat.ARBITER, DutyKind.SCHEDULE_JUDGE_ELECTION, cmd.ScheduleJudgeElection, "JUDGE-ELECT-4", True,
        _schedule_election, _election_opens, None, _FREE_SCHEDULE),
    Row(Seat.RESIDENT, DutyKind.PROPOSE_JUDGE, cmd.ProposeJudge, "JUDGE-ELECT-2", False,
        _propose_judge, _election_opens, "candidate"),
    Row(Seat.ARBITER, DutyKind.CHOOSE_PARDON_PRESET, cmd.ChoosePardonPreset, "COURT-5", False,
        _preset, _no, "majority"),
    Row(Seat.JUDGE, DutyKind.VOTE_PARDON, cmd.VotePardon, "COURT-3", True, _pardon, _pardon_due, "pardon"),
    Row(Seat.GODFATHER, DutyKind.ORDER_KILL, cmd.DeclareKill, "MAFIA-KILL-2", True,
        _strike(godfather=True, tour=False), _night_decisions, "target"),
    Row(Seat.MAFIOSO, DutyKind.DECLARE_KILL, cmd.DeclareKill, "MAFIA-KILL-5", False,
        _strike(godfather=False, tour=False), _night_decisions, "target"),
    Row(Seat.GODFATHER, DutyKind.ORDER_TOUR, cmd.DeclareKill, "TOUR-3", True,
        _strike(godfather=True, tour=True), _night_decisions, "target"),
    Row(Seat.MAFIOSO, DutyKind.DECLARE_TOUR, cmd.DeclareKill, "TOUR-3", False,
        _strike(godfather=False, tour=True), _night_decisions, "target"),
    Row(Seat.MAFIOSO, DutyKind.VOTE_GODFATHER, cmd.VoteGodfather, "GODFATHER-2", True,
        _vote_godfather, _night_decisions, "candidate"),
    Row(Seat.CONSIGLIERE, DutyKind.APPOINT_GODFATHER, cmd.AppointGodfather, "GODFATHER-3", False,
        _appoint_godfather, _no, "godfather"),
    Row(Seat.MAFIOSO, DutyKind.PLACE_AMBUSH, cmd.PlaceAmbush, "AMBUSH-4", False, _ambush, _ambush_due,
        "target"),
    Row(Seat.COMMISSAR, DutyKind.CHECK, cmd.CheckResident, "COMM-4", True, _check, _checks_close, "target"),
    Row(Seat.CONSIGLIERE, DutyKind.ANSWER_CHECK, cmd.AnswerCheck, "COMM-4", True, _answer_check,
        _checks_close, "is_mafia"),
    Row(Seat.CONSIGLIERE, DutyKind.REVIEW_RELAY, hc.ReviewMafiaRelay, "MAFIA-COMM-1", False,
        _review_relay, _no, "approve", frozenset({ErrorCode.REASON_REQUIRED})),
    *(Row(seat, DutyKind.SIGN_RESTORATION, cmd.SignRestoration, "RESTORE-2", True,
          _sign_restoration(seat), _no) for seat in (Seat.PROCURATOR, Seat.CONSIGLIERE, Seat.TRIBUNE)),
)
"""Every duty of every seat. A row's ``when`` yields nothing for a viewer without the seat."""

def duties(state: GameState | None, viewer: str | None, now: datetime,
           kinds: Collection[DutyKind] | None = None) -> tuple[Duty, ...]:
    """What ``viewer`` can and must do at ``now``: required ones first, then by deadline
    (only duties of ``kinds``, if given: a notification asks about one kind for many)."""
    if state is None or viewer is None or state.stage is Stage.FINISHED:
        return ()
    rows = TABLE if kinds is None else [row for row in TABLE if row.kind in kinds]
    found = [_duty(state, row, o) for row in rows for o in row.when(state, viewer, now)]
    return tuple(sorted(found, key=_order))


def _duty(state: GameState, row: Row, o: Open) -> Duty:
    return Duty(
        kind=row.kind, seat=row.seat, rule=row.rule, command=row.command,
        required=row.required if o.required is None else o.required,
        deadline=row.due(state, o), args=tuple((o.args or {}).items()), choice=row.choice,
        choices=o.choices, may_fail=row.may_fail, scope=o.scope,
    )


def _order(d: Duty) -> tuple[bool, float, str]:
    return (not d.required, d.deadline.timestamp() if d.deadline else float("inf"), d.kind.value)


__all__ = ["TABLE", "Duty", "DutyKind", "Open", "Row", "Seat", "duties"]
