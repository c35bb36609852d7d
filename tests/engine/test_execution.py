"""Nominations and execution votes, as a Tribune would run them by hand (EXEC, TIME-7/8)."""

import pytest

from lepromafia.engine import events as ev
from lepromafia.engine.commands import Nominate, PostMessage, RequestProxyVote, ScheduleExecutionVote
from lepromafia.engine.errors import ErrorCode
from lepromafia.engine.inboxes import Access, access

from .cast import TRIBUNES, Game, when

TOWN = "Лепроград"


def day_two(**settings):
    """Ten residents of Лепроград; alice and bob are the mafia. Day 2 morning."""
    g = Game({TOWN: "alice bob carol dave erin frank gina hugo ivan jane"},
             mafia={TOWN: "alice bob"}, settings=settings).start()
    g.to(2, "10:00")
    return g


def closed(g, day=2):
    return [e for e in g.events_of(ev.VotingClosed) if e.day == day][-1]


def test_no_nominations_on_day_one():
    """START-1, EXEC-2: executions start on Day 2."""
    g = Game({TOWN: "alice bob carol dave erin"}, mafia={TOWN: "alice"}).start()
    g.reject(Nominate(actor="bob", candidate="carol"), when(1, "12:00"), ErrorCode.NO_EXECUTIONS_TODAY)


def test_a_nomination_goes_to_the_tribune_only_and_may_be_replaced():
    """EXEC-3 (AMB-24): one per citizen per day, the latest counts, nominators private."""
    g = day_two()
    g.do(Nominate(actor="carol", candidate="dave"), 2, "11:00")
    g.do(Nominate(actor="carol", candidate="erin"), 2, "11:05")
    made = g.events_of(ev.NominationMade)
    assert made[0].audience.users == {"carol", TRIBUNES[0]}
    assert dict(g.state.cities[TOWN].nominations) == {"carol": "erin"}
    g.to(2, "20:00")
    assert g.events_of(ev.VotingOpened)[0].candidates == ("erin",)


def test_self_nomination_is_allowed_unless_the_setting_forbids_it():
    """EXEC-3 (AMB-24): allow_self_nomination."""
    g = day_two()
    g.do(Nominate(actor="carol", candidate="carol"), 2, "11:00")
    strict = day_two(allow_self_nomination=False)
    strict.reject(Nominate(actor="carol", candidate="carol"), when(2, "11:00"),
                  ErrorCode.SELF_NOMINATION_FORBIDDEN)


def test_only_living_residents_of_the_same_city_can_be_nominated():
    """EXEC-3, CITY-4, ROLE-DEAD-3."""
    g = Game({"A": "a1 a2 a3 a4 a5", "B": "b1 b2 b3 b4 b5"}, mafia={"A": "a1", "B": "b1"}).start()
    g.to(2, "10:00")
    g.reject(Nominate(actor="a2", candidate="b2"), when(2, "11:00"), ErrorCode.CANDIDATE_NOT_ELIGIBLE)
    g.reject(Nominate(actor="a2", candidate="nobody"), when(2, "11:00"),
             ErrorCode.CANDIDATE_NOT_ELIGIBLE)
    g.reject(Nominate(actor="outsider", candidate="a2"), when(2, "11:00"), ErrorCode.NOT_RESIDENT)


def test_nominations_close_when_the_vote_opens():
    """EXEC-4, EX-7: voting opens 20:00; 19:59 accepted, 20:00 and 20:01 rejected."""
    g = day_two()
    g.do(Nominate(actor="carol", candidate="dave"), 2, "19:59")
    g.to(2, "20:00")
    g.reject(Nominate(actor="erin", candidate="dave"), when(2, "20:00"), ErrorCode.NOMINATIONS_CLOSED)
    g.reject(Nominate(actor="erin", candidate="dave"), when(2, "20:01"), ErrorCode.NOMINATIONS_CLOSED)


def test_the_tribune_may_close_nominations_earlier():
    """EXEC-4, EX-7: a nomination deadline of 18:00 rejects a nomination at 18:30."""
    g = day_two()
    g.do(ScheduleExecutionVote(actor=TRIBUNES[0], city=TOWN, opens_at=when(2, "20:00"),
                               closes_at=when(2, "23:30"), nominations_close_at=when(2, "18:00")),
         2, "12:00")
    g.do(Nominate(actor="carol", candidate="dave"), 2, "17:59")
    g.reject(Nominate(actor="erin", candidate="dave"), when(2, "18:30"), ErrorCode.NOMINATIONS_CLOSED)


def test_the_tribune_announces_the_vote_in_the_first_half_of_the_day():
    """TIME-7 (AMB-30): before the midpoint of 10:00–24:00, i.e. before 17:00."""
    g = day_two()
    plan = dict(city=TOWN, opens_at=when(2, "19:00"), closes_at=when(2, "22:00"))
    g.reject(ScheduleExecutionVote(actor="carol", **plan), when(2, "12:00"), ErrorCode.NOT_TRIBUNE)
    g.reject(ScheduleExecutionVote(actor=TRIBUNES[0], **plan), when(2, "17:00"), ErrorCode.TOO_LATE)
    g.do(ScheduleExecutionVote(actor=TRIBUNES[0], **plan), 2, "16:59")
    assert g.state.deadlines[f"vote_open:{TOWN}:2"] == when(2, "19:00")


def test_the_vote_must_end_by_midnight_moscow():
    """TIME-8: a vote closing after 00:00 is rejected; 00:00 exactly is allowed."""
    g = day_two()
    late = ScheduleExecutionVote(actor=TRIBUNES[0], city=TOWN, opens_at=when(2, "21:00"),
                                 closes_at=when(3, "00:01"))
    g.reject(late, when(2, "12:00"), ErrorCode.SCHEDULE_INVALID)
    g.do(ScheduleExecutionVote(actor=TRIBUNES[0], city=TOWN, opens_at=when(2, "21:00"),
                               closes_at=when(3, "00:00")), 2, "12:00")
    backwards = ScheduleExecutionVote(actor=TRIBUNES[0], city=TOWN, opens_at=when(2, "22:00"),
                                      closes_at=when(2, "21:00"))
    g.reject(backwards, when(2, "12:01"), ErrorCode.SCHEDULE_INVALID)


def test_withdrawing_is_published_as_a_change_of_mind():
    """EX-2, EXEC-7, EXEC-9: four «казнить», one «не казнить» → tally 3, V2 named."""
    g = day_two()
    g.do(Nominate(actor="carol", candidate="dave"), 2, "12:00")
    g.to(2, "20:00")
    for voter in ("erin", "frank", "gina", "hugo"):
        g.vote(voter, "dave", "казнить", 2, "20:10")
    g.vote("frank", "dave", "не казнить", 2, "21:00")
    g.to(2, "23:30")
    (tally,) = closed(g).tallies
    assert tally.votes == 3 and tally.changed_minds == ("frank",)
    assert set(tally.voters) == {"erin", "gina", "hugo"}
    assert not g.alive("dave")  # EXEC-2: the top candidate is executed (no Court here)


def test_withdraw_without_a_vote_and_double_votes_are_rejected():
    """EX-3, EXEC-8: «не казнить» needs an active «казнить»; no second «казнить»."""
    g = day_two()
    g.do(Nominate(actor="carol", candidate="dave"), 2, "12:00")
    g.to(2, "20:00")
    box = g.voting_inbox(TOWN, "dave")
    g.reject(PostMessage(actor="ivan", inbox=box, text="не казнить"), when(2, "20:05"),
             ErrorCode.NO_ACTIVE_VOTE)
    g.vote("erin", "dave", "казнить", 2, "20:06")
    g.reject(PostMessage(actor="erin", inbox=box, text="казнить"), when(2, "20:07"),
             ErrorCode.VOTE_ALREADY_ACTIVE)
    g.vote("erin", "dave", "не казнить", 2, "20:08")
    g.reject(PostMessage(actor="erin", inbox=box, text="не казнить"), when(2, "20:09"),
             ErrorCode.NO_ACTIVE_VOTE)


@pytest.mark.parametrize("text", ["привет", "казнить его!", "против", "не казнить, а помиловать"])
def test_flood_in_a_voting_inbox_is_rejected(text):
    """EXEC-13, INBOX-VOTE-4: only the keywords may be posted."""
    g = day_two()
    g.do(Nominate(actor="carol", candidate="dave"), 2, "12:00")
    g.to(2, "20:00")
    g.reject(PostMessage(actor="erin", inbox=g.voting_inbox(TOWN, "dave"), text=text),
             when(2, "20:05"), ErrorCode.NOT_A_KEYWORD)


@pytest.mark.parametrize("text", ["  КАЗНИТЬ!!! ", "Казнить.", "казнить\u00a0"])
def test_keywords_are_read_as_players_type_them(text):
    """EXEC-5, AMB-43: case, spaces and trailing punctuation do not matter."""
    g = day_two()
    g.do(Nominate(actor="carol", candidate="dave"), 2, "12:00")
    g.to(2, "20:00")
    (cast,) = g.vote("erin", "dave", text, 2, "20:05")
    assert cast.keyword == "казнить"  # the log shows exactly the keyword


def test_a_recast_vote_counts_with_its_new_time():
    """EX-4, EXEC-7, EXEC-10 (AMB-10): V2's vote counts at 21:10."""
    g = day_two()
    g.nominate_all([("carol", "dave"), ("erin", "frank")], 2)
    g.to(2, "20:00")
    g.vote("gina", "dave", "казнить", 2, "20:05")
    g.vote("gina", "dave", "не казнить", 2, "20:30")
    g.vote("gina", "dave", "казнить", 2, "21:10")
    g.vote("hugo", "frank", "казнить", 2, "21:00")
    g.to(2, "23:30")
    result = closed(g)
    dave = next(t for t in result.tallies if t.candidate == "dave")
    assert dave.last_vote_at == when(2, "21:10")
    assert result.condemned == "frank"  # 1–1, frank's last counted vote (21:00) was earlier


def test_a_tie_goes_to_the_candidate_whose_last_vote_came_earlier():
    """EX-5, EXEC-10: 2–2, X's last at 22:41 and Y's at 23:10 → X executed."""
    g = day_two()
    g.nominate_all([("carol", "dave"), ("erin", "frank")], 2)
    g.to(2, "20:00")
    g.vote("gina", "dave", "казнить", 2, "21:00")
    g.vote("hugo", "dave", "казнить", 2, "22:41")
    g.vote("ivan", "frank", "казнить", 2, "20:30")
    g.vote("jane", "frank", "казнить", 2, "23:10")
    g.to(2, "23:30")
    assert closed(g).condemned == "dave" and closed(g).lot == ()
    assert not g.alive("dave") and g.alive("frank")


def test_proxy_votes_count_at_the_opening():
    """EX-6, EXEC-11 (AMB-10): proxies are cast at 20:00 and win against 20:15."""
    g = day_two()
    g.nominate_all([("carol", "dave"), ("erin", "frank")], 2)
    for voter in ("gina", "hugo"):
        g.do(RequestProxyVote(actor=voter, candidates=("dave",)), 2, "15:00")
    g.to(2, "20:00")
    proxies = [e for e in g.events_of(ev.VoteCast) if e.proxy]
    assert {e.voter for e in proxies} == {"gina", "hugo"} and proxies[0].at == when(2, "20:00")
    g.vote("ivan", "frank", "казнить", 2, "20:01")
    g.vote("jane", "frank", "казнить", 2, "20:15")
    g.to(2, "23:30")
    assert closed(g).condemned == "dave"


def test_a_proxy_request_after_the_opening_is_too_late_and_the_voter_may_still_withdraw():
    """EXEC-11 (AMB-10): requests before the opening; the voter may act in person later."""
    g = day_two()
    g.do(Nominate(actor="carol", candidate="dave"), 2, "12:00")
    g.do(RequestProxyVote(actor="gina", candidates=("dave",)), 2, "15:00")
    g.to(2, "20:00")
    g.reject(RequestProxyVote(actor="hugo", candidates=("dave",)), when(2, "20:01"),
             ErrorCode.PROXY_TOO_LATE)
    g.vote("gina", "dave", "не казнить", 2, "20:30")
    g.to(2, "23:30")
    assert closed(g).tallies[0].votes == 0


def test_nobody_nominated_means_nobody_executed_and_the_day_post_says_so():
    """EX-8(a), EXEC-2 (AMB-4): no eligible nominee, no execution."""
    g = day_two()
    g.to(3, "10:00")
    (none,) = g.events_of(ev.NoExecution)
    assert none.reason == "no_candidates" and none.audience.public
    post = next(e for e in g.events_of(ev.DayPostPublished) if e.day == 3)
    assert post.no_execution == (TOWN,) and post.executions == ()


def test_a_zero_zero_tie_is_settled_by_a_logged_lot():
    """EX-8(b), EXEC-10, EXEC-19: nobody votes; a lot picks one, who is executed."""
    g = day_two()
    g.nominate_all([("carol", "dave"), ("erin", "frank")], 2)
    g.to(2, "23:30", seed=12345)
    result = closed(g)
    assert result.lot == ("dave", "frank") and result.lot_seed == 12345
    assert result.condemned in ("dave", "frank") and not g.alive(result.condemned)


def test_the_same_seed_draws_the_same_lot():
    """EXEC-10: the lot is reproducible from its logged seed."""
    picks = set()
    for _ in range(2):
        g = day_two()
        g.nominate_all([("carol", "dave"), ("erin", "frank"), ("gina", "hugo")], 2)
        g.to(2, "23:30", seed=99)
        picks.add(closed(g).condemned)
    assert len(picks) == 1


def test_a_house_rule_of_one_vote_spares_zero_tallies():
    """EXEC-19: min_votes_to_execute = 1 leaves 0-vote candidates out of the ranking."""
    g = day_two(min_votes_to_execute=1)
    g.do(Nominate(actor="carol", candidate="dave"), 2, "12:00")
    g.to(2, "23:30")
    assert closed(g).condemned is None and g.alive("dave")


def test_the_executed_is_announced_with_his_faction_and_banned_in_the_city_inbox():
    """EXEC-17, HOST-PROC-3, INBOX-CITY-1, INBOX-CEM-4."""
    g = day_two()
    g.do(Nominate(actor="carol", candidate="alice"), 2, "12:00")
    g.to(2, "20:00")
    g.vote("carol", "alice", "казнить", 2, "20:05")
    g.to(2, "23:30")
    (died,) = g.events_of(ev.ResidentDied)
    assert (died.user, died.faction, died.cause) == ("alice", "mafia", "execution")
    assert died.audience.public
    assert access(g.state, g.inbox("city", TOWN), "alice", now=g.now) is Access.READ
    assert access(g.state, g.inbox("cemetery", TOWN), "alice", now=g.now) is Access.WRITE
    assert access(g.state, g.inbox("mafia", TOWN), "alice", now=g.now) is Access.WRITE  # INBOX-MAFIA-3


def test_votes_are_open_to_the_city_and_closed_to_everyone_else():
    """EXEC-18 (AMB-36), INBOX-VOTE-1: the candidate may vote in his own inbox."""
    g = Game({"A": "a1 a2 a3 a4 a5", "B": "b1 b2 b3 b4 b5"}, mafia={"A": "a1", "B": "b1"}).start()
    g.to(2, "10:00")
    g.do(Nominate(actor="a2", candidate="a3"), 2, "12:00")
    g.to(2, "20:00")
    (cast,) = g.vote("a3", "a3", "казнить", 2, "20:05")
    assert {"a1", "a2", "a3", "a4", "a5", TRIBUNES[0]} <= cast.audience.users
    assert not {"b1", "b2", TRIBUNES[1]} & cast.audience.users
    g.reject(PostMessage(actor="b2", inbox=g.voting_inbox("A", "a3"), text="казнить"),
             when(2, "20:06"), ErrorCode.UNKNOWN_INBOX)


def test_after_the_close_the_voting_inbox_is_killed_but_its_log_stays_readable():
    """INBOX-GEN-3, INBOX-VOTE-3."""
    g = day_two()
    g.do(Nominate(actor="carol", candidate="dave"), 2, "12:00")
    g.to(2, "20:00")
    box = g.voting_inbox(TOWN, "dave")
    g.to(2, "23:30")
    assert access(g.state, box, "erin", now=g.now) is Access.READ
    g.reject(PostMessage(actor="erin", inbox=box, text="казнить"), when(2, "23:31"),
             ErrorCode.INBOX_CLOSED)


def test_results_are_public_with_the_full_keyword_log():
    """EXEC-14, EXEC-16, POST-2: results go to the city inbox, the Office and the Day Post."""
    g = day_two()
    g.do(Nominate(actor="carol", candidate="dave"), 2, "12:00")
    g.to(2, "20:00")
    g.vote("erin", "dave", "казнить", 2, "20:05")
    g.to(3, "10:00")
    assert closed(g).audience.public
    post = next(e for e in g.events_of(ev.DayPostPublished) if e.day == 3)
    assert [(n.user, n.faction) for n in post.executions] == [("dave", "honest")]


def test_only_the_dead_s_faction_is_public():
    """HOST-PROC-7, SEC-9 (AMB-15): visibility.public_faction gives the dead's faction, no one else's."""
    from lepromafia.engine.visibility import public_faction

    g = day_two()
    g.do(Nominate(actor="carol", candidate="alice"), 2, "12:00")
    g.to(2, "23:30")
    assert public_faction(g.state, "alice") == "mafia"
    assert public_faction(g.state, "bob") is None and public_faction(g.state, "carol") is None
