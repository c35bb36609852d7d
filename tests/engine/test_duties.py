"""Each seat's duties, as the engine lists them (issue 9): what a viewer can and must do
now, with the command, its prefilled arguments, the choices and the deadline.

Cast: Лепроград of ten — alice and bob the mafia, carol offered the commissar's badge;
the Procurator, the Consigliere, the Arbiter and the Tribune tanya (``cast.py``).
"""

from __future__ import annotations

from lepromafia.engine.commands import (
    AnswerCommissarOffer,
    CheckResident,
    DeclareKill,
    FormCities,
    Nominate,
    OfferCommissar,
    PostMessage,
    ScheduleExecutionVote,
)
from lepromafia.engine.duties import DutyKind, Seat, duties
from lepromafia.engine.state import NO_KILL

from .cast import ARBITER, CONSIGLIERE, PROCURATOR, TRIBUNES, Game, night_time, when
from .test_commissar import TEN, TOWN, commissar_night, day_one, offer

TANYA = TRIBUNES[0]


def kinds(g, user, at):
    return {d.kind for d in duties(g.state, user, at)}


def test_the_procurator_recruits_then_forms_the_cities():
    """HOST-PROC-1, CITY-3: before cities exist, forming them is the Procurator's duty,
    with the number of sign-ups; nobody else is asked to do it."""
    g = Game({TOWN: TEN}, mafia={TOWN: "alice bob"}).recruit()
    (form,) = [d for d in duties(g.state, PROCURATOR, g.now) if d.kind is DutyKind.FORM_CITIES]
    assert form.seat is Seat.PROCURATOR and form.required and form.command is FormCities
    assert form.arguments["signups"] == 10
    for other in (CONSIGLIERE, ARBITER, "alice"):
        assert DutyKind.FORM_CITIES not in kinds(g, other, g.now)


def test_the_recipient_of_an_offer_must_answer_and_a_mafioso_may_only_refuse():
    """COMM-APPT-1, COMM-APPT-2, SEC-1: the Procurator's offer duty names the city and the
    attempt; carol may accept or refuse by the timeout; no one else is told of it."""
    g = day_one()
    (d,) = [d for d in duties(g.state, PROCURATOR, when(1, "10:05")) if d.kind is DutyKind.OFFER_COMMISSAR]
    assert d.command is OfferCommissar and d.arguments == {"city": TOWN, "attempt": 1}
    offer(g, draw=2)  # carol
    (answer,) = [d for d in duties(g.state, "carol", when(1, "10:06")) if d.kind is DutyKind.ANSWER_OFFER]
    assert answer.command is AnswerCommissarOffer and answer.choices == (True, False)
    assert answer.deadline is not None and answer.deadline > when(1, "10:06")
    for other in ("alice", "dave", TANYA, CONSIGLIERE):
        assert DutyKind.ANSWER_OFFER not in kinds(g, other, when(1, "10:06"))
    g.do(answer.command_for("carol", accept=True), 1, "10:07")
    assert DutyKind.ANSWER_OFFER not in kinds(g, "carol", when(1, "10:08"))


def test_on_day_two_a_resident_may_nominate_then_must_vote_and_the_tribune_may_reschedule():
    """EXEC-3, EXEC-5, TIME-7: in the morning dave may nominate any eligible resident; the
    Tribune may move the vote until midday; at 20:00 dave must vote in each voting inbox,
    «казнить»; once he has, voting is no longer required and his choice is «не казнить»."""
    g = day_one()
    g.to(2, "10:00")
    (nominate,) = [d for d in duties(g.state, "dave", when(2, "10:00")) if d.kind is DutyKind.NOMINATE]
    assert nominate.command is Nominate and "erin" in nominate.choices and not nominate.required
    (schedule,) = [d for d in duties(g.state, TANYA, when(2, "10:00")) if d.kind is DutyKind.SCHEDULE_VOTE]
    assert schedule.command is ScheduleExecutionVote and schedule.arguments["city"] == TOWN
    assert DutyKind.SCHEDULE_VOTE not in kinds(g, TANYA, when(2, "23:00"))  # TIME-7: past midday
    g.do(nominate.command_for("dave", candidate="erin"), 2, "11:00")
    g.to(2, "20:00")
    (vote,) = [d for d in duties(g.state, "dave", when(2, "20:00")) if d.kind is DutyKind.VOTE]
    assert vote.command is PostMessage and vote.required and vote.choices == ("казнить",)
    assert vote.arguments["candidate"] == "erin" and vote.deadline == g.state.cities[TOWN].vote_closes_at
    g.do(vote.command_for("dave", text="казнить"), 2, "20:05")
    (vote,) = [d for d in duties(g.state, "dave", when(2, "20:06")) if d.kind is DutyKind.VOTE]
    assert not vote.required and vote.choices == ("не казнить",)


def test_the_godfather_must_order_the_kill_the_mafioso_may_confirm_and_the_honest_see_nothing():
    """MAFIA-KILL-1, -2, -5, §9: on Night 2 the Godfather alice must order (honest targets
    only, or no kill) by the decision deadline; bob may give his voice; carol the
    commissar must check; honest dave has no night duty at all."""
    g = commissar_night()
    g.to_night(2, "01:00")
    at = night_time(2, "01:00")
    (order,) = [d for d in duties(g.state, "alice", at) if d.kind is DutyKind.ORDER_KILL]
    assert order.seat is Seat.GODFATHER and order.required and order.command is DeclareKill
    assert NO_KILL in order.choices and "bob" not in order.choices and "dave" in order.choices
    assert order.deadline == g.state.deadlines["night_decisions:2"]
    (voice,) = [d for d in duties(g.state, "bob", at) if d.kind is DutyKind.DECLARE_KILL]
    assert voice.seat is Seat.MAFIOSO and not voice.required
    (check,) = [d for d in duties(g.state, "carol", at) if d.kind is DutyKind.CHECK]
    assert check.command is CheckResident and "carol" not in check.choices and check.required
    assert kinds(g, "dave", at) == set()
    for outsider in ("dave", "carol", TANYA, PROCURATOR, ARBITER):
        assert not kinds(g, outsider, at) & {DutyKind.ORDER_KILL, DutyKind.DECLARE_KILL}
    g.at_night(order.command_for("alice", target="dave"), 2, "01:05")
    g.at_night(check.command_for("carol", target="alice"), 2, "01:05")
    assert DutyKind.CHECK not in kinds(g, "carol", night_time(2, "01:06"))  # COMM-4: one a night
