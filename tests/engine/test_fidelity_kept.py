"""The two deviations the rules review found that issue 10 keeps as documented decisions
(docs/decisions.md), pinned so that changing them is a visible choice, not an accident.

- D6 (MAFIA-DISCLOSE-1, MAFIA-DISCLOSE-3, HOST-PROC-7): immunity follows the Procurator's
  confirmation whatever the resident's true faction — refusing it would tell everyone a faction.
- D10b (JUDGE-ELECT-2, JUDGE-4): no judge "from the dock" — a candidate of the city's open
  execution vote may not stand for judge, since his election would void that vote.

Cast: Лепроград (alice the mafioso, bob carol dave erin honest; tanya its Tribune) for D6;
four cities A–D of five (x1 each city's mafioso) for D10b.
"""

from lepromafia.engine import events as ev
from lepromafia.engine.commands import (
    ConfirmMafiosoDisclosure,
    Nominate,
    ProposeJudge,
    ScheduleJudgeElection,
)
from lepromafia.engine.errors import ErrorCode

from .cast import ARBITER, PROCURATOR, Game, when

TOWN = "Лепроград"
FOUR = {c: " ".join(f"{c.lower()}{i}" for i in range(1, 6)) for c in "ABCD"}


def test_an_honest_resident_confirmed_as_disclosed_is_immune_that_day_D6_MAFIA_DISCLOSE_1():
    """D6, MAFIA-DISCLOSE-1, MAFIA-DISCLOSE-3: bob is honest; the Procurator confirms a
    disclosure of him as a mafioso; nobody may nominate him that day; the next day he may be."""
    g = Game({TOWN: "alice bob carol dave erin"}, mafia={TOWN: "alice"}).start()
    g.to(2, "10:00")
    assert not g.state.is_mafia("bob")
    (disclosed,) = g.do(ConfirmMafiosoDisclosure(actor=PROCURATOR, user="bob", reason="назван в посте"),
                        2, "11:00")
    assert disclosed.immunity_day == 2 and disclosed.audience.public
    assert "faction" not in {f for f in ev.MafiosoDisclosed.__dataclass_fields__}
    g.reject(Nominate(actor="carol", candidate="bob"), when(2, "12:00"), ErrorCode.CANDIDATE_NOT_ELIGIBLE)
    g.to(3, "10:00")
    g.do(Nominate(actor="carol", candidate="bob"), 3, "12:00")


def test_a_candidate_of_the_open_execution_vote_cannot_stand_for_judge_D10b_JUDGE_ELECT_2():
    """D10b, JUDGE-ELECT-2, JUDGE-4: A elects no judge on Day 1; on Day 2 the Arbiter
    schedules a new election for the evening; once the execution vote is open, a3, its
    candidate, is candidate_not_eligible; a4 is proposed."""
    g = Game(FOUR, mafia={c: f"{c.lower()}1" for c in "ABCD"}).start()
    g.to(1, "19:00")  # nobody was proposed in A: no judge
    assert g.state.cities["A"].judge is None
    g.to(2, "10:00")
    g.do(ScheduleJudgeElection(actor=ARBITER, city="A", opens_at=when(2, "20:30"),
                               closes_at=when(2, "23:00")), 2, "10:00")
    g.do(Nominate(actor="a2", candidate="a3"), 2, "11:00")
    g.to(2, "20:10")
    assert "a3" in g.state.cities["A"].voting.candidates
    g.reject(ProposeJudge(actor="a5", candidate="a3"), when(2, "20:10"), ErrorCode.CANDIDATE_NOT_ELIGIBLE)
    g.do(ProposeJudge(actor="a5", candidate="a4"), 2, "20:10")
