"""The vote record the engine publishes and answers (EXEC-9, EXEC-14, EXEC-18, issue 11 B1).

Cast: four cities A–D of five (x1 the mafioso), judges a5, b5, c5, d5 (a Court sits). On
Day 2 in A, a2 nominates a3 and a3 nominates a4. a2 votes «казнить» for a3 at 20:05, a1 at
20:06, a1 withdraws at 20:10 and votes again at 20:20; a5 votes for a4 at 20:07.
"""

from __future__ import annotations

from lepromafia.engine import events as ev
from lepromafia.engine.commands import PostMessage, RequestProxyVote, VotePardon
from lepromafia.engine.errors import ErrorCode
from lepromafia.engine.inboxes import Kind, live_inbox
from lepromafia.engine.votes import live_count, vote_counts, vote_lines

from .cast import when
from .test_court import judged_day_two


def day_two_in_a():
    g = judged_day_two()
    g.nominate_all([("a2", "a3"), ("a3", "a4")], 2)
    g.to(2, "20:00")
    g.vote("a2", "a3", "казнить", 2, "20:05")
    g.vote("a1", "a3", "казнить", 2, "20:06")
    g.vote("a5", "a4", "казнить", 2, "20:07")
    g.vote("a1", "a3", "не казнить", 2, "20:10")
    g.vote("a1", "a3", "казнить", 2, "20:20")
    return g


def in_a(g):
    return [c for c in vote_counts(g.table.events) if c.city == "A"]


def test_the_open_vote_as_it_stands_with_a_running_tally_per_line():
    """EXEC-18, EXEC-7, EXEC-9: each keyword with the candidate's tally right after it."""
    g = day_two_in_a()
    now = live_count(g.state, "A")
    assert now is not None and now.closed_at is None
    assert [(line.voter, line.candidate, line.keyword, line.tally) for line in now.lines] == [
        ("a2", "a3", "казнить", 1), ("a1", "a3", "казнить", 2), ("a5", "a4", "казнить", 1),
        ("a1", "a3", "не казнить", 1), ("a1", "a3", "казнить", 2)]
    a3 = next(c for c in now.candidates if c.candidate == "a3")
    assert (a3.votes, a3.voters, a3.changed_minds) == (2, ("a2", "a1"), ("a1",))
    assert live_count(g.state, "B") is None, "no vote in B"


def test_the_close_publishes_the_whole_log_to_everyone_in_the_city_and_court_inboxes():
    """EXEC-9 (derived: the full timestamped keyword log is published), EXEC-14 (the city
    inbox and the Court inbox at once), §9.2: during the vote each keyword reaches only the
    voting inbox's members; at the close the count is public."""
    g = day_two_in_a()
    assert all(not e.audience.public for e in g.events_of(ev.VoteCast))
    city_inbox = live_inbox(g.state, Kind.CITY, "A")
    court_inbox = g.state.current_inbox(Kind.COURT.value)
    g.to(2, "23:30")
    (published,) = g.events_of(ev.VoteCountPublished, seen_by="b2")
    assert published.audience.public and published.city == "A" and published.day == 2
    assert published.inboxes == (city_inbox, court_inbox)
    casts = g.events_of(ev.VoteCast)
    assert [(e.voter, e.candidate, e.keyword, e.at) for e in published.log] == [
        (e.voter, e.candidate, e.keyword, e.at) for e in casts]
    assert live_count(g.state, "A") is None, "the vote is closed"


def test_the_count_follows_the_court_pardon_and_the_runner_up_s_execution():
    """EX-1, EXEC-15, COURT-3, COURT-4: a3 is condemned with 2 votes; the window is open
    until 00:00; three judges pardon; a4, the runner-up, is executed."""
    g = day_two_in_a()
    g.to(2, "23:30")
    (count,) = in_a(g)
    assert [(c.candidate, c.votes, c.voters, c.place) for c in count.candidates] == [
        ("a3", 2, ("a2", "a1"), 1), ("a4", 1, ("a5",), 2)]
    assert count.condemned == "a3" and count.lot == () and count.lot_seed is None
    assert count.awaiting_court is not None and count.awaiting_court.closes_at == when(3, "00:00")
    assert not count.final
    for judge in ("a5", "b5", "c5"):
        g.do(VotePardon(actor=judge, city="A", pardon=True), 2, "23:35")
    (count,) = in_a(g)
    assert [s.kind for s in count.outcome] == ["window", "verdict", "executed"]
    assert count.outcome[1].pardoned and count.outcome[1].pardon_votes == 3
    assert count.executed == "a4" and count.final and count.awaiting_court is None


def test_a_day_without_candidates_is_in_the_record_as_no_vote():
    """EXEC-2 (AMB-4): nobody nominated in B on Day 2: nobody is executed, and the record
    says so; a tie at 0 in A is a logged lot (EXEC-10)."""
    g = judged_day_two()
    g.nominate_all([("a2", "a3"), ("a3", "a4")], 2)
    g.to(2, "23:30", seed=7)
    counts = {c.city: c for c in vote_counts(g.table.events)}
    assert counts["B"].no_vote == "no_candidates" and counts["B"].candidates == ()
    assert counts["A"].lot == ("a3", "a4") and counts["A"].lot_seed == 7


def test_an_immune_candidate_counts_zero_on_every_line():
    """MAFIA-DISCLOSE-4: a candidate immune at the close counts 0; his lines carry no tally."""
    lines = vote_lines([ev.VoteEntry(voter="a2", candidate="a1", keyword="казнить", at=when(2, "20:05")),
                        ev.VoteEntry(voter="a3", candidate="a4", keyword="казнить", at=when(2, "20:06"))],
                       immune={"a1"})
    assert [line.tally for line in lines] == [None, 1]


def test_a_proxy_vote_is_logged_at_the_opening_as_a_proxy():
    """EXEC-11, EX-6: a4 asked the Tribune before the vote; his «казнить» for a3 is cast at
    20:00 and the published log marks it as a proxy vote."""
    g = judged_day_two()
    g.nominate_all([("a2", "a3")], 2)
    g.do(RequestProxyVote(actor="a4", candidates=("a3",)), 2, "13:00")
    g.to(2, "23:30")
    (count,) = in_a(g)
    (line,) = count.lines
    assert (line.voter, line.proxy, line.at) == ("a4", True, when(2, "20:00"))


def test_a_refused_withdrawal_leaves_the_log_as_it_was():
    """EXEC-8, EX-3: a4 never voted for a3; his «не казнить» is refused and logs nothing."""
    g = day_two_in_a()
    before = live_count(g.state, "A")
    g.reject(PostMessage(actor="a4", inbox=g.voting_inbox("A", "a3"), text="не казнить"),
             when(2, "20:30"), ErrorCode.NO_ACTIVE_VOTE)
    assert live_count(g.state, "A") == before
