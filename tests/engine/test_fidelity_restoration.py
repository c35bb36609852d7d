"""Rules fidelity II (issue 10): restoration as the original has it (RESTORE-2, -3, -6, -7).

«Мёртвые граждане, т.е. те, кто в момент восстановления казнён или убит, не
восстанавливаются» and «Город начинает действовать на следующий день после восстановления».
"""

from dataclasses import replace

from lepromafia.engine import events as ev
from lepromafia.engine.archive import ArchiveStatus, status
from lepromafia.engine.commands import (
    DeclareKill,
    NameRestorationNumbers,
    Nominate,
    PostMessage,
    ProposeJudge,
    ProposeRestoration,
    SealRestorationList,
    SignRestoration,
    VoteGodfather,
)
from lepromafia.engine.deal import verify
from lepromafia.engine.errors import ErrorCode
from lepromafia.engine.state import DeathCause

from .cast import CONSIGLIERE, PROCURATOR, TRIBUNES, Game, night_time, when

TOWN = "Лепроград"
GLUK = "Глюкоград"
RESIDENTS = " ".join(f"r{i:02d}" for i in range(1, 21))


def restore_at(g, city, tribune, at, new_name="Новоград"):
    g.table.do(ProposeRestoration(actor=PROCURATOR, city=city, new_name=new_name, reason="утечка"), at)
    g.table.do(SignRestoration(actor=CONSIGLIERE, city=city), at)
    g.table.do(SignRestoration(actor=tribune, city=city), at)


def redeal_at(g, city, order, numbers, at):
    g.table.do(SealRestorationList(actor=CONSIGLIERE, city=city, order=tuple(order), salt="r" * 32), at)
    g.table.do(NameRestorationNumbers(actor=PROCURATOR, city=city, numbers=tuple(numbers)), at)


def test_kills_fixed_before_a_night_restoration_are_void_and_the_city_waits_a_day():
    """RESTORE-2, RESTORE-6, RESTORE-7 (D1): the old mafia's kill and a tour kill fixed at
    08:00 do not land after a 09:00 restoration; the city acts from the next calendar day."""
    g = Game({GLUK: "g1 g2 g3 g4 g5", TOWN: RESIDENTS},
             mafia={GLUK: "g1", TOWN: "r01 r02 r03 r04"}).start()
    g.to_night(1, "01:00")
    g.at_night(VoteGodfather(actor="g1", candidate="g1"), 1, "01:00")
    for m in ("r01", "r02", "r03", "r04"):
        g.at_night(VoteGodfather(actor=m, candidate="r01"), 1, "01:00")
    g.to_night(2, "01:00")
    assert g.state.touring_city == GLUK
    g.at_night(DeclareKill(actor="r01", target="r10"), 2, "01:00")
    g.at_night(DeclareKill(actor="g1", target="r11", tour=True), 2, "01:00")
    g.to_night(2, "08:00")
    assert {v for v, _ in g.state.pending_kills} == {"r10", "r11"}
    restore_at(g, TOWN, TRIBUNES[1], night_time(2, "09:00"))
    living = g.state.living(TOWN)
    order = ["r10", "r11", "r12", "r13"] + [u for u in living if u not in ("r10", "r11", "r12", "r13")]
    redeal_at(g, TOWN, order, (1, 2, 3, 4), night_time(2, "09:20"))
    g.to(3, "10:00")
    assert g.alive("r10") and g.alive("r11")
    assert g.state.cities[TOWN].decided is None and g.state.result is None
    # Restored on Day 3's calendar date: Day 3 is still the pause, Day 4 the first day of play.
    g.reject(Nominate(actor="r15", candidate="r16"), when(3, "12:00"), ErrorCode.CITY_RESTORING)
    g.to(4, "10:00")
    assert g.state.cities[TOWN].restoration is None
    g.do(Nominate(actor="r15", candidate="r16"), 4, "12:00")


def two_survivors():
    """Лепроград alone: r10 (honest) killed on Night 2; by Day 3 only r01 (mafioso) and r05
    (honest) remain. The city is restored on Day 3: r05 becomes its one mafioso, r01 honest."""
    g = Game({TOWN: RESIDENTS}, mafia={TOWN: "r01 r02 r03 r04"}).start()
    g.to_night(1, "01:00")
    for m in ("r01", "r02", "r03", "r04"):
        g.at_night(VoteGodfather(actor=m, candidate="r01"), 1, "01:00")
    g.to_night(2, "01:00")
    g.at_night(DeclareKill(actor="r01", target="r10"), 2, "01:00")
    g.to(3, "10:00")
    assert not g.alive("r10")
    residents = dict(g.state.residents)
    for user in RESIDENTS.split():
        if user not in ("r01", "r05", "r10"):
            residents[user] = replace(residents[user], alive=False, cause=DeathCause.EXECUTION,
                                      died_at=when(2, "23:30"), died_in="day 2")
    g.table.state = replace(g.state, residents=residents)
    restore_at(g, TOWN, TRIBUNES[0], when(3, "11:00"))
    redeal_at(g, TOWN, ("r05", "r01"), (1,), when(3, "12:00"))
    return g


def test_a_resident_killed_before_the_restoration_is_never_its_spirit():
    """RESTORE-2, RESTORE-7, SPIRIT-1 (D2): at parity after the restoration, no Spirit comes
    from a death before it."""
    g = two_survivors()
    g.to(4, "10:00")
    assert g.state.cities[TOWN].restoration is None
    assert g.state.cities[TOWN].spirits == frozenset()
    assert not [e for e in g.events_of(ev.SpiritsChosen) if e.spirits]


def test_the_restoration_deal_opens_after_the_game_with_the_factions_before_and_after():
    """RESTORE-3, RANDOM-5, §9.4 (D15): «Процедура распределения … как обычно» — its notary
    opens to everyone, and the reveal shows each resident's faction before and after."""
    g = two_survivors()
    g.to_night(4, "01:00")
    g.at_night(VoteGodfather(actor="r05", candidate="r05"), 4, "01:00")
    g.at_night(DeclareKill(actor="r05", target="r01"), 4, "01:01")
    g.to(5, "10:00")
    (ended,) = g.events_of(ev.GameEnded)
    (restored,) = ended.restorations
    assert restored.city == TOWN and restored.new_name == "Новоград"
    assert restored.order == ("r05", "r01") and restored.mafiosi == ("r05",)
    assert verify({TOWN: restored.order}, restored.salt, restored.commitment)
    before = dict(restored.factions_before)
    assert before["r01"] == "mafia" and before["r05"] == "honest" and before["r10"] == "honest"
    assert dict(ended.factions)["r01"] == "honest" and dict(ended.factions)["r05"] == "mafia"
    notary = next(i for i, box in g.state.inboxes.items() if box.title == "RESTORE-3")
    assert status(g.state, notary, None) is ArchiveStatus.OPEN


FOUR = {c: " ".join(f"{c.lower()}{i}" for i in range(1, 6)) for c in "ABCD"}
FOUR_MAFIA = {c: f"{c.lower()}1" for c in "ABCD"}


def test_a_restoration_during_the_pardon_window_ends_it_with_a_published_outcome():
    """RESTORE-7, COURT-4, EXEC-16 (D21): the condemned is neither executed nor silently
    spared; «no execution (restoration)» is published and the night is not held up."""
    g = Game(FOUR, mafia=FOUR_MAFIA).start()
    for city in "ABCD":
        g.do(ProposeJudge(actor=f"{city.lower()}2", candidate=f"{city.lower()}5"), 1, "11:00")
    g.to(1, "16:00")
    for city in "ABCD":
        box = g.state.current[f"polling:{city}/{city.lower()}5"]
        g.do(PostMessage(actor=f"{city.lower()}3", inbox=box, text="Он — Ганди!"), 1, "16:05")
    g.to(2, "12:00")
    g.do(Nominate(actor="a2", candidate="a3"), 2, "12:00")
    g.to(2, "20:00")
    g.vote("a2", "a3", "казнить", 2, "20:05")
    g.to(2, "23:30")
    assert g.events_of(ev.PardonWindowOpened)
    restore_at(g, "A", TRIBUNES[0], when(2, "23:35"))
    outcome = [e for e in g.events_of(ev.NoExecution) if e.city == "A"]
    assert outcome and outcome[-1].reason == "restoration" and outcome[-1].audience.public
    assert not any(k.startswith("pardon_close:A") for k in g.state.deadlines)
    assert g.alive("a3") and g.state.cities["A"].verdict is None
    g.to_night(2, "01:00")
    assert g.events_of(ev.NightStarted)
