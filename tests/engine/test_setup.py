"""Game creation, recruitment, hosts, cities and the certified deal."""

from datetime import date

import pytest

from lepromafia.engine import commands as cmd
from lepromafia.engine import events as ev
from lepromafia.engine.deal import commitment, mafia_count, verify
from lepromafia.engine.errors import ErrorCode, RuleViolation
from lepromafia.engine.settings import GameSettings
from lepromafia.engine.state import Faction, Stage

from .cast import ARBITER, CONSIGLIERE, PROCURATOR, TRIBUNES, Game


@pytest.mark.parametrize(
    "settings",
    [
        {"city_count": 0},
        {"mafia_rounding": "banker"},
        {"population_per_city": "twenty"},
        {"no_such_setting": 1},
        {"day_start_time": "25:00"},
        {"allow_self_nomination": 1},
        {"commissar_offer_timeout_minutes": 5},
    ],
)
def test_malformed_settings_are_rejected_before_a_game_exists(settings):
    """CITY-1, §8: bad settings give INVALID_SETTINGS and no game."""
    g = Game()
    with pytest.raises(RuleViolation) as caught:
        g.act(cmd.CreateGame(actor=PROCURATOR, title="x", settings=settings))
    assert caught.value.code is ErrorCode.INVALID_SETTINGS
    assert g.table.state is None and g.table.events == []


def test_the_creator_is_the_procurator_and_the_office_bar_and_police_station_exist():
    """HOST-PROC-1, START-0: Office, Bar and an empty Police Station come first."""
    g = Game().create()
    assert g.state.procurator == PROCURATOR
    kinds = sorted(i.kind for i in g.state.inboxes.values())
    assert kinds == ["bar", "office", "police"]


def test_signing_up_requires_every_requirement_and_a_voice_contact():
    """PLAYER-1, PLAYER-4: explicit acceptance of PLAYER-2, PLAYER-3, PLAYER-4, PLAYER-5, PLAYER-6 and a contact."""
    g = Game().create()
    g.reject(cmd.SignUp(actor="alice", accepted=frozenset({"active"}), has_contact=True),
             g.pregame, ErrorCode.REQUIREMENTS_NOT_ACCEPTED)
    g.reject(cmd.SignUp(actor="alice", accepted=cmd.REQUIREMENTS, has_contact=False),
             g.pregame, ErrorCode.CONTACT_REQUIRED)
    g.act(cmd.SignUp(actor="alice", accepted=cmd.REQUIREMENTS, has_contact=True))
    g.reject(cmd.SignUp(actor="alice", accepted=cmd.REQUIREMENTS, has_contact=True),
             g.pregame, ErrorCode.ALREADY_SIGNED_UP)  # PLAYER-7: one seat per game
    assert g.state.signups == ("alice",)


def test_a_host_cannot_be_a_resident():
    """HOST-1: hosts never play, and players cannot become hosts."""
    g = Game().create()
    g.reject(cmd.SignUp(actor=CONSIGLIERE, accepted=cmd.REQUIREMENTS, has_contact=True),
             g.pregame, ErrorCode.HOST_CANNOT_PLAY)
    g.act(cmd.SignUp(actor="alice", accepted=cmd.REQUIREMENTS, has_contact=True))
    fresh = Game()
    fresh.act(cmd.CreateGame(actor=PROCURATOR, title="x", settings={"city_count": 1}))
    fresh.act(cmd.SignUp(actor="alice", accepted=cmd.REQUIREMENTS, has_contact=True))
    fresh.reject(cmd.AppointHost(actor=PROCURATOR, office="arbiter", user="alice"), fresh.pregame,
                 ErrorCode.HOST_CANNOT_PLAY)


def test_only_the_procurator_appoints_hosts_and_the_consigliere_stays_secret():
    """HOST-PROC-1, HOST-CONS-5: the appointment is seen by the Procurator and the Consigliere."""
    g = Game()
    g.act(cmd.CreateGame(actor=PROCURATOR, title="x", settings={"city_count": 1}))
    g.reject(cmd.AppointHost(actor="mallory", office="consigliere", user="mallory"), g.pregame,
             ErrorCode.NOT_PROCURATOR)
    g.act(cmd.AppointHost(actor=PROCURATOR, office="consigliere", user=CONSIGLIERE))
    appointed = g.events_of(ev.HostAppointed)[0]
    assert appointed.audience.users == {PROCURATOR, CONSIGLIERE} and not appointed.audience.public
    g.reject(cmd.AppointHost(actor=PROCURATOR, office="consigliere", user="x"), g.pregame,
             ErrorCode.OFFICE_TAKEN)


def test_combining_host_offices_warns_when_the_consigliere_is_involved():
    """HOST-2: a one-city game may put all offices on one person, with a warning."""
    g = Game()
    g.act(cmd.CreateGame(actor=PROCURATOR, title="x", settings={"city_count": 1}))
    g.act(cmd.AppointHost(actor=PROCURATOR, office="consigliere", user=PROCURATOR))
    assert "Consigliere" in g.events_of(ev.HostAppointed)[0].warnings[0]


def test_cities_need_every_player_once_unique_names_and_a_tribune():
    """CITY-3, CITY-8, HOST-TRIB-1, CITY-1."""
    g = Game({"A": "a1 a2 a3 a4 a5", "B": "b1 b2 b3 b4 b5"}).recruit()
    plan = lambda name, tribune, users: cmd.CityPlan(name=name, tribune=tribune,  # noqa: E731
                                                     residents=tuple(users.split()))
    cases = [
        ((plan("A", "t1", "a1 a2 a3 a4 a5"),), ErrorCode.CITY_COUNT_MISMATCH),
        ((plan("A", "t1", "a1 a2 a3 a4 a5"), plan("a", "t2", "b1 b2 b3 b4 b5")),
         ErrorCode.CITY_NAME_TAKEN),
        ((plan("A", "t1", "a1 a2 a3 a4 a5"), plan("B", "t2", "b1 b2 b3 b4 a5")),
         ErrorCode.PLAYER_ASSIGNED_TWICE),
        ((plan("A", "t1", "a1 a2 a3 a4"), plan("B", "t2", "b1 b2 b3 b4 b5")),
         ErrorCode.PLAYER_NOT_ASSIGNED),
        ((plan("A", "", "a1 a2 a3 a4 a5"), plan("B", "t2", "b1 b2 b3 b4 b5")),
         ErrorCode.TRIBUNE_MISSING),
        ((plan("A", "t1", "a1 a2 a3 a4 a5 zed"), plan("B", "t2", "b1 b2 b3 b4 b5")),
         ErrorCode.NOT_SIGNED_UP),
        ((plan("A:1", "t1", "a1 a2 a3 a4 a5"), plan("B", "t2", "b1 b2 b3 b4 b5")),
         ErrorCode.CITY_NAME_INVALID),
    ]
    for cities, code in cases:
        g.reject(cmd.FormCities(actor=PROCURATOR, cities=cities), g.pregame, code)
    g.act(cmd.FormCities(actor=PROCURATOR, cities=(plan("A", "t1", "a1 a2 a3 a4 a5"),
                                                   plan("B", "t2", "b1 b2 b3 b4 b5"))))
    formed = g.events_of(ev.CitiesFormed)[0]
    assert formed.audience.public and [c.residents for c in formed.cities][1] == tuple(
        ["b1", "b2", "b3", "b4", "b5"])  # CITY-3: the lists are published
    assert g.state.stage is Stage.FORMED


@pytest.mark.parametrize(
    ("population", "expected"),
    [(5, 1), (15, 3), (16, 4), (18, 4), (20, 4), (21, 5), (22, 5), (24, 5), (25, 5), (26, 6)],
)
def test_mafia_is_a_fifth_rounded_up(population, expected):
    """CITY-2, EX-44 (AMB-8): 20% rounded up, at least one."""
    assert mafia_count(population) == expected


def test_mafia_rounding_options():
    """CITY-2: mafia_rounding = round_half_up / floor, never below one."""
    assert mafia_count(22, 20, "round_half_up") == 4
    assert mafia_count(23, 20, "round_half_up") == 5
    assert mafia_count(24, 20, "floor") == 4
    assert mafia_count(3, 20, "floor") == 1


def test_the_notary_deal_seals_lists_then_the_procurator_names_numbers():
    """RANDOM-1, RANDOM-2, RANDOM-3, RANDOM-4, RANDOM-5, DIST-1, DIST-2, HOST-CONS-2, EX-36."""
    town = "r01 r02 r03 r04 r05 r06 r07 r08 r09 r10 r11 r12 r13 r14 r15 r16 r17 r18 r19 r20"
    g = Game({"Лепроград": town}).form()
    residents = town.split()
    shuffled = tuple(reversed(residents))
    g.reject(cmd.NameMafiaNumbers(actor=PROCURATOR, city="Лепроград", numbers=(3, 7, 12, 19)),
             g.pregame, ErrorCode.DEAL_NOT_SEALED)
    g.reject(cmd.SealDeal(actor=PROCURATOR, lists=(("Лепроград", shuffled),), salt="s" * 32),
             g.pregame, ErrorCode.NOT_CONSIGLIERE)
    g.reject(cmd.SealDeal(actor=CONSIGLIERE, lists=(("Лепроград", shuffled[:-1]),), salt="s" * 32),
             g.pregame, ErrorCode.DEAL_LIST_INVALID)
    g.act(cmd.SealDeal(actor=CONSIGLIERE, lists=(("Лепроград", shuffled),), salt="s" * 32))
    sealed = g.events_of(ev.DealSealed)[0]
    lists = g.events_of(ev.DealListsRecorded)[0]
    assert sealed.audience.public and lists.audience.users == {CONSIGLIERE}
    assert sealed.commitment == commitment({"Лепроград": shuffled}, "s" * 32)
    g.reject(cmd.SealDeal(actor=CONSIGLIERE, lists=(("Лепроград", shuffled),), salt="s" * 32),
             g.pregame, ErrorCode.DEAL_ALREADY_SEALED)
    for bad in [(3, 7, 12), (3, 3, 7, 12), (0, 7, 12, 19), (3, 7, 12, 21)]:
        g.reject(cmd.NameMafiaNumbers(actor=PROCURATOR, city="Лепроград", numbers=bad), g.pregame,
                 ErrorCode.NUMBERS_INVALID)
    g.act(cmd.NameMafiaNumbers(actor=PROCURATOR, city="Лепроград", numbers=(3, 7, 12, 19)))
    mafia = {u for u, r in g.state.residents.items() if r.faction is Faction.MAFIA}
    assert mafia == {shuffled[2], shuffled[6], shuffled[11], shuffled[18]}
    named = g.events_of(ev.MafiaNumbersNamed)[0]
    assert named.audience.users == {PROCURATOR, CONSIGLIERE}  # RANDOM-4: in the Bar
    assert verify({"Лепроград": shuffled}, "s" * 32, sealed.commitment)
    assert not verify({"Лепроград": tuple(residents)}, "s" * 32, sealed.commitment)
    assert g.state.stage is Stage.DEALT


def test_each_resident_learns_only_his_own_faction():
    """DIST-5, SEC-7, DIST-2: mafiosi see their mafia inbox; the honest get one identical notice."""
    g = Game({"Лепроград": "alice bob carol dave erin"}, mafia={"Лепроград": "alice"}).deal()
    dealt = g.events_of(ev.MafiaDealt)[0]
    assert dealt.audience.users == {"alice", CONSIGLIERE}
    notice = g.events_of(ev.HonestNoticeIssued)[0]
    assert notice.audience.users == {"bob", "carol", "dave", "erin"}
    mafia_inbox = g.inbox("mafia", "Лепроград")
    assert g.state.inboxes[mafia_inbox].kind == "mafia"
    for viewer in ("bob", TRIBUNES[0], PROCURATOR, ARBITER):
        assert viewer not in dealt.audience


def test_mafia_acknowledgement_reaches_the_procurator_without_names():
    """DIST-3: 'all mafia acknowledged' per city, no names."""
    g = Game({"A": "a1 a2 a3 a4 a5 a6 a7 a8 a9 a10"}, mafia={"A": "a1 a2"}).deal()
    g.act(cmd.AcknowledgeRole(actor="a1"))
    assert g.events_of(ev.MafiaAcknowledged) == []
    g.reject(cmd.AcknowledgeRole(actor="a1"), g.pregame, ErrorCode.ALREADY_ACKNOWLEDGED)
    g.act(cmd.AcknowledgeRole(actor="a3"))  # an honest acknowledgement reveals nothing
    g.act(cmd.AcknowledgeRole(actor="a2"))
    (done,) = g.events_of(ev.MafiaAcknowledged)
    assert done.city == "A" and done.audience.users == {PROCURATOR, CONSIGLIERE}


def test_the_game_starts_only_after_the_deal_and_day_one_begins_at_ten_moscow():
    """START-0, TIME-1, TIME-10: Day 1 starts at 10:00 Moscow on the first day."""
    g = Game({"A": "a1 a2 a3 a4 a5"}, mafia={"A": "a1"}).seal()
    g.reject(cmd.StartGame(actor=PROCURATOR, first_day=date(2026, 12, 1)), g.pregame,
             ErrorCode.DEAL_INCOMPLETE)
    g.act(cmd.NameMafiaNumbers(actor=PROCURATOR, city="A", numbers=(1,)))
    g.act(cmd.AcknowledgeRole(actor="a1"))
    g.act(cmd.StartGame(actor=PROCURATOR, first_day=date(2026, 12, 1)))
    due = g.state.deadlines["day_start:1"]
    assert due.isoformat() == "2026-12-01T10:00:00+03:00"


def test_the_game_starts_only_after_every_mafioso_acknowledged_his_role():
    """DIST-3, DIST-4 (D22): «Консильери убеждается в том, что все мафии осознали свою
    криминальную принадлежность и сообщает об этом Прокуратору» — only then the game starts."""
    g = Game({"A": "a1 a2 a3 a4 a5 a6 a7 a8 a9 a10", "B": "b1 b2 b3 b4 b5"},
             mafia={"A": "a1 a2", "B": "b1"}).deal()
    start = cmd.StartGame(actor=PROCURATOR, first_day=date(2026, 12, 1))
    g.reject(start, g.pregame, ErrorCode.MAFIA_NOT_ACKNOWLEDGED)
    g.act(cmd.AcknowledgeRole(actor="a1"))
    g.act(cmd.AcknowledgeRole(actor="b1"))
    g.act(cmd.AcknowledgeRole(actor="a3"))  # honest acknowledgements are not needed
    g.reject(start, g.pregame, ErrorCode.MAFIA_NOT_ACKNOWLEDGED)
    g.act(cmd.AcknowledgeRole(actor="a2"))
    g.act(start)
    assert g.state.stage.value == "running"


def test_settings_report_what_differs_from_the_catalog():
    """§8: non-default settings are shown in the Recruitment Post."""
    s = GameSettings.from_mapping({"city_count": 3, "even_split_result": "draw"})
    assert s.non_default() == {"city_count": 3, "even_split_result": "draw"}
    assert not s.has_court and GameSettings(city_count=4).has_court  # COURT-1
    assert GameSettings(city_count=2, supreme_court_mode="always").has_court
