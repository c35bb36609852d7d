"""Engine II invariants: each checker is shown the breach it exists for, and the bots
exercise the full rule set (judges, Court, petitions, ambush, Spirits, restoration).

Forged events are checked against real states of a seeded six-city game (a Court
exists), changed only where the breach needs it.
"""

from __future__ import annotations

import inspect
from collections import Counter
from dataclasses import replace
from datetime import datetime

import pytest

from lepromafia.bots.invariants import (
    AFTER_GAME_EVENTS,
    ALLOWED,
    BASE_EVENTS,
    OPEN_EVENTS,
    ROUTED_EVENTS,
    visibility_problems,
)
from lepromafia.bots.rule_checks import RuleTracker, court_problems
from lepromafia.bots.simulate import GameReport, play
from lepromafia.engine import decisions
from lepromafia.engine import events as ev
from lepromafia.engine import events_host as hev
from lepromafia.engine.audience import only
from lepromafia.engine.evolve import evolve
from lepromafia.engine.state import GameState, Restoration

NEW_KINDS = (
    ev.JudgeProposed, ev.CandidacyDeclined, ev.JudgeProxyRequested, ev.JudgeVoteCast,
    ev.PardonVoteCast, ev.PetitionFiled, ev.PetitionConfirmed, ev.JudgeRemoved,
    ev.SuicideDeclared, ev.ObserverJoined, ev.SpiritsChosen, ev.AmbushRightGranted,
    ev.AmbushPlaced, ev.AmbushesFixed, ev.CommissarExposed, ev.MafiosoDisclosed,
)


@pytest.fixture(scope="module")
def court_game() -> GameReport:
    """Seed 0, six cities of ten: judges elected, petitions, ambushes, Spirits."""
    report = play(seed=0, cities=6, population=10)
    assert report.violations == []
    return report


def state_when(report: GameReport, wanted) -> tuple[GameState, datetime]:
    """The first state of the log (after an event) that satisfies ``wanted``."""
    state = None
    for e in report.table.events:
        state = evolve(state, e)
        if state.residents and wanted(state):
            return state, e.at
    raise AssertionError("no such moment in the game")


def judged_day(report: GameReport) -> tuple[GameState, datetime, str, str]:
    """A day state with two sitting judges: (state, when, city, its judge)."""
    def two_judges(s: GameState) -> bool:
        judges = {c.judge for c in s.cities.values() if c.judge}
        court = s.current_inbox("court")
        return (s.phase.value == "day" and len(judges) >= 2 and court is not None
                and s.inboxes[court].members == judges)
    s, at = state_when(report, two_judges)
    city = next(n for n, c in s.cities.items() if c.judge)
    judge = s.cities[city].judge
    assert judge is not None
    return s, at, city, judge


def test_every_event_kind_is_classified_for_visibility():
    """§9: a new event kind without an allow-list entry (or an explicit 'public') fails here."""
    kinds = {c for module in (ev, hev, *decisions.MODULES)
             for _, c in inspect.getmembers(module, inspect.isclass)
             if issubclass(c, ev.Event) and c is not ev.Event}
    groups = (set(ALLOWED), OPEN_EVENTS, ROUTED_EVENTS, AFTER_GAME_EVENTS, BASE_EVENTS)
    unclassified = sorted(k.__name__ for k in kinds if sum(k in g for g in groups) != 1)
    assert unclassified == []


def test_nominating_a_sitting_judge_is_caught_JUDGE_4(court_game):
    s, at, city, judge = judged_day(court_game)
    nominator = next(u for u in s.living(city) if u != judge)
    forged = ev.NominationMade(at=at, audience=only(nominator), city=city, nominator=nominator,
                               candidate=judge)
    assert any("JUDGE-4" in p for p in RuleTracker().before(s, forged))


def test_a_touring_kill_of_a_judge_is_caught_TOUR_4(court_game):
    s, at, city, judge = judged_day(court_game)
    other = next(n for n in s.cities if n != city)
    fixed = ev.NightDecisionFixed(at=at, audience=only("consigliere"), city=other, night=s.day,
                                  target=judge, tour=True, basis="godfather")
    assert any("TOUR-4" in p for p in RuleTracker().before(s, fixed))
    own = replace(fixed, city=city, tour=False)
    assert RuleTracker().before(s, own) == []  # his own mafia may kill him (JUDGE-5)


def test_a_judge_killed_on_an_ambush_night_is_caught_AMBUSH_11(court_game):
    s, at, city, judge = judged_day(court_game)
    mafioso = s.living_mafia(city)[0]
    bystander = next(u for u in s.living(city) if u not in (judge, mafioso))
    ambushed = replace(s, cities={**s.cities, city: replace(s.cities[city],
                                                            ambushes=((mafioso, bystander),))})
    fixed = ev.NightDecisionFixed(at=at, audience=only("consigliere"), city=city, night=s.day,
                                  target=judge, tour=False, basis="godfather")
    assert any("AMBUSH-11" in p for p in RuleTracker().before(ambushed, fixed))
    assert RuleTracker().before(s, fixed) == []


def test_a_removed_judge_re_elected_within_two_days_is_caught_JUDGE_REMOVE_8(court_game):
    s, at, city, judge = judged_day(court_game)
    tracker = RuleTracker()
    tracker.before(s, ev.JudgeRemoved(at=at, audience=only(judge), city=city, judge=judge))
    closed = ev.JudgeElectionClosed(at=at, audience=only(judge), city=city, number=9, tallies=(),
                                    elected=judge)
    for day, caught in ((s.day, True), (s.day + 2, True), (s.day + 3, False)):
        problems = tracker.before(replace(s, day=day), closed)
        assert any("JUDGE-REMOVE-8" in p for p in problems) is caught


def test_a_spirit_nominating_or_nominated_is_caught_SPIRIT_4(court_game):
    s, at, city, judge = judged_day(court_game)
    dead, living = [u for u in s.living(city) if u != judge][:2]
    s = replace(s, residents={**s.residents, dead: replace(s.residents[dead], alive=False)})
    haunted = replace(s, cities={**s.cities, city: replace(s.cities[city], spirits=frozenset({dead}))})
    nominates = ev.NominationMade(at=at, audience=only(dead), city=city, nominator=dead, candidate=living)
    nominated = ev.NominationMade(at=at, audience=only(living), city=city, nominator=living, candidate=dead)
    assert any("SPIRIT-4" in p for p in RuleTracker().before(haunted, nominates))
    assert any("SPIRIT-4" in p for p in RuleTracker().before(haunted, nominated))
    vote = ev.VoteCast(at=at, audience=only(dead), city=city, candidate=living, voter=dead,
                       keyword="казнить")
    assert any("SPIRIT-5" in p for p in RuleTracker().before(s, vote))  # not a Spirit today
    assert RuleTracker().before(haunted, vote) == []


def test_a_second_pardon_in_a_city_on_one_day_is_caught_COURT_3(court_game):
    s, at, city, judge = judged_day(court_game)
    tracker = RuleTracker()
    pardon = ev.VerdictReached(at=at, audience=only(judge), city=city, day=s.day, candidate="x",
                               pardoned=True, pardon_votes=4, no_pardon_votes=0)
    assert tracker.before(s, pardon) == []
    assert any("second pardon" in p for p in tracker.before(s, pardon))


def test_a_court_inbox_that_is_not_the_bench_is_caught_INBOX_COURT_1(court_game):
    s, _, _, judge = judged_day(court_game)
    assert court_problems(s) == []
    box = s.current_inbox("court")
    assert box is not None
    stale = replace(s.inboxes[box], members=s.inboxes[box].members - {judge})
    assert any("INBOX-COURT-1" in p for p in court_problems(replace(s, inboxes={**s.inboxes, box: stale})))


def test_kills_tours_and_votes_in_a_restoring_city_are_caught_RESTORE_7(court_game):
    s, at, city, judge = judged_day(court_game)
    pause = Restoration(new_name="Новоград", reason="утечка", proposed_day=s.day, began_day=s.day)
    paused = replace(s, cities={**s.cities, city: replace(s.cities[city], restoration=pause)})
    victim = next(u for u in s.living(city) if u != judge)
    events = [
        ev.NightDecisionFixed(at=at, audience=only("consigliere"), city=city, night=s.day,
                              target=victim, tour=False, basis="godfather"),
        ev.TourAnnounced(at=at, audience=only(victim), night=s.day, city=city, pointer=0),
        ev.VotingOpened(at=at, audience=only(victim), city=city, day=s.day, candidates=(victim,)),
    ]
    for e in events:
        assert any("RESTORE-7" in p for p in RuleTracker().before(paused, e)), type(e).__name__
        assert not any("RESTORE-7" in p for p in RuleTracker().before(s, e))


def test_ambush_secrets_shown_to_a_host_are_leaks_AMBUSH_2_HOST_PROC_7(court_game):
    s, at, city, judge = judged_day(court_game)
    side = set(s.mafiosi(city)) | {"consigliere"}
    granted = ev.AmbushRightGranted(at=at, audience=only(side), city=city, dead_commissar=judge,
                                    nights=(s.day,))
    assert visibility_problems(s, granted) == []
    leaky = replace(granted, audience=only(side | {"procurator"}))
    problems = visibility_problems(s, leaky)
    assert any("§9.2" in p for p in problems) and any("HOST-PROC-7" in p for p in problems)
    warned = ev.CommissarWarned(at=at, audience=only(judge), city=city)
    assert any("§9.2" in p for p in visibility_problems(s, warned))  # not this city's commissar


def test_bots_exercise_the_full_rule_set_and_every_probe_is_rejected():
    """Six cities: every new kind of event happens, and the illegal probes are all refused."""
    seen: Counter[str] = Counter()
    probes: Counter[str] = Counter()
    for seed in range(8):  # rare acts (suicide, disclosure) need a few games
        report = play(seed, 6, 10)
        assert report.violations == [], report.violations[:3]
        seen.update(type(e).__name__ for e in report.table.events)
        probes.update(report.probes)
    missing = [k.__name__ for k in NEW_KINDS if not seen[k.__name__]]
    assert missing == []
    for probe in ("Nominate", "ProposeJudge", "PostMessage", "DeclareKill", "PlaceAmbush", "VotePardon"):
        assert probes[probe] > 0, probe
