"""The night: Godfather elections, kills, tours and what reaches the Procurator."""

from dataclasses import replace

from lepromafia.engine import events as ev
from lepromafia.engine.commands import (
    AppointGodfather,
    DeclareKill,
    DemandGodfatherReelection,
    PostMessage,
    VoteGodfather,
)
from lepromafia.engine.errors import ErrorCode
from lepromafia.engine.rules.night import decide_target
from lepromafia.engine.state import NO_KILL

from .cast import CONSIGLIERE, PROCURATOR, TRIBUNES, Game, night_time

TOWN = "Лепроград"
TEN = "alice bob carol dave erin frank gina hugo ivan jane"


def first_night(**settings):
    """Лепроград, ten residents; alice and bob are the mafia. Night 1 at 01:00."""
    g = Game({TOWN: TEN}, mafia={TOWN: "alice bob"}, settings=settings).start()
    g.to_night(1, "01:00")
    return g


def second_night(godfather="alice", **settings):
    g = first_night(**settings)
    for m in ("alice", "bob"):
        g.at_night(VoteGodfather(actor=m, candidate=godfather), 1, "01:00")
    g.to_night(2, "01:00")
    return g


def test_night_one_elects_a_godfather_by_plurality():
    """GODFATHER-1, GODFATHER-2 (AMB-16), START-2."""
    g = first_night()
    g.at_night(VoteGodfather(actor="alice", candidate="bob"), 1, "01:00")
    g.at_night(VoteGodfather(actor="bob", candidate="bob"), 1, "01:05")
    g.reject(VoteGodfather(actor="carol", candidate="bob"), night_time(1, "01:06"), ErrorCode.NOT_MAFIOSO)
    g.reject(VoteGodfather(actor="alice", candidate="carol"), night_time(1, "01:06"),
             ErrorCode.GODFATHER_CANDIDATE_INVALID)
    g.to_night(1, "08:00")
    (elected,) = g.events_of(ev.GodfatherElected)
    assert elected.godfather == "bob" and elected.audience.users == {"alice", "bob", CONSIGLIERE}
    assert g.state.cities[TOWN].godfather == "bob"


def test_no_kills_and_no_tours_on_night_one():
    """START-2, MAFIA-KILL-9, TOUR-6."""
    g = first_night()
    g.reject(DeclareKill(actor="alice", target="carol"), night_time(1, "01:10"),
             ErrorCode.NO_KILLS_TONIGHT)


def test_a_tied_election_fails_and_the_consigliere_appoints():
    """GODFATHER-2, GODFATHER-3 (AMB-16)."""
    g = first_night()
    g.at_night(VoteGodfather(actor="alice", candidate="alice"), 1, "01:00")
    g.at_night(VoteGodfather(actor="bob", candidate="bob"), 1, "01:00")
    g.to_night(1, "08:00")
    (failed,) = g.events_of(ev.GodfatherElectionFailed)
    assert failed.tied == ("alice", "bob")
    g.reject(AppointGodfather(actor=PROCURATOR, city=TOWN, godfather="bob"), night_time(1, "08:01"),
             ErrorCode.NOT_CONSIGLIERE)
    g.at_night(AppointGodfather(actor=CONSIGLIERE, city=TOWN, godfather="bob"), 1, "08:01")
    assert g.state.cities[TOWN].godfather == "bob"


def test_the_godfather_decides_the_kill_and_it_takes_effect_at_day_start():
    """MAFIA-KILL-1, MAFIA-KILL-3, MAFIA-KILL-8, SEC-8: the death is published at 10:00 without its killer."""
    g = second_night()
    g.at_night(DeclareKill(actor="alice", target="carol"), 2, "01:00")
    g.at_night(DeclareKill(actor="alice", target="dave"), 2, "02:00")  # replaced before the deadline
    g.to_night(2, "09:59")
    assert g.alive("dave")  # still alive during the night
    fixed = g.events_of(ev.NightDecisionFixed)[0]
    assert (fixed.target, fixed.basis) == ("dave", "godfather")
    g.to(3, "10:00")
    assert not g.alive("dave")
    post = next(e for e in g.events_of(ev.DayPostPublished) if e.day == 3)
    assert [(d.user, d.faction) for d in post.night_deaths] == [("dave", "honest")]
    assert "alice" not in repr(post) and "bob" not in repr(post)


def test_orders_after_the_deadline_are_rejected():
    """MAFIA-KILL-8: decisions are due 2 hours before the day starts (08:00)."""
    g = second_night()
    g.at_night(DeclareKill(actor="alice", target="carol"), 2, "07:59")
    g.to_night(2, "08:00")
    g.reject(DeclareKill(actor="alice", target="dave"), night_time(2, "08:01"), ErrorCode.DECISIONS_CLOSED)
    g.to(3, "10:00")
    assert not g.alive("carol") and g.alive("dave")


def test_the_mafia_may_decline_to_kill():
    """MAFIA-KILL-2."""
    g = second_night()
    g.at_night(DeclareKill(actor="alice", target=NO_KILL), 2, "01:00")
    g.to(3, "10:00")
    assert all(g.alive(u) for u in TEN.split())
    assert g.events_of(ev.NightDecisionFixed)[0].basis == "declined"


def test_a_fellow_mafioso_is_no_target_and_the_rejection_stays_in_the_mafia():
    """MAFIA-KILL-1 (AMB-40), SEC-4: the rejection reaches only the issuing mafioso."""
    g = second_night()
    g.reject(DeclareKill(actor="alice", target="bob"), night_time(2, "01:00"),
             ErrorCode.KILL_TARGET_INVALID)
    g.reject(DeclareKill(actor="carol", target="dave"), night_time(2, "01:00"), ErrorCode.NOT_MAFIOSO)


def test_silence_of_all_living_mafiosi_means_no_kill():
    """MAFIA-KILL-6, EX-32: a dead mafioso's posts do not break the silence."""
    g = second_night()
    g.to(3, "10:00")
    assert g.events_of(ev.NightDecisionFixed)[0].basis == "silence"


def test_without_an_order_a_majority_of_living_mafiosi_decides():
    """MAFIA-KILL-5 default preset: a majority of living mafiosi; a tie kills nobody."""
    g = Game({TOWN: TEN}, mafia={TOWN: "alice bob"}).start()
    g.to_night(1, "01:00")
    g.at_night(VoteGodfather(actor="alice", candidate="alice"), 1, "01:00")
    g.at_night(VoteGodfather(actor="bob", candidate="bob"), 1, "01:00")
    g.to_night(2, "01:00")  # nobody appointed: no Godfather on Night 2
    g.at_night(DeclareKill(actor="alice", target="carol"), 2, "01:00")
    g.at_night(DeclareKill(actor="bob", target="dave"), 2, "01:00")
    assert decide_target(g.state, TOWN, tour=False) == (None, "no_majority")
    g.at_night(DeclareKill(actor="bob", target="carol"), 2, "01:05")
    g.to(3, "10:00")
    assert not g.alive("carol")
    assert g.events_of(ev.NightDecisionFixed)[-1].basis == "majority"


def test_the_procurator_receives_the_decision_without_who_made_it():
    """HOST-CONS-3, MAFIA-KILL-7."""
    g = second_night()
    g.at_night(PostMessage(actor="bob", inbox=g.inbox("mafia", TOWN), text="Давай Кэрол"), 2, "00:30")
    g.at_night(DeclareKill(actor="alice", target="carol"), 2, "01:00")
    g.to_night(2, "08:00")
    (report,) = g.events_of(ev.KillReported)
    assert report.target == "carol" and report.audience.users == {PROCURATOR, CONSIGLIERE}
    assert not hasattr(report, "mafioso")
    fixed = g.events_of(ev.NightDecisionFixed)[0]
    assert PROCURATOR not in fixed.audience and TRIBUNES[0] not in fixed.audience


def test_a_sitting_judge_dies_only_by_unanimous_mafia():
    """MAFIA-KILL-4 (AMB-17), JUDGE-5, EX-31: G orders, M1 confirms, M2 silent → no kill."""
    g = Game({TOWN: TEN + " kim lev mia nick oleg pete quinn"},
             mafia={TOWN: "alice bob carol dave"}).start()
    g.to_night(1, "01:00")
    for m in ("alice", "bob", "carol", "dave"):
        g.at_night(VoteGodfather(actor=m, candidate="alice"), 1, "01:00")
    g.to_night(2, "00:30")
    city = g.state.cities[TOWN]
    g.table.state = replace(g.state, cities={TOWN: replace(city, judge="erin")})  # judge elected
    g.at_night(DeclareKill(actor="alice", target="erin"), 2, "01:00")
    g.at_night(DeclareKill(actor="bob", target="erin"), 2, "01:05")
    g.at_night(DeclareKill(actor="carol", target="erin"), 2, "01:06")
    assert decide_target(g.state, TOWN, tour=False) == (None, "judge_kill_not_unanimous")
    g.at_night(DeclareKill(actor="dave", target="erin"), 2, "01:07")
    assert decide_target(g.state, TOWN, tour=False) == ("erin", "godfather")


def test_tours_rotate_in_recruitment_post_order_skipping_cities_without_mafia():
    """TOUR-1, TOUR-2 (AMB-31), EX-33."""
    cities = {"A": "a1 a2 a3 a4 a5", "B": "b1 b2 b3 b4 b5", "C": "c1 c2 c3 c4 c5"}
    g = Game(cities, mafia={"A": "a1", "B": "b1", "C": "c1"}).start()
    g.to(2, "10:00")
    assert g.state.touring_city == "A"
    g.to(3, "10:00")
    assert g.state.touring_city == "B"
    g.to(4, "10:00")
    assert g.state.touring_city == "C"
    g.to(5, "10:00")
    assert g.state.touring_city == "A"
    announced = g.events_of(ev.TourAnnounced)
    assert all(e.audience.public for e in announced)
    post = next(e for e in g.events_of(ev.DayPostPublished) if e.day == 5)
    assert post.touring_city == "A"


def test_a_touring_mafia_kills_in_another_city_even_a_mafioso():
    """TOUR-3, TOUR-5, EX-34: B's mafioso killed by A's touring mafia is announced as mafia."""
    cities = {"A": "a1 a2 a3 a4 a5 a6 a7 a8 a9 a10", "B": "b1 b2 b3 b4 b5 b6 b7 b8 b9 b10"}
    g = Game(cities, mafia={"A": "a1 a2", "B": "b1 b2"}).start()
    g.to_night(1, "01:00")
    for city in ("A", "B"):
        m1, m2 = f"{city.lower()}1", f"{city.lower()}2"
        for m in (m1, m2):
            g.at_night(VoteGodfather(actor=m, candidate=m1), 1, "01:00")
    g.to_night(2, "01:00")
    assert g.state.touring_city == "A"
    g.reject(DeclareKill(actor="b1", target="a5", tour=True), night_time(2, "01:00"), ErrorCode.NOT_TOURING)
    g.reject(DeclareKill(actor="a1", target="a5", tour=True), night_time(2, "01:00"),
             ErrorCode.TOUR_TARGET_INVALID)
    g.at_night(DeclareKill(actor="a1", target="b2", tour=True), 2, "01:00")
    g.to(3, "10:00")
    died = next(e for e in g.events_of(ev.ResidentDied) if e.user == "b2")
    assert died.faction == "mafia" and died.cause == "night_kill"


def test_a_touring_mafia_may_not_kill_another_city_s_judge():
    """TOUR-4, JUDGE-6."""
    cities = {"A": "a1 a2 a3 a4 a5", "B": "b1 b2 b3 b4 b5"}
    g = Game(cities, mafia={"A": "a1", "B": "b1"}).start()
    g.to_night(1, "01:00")
    g.at_night(VoteGodfather(actor="a1", candidate="a1"), 1, "01:00")
    g.to_night(2, "01:00")
    b = g.state.cities["B"]
    g.table.state = replace(g.state, cities={**g.state.cities, "B": replace(b, judge="b3")})
    g.reject(DeclareKill(actor="a1", target="b3", tour=True), night_time(2, "01:00"),
             ErrorCode.TOUR_TARGET_INVALID)


def test_one_victim_targeted_twice_dies_once():
    """EX-35 (AMB-31): B's mafia and A's touring mafia both pick R; one death, no attribution."""
    cities = {"A": "a1 a2 a3 a4 a5", "B": "b1 b2 b3 b4 b5"}
    g = Game(cities, mafia={"A": "a1", "B": "b1"}).start()
    g.to_night(1, "01:00")
    g.at_night(VoteGodfather(actor="a1", candidate="a1"), 1, "01:00")
    g.at_night(VoteGodfather(actor="b1", candidate="b1"), 1, "01:00")
    g.to_night(2, "01:00")
    g.at_night(DeclareKill(actor="a1", target="b3", tour=True), 2, "01:00")
    g.at_night(DeclareKill(actor="b1", target="b3"), 2, "01:00")
    g.to(3, "10:00")
    deaths = [e for e in g.events_of(ev.ResidentDied) if e.user == "b3"]
    assert len(deaths) == 1
    post = next(e for e in g.events_of(ev.DayPostPublished) if e.day == 3)
    assert [d.user for d in post.night_deaths] == ["b3"]


def test_a_dead_godfather_is_replaced_by_an_election_the_next_night():
    """GODFATHER-5 (AMB-16), EX-45: until then the majority preset decides."""
    g = second_night()
    g.to(3, "10:00")
    from lepromafia.engine.commands import Nominate

    g.do(Nominate(actor="carol", candidate="alice"), 3, "12:00")
    g.to(3, "20:00")
    g.vote("carol", "alice", "казнить", 3, "20:01")
    g.to_night(3, "01:00")
    assert g.state.cities[TOWN].godfather is None
    assert g.state.cities[TOWN].godfather_election_open
    g.at_night(VoteGodfather(actor="bob", candidate="bob"), 3, "01:00")
    g.at_night(DeclareKill(actor="bob", target="dave"), 3, "01:01")  # his voice, not an order yet
    g.to(4, "10:00")
    assert g.state.cities[TOWN].godfather == "bob" and not g.alive("dave")


def test_a_majority_of_living_mafiosi_can_demand_a_reelection():
    """GODFATHER-4 (AMB-16): one demand of two is not a majority; two are."""
    g = second_night()
    g.at_night(DemandGodfatherReelection(actor="bob"), 2, "01:00")
    assert not g.state.cities[TOWN].godfather_election_open
    g.at_night(DemandGodfatherReelection(actor="alice"), 2, "01:01")
    assert g.state.cities[TOWN].godfather_election_open
    g.at_night(VoteGodfather(actor="alice", candidate="bob"), 2, "01:02")
    g.at_night(VoteGodfather(actor="bob", candidate="bob"), 2, "01:02")
    g.to(3, "10:00")
    assert g.state.cities[TOWN].godfather == "bob"
