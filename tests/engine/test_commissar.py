"""Commissar appointment by lot and the night checks (COMM-APPT, COMM, SEC-1, SEC-2, SEC-3, SEC-6)."""

from lepromafia.engine import events as ev
from lepromafia.engine.commands import (
    AnswerCheck,
    AnswerCommissarOffer,
    CheckResident,
    DeclareKill,
    OfferCommissar,
    PostMessage,
    VoteGodfather,
)
from lepromafia.engine.errors import ErrorCode
from lepromafia.engine.inboxes import Access, access, member_list

from .cast import ARBITER, CONSIGLIERE, PROCURATOR, TRIBUNES, Game, night_time, when

TOWN = "Лепроград"
TEN = "alice bob carol dave erin frank gina hugo ivan jane"
# Living residents in list order; draw k picks pool[k % len(pool)].
ORDER = TEN.split()


def day_one():
    g = Game({TOWN: TEN}, mafia={TOWN: "alice bob"}).start()
    return g


def offer(g, draw, hhmm="10:05", day=1):
    (offered,) = [e for e in g.do(OfferCommissar(actor=PROCURATOR, city=TOWN, draw=draw), day, hhmm)
                  if isinstance(e, ev.CommissarOffered)]
    return offered


def test_the_procurator_draws_a_resident_and_only_they_know():
    """COMM-APPT-1 (AMB-21), §9.2: recipients are known to the Procurator and the recipient."""
    g = day_one()
    g.reject(OfferCommissar(actor=TRIBUNES[0], city=TOWN, draw=3), when(1, "10:05"),
             ErrorCode.NOT_PROCURATOR)
    offered = offer(g, draw=2)
    assert offered.candidate == "carol"
    assert offered.audience.users == {PROCURATOR, "carol"}
    box = offered.inbox
    assert access(g.state, box, "carol", now=g.now) is Access.WRITE
    for outsider in (CONSIGLIERE, TRIBUNES[0], ARBITER, "dave"):
        assert access(g.state, box, outsider, now=g.now) is Access.NONE
    g.reject(OfferCommissar(actor=PROCURATOR, city=TOWN, draw=5), when(1, "10:06"),
             ErrorCode.OFFER_NOT_ALLOWED)  # one offer at a time


def test_a_mafioso_can_only_refuse():
    """COMM-APPT-2, SEC-1: the offer to a mafioso has only 'refuse'."""
    g = day_one()
    offer(g, draw=0)  # alice, a mafioso
    g.reject(AnswerCommissarOffer(actor="alice", accept=True), when(1, "10:10"),
             ErrorCode.MAFIOSO_MUST_REFUSE)
    g.do(AnswerCommissarOffer(actor="alice", accept=False), 1, "10:10")


def test_refusals_look_the_same_and_reach_the_procurator_after_the_minimum_window():
    """SEC-1, COMM-APPT-2 (AMB-21): a quick mafioso refusal and a slow honest one look alike."""
    g = day_one()
    offer(g, draw=0, hhmm="10:00")  # alice (mafia) refuses at once
    g.do(AnswerCommissarOffer(actor="alice", accept=False), 1, "10:01")
    assert g.events_of(ev.CommissarOfferResolved) == []  # the Procurator sees nothing yet
    g.to(1, "10:30")
    first = g.events_of(ev.CommissarOfferResolved)[0]
    offer(g, draw=0, hhmm="11:00")  # bob? no: the pool excludes alice, so draw 0 is bob (mafia)
    g.do(AnswerCommissarOffer(actor="bob", accept=False), 1, "11:29")
    g.to(1, "11:30")
    second = g.events_of(ev.CommissarOfferResolved)[1]
    assert (first.accepted, first.lapsed) == (second.accepted, second.lapsed) == (False, False)
    assert first.at - when(1, "10:00") == second.at - when(1, "11:00")


def test_an_honest_acceptance_appoints_the_commissar_with_a_pseudonymous_line():
    """COMM-APPT-5, INBOX-POLICE-1, COMM-1, SEC-6."""
    g = day_one()
    offer(g, draw=2)  # carol
    g.do(AnswerCommissarOffer(actor="carol", accept=True), 1, "10:10")
    assert g.state.cities[TOWN].commissar == "carol"
    police = g.inbox("police")
    assert access(g.state, police, "carol", now=g.now) is Access.WRITE
    assert member_list(g.state, police, "carol") is None  # AMB-21: the list is hidden
    line = g.state.cities[TOWN].commissar_line
    opened = next(e for e in g.events_of(ev.InboxOpened) if e.inbox == line)
    payload = {f: getattr(opened, f) for f in ("inbox", "kind", "city", "subject", "members", "title")}
    assert "carol" not in repr(payload)  # the Consigliere sees no name
    assert opened.audience.users == {"carol", CONSIGLIERE}
    appointed = g.events_of(ev.CommissarAppointed)[0]
    assert appointed.audience.users == {"carol"}


def test_three_refusals_leave_the_city_without_a_commissar_and_only_the_procurator_knows():
    """COMM-APPT-3, EX-21, SEC-2."""
    g = day_one()
    for i, (draw, hhmm) in enumerate([(0, "10:00"), (0, "11:00"), (0, "12:00")]):
        o = offer(g, draw=draw, hhmm=hhmm)
        g.do(AnswerCommissarOffer(actor=o.candidate, accept=False), 1, hhmm[:3] + "05")
        g.to(1, hhmm[:3] + "30")
        assert len(g.events_of(ev.CommissarOfferResolved)) == i + 1
    (failed,) = g.events_of(ev.CommissarAppointmentFailed)
    assert failed.audience.users == {PROCURATOR}
    g.reject(OfferCommissar(actor=PROCURATOR, city=TOWN, draw=1), when(1, "13:00"),
             ErrorCode.OFFER_NOT_ALLOWED)
    # Nothing public differs from a city with a commissar: the night schedule is the same.
    g.to_night(1, "00:30")
    assert {k.split(":")[0] for k in g.state.deadlines} >= {"checks_open", "night_decisions"}


def test_an_unanswered_offer_times_out_as_a_refusal():
    """COMM-APPT-7: 4 hours by default."""
    g = day_one()
    offer(g, draw=3, hhmm="10:00")
    g.to(1, "13:59")
    assert g.events_of(ev.CommissarOfferResolved) == []
    g.to(1, "14:00")
    (resolved,) = g.events_of(ev.CommissarOfferResolved)
    assert resolved.lapsed and not resolved.accepted
    g.reject(AnswerCommissarOffer(actor="dave", accept=True), when(1, "14:01"), ErrorCode.NO_OPEN_OFFER)


def test_an_offer_still_open_at_night_lapses_and_appointments_happen_only_by_day():
    """COMM-APPT-7, AMBUSH-9."""
    g = day_one()
    offer(g, draw=3, hhmm="22:00")
    g.to_night(1, "00:00")
    assert g.events_of(ev.CommissarOfferResolved)[0].lapsed
    g.reject(OfferCommissar(actor=PROCURATOR, city=TOWN, draw=1), night_time(1, "01:00"),
             ErrorCode.WRONG_PHASE)


def commissar_night(target_night=2):
    g = day_one()
    offer(g, draw=2)  # carol accepts
    g.do(AnswerCommissarOffer(actor="carol", accept=True), 1, "10:10")
    g.to_night(1, "01:00")
    for m in ("alice", "bob"):
        g.at_night(VoteGodfather(actor=m, candidate="alice"), 1, "01:00")
    return g


def test_no_checks_on_night_one():
    """START-3, COMM-4: the commissar checks from Night 2."""
    g = commissar_night()
    g.to_night(1, "02:00")
    g.reject(CheckResident(actor="carol", target="alice"), night_time(1, "02:00"),
             ErrorCode.CHECKS_NOT_OPEN)


def test_checks_open_an_hour_into_the_night_everywhere_and_answer_truthfully():
    """COMM-4, SEC-3 (AMB-14): checks open at night start + 60 min; the answer is true."""
    g = commissar_night()
    g.to_night(2, "00:59")
    g.reject(CheckResident(actor="carol", target="alice"), night_time(2, "00:59"),
             ErrorCode.CHECKS_NOT_OPEN)
    g.to_night(2, "01:00")
    (answer,) = [e for e in g.at_night(CheckResident(actor="carol", target="alice"), 2, "01:00")
                 if isinstance(e, ev.CheckAnswered)]
    assert answer.is_mafia and answer.audience.users == {"carol", CONSIGLIERE}
    g.reject(CheckResident(actor="carol", target="dave"), night_time(2, "01:30"),
             ErrorCode.CHECK_ALREADY_USED)  # one check a night


def test_the_check_names_no_commissar_to_the_consigliere():
    """COMM-1, SEC-6: the Consigliere sees city, target and answer only."""
    g = commissar_night()
    g.to_night(2, "01:00")
    g.at_night(CheckResident(actor="carol", target="dave"), 2, "01:00")
    answer = g.events_of(ev.CheckAnswered)[0]
    assert answer.target == "dave" and not answer.is_mafia
    assert all(getattr(answer, f) != "carol" for f in ("city", "target"))


def test_check_targets_are_living_residents_of_the_own_city_and_never_oneself():
    """COMM-4 (derived), SEC-4: no faction-dependent error exists."""
    g = commissar_night()
    g.to_night(2, "01:00")
    for target in ("carol", "nobody"):
        g.reject(CheckResident(actor="carol", target=target), night_time(2, "01:00"),
                 ErrorCode.CHECK_TARGET_INVALID)
    g.reject(CheckResident(actor="dave", target="alice"), night_time(2, "01:00"),
             ErrorCode.NOT_COMMISSAR)


def test_a_missed_check_deadline_loses_the_night_check():
    """COMM-7, EX-22: Day 3 starts at 10:00, so the check must come by 08:00."""
    g = commissar_night()
    g.to_night(2, "07:59")
    g.at_night(CheckResident(actor="carol", target="dave"), 2, "07:59")
    g2 = commissar_night()
    g2.to_night(2, "08:00")
    g2.reject(CheckResident(actor="carol", target="dave"), night_time(2, "08:01"),
              ErrorCode.CHECKS_NOT_OPEN)


def test_a_dead_commissar_leaves_the_police_station_with_no_replacement():
    """INBOX-POLICE-2, COMM-9 (AMB-41), EX-24, SEC-10: killed on Night 3, removed at day start."""
    g = commissar_night()
    g.to_night(3, "01:00")
    g.at_night(DeclareKill(actor="alice", target="carol"), 3, "01:00")
    g.to_night(3, "09:59")
    assert access(g.state, g.inbox("police"), "carol", now=g.now) is Access.WRITE  # not before the Day Post
    g.to(4, "10:00")
    assert access(g.state, g.inbox("police"), "carol", now=g.now) is Access.NONE
    assert g.state.cities[TOWN].commissar is None
    (vacated,) = g.events_of(ev.CommissarVacated)
    assert not vacated.replace and not vacated.ambush and vacated.audience.users == {PROCURATOR}
    g.reject(OfferCommissar(actor=PROCURATOR, city=TOWN, draw=1), when(4, "10:05"),
             ErrorCode.OFFER_NOT_ALLOWED)
    line = next(i for i in g.state.inboxes.values() if i.kind == "line")
    assert access(g.state, line.id, "carol", now=g.now) is Access.READ


def test_the_police_station_is_for_commissars_only():
    """ROLE-COMM-3, COMM-8, INBOX-POLICE-1."""
    g = day_one()
    offer(g, draw=2)
    g.do(AnswerCommissarOffer(actor="carol", accept=True), 1, "10:10")
    g.do(PostMessage(actor="carol", inbox=g.inbox("police"), text="Привет, коллеги"), 1, "11:00")
    g.reject(PostMessage(actor="dave", inbox=g.inbox("police"), text="Я тоже комиссар"),
             when(1, "11:01"), ErrorCode.UNKNOWN_INBOX)


def consigliere_mode_night():
    g = Game({TOWN: TEN}, mafia={TOWN: "alice bob"}, settings={"commissar_check_mode": "consigliere"}).start()
    offer(g, draw=2)
    g.do(AnswerCommissarOffer(actor="carol", accept=True), 1, "10:10")
    g.to_night(2, "01:00")
    return g


def test_in_consigliere_mode_the_consigliere_answers_only_and_truly():
    """COMM-4 (AMB-20): commissar_check_mode = consigliere — a structured answer, the truth."""
    g = consigliere_mode_night()
    (asked,) = [e for e in g.at_night(CheckResident(actor="carol", target="alice"), 2, "01:05")
                if isinstance(e, ev.CheckRequested)]
    assert asked.audience.users == {"carol", CONSIGLIERE} and asked.target == "alice"
    g.reject(AnswerCheck(actor=PROCURATOR, city=TOWN, is_mafia=True), night_time(2, "01:10"),
             ErrorCode.NOT_CONSIGLIERE)
    g.reject(AnswerCheck(actor=CONSIGLIERE, city=TOWN, is_mafia=False), night_time(2, "01:10"),
             ErrorCode.CHECK_ANSWER_UNTRUE)
    (answer,) = g.at_night(AnswerCheck(actor=CONSIGLIERE, city=TOWN, is_mafia=True), 2, "01:11")
    assert answer.is_mafia and answer.audience.users == {"carol", CONSIGLIERE}
    g.reject(AnswerCheck(actor=CONSIGLIERE, city=TOWN, is_mafia=True), night_time(2, "01:12"),
             ErrorCode.NO_PENDING_CHECK)


def test_an_unanswered_check_is_answered_by_the_platform_when_checks_close():
    """COMM-4, COMM-7: the commissar never loses a check he made in time."""
    g = consigliere_mode_night()
    g.at_night(CheckResident(actor="carol", target="dave"), 2, "01:05")
    assert g.events_of(ev.CheckAnswered) == []
    g.to_night(2, "08:00")
    (answer,) = g.events_of(ev.CheckAnswered)
    assert answer.target == "dave" and not answer.is_mafia
