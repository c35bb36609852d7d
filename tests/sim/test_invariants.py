"""The invariant checkers themselves: each must catch the breach it exists for.

A checker that cannot fail proves nothing, so every invariant is shown a forged log
(or an accepted illegal command) and must name the breach, and the real log passes.
"""

from __future__ import annotations

from dataclasses import replace
from datetime import timedelta

from lepromafia.bots.invariants import StepChecker, check_events, check_game, command_problems
from lepromafia.bots.simulate import GameReport, play
from lepromafia.engine import commands as cmd
from lepromafia.engine import events as ev
from lepromafia.engine.audience import PUBLIC, only
from lepromafia.engine.evolve import replay
from lepromafia.engine.state import PhaseKind


def _first(report: GameReport, kind: type[ev.Event]) -> tuple[int, ev.Event]:
    return next((i, e) for i, e in enumerate(report.table.events) if isinstance(e, kind))


def _forge(report: GameReport, index: int, event: ev.Event, insert: bool = False) -> list[str]:
    log = list(report.table.events)
    if insert:
        log.insert(index, event)
    else:
        log[index] = event
    return check_events(log)


def test_a_real_game_passes_every_invariant_and_replays_to_its_state(finished_game):
    assert check_game(finished_game.table) == []
    assert replay(finished_game.table.events).state == finished_game.table.state


def test_a_resident_who_dies_twice_is_caught(finished_game):
    i, death = _first(finished_game, ev.ResidentDied)
    problems = _forge(finished_game, i + 1, death, insert=True)
    assert any("died twice" in p for p in problems)


def test_a_second_execution_in_a_city_on_one_day_is_caught_EXEC_1(finished_game):
    i, death = _first(finished_game, ev.ResidentDied)
    assert death.cause == "execution"
    state = replay(finished_game.table.events[:i]).state
    other = next(u for u in state.living(death.city) if u != death.user)
    second = replace(death, user=other)
    problems = _forge(finished_game, i + 1, second, insert=True)
    assert any("second execution" in p and "EXEC-1" in p for p in problems)


def test_a_dead_residents_vote_in_the_log_is_caught_ROLE_DEAD_3(finished_game):
    log = finished_game.table.events
    i, death = _first(finished_game, ev.ResidentDied)
    j, vote = next((j, e) for j, e in enumerate(log) if j > i and isinstance(e, ev.VoteCast)
                   and e.keyword == "казнить")
    dead_vote = replace(vote, voter=death.user)
    problems = _forge(finished_game, j, dead_vote)
    assert any(f"dead {death.user} voted" in p for p in problems)


def test_a_public_mafia_deal_is_a_leak(finished_game):
    i, dealt = _first(finished_game, ev.MafiaDealt)
    problems = _forge(finished_game, i, replace(dealt, audience=PUBLIC))
    assert any("secret event is public" in p for p in problems)
    assert any("HOST-PROC-7" in p for p in problems)


def test_a_nomination_shown_to_a_neighbour_is_a_leak(finished_game):
    i, nomination = _first(finished_game, ev.NominationMade)
    state = replay(finished_game.table.events[:i]).state
    neighbour = next(u for u in state.living(nomination.city) if u != nomination.nominator)
    leaky = replace(nomination, audience=nomination.audience | only(neighbour))
    problems = _forge(finished_game, i, leaky)
    assert problems == [f"event {i + 1} NominationMade: visible to {neighbour} (§9.2)"]


def test_a_check_answer_shown_to_the_procurator_breaks_HOST_PROC_7(finished_game):
    i, answer = _first(finished_game, ev.CheckAnswered)
    leaky = replace(answer, audience=answer.audience | only("procurator"))
    problems = _forge(finished_game, i, leaky)
    assert any("procurator" in p and "HOST-PROC-7" in p for p in problems)


def test_the_consigliere_named_to_a_tribune_breaks_HOST_CONS_5(finished_game):
    i, appointed = next((i, e) for i, e in enumerate(finished_game.table.events)
                        if isinstance(e, ev.HostAppointed) and e.office == "consigliere")
    leaky = replace(appointed, audience=appointed.audience | only("tribune1"))
    problems = _forge(finished_game, i, leaky)
    assert any("tribune1" in p and "HOST-CONS-5" in p for p in problems)


def test_a_log_that_does_not_replay_to_the_tables_state_is_caught(finished_game):
    log = finished_game.table.events[:-1]  # GameEnded dropped
    assert any("replay(events) differs" in p for p in check_events(log, finished_game.table.state))


def test_a_rejected_command_leaves_the_table_untouched_and_passes():
    """ROLE-DEAD-3: after seed 3's game a dead resident's nomination is refused cleanly."""
    report = play(seed=3, cities=3, population=10)
    table, state = report.table, report.table.state
    dead = next(u for u, r in state.residents.items() if not r.alive)
    checker = StepChecker()
    now = table.events[-1].at + timedelta(minutes=1)
    assert checker.attempt(table, cmd.Nominate(actor=dead, candidate=dead), now, illegal=True) == []
    assert checker.violations == [] and checker.rejected == 1
    assert table.state is state


def test_an_accepted_move_marked_illegal_is_a_violation():
    """The checker's other half: had the engine accepted it, the run would fail."""
    report = play(seed=3, cities=3, population=10, check=False)
    table = report.table
    checker = StepChecker()
    now = table.events[-1].at + timedelta(minutes=1)
    # A stale deadline is legal and yields nothing; marked illegal, it must be flagged.
    checker.attempt(table, cmd.FireDeadline(actor="system", key="day_start:1"), now, illegal=True)
    assert checker.violations and "accepted illegal FireDeadline" in checker.violations[0]


def test_a_day_command_accepted_at_night_is_named_TIME_10(finished_game):
    state = replay(finished_game.table.events).state
    night = replace(state, phase=PhaseKind.NIGHT)
    living = next(u for u, r in night.residents.items() if r.alive)
    problems = command_problems(night, cmd.Nominate(actor=living, candidate=living), [])
    assert problems == [f"Nominate({living}) accepted at night (TIME-10)"]


def test_a_dead_residents_accepted_kill_is_named_ROLE_DEAD_3(finished_game):
    state = finished_game.table.state
    dead = next(u for u, r in state.residents.items() if not r.alive)
    problems = command_problems(state, cmd.DeclareKill(actor=dead, target="-"), [])
    assert any(f"dead {dead} acted" in p for p in problems)
