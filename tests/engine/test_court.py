"""Judges and the Supreme Court: elections, pardons, removal, recusal (COURT, JUDGE-*)."""

from datetime import timedelta

import pytest

from lepromafia.engine import events as ev
from lepromafia.engine.commands import (
    ChoosePardonPreset,
    ConfirmPetition,
    DeclareKill,
    DeclineCandidacy,
    FilePetition,
    Nominate,
    PostMessage,
    ProposeJudge,
    Recuse,
    RequestJudgeProxy,
    ScheduleJudgeElection,
    VoteGodfather,
    VotePardon,
)
from lepromafia.engine.errors import ErrorCode
from lepromafia.engine.inboxes import Access, access
from lepromafia.engine.rules.judges import removal_threshold

from .cast import ARBITER, TRIBUNES, Game, night_time, when

FOUR = {c: " ".join(f"{c.lower()}{i}" for i in range(1, 6)) for c in "ABCD"}
FOUR_MAFIA = {c: f"{c.lower()}1" for c in "ABCD"}


def four_cities(**settings):
    """Four cities A–D of five residents; x1 is each city's mafioso. A Court exists."""
    return Game(FOUR, mafia=FOUR_MAFIA, settings=settings).start()


def polling(g, city, candidate):
    box = g.state.current.get(f"polling:{city}/{candidate}")
    assert box, f"no polling station for {candidate}"
    return box


def elect(g, judges, day=1):
    """Each city elects the given judge on Day `day` (proposed by x2, one «Ганди»)."""
    for city, judge in judges.items():
        proposer = f"{city.lower()}2"
        g.do(ProposeJudge(actor=proposer, candidate=judge), day, "11:00")
    g.to(day, "16:00")
    for city, judge in judges.items():
        g.do(PostMessage(actor=f"{city.lower()}3", inbox=polling(g, city, judge), text="Он — Ганди!"),
             day, "16:05")
    g.to(day, "19:00")


def test_day_one_holds_judge_elections_announced_six_hours_ahead():
    """START-1, JUDGE-ELECT-1, JUDGE-ELECT-4, TIME-5: 16:00–19:00 announced at 10:00."""
    g = four_cities()
    scheduled = g.events_of(ev.JudgeElectionScheduled)
    assert {e.city for e in scheduled} == set("ABCD") and all(e.audience.public for e in scheduled)
    assert scheduled[0].opens_at - scheduled[0].at == timedelta(hours=6)


def test_no_court_and_no_judges_with_three_cities():
    """COURT-1 (AMB-1), EX-12: with three cities the top candidate dies at the close."""
    g = Game({c: FOUR[c] for c in "ABC"}, mafia={c: FOUR_MAFIA[c] for c in "ABC"}).start()
    assert g.events_of(ev.JudgeElectionScheduled) == []
    g.to(2, "10:00")
    g.do(Nominate(actor="a2", candidate="a3"), 2, "12:00")
    g.to(2, "23:30")
    assert not g.alive("a3") and g.events_of(ev.PardonWindowOpened) == []


def test_a_candidate_is_elected_and_the_court_inbox_opens_for_the_judges():
    """JUDGE-ELECT-3, JUDGE-ELECT-5, JUDGE-ELECT-14, JUDGE-ELECT-15, INBOX-COURT-1, INBOX-COURT-3, INBOX-POLL-1, JUDGE-1, JUDGE-2."""
    g = four_cities()
    elect(g, {"A": "a1", "B": "b2", "C": "c3", "D": "d4"})  # a1 is a mafioso (JUDGE-1)
    closed = g.events_of(ev.JudgeElectionClosed)
    assert {e.city: e.elected for e in closed} == {"A": "a1", "B": "b2", "C": "c3", "D": "d4"}
    assert all(e.audience.public for e in closed)
    court = g.inbox("court")
    for judge in ("a1", "b2", "c3", "d4", ARBITER):
        assert access(g.state, court, judge, now=g.now) is Access.WRITE
    assert access(g.state, court, "a2", now=g.now) is Access.NONE


def test_polling_stations_take_only_the_two_keywords_once():
    """JUDGE-ELECT-5, JUDGE-ELECT-6, JUDGE-ELECT-10, INBOX-POLL-1: irrevocable; no flood; the Arbiter organizes."""
    g = four_cities()
    g.do(ProposeJudge(actor="a2", candidate="a3"), 1, "11:00")
    g.to(1, "16:00")
    box = polling(g, "A", "a3")
    g.reject(PostMessage(actor="a4", inbox=box, text="голосуйте за a3!"), when(1, "16:01"),
             ErrorCode.NOT_A_KEYWORD)
    g.reject(PostMessage(actor="a4", inbox=box, text="казнить"), when(1, "16:01"), ErrorCode.NOT_A_KEYWORD)
    g.do(PostMessage(actor="a4", inbox=box, text="он-ганди"), 1, "16:02")
    g.reject(PostMessage(actor="a4", inbox=box, text="Он — Гитлер!"), when(1, "16:03"),
             ErrorCode.VOTE_ALREADY_CAST)
    g.reject(PostMessage(actor="b2", inbox=box, text="Он — Ганди!"), when(1, "16:03"),
             ErrorCode.UNKNOWN_INBOX)


def test_net_score_decides():
    """EX-13, JUDGE-ELECT-7: 4 for and 3 against gives 1."""
    g = Game({"A": "a1 a2 a3 a4 a5 a6 a7 a8 a9 a10", **{c: FOUR[c] for c in "BCD"}},
             mafia={"A": "a1 a2", **{c: FOUR_MAFIA[c] for c in "BCD"}}).start()
    g.do(ProposeJudge(actor="a2", candidate="a3"), 1, "11:00")
    g.to(1, "16:00")
    for i, voter in enumerate(("a1", "a2", "a4", "a5", "a6", "a7", "a8")):
        text = "Он — Ганди!" if i < 4 else "Он — Гитлер!"
        g.do(PostMessage(actor=voter, inbox=polling(g, "A", "a3"), text=text), 1, "16:10")
    g.to(1, "19:00")
    tally = next(e for e in g.events_of(ev.JudgeElectionClosed) if e.city == "A").tallies[0]
    assert (len(tally.votes_for), len(tally.votes_against), tally.net) == (4, 3, 1)


def test_equal_nets_go_to_the_earlier_last_for_vote():
    """EX-14, JUDGE-ELECT-8: A's last «for» at 16:20, B's at 16:10 → B elected."""
    g = four_cities()
    g.do(ProposeJudge(actor="a2", candidate="a3"), 1, "11:00")
    g.do(ProposeJudge(actor="a3", candidate="a4"), 1, "11:00")
    g.to(1, "16:00")
    g.do(PostMessage(actor="a5", inbox=polling(g, "A", "a3"), text="Он — Ганди!"), 1, "16:20")
    g.do(PostMessage(actor="a5", inbox=polling(g, "A", "a4"), text="Он — Ганди!"), 1, "16:10")
    g.to(1, "19:00")
    assert next(e for e in g.events_of(ev.JudgeElectionClosed) if e.city == "A").elected == "a4"


@pytest.mark.parametrize(
    ("votes", "elected"),
    [
        ({"a3": "++---", "a4": "-"}, None),  # EX-15: −1 and −1, nobody electable
        ({"a3": "++--"}, "a3"),  # EX-15: net 0 with for ≥ against
        ({"a3": ""}, None),  # EX-15 (AMB-9): at least one «for» is needed
    ],
)
def test_the_elected_judge_needs_a_non_negative_net_and_a_for_vote(votes, elected):
    """JUDGE-ELECT-12, JUDGE-ELECT-13, EX-15: a failed election is repeated."""
    g = Game({"A": "a1 a2 a3 a4 a5 a6 a7 a8 a9 a10", **{c: FOUR[c] for c in "BCD"}},
             mafia={"A": "a1 a2", **{c: FOUR_MAFIA[c] for c in "BCD"}}).start()
    for proposer, cand in zip(("a5", "a6"), votes, strict=False):
        g.do(ProposeJudge(actor=proposer, candidate=cand), 1, "11:00")
    g.to(1, "16:00")
    for cand, signs in votes.items():
        for voter, sign in zip(("a1", "a2", "a7", "a8", "a9"), signs, strict=False):
            g.do(PostMessage(actor=voter, inbox=polling(g, "A", cand),
                             text="Он — Ганди!" if sign == "+" else "Он — Гитлер!"), 1, "16:30")
    g.to(1, "19:00")
    result = next(e for e in g.events_of(ev.JudgeElectionClosed) if e.city == "A")
    assert result.elected == elected
    if elected is None:
        assert result.reason == "nobody_electable"
        g.to(2, "10:00")
        again = [e for e in g.events_of(ev.JudgeElectionScheduled) if e.city == "A"]
        assert len(again) == 2 and again[1].number == 2


def test_a_candidate_may_decline_and_proxies_count_at_the_opening():
    """JUDGE-ELECT-2 (AMB-9), JUDGE-ELECT-9 (AMB-10)."""
    g = four_cities()
    g.do(ProposeJudge(actor="a2", candidate="a3"), 1, "11:00")
    g.do(ProposeJudge(actor="a3", candidate="a4"), 1, "11:00")
    g.do(DeclineCandidacy(actor="a4"), 1, "12:00")
    g.reject(DeclineCandidacy(actor="a5"), when(1, "12:00"), ErrorCode.NOT_A_CANDIDATE)
    (proxy,) = g.do(RequestJudgeProxy(actor="a5", candidate="a3", in_favour=True), 1, "12:00")
    assert proxy.audience.users == {"a5", ARBITER}
    g.to(1, "16:00")
    assert next(e for e in g.events_of(ev.PollingOpened) if e.city == "A").candidates == ("a3",)
    cast = [e for e in g.events_of(ev.JudgeVoteCast) if e.proxy]
    assert cast[0].voter == "a5" and cast[0].at == when(1, "16:00")
    g.reject(ProposeJudge(actor="a5", candidate="a2"), when(1, "16:01"), ErrorCode.NO_ELECTION_OPEN)


def test_the_arbiter_reschedules_with_six_hours_notice():
    """TIME-5, EX-20: polls opening at 18:00 must be announced by 12:00."""
    g = four_cities()
    plan = dict(city="A", opens_at=when(1, "18:00"), closes_at=when(1, "20:00"))
    g.reject(ScheduleJudgeElection(actor="a2", **plan), when(1, "11:00"), ErrorCode.NOT_ARBITER)
    g.reject(ScheduleJudgeElection(actor=ARBITER, **plan), when(1, "12:01"), ErrorCode.SCHEDULE_INVALID)
    g.do(ScheduleJudgeElection(actor=ARBITER, **plan), 1, "12:00")
    assert g.state.deadlines["poll_open:A:1"] == when(1, "18:00")


def judged_day_two(**settings):
    g = four_cities(**settings)
    elect(g, {"A": "a5", "B": "b5", "C": "c5", "D": "d5"})
    g.to(2, "10:00")
    return g


def test_a_sitting_judge_cannot_be_nominated():
    """JUDGE-4: immunity."""
    g = judged_day_two()
    g.reject(Nominate(actor="a2", candidate="a5"), when(2, "12:00"), ErrorCode.CANDIDATE_NOT_ELIGIBLE)


def test_the_court_pardons_by_a_majority_of_sitting_judges_and_the_runner_up_dies():
    """EX-1, EXEC-15, COURT-3, COURT-4, COURT-7, COURT-8: 3 of 4 judges pardon."""
    g = judged_day_two()
    g.nominate_all([("a2", "a3"), ("a3", "a4")], 2)
    g.to(2, "20:00")
    g.vote("a2", "a3", "казнить", 2, "20:05")
    g.vote("a1", "a3", "казнить", 2, "20:06")
    g.vote("a5", "a4", "казнить", 2, "20:07")
    g.to(2, "23:30")
    (window,) = g.events_of(ev.PardonWindowOpened)
    assert window.candidate == "a3" and window.closes_at == when(3, "00:00")
    assert g.alive("a3")
    g.reject(VotePardon(actor=ARBITER, city="A", pardon=True), when(2, "23:31"), ErrorCode.NOT_JUDGE)
    for judge in ("a5", "b5"):
        g.do(VotePardon(actor=judge, city="A", pardon=True), 2, "23:35")
    assert g.events_of(ev.VerdictReached) == []
    g.do(VotePardon(actor="c5", city="A", pardon=True), 2, "23:40")
    (verdict,) = g.events_of(ev.VerdictReached)
    assert verdict.pardoned and verdict.audience.public
    assert g.alive("a3") and not g.alive("a4")  # the runner-up, with no second pardon


def test_a_two_two_split_is_no_pardon():
    """EX-10, COURT-3 (AMB-5): 2 of 4 is not more than half."""
    g = judged_day_two()
    g.do(Nominate(actor="a2", candidate="a3"), 2, "12:00")
    g.to(2, "23:30")
    for judge, pardon in (("a5", True), ("b5", True), ("c5", False)):
        g.do(VotePardon(actor=judge, city="A", pardon=pardon), 2, "23:35")
    assert g.events_of(ev.VerdictReached) == []
    g.do(VotePardon(actor="d5", city="A", pardon=False), 2, "23:36")  # early: 2 can no longer win
    assert not g.events_of(ev.VerdictReached)[0].pardoned and not g.alive("a3")


def test_silence_until_the_window_closes_is_no_pardon_and_night_waits_for_the_verdict():
    """COURT-4, §3: the vote closed 23:50, the window ends 00:20, night starts then."""
    g = judged_day_two()
    g.do(Nominate(actor="a2", candidate="a3"), 2, "12:00")
    from lepromafia.engine.commands import ScheduleExecutionVote

    g.do(ScheduleExecutionVote(actor=TRIBUNES[0], city="A", opens_at=when(2, "20:00"),
                               closes_at=when(2, "23:50")), 2, "12:00")
    g.to(3, "00:00")
    assert g.state.phase.value == "day" and g.alive("a3")
    g.to(3, "00:20")
    assert not g.alive("a3") and g.state.phase.value == "night"
    assert g.events_of(ev.NightStarted)[-1].at == when(3, "00:20")


def test_the_only_candidate_pardoned_means_no_execution():
    """EX-8(c), COURT-3 (AMB-5)."""
    g = judged_day_two()
    g.do(Nominate(actor="a2", candidate="a3"), 2, "12:00")
    g.to(2, "23:30")
    for judge in ("a5", "b5", "c5"):
        g.do(VotePardon(actor=judge, city="A", pardon=True), 2, "23:35")
    assert g.alive("a3")
    assert g.events_of(ev.NoExecution)[-1].reason == "pardoned_no_runner_up"


def test_a_vacant_seat_is_not_counted():
    """EX-10 (third case), COURT-3: 3 sitting judges, 2 pardon → pardoned."""
    g = four_cities()
    elect(g, {"A": "a5", "B": "b5", "C": "c5"})  # D fails to elect
    g.to(2, "10:00")
    g.do(Nominate(actor="a2", candidate="a3"), 2, "12:00")
    g.do(Nominate(actor="a3", candidate="a4"), 2, "12:00")
    g.to(2, "23:30")
    for judge in ("a5", "b5"):
        g.do(VotePardon(actor=judge, city="A", pardon=True), 2, "23:35")
    assert g.events_of(ev.VerdictReached)[0].pardoned


def test_the_arbiter_picks_the_votes_cast_preset_before_the_first_vote():
    """COURT-5: pardon_majority = of_votes_cast; displayed in the Court inbox."""
    g = judged_day_two()
    g.reject(ChoosePardonPreset(actor="a2", majority="of_votes_cast"), when(2, "11:00"),
             ErrorCode.NOT_ARBITER)
    (chosen,) = g.do(ChoosePardonPreset(actor=ARBITER, majority="of_votes_cast"), 2, "11:00")
    assert {"a5", "b5", ARBITER} <= chosen.audience.users
    g.do(Nominate(actor="a2", candidate="a3"), 2, "12:00")
    g.to(2, "23:30")
    g.do(VotePardon(actor="a5", city="A", pardon=True), 2, "23:35")
    g.reject(ChoosePardonPreset(actor=ARBITER, majority="of_sitting"), when(2, "23:36"), ErrorCode.TOO_LATE)
    g.to(3, "00:00")
    assert g.events_of(ev.VerdictReached)[0].pardoned  # 1 of 1 vote cast


@pytest.mark.parametrize(("mafia", "threshold"), [(4, 5), (3, 4), (2, 3), (1, 2)])
def test_the_removal_threshold_follows_the_living_mafia(mafia, threshold):
    """EX-16, JUDGE-REMOVE-2, JUDGE-REMOVE-3 (AMB-12)."""
    town = " ".join(f"r{i}" for i in range(1, 21))
    g = Game({"A": town}, mafia={"A": "r1 r2 r3 r4"}).start()
    from dataclasses import replace

    residents = dict(g.state.residents)
    for user in ("r1", "r2", "r3", "r4")[mafia:]:
        residents[user] = replace(residents[user], alive=False)
    g.table.state = replace(g.state, residents=residents)
    assert removal_threshold(g.state, "A") == threshold


def test_a_removal_petition_removes_the_judge_and_a_new_election_follows_with_two_hours_notice():
    """JUDGE-REMOVE-1, JUDGE-REMOVE-2, JUDGE-REMOVE-4, INBOX-REMOVAL-1, INBOX-REMOVAL-2, TIME-6."""
    g = judged_day_two()
    g.do(FilePetition(actor="a2"), 2, "12:00")
    assert removal_threshold(g.state, "A") == 2  # one living mafioso → 2
    g.do(ConfirmPetition(actor="a3"), 2, "12:30")
    (removed,) = g.events_of(ev.JudgeRemoved)
    assert removed.judge == "a5" and removed.audience.public and g.state.cities["A"].judge is None
    box = next(i.id for i in g.state.inboxes.values() if i.kind == "removal")
    for member in ("a2", "a3", ARBITER):  # INBOX-REMOVAL-2: the Arbiter is then added
        assert access(g.state, box, member, now=g.now) is Access.WRITE
    assert access(g.state, box, "a4", now=g.now) is Access.NONE
    scheduled = [e for e in g.events_of(ev.JudgeElectionScheduled) if e.city == "A"][-1]
    assert scheduled.after_removal and scheduled.opens_at - scheduled.at == timedelta(hours=2)
    g.reject(ProposeJudge(actor="a2", candidate="a5"), when(2, "13:00"), ErrorCode.CANDIDATE_NOT_ELIGIBLE)


def test_petitions_are_not_accepted_on_day_one_or_late():
    """JUDGE-REMOVE-5, JUDGE-REMOVE-6, JUDGE-REMOVE-7, EX-17: vote at 20:00 → deadline 16:00."""
    g = four_cities()
    elect(g, {"A": "a5", "B": "b5", "C": "c5", "D": "d5"})
    g.reject(FilePetition(actor="a2"), when(1, "19:30"), ErrorCode.NO_PETITIONS_TODAY)
    g.to(2, "10:00")
    g.reject(FilePetition(actor="a2"), when(2, "16:01"), ErrorCode.TOO_LATE)
    g2 = judged_day_two()
    g2.do(FilePetition(actor="a2"), 2, "15:30")
    g2.reject(ConfirmPetition(actor="a3"), when(2, "16:02"), ErrorCode.TOO_LATE)
    assert g2.state.cities["A"].judge == "a5"


def test_a_removed_judge_is_ineligible_for_two_more_days():
    """JUDGE-REMOVE-8 (AMB-13), EX-18: removed on Day 2 → eligible from Day 5."""
    from dataclasses import replace

    from lepromafia.engine.rules.judges import eligible_candidate

    g = judged_day_two()
    g.do(FilePetition(actor="a2"), 2, "12:00")
    g.do(ConfirmPetition(actor="a3"), 2, "12:30")
    for day, ok in ((2, False), (3, False), (4, False), (5, True)):
        state = replace(g.state, day=day)
        assert eligible_candidate(state, state.cities["A"], "a5") is ok


def test_a_late_recusal_is_refused():
    """JUDGE-RECUSE-1, JUDGE-RECUSE-2, EX-19: vote 20:00; recusal at 16:30 refused; at 15:59 accepted."""
    g = judged_day_two()
    g.reject(Recuse(actor="a2"), when(2, "12:00"), ErrorCode.NOT_JUDGE)
    g.reject(Recuse(actor="a5"), when(2, "16:30"), ErrorCode.TOO_LATE)
    g2 = judged_day_two()
    (recused, *_) = g2.do(Recuse(actor="a5"), 2, "15:59")
    assert isinstance(recused, ev.JudgeRecused) and g2.state.cities["A"].judge is None


def test_a_judge_change_opens_a_new_court_inbox_closed_to_the_newcomer():
    """INBOX-COURT-4, JUDGE-RECUSE-3: everyone banned in the old one; the new judge sees only the new."""
    g = judged_day_two()
    old = g.inbox("court")
    g.do(Recuse(actor="a5"), 2, "11:00")
    middle = g.inbox("court")
    assert middle != old and access(g.state, old, "b5", now=g.now) is Access.READ
    assert access(g.state, middle, "a5", now=g.now) is Access.NONE
    g.do(ProposeJudge(actor="a2", candidate="a5"), 2, "11:05")  # he may stand again
    g.to(2, "17:00")
    g.do(PostMessage(actor="a3", inbox=polling(g, "A", "a5"), text="Он — Ганди!"), 2, "17:05")
    g.to(2, "20:00")
    new = g.inbox("court")
    assert new != middle and access(g.state, new, "a5", now=g.now) is Access.WRITE
    assert access(g.state, middle, "a5", now=g.now) is Access.NONE and access(g.state, old, "a5", now=g.now) is Access.READ


def test_a_judge_killed_at_night_is_replaced_by_an_election():
    """JUDGE-5, JUDGE-ELECT-1, INBOX-COURT-4: a unanimous mafia kills its judge."""
    g = four_cities()
    elect(g, {"A": "a5", "B": "b5", "C": "c5", "D": "d5"})
    g.to_night(1, "01:00")
    g.at_night(VoteGodfather(actor="a1", candidate="a1"), 1, "01:00")
    g.to_night(2, "01:00")
    g.at_night(DeclareKill(actor="a1", target="a5"), 2, "01:00")  # the only mafioso: unanimous
    g.to(3, "10:00")
    assert not g.alive("a5") and g.state.cities["A"].judge is None
    rescheduled = [e for e in g.events_of(ev.JudgeElectionScheduled) if e.city == "A"][-1]
    assert rescheduled.opens_at == when(3, "16:00")
    assert night_time(2, "01:00") < when(3, "10:00")


def test_a_condemned_candidate_cannot_become_judge_while_his_case_is_open():
    """JUDGE-4, JUDGE-ELECT-2: candidates of the day's vote and the condemned before the Court
    may not be elected judge, which would void the vote by immunity (docs/decisions.md)."""
    g = four_cities()
    elect(g, {"A": "a5", "B": "b5", "C": "c5", "D": "d5"})
    g.to(2, "10:00")
    g.do(Recuse(actor="a5"), 2, "10:30")  # a vacancy: a new election today
    g.do(Nominate(actor="a2", candidate="a3"), 2, "11:00")
    from lepromafia.engine.commands import ScheduleExecutionVote

    g.do(ScheduleExecutionVote(actor=TRIBUNES[0], city="A", opens_at=when(2, "12:00"),
                               closes_at=when(2, "14:00")), 2, "11:00")
    g.to(2, "12:00")
    g.reject(ProposeJudge(actor="a4", candidate="a3"), when(2, "12:30"), ErrorCode.CANDIDATE_NOT_ELIGIBLE)
