"""Recorded [HOST] decisions: who, when, why, and exactly who may read the record (§9)."""

from datetime import date

from lepromafia.engine import events as ev
from lepromafia.engine import events_host as hev
from lepromafia.engine.commands import AppointHost, CreateGame, OfferCommissar, ScheduleExecutionVote
from lepromafia.engine.commands_host import (
    AcknowledgeCombination,
    DelegateTribune,
    PublishContest,
    RecordContestResults,
    RecordSanction,
    RevokeDelegation,
    SetAmbushOrder,
)
from lepromafia.engine.errors import ErrorCode
from lepromafia.engine.inboxes import Access, access
from lepromafia.engine.records import EXPECTED_GAME_DAYS
from lepromafia.engine.rules.host import digest
from lepromafia.engine.state import Stage

from ..cast import ARBITER, CONSIGLIERE, PROCURATOR, TRIBUNES, Game, when
from .helpers import FIVE, TOWN, decision, execute, town, two_towns

TANYA, TOLYA = TRIBUNES[0], TRIBUNES[1]
OFFICE = {PROCURATOR, TANYA, TOLYA, ARBITER}


# --- HOST-2 ------------------------------------------------------------------------


def test_a_one_city_game_run_by_one_person_records_the_acknowledged_combination():
    """HOST-2 (AMB-27): pavel is Procurator and Consigliere; the record stays in the Bar."""
    g = Game({TOWN: FIVE})
    g.act(CreateGame(actor=PROCURATOR, title="Лепроград", settings=g.settings))
    (appointed,) = [e for e in g.act(AppointHost(actor=PROCURATOR, office="consigliere",
                                                 user=PROCURATOR))
                    if isinstance(e, ev.HostAppointed)]
    assert appointed.warnings  # the warning comes at appointment
    g.reject(AcknowledgeCombination(actor=PROCURATOR, user=PROCURATOR, reason=" "), g.pregame,
             ErrorCode.REASON_REQUIRED)
    g.act(AcknowledgeCombination(actor=PROCURATOR, user=PROCURATOR, reason="one-city game"))
    ack = decision(g, hev.CombinationAcknowledged)
    assert ack.offices == ("procurator", "consigliere")
    assert ack.audience.users == {PROCURATOR} and not ack.audience.public
    g.reject(AcknowledgeCombination(actor=PROCURATOR, user=PROCURATOR, reason="again"), g.pregame,
             ErrorCode.ALREADY_DECIDED)


def test_a_public_combination_is_acknowledged_publicly_and_only_by_the_procurator():
    """HOST-2: the Arbiter doubling as Procurator is public knowledge; nothing secret merges."""
    g = Game({TOWN: FIVE})
    g.act(CreateGame(actor=PROCURATOR, title="Лепроград", settings=g.settings))
    g.act(AppointHost(actor=PROCURATOR, office="arbiter", user=PROCURATOR))
    g.reject(AcknowledgeCombination(actor=ARBITER, user=PROCURATOR, reason="ok"), g.pregame,
             ErrorCode.NOT_PROCURATOR)
    g.reject(AcknowledgeCombination(actor=PROCURATOR, user=CONSIGLIERE, reason="ok"), g.pregame,
             ErrorCode.NO_COMBINATION)
    g.act(AcknowledgeCombination(actor=PROCURATOR, user=PROCURATOR, reason="small game"))
    assert decision(g, hev.CombinationAcknowledged).audience.public


# --- HOST-PROC-5 ---------------------------------------------------------------------


def test_contests_appear_in_the_day_post_and_participation_is_recorded_without_penalty():
    """HOST-PROC-5, POST-2, AMB-42: published publicly; participation recorded, no penalty."""
    g = town()
    g.to(2, "10:00")
    g.reject(PublishContest(actor=TANYA, title="Шарада", text="…"), when(2, "11:00"),
             ErrorCode.NOT_PROCURATOR)
    g.reject(PublishContest(actor=PROCURATOR, title=" ", text="…"), when(2, "11:00"),
             ErrorCode.MESSAGE_EMPTY)
    g.do(PublishContest(actor=PROCURATOR, title="Шарада", text="Мой первый слог…"), 2, "11:00")
    published = decision(g, hev.ContestPublished)
    assert published.audience.public and published.day == 2 and published.host == PROCURATOR
    g.reject(RecordContestResults(actor=PROCURATOR, contest=9, participants=(), results="-"),
             when(2, "18:00"), ErrorCode.UNKNOWN_RECORD)
    g.reject(RecordContestResults(actor=PROCURATOR, contest=1, participants=("zed",), results="-"),
             when(2, "18:00"), ErrorCode.NOT_A_PARTICIPANT)
    g.do(RecordContestResults(actor=PROCURATOR, contest=1, participants=("bob", "carol"),
                              results="bob first", consequences="none"), 2, "18:00")
    results = decision(g, hev.ContestResultsRecorded)
    assert results.audience.public and results.absent == ("alice", "dave", "erin")
    assert all(g.alive(u) for u in results.absent)  # AMB-42: no automatic penalty
    g.reject(RecordContestResults(actor=PROCURATOR, contest=1, participants=(), results="-"),
             when(2, "18:05"), ErrorCode.ALREADY_DECIDED)


# --- HOST-TRIB-2 ---------------------------------------------------------------------


def vote_at(g, actor, day=2):
    return ScheduleExecutionVote(actor=actor, city=TOWN, opens_at=when(day, "19:00"),
                                 closes_at=when(day, "22:00"))


def test_a_tribune_stands_in_for_another_for_voting_operations_only_for_the_period():
    """HOST-TRIB-2 (AMB-27), §9.2: a recorded period; no personal inboxes, no contacts."""
    g = two_towns()
    g.to(2, "10:00")
    g.reject(vote_at(g, TOLYA), when(2, "10:30"), ErrorCode.NOT_TRIBUNE)
    g.do(DelegateTribune(actor=TANYA, city=TOWN, delegate=TOLYA, starts_at=when(2, "11:00"),
                         until=when(2, "13:00"), reason="tanya is flying"), 2, "10:30")
    delegated = decision(g, hev.TribuneDelegated)
    assert delegated.audience.users == OFFICE and delegated.scope == "voting"
    g.reject(vote_at(g, TOLYA), when(2, "10:59"), ErrorCode.NOT_TRIBUNE)  # not yet
    g.do(vote_at(g, TOLYA), 2, "11:00")
    assert g.state.cities[TOWN].vote_opens_at == when(2, "19:00")
    assert access(g.state, g.inbox("personal", "bob"), TOLYA, now=g.now) is Access.NONE
    g.reject(vote_at(g, TOLYA), when(2, "13:00"), ErrorCode.NOT_TRIBUNE)  # over


def test_a_delegation_can_be_revoked_and_bad_ones_are_rejected():
    """HOST-TRIB-2: only the city's Tribune delegates, only to another Tribune, for a period."""
    g = two_towns()
    g.to(2, "10:00")
    period = {"starts_at": when(2, "10:00"), "until": when(2, "16:00")}
    g.reject(DelegateTribune(actor=TOLYA, city=TOWN, delegate=TOLYA, reason="x", **period),
             when(2, "10:30"), ErrorCode.NOT_TRIBUNE)
    g.reject(DelegateTribune(actor=TANYA, city=TOWN, delegate="bob", reason="x", **period),
             when(2, "10:30"), ErrorCode.DELEGATION_INVALID)
    g.reject(DelegateTribune(actor=TANYA, city=TOWN, delegate=TOLYA, reason="x",
                             starts_at=when(2, "16:00"), until=when(2, "10:00")),
             when(2, "10:30"), ErrorCode.DELEGATION_INVALID)
    g.reject(DelegateTribune(actor=TANYA, city=TOWN, delegate=TOLYA, reason="", **period),
             when(2, "10:30"), ErrorCode.REASON_REQUIRED)
    g.do(DelegateTribune(actor=TANYA, city=TOWN, delegate=TOLYA, reason="help", **period), 2, "10:30")
    g.reject(RevokeDelegation(actor="bob", delegation=1, reason="x"), when(2, "11:00"),
             ErrorCode.NOT_TRIBUNE)
    g.do(RevokeDelegation(actor=TANYA, delegation=1, reason="back early"), 2, "11:00")
    assert decision(g, hev.DelegationRevoked).audience.users == OFFICE
    g.reject(vote_at(g, TOLYA), when(2, "11:30"), ErrorCode.NOT_TRIBUNE)
    g.reject(RevokeDelegation(actor=TANYA, delegation=1, reason="x"), when(2, "11:30"),
             ErrorCode.ALREADY_DECIDED)
    g.reject(RevokeDelegation(actor=TANYA, delegation=7, reason="x"), when(2, "11:30"),
             ErrorCode.UNKNOWN_RECORD)


# --- AMBUSH-6 ------------------------------------------------------------------------


def test_the_consigliere_records_the_ambush_order_inside_the_mafia_inbox_audience():
    """AMBUSH-6, §9.2: recorded only; the mafia and the Consigliere read it."""
    g = Game({TOWN: "alice bob carol dave erin frank gina hugo ivan jane"},
             mafia={TOWN: "alice bob"}).start()
    g.to(2, "10:00")
    g.reject(SetAmbushOrder(actor=PROCURATOR, city=TOWN, order=("bob",), reason="x"),
             when(2, "11:00"), ErrorCode.NOT_CONSIGLIERE)
    for order in (("bob", "carol"), ("bob", "bob"), ()):
        g.reject(SetAmbushOrder(actor=CONSIGLIERE, city=TOWN, order=order, reason="x"),
                 when(2, "11:00"), ErrorCode.AMBUSH_ORDER_INVALID)
    g.do(SetAmbushOrder(actor=CONSIGLIERE, city=TOWN, order=("bob", "alice"),
                        reason="bob asked first"), 2, "11:00")
    order = decision(g, hev.AmbushOrderSet)
    assert order.audience.users == {"alice", "bob", CONSIGLIERE}
    assert dict(g.state.records.ambush_orders)[TOWN] == ("bob", "alice")


# --- OMERTA-2, IMPEACH-5, PLAYER-7 ----------------------------------------------------


def test_sanctions_are_recorded_for_a_period_or_for_life_and_kept_between_two():
    """OMERTA-2 (OMERTA-1 broken), IMPEACH-5, PLAYER-7 (AMB-38): the decision is recorded
    for the Procurator and the player; no faction check (HOST-PROC-7)."""
    g = town()
    g.to(2, "10:00")
    g.do(RecordSanction(actor=PROCURATOR, user="alice", rule="OMERTA-2", until=None,
                        reason="named the Consigliere in the city inbox"), 2, "11:00")
    omerta = decision(g, hev.SanctionRecorded)
    assert omerta.until is None and omerta.audience.users == {PROCURATOR, "alice"}
    # An honest resident can be sanctioned too: a rejection would reveal his faction.
    g.do(RecordSanction(actor=PROCURATOR, user="bob", rule="IMPEACH-5", until=date(2027, 12, 1),
                        reason="forged a screenshot"), 2, "11:05")
    assert decision(g, hev.SanctionRecorded).rule == "IMPEACH-5"
    assert [s.user for s in g.state.records.sanctions] == ["alice", "bob"]
    g.reject(RecordSanction(actor=TANYA, user="bob", rule="IMPEACH-5", until=None, reason="x"),
             when(2, "11:10"), ErrorCode.NOT_PROCURATOR)
    g.reject(RecordSanction(actor=PROCURATOR, user="zed", rule="IMPEACH-5", until=None, reason="x"),
             when(2, "11:10"), ErrorCode.NOT_A_PARTICIPANT)
    g.reject(RecordSanction(actor=PROCURATOR, user="bob", rule="EXEC-1", until=None, reason="x"),
             when(2, "11:10"), ErrorCode.SANCTION_INVALID)
    g.reject(RecordSanction(actor=PROCURATOR, user="bob", rule="OMERTA-2", until=date(2026, 12, 2),
                            reason="x"), when(2, "11:10"), ErrorCode.SANCTION_INVALID)  # today


# --- COMM-APPT-6 ---------------------------------------------------------------------


def test_commissar_draws_are_sealed_for_the_procurator_and_open_at_game_end():
    """COMM-APPT-6 (AMB-39), INBOX-NOTARY-2, §9.2, §9.4: each draw and its pool sealed
    (timestamped, hashed) for the Procurator; public at game end, checkable by its digest."""
    g = town()
    g.do(OfferCommissar(actor=PROCURATOR, city=TOWN, draw=7), 1, "10:05")
    sealed = decision(g, hev.RecordSealed)
    content = dict(sealed.content)
    assert sealed.audience.users == {PROCURATOR} and sealed.rule == "COMM-APPT-6"
    pool = content["pool"].split(",")
    assert content["candidate"] == pool[7 % len(pool)] == "carol" and content["draw"] == "7"
    assert sealed.digest == digest(sealed.content)
    assert g.events_of(hev.RecordOpened) == []
    execute(g, "alice")  # the one mafioso is executed: the game ends
    assert g.state.stage is Stage.FINISHED
    (opened,) = g.events_of(hev.RecordOpened)
    assert opened.audience.public and opened.content == sealed.content
    assert opened.digest == digest(opened.content)


# --- TIME-9 -----------------------------------------------------------------------


def test_the_expected_length_is_informational_and_never_stops_a_game():
    """TIME-9: 10–14 calendar days expected; a quiet game still runs on Day 16."""
    assert EXPECTED_GAME_DAYS == (10, 14)
    g = town()
    g.to(16, "10:00")
    assert g.state.day == 16 and g.state.stage is Stage.RUNNING
