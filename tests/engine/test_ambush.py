"""Ambush and disclosures (AMBUSH-1, AMBUSH-2, AMBUSH-3, AMBUSH-4, AMBUSH-5, AMBUSH-6, AMBUSH-7, AMBUSH-8, AMBUSH-9, AMBUSH-10, AMBUSH-11, AMBUSH-12, MAFIA-DISCLOSE, COMM-DISCLOSE)."""

from lepromafia.engine import events as ev
from lepromafia.engine.commands import (
    AnswerCommissarOffer,
    CheckResident,
    ConfirmCommissarDisclosure,
    ConfirmMafiosoDisclosure,
    DeclareKill,
    Nominate,
    OfferCommissar,
    PlaceAmbush,
    VoteGodfather,
    WithdrawAmbush,
)
from lepromafia.engine.errors import ErrorCode

from .cast import CONSIGLIERE, PROCURATOR, TRIBUNES, Game, night_time, when

TOWN = "Лепроград"
RESIDENTS = "m1 m2 m3 m4 kim ann ben cat dan eve fay gus hal ida jon kay leo max ned oli"
MAFIA = ("m1", "m2", "m3", "m4")
POOL = [u for u in RESIDENTS.split()]


def draw_for(g, city, user):
    pool = [u for u in g.state.living(city) if u not in g.state.cities[city].offers_made]
    return pool.index(user)


def appoint(g, user, day, hhmm):
    g.do(OfferCommissar(actor=PROCURATOR, city=TOWN, draw=draw_for(g, TOWN, user)), day, hhmm)
    g.do(AnswerCommissarOffer(actor=user, accept=True), day, hhmm[:3] + "10")


def town_with_commissar():
    """Лепроград: 20 residents, m1–m4 the mafia (m1 Godfather), kim the commissar."""
    g = Game({TOWN: RESIDENTS}, mafia={TOWN: " ".join(MAFIA)}).start()
    appoint(g, "kim", 1, "10:00")
    g.to_night(1, "01:00")
    for m in MAFIA:
        g.at_night(VoteGodfather(actor=m, candidate="m1"), 1, "01:00")
    return g


def commissar_killed_on_night_two():
    g = town_with_commissar()
    g.to_night(2, "01:00")
    g.at_night(DeclareKill(actor="m1", target="kim"), 2, "01:00")
    g.to(3, "10:00")
    return g


def test_an_early_commissar_death_brings_a_replacement_and_the_right_of_ambush():
    """AMBUSH-1, AMBUSH-2, AMBUSH-10, EX-28(b): killed on Night 2 → appointed Day 3 → Nights 3 and 4."""
    g = commissar_killed_on_night_two()
    (vacated,) = g.events_of(ev.CommissarVacated)
    assert vacated.replace and vacated.ambush and vacated.audience.users == {PROCURATOR}
    assert g.events_of(ev.AmbushRightGranted) == []  # not before the appointment is decided
    appoint(g, "ann", 3, "11:00")
    (granted,) = g.events_of(ev.AmbushRightGranted)
    assert granted.dead_commissar == "kim" and granted.nights == (3, 4)
    assert granted.audience.users == {*MAFIA, CONSIGLIERE}


def test_an_appointment_on_day_two_gives_one_night():
    """AMBUSH-10, EX-28(a): the commissar executed on Day 2, replaced the same evening."""
    g = town_with_commissar()
    g.to(2, "10:00")
    g.do(Nominate(actor="ann", candidate="kim"), 2, "12:00")
    g.to(2, "23:30")
    assert not g.alive("kim")
    appoint(g, "ben", 2, "23:40")
    assert g.events_of(ev.AmbushRightGranted)[0].nights == (2,)


def test_a_failed_replacement_still_grants_the_right():
    """AMBUSH-12, SEC-2, EX-28(c): three refusals; nights counted from the last refusal."""
    g = commissar_killed_on_night_two()
    for hhmm in ("11:00", "12:00", "13:00"):
        g.do(OfferCommissar(actor=PROCURATOR, city=TOWN, draw=0), 3, hhmm)
        offered = g.events_of(ev.CommissarOffered)[-1]
        g.do(AnswerCommissarOffer(actor=offered.candidate, accept=False), 3, hhmm[:3] + "05")
        g.to(3, hhmm[:3] + "30")
    assert g.events_of(ev.CommissarAppointmentFailed)
    assert g.events_of(ev.AmbushRightGranted)[0].nights == (3, 4)


def test_a_touring_kill_gives_the_right_to_the_victim_s_city():
    """AMBUSH-1 (AMB-14), EX-29."""
    g = Game({"A": "a1 a2 a3 a4 a5", TOWN: RESIDENTS}, mafia={"A": "a1", TOWN: " ".join(MAFIA)}).start()
    appoint(g, "kim", 1, "10:00")
    g.to_night(1, "01:00")
    g.at_night(VoteGodfather(actor="a1", candidate="a1"), 1, "01:00")
    g.to_night(2, "01:00")
    assert g.state.touring_city == "A"
    g.at_night(DeclareKill(actor="a1", target="kim", tour=True), 2, "01:00")
    g.to(3, "10:00")
    assert g.state.cities[TOWN].ambush_pending and not g.state.cities["A"].ambush_pending


def right_on_night_three():
    g = commissar_killed_on_night_two()
    appoint(g, "ann", 3, "11:00")
    return g


def test_up_to_n_minus_one_ambushes_on_distinct_targets_one_per_mafioso():
    """AMBUSH-3, AMBUSH-5, EX-25."""
    g = right_on_night_three()
    g.do(PlaceAmbush(actor="m1", target="ben"), 3, "12:00")
    g.reject(PlaceAmbush(actor="m2", target="ben"), when(3, "12:01"), ErrorCode.AMBUSH_TARGET_TAKEN)
    g.do(PlaceAmbush(actor="m2", target="m3"), 3, "12:02")  # a mafioso may be targeted
    g.do(PlaceAmbush(actor="m3", target="cat"), 3, "12:03")
    g.reject(PlaceAmbush(actor="m4", target="dan"), when(3, "12:04"), ErrorCode.TOO_MANY_AMBUSHES)
    g.do(PlaceAmbush(actor="m1", target="dan"), 3, "12:05")  # changing his own ambush is fine
    g.do(WithdrawAmbush(actor="m3"), 3, "12:06")
    g.do(PlaceAmbush(actor="m4", target="eve"), 3, "12:07")
    g.reject(PlaceAmbush(actor="ben", target="cat"), when(3, "12:08"), ErrorCode.NOT_MAFIOSO)
    g.reject(PlaceAmbush(actor="m1", target="a-stranger"), when(3, "12:08"), ErrorCode.AMBUSH_TARGET_INVALID)


def test_no_ambush_without_the_right_or_after_the_window():
    """AMBUSH-4 (AMB-14): the window closes 60 minutes after night start."""
    g = town_with_commissar()
    g.to(2, "12:00")
    g.reject(PlaceAmbush(actor="m1", target="ben"), when(2, "12:00"), ErrorCode.NO_AMBUSH_RIGHT)
    g2 = right_on_night_three()
    g2.to_night(3, "00:59")
    g2.at_night(PlaceAmbush(actor="m1", target="ben"), 3, "00:59")
    g2.to_night(3, "01:00")
    g2.reject(PlaceAmbush(actor="m2", target="cat"), night_time(3, "01:01"), ErrorCode.NO_AMBUSH_RIGHT)
    (fixed,) = g2.events_of(ev.AmbushesFixed)
    assert fixed.ambushes == (("m1", "ben"),) and fixed.audience.users == {*MAFIA, CONSIGLIERE}


def test_checking_an_ambushed_resident_exposes_the_commissar_to_the_mafia_only():
    """AMBUSH-7, EX-26: he still gets his true answer and is not told."""
    g = right_on_night_three()
    g.do(PlaceAmbush(actor="m2", target="ben"), 3, "12:00")
    g.to_night(3, "01:00")
    events = g.at_night(CheckResident(actor="ann", target="ben"), 3, "01:05")
    answer = next(e for e in events if isinstance(e, ev.CheckAnswered))
    exposed = next(e for e in events if isinstance(e, ev.CommissarExposed))
    assert not answer.is_mafia and exposed.commissar == "ann"
    assert exposed.audience.users == {*MAFIA, CONSIGLIERE} and "ann" not in exposed.audience
    g.at_night(DeclareKill(actor="m1", target="ann"), 3, "01:10")  # the same night
    g.to(4, "10:00")
    assert not g.alive("ann")


def test_an_ambush_on_the_commissar_exposes_and_warns_him():
    """AMBUSH-8, EX-27: both learn it when the window closes."""
    g = right_on_night_three()
    g.do(PlaceAmbush(actor="m3", target="ann"), 3, "12:00")
    g.to_night(3, "00:59")
    assert g.events_of(ev.CommissarExposed) == []
    g.to_night(3, "01:00")
    (exposed,) = g.events_of(ev.CommissarExposed)
    (warned,) = g.events_of(ev.CommissarWarned)
    assert exposed.how == "ambushed" and warned.audience.users == {"ann"}


def test_no_judge_kill_on_an_ambush_night():
    """AMBUSH-11, JUDGE-5, EX-30: with an ambush placed the judge-kill order is rejected."""
    from dataclasses import replace

    g = right_on_night_three()
    g.table.state = replace(g.state, cities={TOWN: replace(g.state.cities[TOWN], judge="gus")})
    g.do(PlaceAmbush(actor="m2", target="ben"), 3, "12:00")
    g.to_night(3, "00:30")
    g.reject(DeclareKill(actor="m1", target="gus"), night_time(3, "00:30"), ErrorCode.JUDGE_KILL_AFTER_AMBUSH)
    g2 = right_on_night_three()
    g2.table.state = replace(g2.state, cities={TOWN: replace(g2.state.cities[TOWN], judge="gus")})
    g2.to_night(3, "00:30")
    g2.at_night(DeclareKill(actor="m1", target="gus"), 3, "00:30")  # holding the right is no bar
    g2.reject(PlaceAmbush(actor="m2", target="ben"), night_time(3, "00:31"),
              ErrorCode.AMBUSH_BLOCKED_BY_JUDGE_KILL)


def test_a_confirmed_disclosure_makes_the_mafioso_immune_for_the_day():
    """MAFIA-DISCLOSE-1, MAFIA-DISCLOSE-2, MAFIA-DISCLOSE-3, MAFIA-DISCLOSE-4, EX-9: the
    Procurator's confirmation is recorded publicly with its reason; no nomination that day."""
    g = town_with_commissar()
    g.to(2, "10:00")
    g.reject(ConfirmMafiosoDisclosure(actor=TRIBUNES[0], user="m2", reason="x"), when(2, "12:00"),
             ErrorCode.NOT_PROCURATOR)
    (disclosed,) = g.do(ConfirmMafiosoDisclosure(actor=PROCURATOR, user="m2", reason="публично"), 2, "12:00")
    assert disclosed.immunity_day == 2 and disclosed.audience.public
    g.reject(Nominate(actor="ben", candidate="m2"), when(2, "12:01"), ErrorCode.CANDIDATE_NOT_ELIGIBLE)
    g.to(3, "10:00")
    g.do(Nominate(actor="ben", candidate="m2"), 3, "12:00")  # from the next day he is ordinary


def test_immunity_during_the_vote_zeroes_the_tally_and_after_the_close_it_is_tomorrow():
    """MAFIA-DISCLOSE-4 (AMB-19), EX-9, EXEC-19."""
    g = town_with_commissar()
    g.to(2, "10:00")
    g.nominate_all([("ben", "m2"), ("cat", "dan")], 2)
    g.to(2, "20:00")
    for voter in ("eve", "fay", "gus"):
        g.vote(voter, "m2", "казнить", 2, "20:10")
    g.do(ConfirmMafiosoDisclosure(actor=PROCURATOR, user="m2", reason="публично"), 2, "21:00")
    g.to(2, "23:30")
    closed = g.events_of(ev.VotingClosed)[-1]
    assert closed.condemned == "dan" and "m2" not in closed.ranking
    assert next(t for t in closed.tallies if t.candidate == "m2").votes == 0
    (late,) = g.do(ConfirmMafiosoDisclosure(actor=PROCURATOR, user="m3", reason="x"), 3, "00:10")
    assert late.immunity_day == 3


def test_a_disclosed_commissar_is_replaced_only_above_half_the_initial_population():
    """COMM-DISCLOSE-1, COMM-DISCLOSE-2, COMM-DISCLOSE-3, COMM-DISCLOSE-4 (AMB-18), EX-23: the
    confirmation is recorded with its reason for the Procurator and the commissar; 20 of 20
    alive → replaced; no ambush right."""
    g = town_with_commissar()
    g.to(2, "10:00")
    g.reject(ConfirmCommissarDisclosure(actor=PROCURATOR, city=TOWN, reason=" "), when(2, "11:00"),
             ErrorCode.REASON_REQUIRED)
    g.do(ConfirmCommissarDisclosure(actor=PROCURATOR, city=TOWN, reason="раскрыт в посте"), 2, "11:00")
    assert g.state.cities[TOWN].commissar is None
    vacated = g.events_of(ev.CommissarVacated)[-1]
    assert vacated.replace and not vacated.ambush
    disclosed = g.events_of(ev.CommissarDisclosed)[0]
    assert disclosed.audience.users == {PROCURATOR, "kim"}
    appoint(g, "ben", 2, "12:00")
    assert g.state.cities[TOWN].commissar == "ben" and g.events_of(ev.AmbushRightGranted) == []


def test_at_half_the_population_no_replacement():
    """COMM-DISCLOSE-1, EX-23: 10 of 20 living is not more than 50%."""
    from dataclasses import replace

    g = town_with_commissar()
    g.to(2, "10:00")
    residents = dict(g.state.residents)
    for user in ("ben", "cat", "dan", "eve", "fay", "gus", "hal", "ida", "jon", "kay"):
        residents[user] = replace(residents[user], alive=False)
    g.table.state = replace(g.state, residents=residents)
    g.do(ConfirmCommissarDisclosure(actor=PROCURATOR, city=TOWN, reason="x"), 2, "11:00")
    assert not g.events_of(ev.CommissarVacated)[-1].replace
