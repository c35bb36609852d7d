"""Rules fidelity II (issue 10): the mafia's night as the original rulebook has it.

GODFATHER-2..5 (D3, D4, D23), TOUR-2 (D5), AMBUSH-6 (D9), COMM-4 (D12).
"""

from lepromafia.engine import events as ev
from lepromafia.engine import events_host as hev
from lepromafia.engine.commands import (
    AnswerCommissarOffer,
    AppointGodfather,
    CheckResident,
    ConfirmCommissarDisclosure,
    DeclareKill,
    DeclareSuicide,
    DemandGodfatherReelection,
    OfferCommissar,
    PlaceAmbush,
    VoteGodfather,
)
from lepromafia.engine.commands_host import (
    SetAmbushOrder,
    SetGodfatherElectionRule,
    SetSilentGodfatherProcedure,
)
from lepromafia.engine.errors import ErrorCode

from .cast import CONSIGLIERE, PROCURATOR, Game, night_time, when

TOWN = "Лепроград"
ELEVEN = "alice bob carol dave erin frank gina hugo ivan jane kate"


def three_mafiosi():
    """Лепроград of eleven: alice, bob and carol are the mafia; alice is elected on Night 1."""
    g = Game({TOWN: ELEVEN}, mafia={TOWN: "alice bob carol"}).start()
    g.to_night(1, "01:00")
    for m in ("alice", "bob", "carol"):
        g.at_night(VoteGodfather(actor=m, candidate="alice"), 1, "01:00")
    g.to_night(2, "01:00")
    return g


def test_on_a_reelection_night_the_new_godfather_s_word_is_final():
    """GODFATHER-4, GODFATHER-1 (D3): «его мнение — окончательно»; alice's order dies with her office."""
    g = three_mafiosi()
    g.at_night(DeclareKill(actor="alice", target="dave"), 2, "01:00")
    g.at_night(DemandGodfatherReelection(actor="bob"), 2, "01:10")
    g.at_night(DemandGodfatherReelection(actor="carol"), 2, "01:11")
    assert g.state.cities[TOWN].godfather_election_open
    g.at_night(VoteGodfather(actor="bob", candidate="bob"), 2, "01:20")
    g.at_night(VoteGodfather(actor="carol", candidate="bob"), 2, "01:21")
    g.at_night(DeclareKill(actor="bob", target="erin"), 2, "01:30")
    g.to(3, "10:00")
    assert g.state.cities[TOWN].godfather == "bob"
    assert not g.alive("erin") and g.alive("dave")


def test_a_reelected_godfather_keeps_his_order():
    """GODFATHER-4 (D3): re-elected, alice's earlier order stands."""
    g = three_mafiosi()
    g.at_night(DeclareKill(actor="alice", target="dave"), 2, "01:00")
    g.at_night(DemandGodfatherReelection(actor="bob"), 2, "01:10")
    g.at_night(DemandGodfatherReelection(actor="carol"), 2, "01:11")
    for m in ("alice", "bob"):
        g.at_night(VoteGodfather(actor=m, candidate="alice"), 2, "01:20")
    g.at_night(DeclareKill(actor="bob", target="erin"), 2, "01:30")
    g.to(3, "10:00")
    assert not g.alive("dave") and g.alive("erin")


def test_the_consigliere_appoints_only_after_a_failed_election():
    """GODFATHER-3 (D4): «Если выборы не удались, консильери может назначить Крёстного отца сам»."""
    g = Game({TOWN: ELEVEN}, mafia={TOWN: "alice bob carol"}).start()
    g.reject(AppointGodfather(actor=CONSIGLIERE, city=TOWN, godfather="bob"), when(1, "12:00"),
             ErrorCode.NO_GODFATHER_ELECTION)  # Day 1: no election has been held yet
    g.to_night(1, "01:00")
    g.at_night(VoteGodfather(actor="alice", candidate="alice"), 1, "01:00")
    g.at_night(VoteGodfather(actor="bob", candidate="bob"), 1, "01:00")
    g.to_night(1, "08:00")  # a tie: the election failed
    g.do(AppointGodfather(actor=CONSIGLIERE, city=TOWN, godfather="bob"), 2, "11:00")
    assert g.state.cities[TOWN].godfather == "bob"


def test_after_the_godfather_s_execution_the_mafia_elects_before_any_appointment():
    """GODFATHER-5, GODFATHER-3 (D4): «Убийство Крёстного отца влечёт избрание нового»."""
    g = three_mafiosi()
    g.to(3, "12:00")
    g.do(DeclareSuicide(actor="alice"), 3, "12:00")
    g.to(3, "20:30")
    assert not g.alive("alice") and g.state.cities[TOWN].godfather is None
    g.reject(AppointGodfather(actor=CONSIGLIERE, city=TOWN, godfather="bob"), when(3, "21:00"),
             ErrorCode.NO_GODFATHER_ELECTION)
    g.to_night(3, "01:00")
    assert g.state.cities[TOWN].godfather_election_open


def test_the_consigliere_sets_the_election_rule_a_majority_of_the_living():
    """GODFATHER-2 (D23): «по правилам, которые он устанавливает» — plurality unless he says otherwise."""
    g = Game({TOWN: ELEVEN}, mafia={TOWN: "alice bob carol"}).start()
    g.reject(SetGodfatherElectionRule(actor=PROCURATOR, city=TOWN, rule="majority", reason="x"),
             when(1, "12:00"), ErrorCode.NOT_CONSIGLIERE)
    g.reject(SetGodfatherElectionRule(actor=CONSIGLIERE, city=TOWN, rule="dice", reason="x"),
             when(1, "12:00"), ErrorCode.DECISION_INVALID)
    g.do(SetGodfatherElectionRule(actor=CONSIGLIERE, city=TOWN, rule="majority", reason="порядок"), 1, "12:00")
    recorded = g.events_of(hev.GodfatherElectionRuleSet)[-1]
    assert recorded.audience.users == {"alice", "bob", "carol", CONSIGLIERE}
    g.to_night(1, "01:00")
    g.at_night(VoteGodfather(actor="alice", candidate="alice"), 1, "01:00")  # 1 of 3: a plurality only
    g.to_night(1, "08:00")
    assert g.state.cities[TOWN].godfather is None
    assert g.events_of(ev.GodfatherElectionFailed)


def test_the_consigliere_sets_the_procedure_when_the_godfather_is_silent():
    """MAFIA-KILL-5 (D23): «порядок принятия решения определяется Консильери» — here a plurality."""
    g = three_mafiosi()
    g.at_night(SetSilentGodfatherProcedure(actor=CONSIGLIERE, city=TOWN, procedure="plurality",
                                           reason="большинство голосов"), 2, "01:00")
    g.at_night(DeclareKill(actor="bob", target="dave"), 2, "01:10")  # alice stays silent
    g.to(3, "10:00")
    assert not g.alive("dave")  # 1 voice of 3: no majority, but the plurality the Consigliere set


def test_with_the_default_procedure_one_voice_of_three_kills_nobody():
    """MAFIA-KILL-5 default preset (D23): a majority of the living mafiosi."""
    g = three_mafiosi()
    g.at_night(DeclareKill(actor="bob", target="dave"), 2, "01:10")
    g.to(3, "10:00")
    assert g.alive("dave")


def test_when_the_touring_city_is_decided_by_day_the_tour_moves_on_that_night():
    """TOUR-2 (D5): cities without living mafia are skipped, also when it happens by day."""
    cities = {"A": "a1 a2 a3 a4 a5", "B": "b1 b2 b3 b4 b5", "C": "c1 c2 c3 c4 c5"}
    g = Game(cities, mafia={"A": "a1", "B": "b1", "C": "c1"}).start()
    g.to_night(1, "01:00")
    g.at_night(VoteGodfather(actor="b1", candidate="b1"), 1, "01:00")
    g.to(2, "10:00")
    assert g.state.touring_city == "A"
    g.do(DeclareSuicide(actor="a1"), 2, "12:00")  # A's last mafioso: A is decided by day
    g.to_night(2, "01:00")
    assert g.state.cities["A"].decided is not None
    assert g.state.touring_city == "B"
    g.at_night(DeclareKill(actor="b1", target="c3", tour=True), 2, "01:00")
    g.to(3, "10:00")
    assert not g.alive("c3")
    assert g.state.touring_city == "C"  # the rotation continues after B


# --- AMBUSH-6 -------------------------------------------------------------------------

AMBUSH_TOWN = "m1 m2 m3 m4 kim ann ben cat dan eve fay gus hal ida jon kay leo max ned oli"
MAFIA = ("m1", "m2", "m3", "m4")


def _draw(g, user):
    pool = [u for u in g.state.living(TOWN) if u not in g.state.cities[TOWN].offers_made]
    return pool.index(user)


def _appoint(g, user, day, hhmm):
    g.do(OfferCommissar(actor=PROCURATOR, city=TOWN, draw=_draw(g, user)), day, hhmm)
    g.do(AnswerCommissarOffer(actor=user, accept=True), day, hhmm[:3] + "10")


def ambush_right_night_three():
    g = Game({TOWN: AMBUSH_TOWN}, mafia={TOWN: " ".join(MAFIA)}).start()
    _appoint(g, "kim", 1, "10:00")
    g.to_night(1, "01:00")
    for m in MAFIA:
        g.at_night(VoteGodfather(actor=m, candidate="m1"), 1, "01:00")
    g.to_night(2, "01:00")
    g.at_night(DeclareKill(actor="m1", target="kim"), 2, "01:00")
    g.to(3, "10:00")
    _appoint(g, "ann", 3, "11:00")
    return g


def test_the_consigliere_s_order_decides_which_ambushes_stand():
    """AMBUSH-6, AMBUSH-3 (D9): «Порядок расставления засад определяет Консильери»."""
    g = ambush_right_night_three()
    g.do(SetAmbushOrder(actor=CONSIGLIERE, city=TOWN, order=("m4", "m3", "m2", "m1"), reason="так"),
         3, "11:30")
    g.do(PlaceAmbush(actor="m1", target="ben"), 3, "12:00")
    g.do(PlaceAmbush(actor="m2", target="cat"), 3, "12:01")
    g.do(PlaceAmbush(actor="m3", target="dan"), 3, "12:02")
    g.do(PlaceAmbush(actor="m4", target="ann"), 3, "12:03")  # first in the order: not too many
    g.to_night(3, "01:00")
    (fixed,) = g.events_of(ev.AmbushesFixed)
    assert {m for m, _ in fixed.ambushes} == {"m4", "m3", "m2"}
    assert [e for e in g.events_of(ev.CommissarExposed) if e.how == "ambushed"]


def test_without_an_order_the_earlier_ambushes_stand():
    """AMBUSH-3, AMBUSH-6 default: placement order when the Consigliere set none."""
    g = ambush_right_night_three()
    g.do(PlaceAmbush(actor="m1", target="ben"), 3, "12:00")
    g.do(PlaceAmbush(actor="m2", target="cat"), 3, "12:01")
    g.do(PlaceAmbush(actor="m3", target="dan"), 3, "12:02")
    g.reject(PlaceAmbush(actor="m4", target="ann"), when(3, "12:03"), ErrorCode.TOO_MANY_AMBUSHES)


# --- COMM-4 ---------------------------------------------------------------------------

TEN = "alice bob carol dave erin frank gina hugo ivan jane"


def test_a_disclosed_commissar_still_gets_the_answer_to_his_check():
    """COMM-4 (D12): «вправе задать … вопрос … и получить на него достоверный ответ от Консильери»."""
    g = Game({TOWN: TEN}, mafia={TOWN: "alice bob"}, settings={"commissar_check_mode": "consigliere"}).start()
    g.do(OfferCommissar(actor=PROCURATOR, city=TOWN, draw=2), 1, "10:05")
    g.do(AnswerCommissarOffer(actor="carol", accept=True), 1, "10:10")
    g.to_night(2, "01:05")
    g.at_night(CheckResident(actor="carol", target="alice"), 2, "01:05")
    g.at_night(ConfirmCommissarDisclosure(actor=PROCURATOR, city=TOWN, reason="разглашение"), 2, "02:00")
    assert g.state.cities[TOWN].commissar is None
    g.to_night(2, "08:00")
    (answer,) = g.events_of(ev.CheckAnswered)
    assert answer.audience.users == {"carol", CONSIGLIERE} and answer.is_mafia
    assert night_time(2, "08:00") == answer.at
