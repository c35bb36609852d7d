"""Duties are the engine's own answers: every duty listed is accepted when issued, and
no seat is told another seat's duty (issue 9; §9, SEC-1..8).

Bot games are replayed event by event; at each sampled moment every participant's duties
are asked for and each one is issued, with each of its choices, to ``decide`` at that
moment. A duty may be refused only for a reason it declares (``may_fail``: a field the
viewer fills in freely, such as a schedule).
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lepromafia.bots.simulate import play
from lepromafia.engine.decide import decide
from lepromafia.engine.duties import Duty, DutyKind, Seat, duties
from lepromafia.engine.errors import RuleViolation
from lepromafia.engine.evolve import evolve
from lepromafia.engine.progress import Context
from lepromafia.engine.rules.court import sitting_judges
from lepromafia.engine.state import Faction, GameState

FREE: dict[DutyKind, dict[str, Any]] = {
    DutyKind.OFFER_COMMISSAR: {"draw": 0},
}
"""Sample values for a duty whose choice is a free draw rather than a list."""

UNSAMPLED = {DutyKind.APPOINT_CONSIGLIERE, DutyKind.APPOINT_ARBITER, DutyKind.FORM_CITIES,
             DutyKind.SEAL_DEAL, DutyKind.NAME_NUMBERS, DutyKind.START_GAME,
             DutyKind.SCHEDULE_JUDGE_ELECTION}
"""Set-up and scheduling duties whose fields are free text or times; their transcript
tests issue them (tests/engine/test_duties.py)."""


def holds(s: GameState, viewer: str, d: Duty) -> bool:
    """The viewer holds the duty's seat himself."""
    r = s.residents.get(viewer)
    city = s.cities.get(d.city or (r.city if r else ""))
    mafioso = r is not None and r.faction is Faction.MAFIA
    return {
        Seat.PROCURATOR: viewer == s.procurator,
        Seat.CONSIGLIERE: viewer == s.consigliere,
        Seat.ARBITER: viewer == s.arbiter,
        Seat.TRIBUNE: city is not None and (city.tribune == viewer or viewer in s.tribunes()),
        Seat.RESIDENT: r is not None or any(viewer in c.spirits for c in s.cities.values()),
        Seat.MAFIOSO: mafioso,
        Seat.GODFATHER: mafioso and city is not None and city.godfather == viewer,
        Seat.COMMISSAR: city is not None and city.commissar == viewer,
        Seat.JUDGE: viewer in sitting_judges(s),
    }[d.seat]


def issue(s: GameState, viewer: str, d: Duty, now: Any) -> list[str]:
    """Issue the duty with each of its choices; the problems found."""
    problems = []
    if d.kind in UNSAMPLED:
        return problems
    options: list[dict[str, Any]] = [{d.choice: c} for c in d.choices] if d.choice and d.choices else \
        [FREE.get(d.kind, {})]
    if d.kind is DutyKind.SCHEDULE_VOTE and "opens_at" not in d.arguments:
        plan = s.plans[s.day]
        options = [{"opens_at": now + timedelta(hours=1), "closes_at": plan.scheduled_end}]
    for fields in options:
        command = d.command_for(viewer, **fields)
        try:
            decide(s, command, Context(now))
        except RuleViolation as exc:
            if exc.code not in d.may_fail:
                problems.append(f"{viewer} {d.kind} {fields}: {exc.code} ({exc.rule})")
    return problems


def check_game(seed: int, every: int, **settings: str) -> set[DutyKind]:
    game = play(seed, cities=3, population=8, settings=settings)
    seen: set[DutyKind] = set()
    state: GameState | None = None
    for i, event in enumerate(game.table.events):
        state = evolve(state, event)
        if i % every:
            continue
        assert state is not None
        users = set(state.residents) | state.hosts()
        now = event.at + timedelta(seconds=1)
        for user in sorted(users):
            for d in duties(state, user, now):
                seen.add(d.kind)
                assert holds(state, user, d), f"{user} was told {d.seat}'s duty {d.kind}"
                problems = issue(state, user, d, now)
                assert not problems, problems
    return seen


def test_every_listed_duty_is_accepted_and_belongs_to_its_seat() -> None:
    """A full 3-city bot game: nominations, votes, offers, the Court, the night orders,
    tours, checks and the Godfather's election all appear and are all accepted."""
    seen = check_game(seed=3, every=2, supreme_court_mode="always")
    assert {DutyKind.NOMINATE, DutyKind.VOTE, DutyKind.SCHEDULE_VOTE, DutyKind.ORDER_KILL,
            DutyKind.DECLARE_KILL, DutyKind.ORDER_TOUR, DutyKind.CHECK, DutyKind.VOTE_PARDON,
            DutyKind.ANSWER_OFFER, DutyKind.OFFER_COMMISSAR, DutyKind.VOTE_GODFATHER,
            DutyKind.PLACE_AMBUSH, DutyKind.PROPOSE_JUDGE, DutyKind.CHOOSE_PARDON_PRESET,
            DutyKind.SCHEDULE_JUDGE_ELECTION, DutyKind.ACKNOWLEDGE_ROLE} <= seen, seen


@settings(max_examples=4, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(min_value=0, max_value=10_000),
       court=st.sampled_from(["auto", "always", "never"]),
       checks=st.sampled_from(["automatic", "consigliere"]))
def test_duties_hold_in_random_games(seed: int, court: str, checks: str) -> None:
    """Property: for any seeded bot game, every duty at every sampled moment is accepted
    by ``decide`` with its prefilled arguments, and belongs to the viewer's own seat
    (the Consigliere answering checks included, AMB-20)."""
    check_game(seed, every=5, supreme_court_mode=court, commissar_check_mode=checks)
