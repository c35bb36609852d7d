"""Suicide, observers and the Spirit rule (SUICIDE, ROLE-OBS, SPIRIT)."""

from dataclasses import replace

from lepromafia.engine import commands as cmd
from lepromafia.engine import events as ev
from lepromafia.engine.commands import DeclareSuicide, Nominate, RequestObservation, WithdrawSuicide
from lepromafia.engine.errors import ErrorCode
from lepromafia.engine.inboxes import Access, access
from lepromafia.engine.state import DeathCause

from .cast import TRIBUNES, Game, night_time, when

TOWN = "Лепроград"
TEN = "alice bob carol dave erin frank gina hugo ivan jane"


def day_two(**settings):
    g = Game({TOWN: TEN, "Глюкоград": "g1 g2 g3 g4 g5"},
             mafia={TOWN: "alice bob", "Глюкоград": "g1"}, settings=settings).start()
    g.to(2, "10:00")
    return g


def test_a_suicide_takes_effect_when_the_vote_starts():
    """SUICIDE-1, SUICIDE-4, EX-43: declared 15:00, dead at 20:00, nominations of him void."""
    g = day_two()
    g.do(Nominate(actor="carol", candidate="dave"), 2, "12:00")
    g.do(Nominate(actor="dave", candidate="erin"), 2, "12:00")
    (declared,) = g.do(DeclareSuicide(actor="dave"), 2, "15:00")
    assert declared.audience.users == {"dave", TRIBUNES[0]}
    assert g.alive("dave")
    g.to(2, "20:00")
    died = next(e for e in g.events_of(ev.ResidentDied) if e.user == "dave")
    assert (died.cause, died.at, died.audience.public) == ("suicide", when(2, "20:00"), True)
    assert g.events_of(ev.VotingOpened)[0].candidates == ("erin",)  # his own nomination stands
    assert access(g.state, g.voting_inbox(TOWN, "erin"), "dave", now=g.now) is Access.NONE
    assert access(g.state, g.inbox("cemetery", TOWN), "dave", now=g.now) is Access.NONE  # SUICIDE-2
    assert access(g.state, g.inbox("city", TOWN), "dave", now=g.now) is Access.READ


def test_a_suicide_may_be_withdrawn_until_nominations_close():
    """SUICIDE-4 (AMB-25)."""
    g = day_two()
    g.do(DeclareSuicide(actor="dave"), 2, "15:00")
    g.reject(DeclareSuicide(actor="dave"), when(2, "15:01"), ErrorCode.ALREADY_DECLARED)
    g.do(WithdrawSuicide(actor="dave"), 2, "16:00")
    g.reject(WithdrawSuicide(actor="dave"), when(2, "16:01"), ErrorCode.NOT_DECLARED)
    g.do(DeclareSuicide(actor="dave"), 2, "19:59")
    g.to(2, "20:00")
    g.reject(WithdrawSuicide(actor="dave"), when(2, "20:00"), ErrorCode.NOT_ALIVE)
    assert not g.alive("dave")


def test_a_late_suicide_is_rejected():
    """SUICIDE-1: after nominations close it is too late."""
    g = day_two()
    g.to(2, "20:00")
    g.reject(DeclareSuicide(actor="dave"), when(2, "20:01"), ErrorCode.NOMINATIONS_CLOSED)


def test_a_suicide_on_day_one_takes_effect_at_nightfall():
    """SUICIDE-4: a day without an execution vote; the suicide vacates his office."""
    g = Game({TOWN: TEN}, mafia={TOWN: "alice bob"}).start()
    g.do(DeclareSuicide(actor="erin"), 1, "12:00")
    g.to(1, "23:59")
    assert g.alive("erin")
    g.to(2, "00:00")
    died = next(e for e in g.events_of(ev.ResidentDied) if e.user == "erin")
    assert died.at == when(2, "00:00") and died.cause == "suicide"


def test_no_seat_is_ever_transferred():
    """SUICIDE-3: the only way out is suicide; no command hands a seat to another player."""
    names = {name.lower() for name in dir(cmd)}
    assert not any("transfer" in n or "substitut" in n or "replaceplayer" in n for n in names)
    g = day_two()
    g.reject(cmd.WithdrawSignUp(actor="dave"), when(2, "12:00"), ErrorCode.WRONG_STAGE)


def test_an_observer_reads_another_city_s_inbox_only():
    """ROLE-OBS-1, ROLE-OBS-2, ROLE-OBS-3, INBOX-CITY-5, EX-46: read-only, later renewals too, nothing else."""
    g = day_two()
    g.reject(RequestObservation(actor="carol", city=TOWN), when(2, "11:00"), ErrorCode.OBSERVER_INVALID)
    (joined,) = g.do(RequestObservation(actor="carol", city="Глюкоград"), 2, "11:00")
    assert TRIBUNES[1] in joined.audience and "g2" in joined.audience
    g.reject(RequestObservation(actor="carol", city="Глюкоград"), when(2, "11:01"),
             ErrorCode.OBSERVER_INVALID)
    glu = g.inbox("city", "Глюкоград")
    assert access(g.state, glu, "carol", now=g.now) is Access.READ
    g.reject(cmd.PostMessage(actor="carol", inbox=glu, text="Привет"), when(2, "11:02"),
             ErrorCode.INBOX_READ_ONLY)
    g.do(Nominate(actor="g2", candidate="g3"), 2, "12:00")
    g.to(2, "20:00")
    assert access(g.state, g.voting_inbox("Глюкоград", "g3"), "carol", now=g.now) is Access.NONE
    assert access(g.state, g.inbox("cemetery", "Глюкоград"), "carol", now=g.now) is Access.NONE
    g.to(3, "10:00")
    assert access(g.state, g.inbox("city", "Глюкоград"), "carol", now=g.now) is Access.READ  # renewals too


def test_observer_access_ends_with_his_death():
    """ROLE-OBS-3 (AMB-23): observer_access_after_death = false."""
    g = day_two()
    g.do(RequestObservation(actor="carol", city="Глюкоград"), 2, "11:00")
    g.do(Nominate(actor="dave", candidate="carol"), 2, "12:00")
    g.to(2, "23:30")
    assert not g.alive("carol")
    assert access(g.state, g.inbox("city", "Глюкоград"), "carol", now=g.now) is Access.NONE


def parity_morning(g):
    """Лепроград is left with 2 honest (ivan, jane) and 2 mafia (alice, bob) alive; the last
    night victim is 'carol'."""
    s = g.state
    residents = dict(s.residents)
    for user in ("dave", "erin", "frank", "gina", "hugo"):
        residents[user] = replace(residents[user], alive=False, cause=None, died_in="day 3")
    residents["carol"] = replace(residents["carol"], alive=False, cause=DeathCause.NIGHT_KILL,
                                 died_in="night 7", died_at=night_time(7, "10:00"))
    g.table.state = replace(s, residents=residents)


def test_at_parity_last_night_s_honest_victim_is_the_spirit():
    """SPIRIT-1, SPIRIT-2, SPIRIT-3, SPIRIT-5, SPIRIT-6, EX-40: banned in the city inbox, not in the Cemetery, votes."""
    from lepromafia.engine.rules.citizens import spirits_of

    g = day_two()
    parity_morning(g)
    assert spirits_of(g.state, TOWN, 8) == ("carol",)
    assert spirits_of(g.state, TOWN, 9) == ("carol",)  # fallback: the latest night victim


def test_the_spirit_votes_but_neither_nominates_nor_is_nominated():
    """SPIRIT-4, SPIRIT-5, EX-40."""
    g = day_two()
    g.to(3, "09:00")
    parity_morning(g)
    g.to(3, "10:00")
    assert g.state.cities[TOWN].spirits == {"carol"}
    chosen = [e for e in g.events_of(ev.SpiritsChosen) if e.city == TOWN][-1]
    assert chosen.spirits == ("carol",) and chosen.day == 3
    g.reject(Nominate(actor="carol", candidate="jane"), when(3, "12:00"), ErrorCode.NOT_ALIVE)
    g.reject(Nominate(actor="jane", candidate="carol"), when(3, "12:00"),
             ErrorCode.CANDIDATE_NOT_ELIGIBLE)
    g.do(Nominate(actor="jane", candidate="alice"), 3, "12:00")
    g.to(3, "20:00")
    assert access(g.state, g.inbox("city", TOWN), "carol", now=g.now) is Access.READ
    assert access(g.state, g.inbox("cemetery", TOWN), "carol", now=g.now) is Access.NONE
    (cast,) = g.vote("carol", "alice", "казнить", 3, "20:05", city=TOWN)
    assert cast.voter == "carol"


def test_the_spirit_lapses_when_parity_ends_and_moves_to_the_cemetery():
    """SPIRIT-7 (AMB-11), EX-41: per_day spirits are re-evaluated every morning."""
    g = day_two()
    g.to(3, "09:00")
    parity_morning(g)
    g.to(3, "10:00")
    g.do(Nominate(actor="jane", candidate="alice"), 3, "12:00")
    g.to(4, "10:00")  # alice executed: 2 honest, 1 mafia, no parity
    assert g.state.cities[TOWN].spirits == frozenset()
    assert access(g.state, g.inbox("cemetery", TOWN), "carol", now=g.now) is Access.WRITE
