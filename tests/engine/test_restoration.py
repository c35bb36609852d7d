"""Restoring a destroyed city (RESTORE-T2, RESTORE-1, RESTORE-2, RESTORE-3, RESTORE-4, RESTORE-5, RESTORE-6, RESTORE-7, EX-44)."""

from dataclasses import replace

import pytest

from lepromafia.engine import events as ev
from lepromafia.engine.commands import (
    DeclareKill,
    NameRestorationNumbers,
    Nominate,
    ProposeRestoration,
    SealRestorationList,
    SignRestoration,
    VoteGodfather,
)
from lepromafia.engine.deal import verify
from lepromafia.engine.errors import ErrorCode
from lepromafia.engine.inboxes import Access, access

from .cast import CONSIGLIERE, PROCURATOR, TRIBUNES, Game, night_time, when

TOWN = "Лепроград"
RESIDENTS = " ".join(f"r{i:02d}" for i in range(1, 21))


def town(living: int):
    """Лепроград, 20 residents (r01–r04 mafia), of whom `living` are still alive on Day 3."""
    g = Game({TOWN: RESIDENTS, "Глюкоград": "g1 g2 g3 g4 g5"},
             mafia={TOWN: "r01 r02 r03 r04", "Глюкоград": "g1"}).start()
    g.to(3, "10:00")
    residents = dict(g.state.residents)
    for user in [f"r{i:02d}" for i in range(20, 20 - (20 - living), -1)]:
        residents[user] = replace(residents[user], alive=False)
    g.table.state = replace(g.state, residents=residents)
    return g


def restore(g, new_name="Новоград"):
    g.do(ProposeRestoration(actor=PROCURATOR, city=TOWN, new_name=new_name, reason="утечка"), 3, "11:00")
    g.do(SignRestoration(actor=CONSIGLIERE, city=TOWN), 3, "11:05")
    g.do(SignRestoration(actor=TRIBUNES[0], city=TOWN), 3, "11:10")


def redeal(g, numbers):
    living = g.state.living(TOWN)
    order = tuple(reversed(living))
    g.do(SealRestorationList(actor=CONSIGLIERE, city=TOWN, order=order, salt="r" * 32), 3, "12:00")
    g.do(NameRestorationNumbers(actor=PROCURATOR, city=TOWN, numbers=numbers), 3, "12:30")
    return order


def test_three_hosts_sign_and_the_city_gets_a_new_name():
    """RESTORE-T2, RESTORE-1, CITY-8."""
    g = town(13)
    g.reject(ProposeRestoration(actor=PROCURATOR, city=TOWN, new_name="Глюкоград", reason="x"),
             when(3, "11:00"), ErrorCode.CITY_NAME_TAKEN)
    g.do(ProposeRestoration(actor=PROCURATOR, city=TOWN, new_name="Новоград", reason="утечка"), 3, "11:00")
    proposed = g.events_of(ev.RestorationProposed)[0]
    assert proposed.audience.users == {PROCURATOR, CONSIGLIERE, TRIBUNES[0]}
    g.reject(SignRestoration(actor="r05", city=TOWN), when(3, "11:01"), ErrorCode.NOT_A_SIGNER)
    g.do(SignRestoration(actor=CONSIGLIERE, city=TOWN), 3, "11:05")
    assert g.events_of(ev.RestorationBegan) == []
    g.do(SignRestoration(actor=TRIBUNES[0], city=TOWN), 3, "11:10")
    (began,) = g.events_of(ev.RestorationBegan)
    assert began.new_name == "Новоград" and began.audience.public
    assert g.state.cities[TOWN].display_name == "Новоград"


@pytest.mark.parametrize(("living", "mafia", "commissar"), [(13, 3, True), (10, 2, False), (9, 2, False)])
def test_the_new_deal_is_a_fifth_of_the_living_and_a_commissar_only_above_half(living, mafia, commissar):
    """RESTORE-2, RESTORE-3, RESTORE-4, RESTORE-5, RESTORE-6, EX-44."""
    g = town(living)
    restore(g)
    g.reject(NameRestorationNumbers(actor=PROCURATOR, city=TOWN, numbers=(1,)), when(3, "11:30"),
             ErrorCode.DEAL_NOT_SEALED)
    order = redeal(g, tuple(range(1, mafia + 1)))
    sealed = g.events_of(ev.RestorationListSealed)[0]
    assert sealed.mafia_count == mafia and sealed.audience.public
    assert verify({TOWN: order}, "r" * 32, sealed.commitment)
    new_mafia = {u for u in g.state.living(TOWN) if g.state.residents[u].faction.value == "mafia"}
    assert new_mafia == set(order[:mafia])
    assert all(not g.state.residents[u].alive for u in RESIDENTS.split()[living:])  # RESTORE-2
    g.reject(Nominate(actor=order[-1], candidate=order[-2]), when(3, "13:00"), ErrorCode.CITY_RESTORING)
    g.to(4, "10:00")  # RESTORE-6: the next day
    assert g.state.cities[TOWN].restoration is None
    assert g.state.cities[TOWN].appointment_open is commissar
    g.do(Nominate(actor=order[-1], candidate=order[-2]), 4, "12:00")


def test_the_old_mafia_inbox_is_archived_and_a_new_one_opens():
    """RESTORE-7, INBOX-MAFIA-1: the old inbox read-only for all; the new mafiosi only."""
    g = town(13)
    old = g.inbox("mafia", TOWN)
    restore(g)
    assert access(g.state, old, "r01", now=g.now) is Access.READ
    order = redeal(g, (1, 2, 3))
    new = g.inbox("mafia", TOWN)
    assert new != old
    writers = {u for u in g.state.cities[TOWN].residents if access(g.state, new, u, now=g.now) is Access.WRITE}
    assert writers == set(order[:3])  # the old dead or honest mafiosi are not in it


def test_a_restoring_city_has_no_kills_and_no_tours_until_the_next_day():
    """RESTORE-7: no executions, kills, checks or tours during the pause."""
    g = town(13)
    restore(g)
    redeal(g, (1, 2, 3))
    g.to_night(3, "01:00")
    m = next(u for u in g.state.living(TOWN) if g.state.residents[u].faction.value == "mafia")
    g.at_night(VoteGodfather(actor=m, candidate=m), 3, "01:00")  # the Godfather is elected on Night D
    g.reject(DeclareKill(actor=m, target=next(u for u in g.state.living(TOWN)
                                              if g.state.residents[u].faction.value == "honest")),
             night_time(3, "01:01"), ErrorCode.NO_KILLS_TONIGHT)
    assert g.state.touring_city != TOWN
    g.to(4, "10:00")
    assert g.state.cities[TOWN].restoration is None


def test_a_leaker_may_be_expelled_like_a_suicide():
    """AMB-26, RESTORE-T1: recorded like a suicide before the new mafia count."""
    g = town(13)
    g.do(ProposeRestoration(actor=PROCURATOR, city=TOWN, new_name="Новоград", reason="утечка",
                            expelled=("r05",)), 3, "11:00")
    g.do(SignRestoration(actor=CONSIGLIERE, city=TOWN), 3, "11:05")
    g.do(SignRestoration(actor=TRIBUNES[0], city=TOWN), 3, "11:10")
    died = next(e for e in g.events_of(ev.ResidentDied) if e.user == "r05")
    assert died.cause == "suicide" and not g.alive("r05")
