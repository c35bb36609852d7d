"""Shared cast and checks for the host-side rule tests."""

from __future__ import annotations

from typing import Any

from lepromafia.engine.commands import Nominate

from ..cast import Game

TOWN = "Лепроград"
OTHER = "Лепросицилия"
FIVE = "alice bob carol dave erin"
OTHER_FIVE = "fred gina hugo ivan jane"


def town(**settings: Any) -> Game:
    """Лепроград alone: alice is its one mafioso. Day 1 has begun."""
    return Game({TOWN: FIVE}, mafia={TOWN: "alice"}, settings=settings).start()


def two_towns(**settings: Any) -> Game:
    """Лепроград (mafioso alice, Tribune tanya) and Лепросицилия (mafioso fred, Tribune tolya)."""
    return Game({TOWN: FIVE, OTHER: OTHER_FIVE}, mafia={TOWN: "alice", OTHER: "fred"},
                settings=settings).start()


def decision(g: Game, kind: type) -> Any:
    """The latest event of ``kind``, checked to be a line of the audit log with its audience."""
    event = g.events_of(kind)[-1]
    lines = [a for a in g.state.records.audit if a.action == kind.__name__ and a.at == event.at]
    assert lines, f"{kind.__name__} is not in the audit log"
    line = lines[-1]
    assert (line.host, line.rule, line.reason, line.audience) == (
        event.host, event.rule, event.reason, event.audience)
    return event


def execute(g: Game, condemned: str, day: int = 2, voter: str = "bob") -> None:
    """Nominate at noon; one «казнить» at 20:05; the vote closes at 23:30."""
    g.to(day, "12:00")
    g.do(Nominate(actor=voter, candidate=condemned), day, "12:00")
    g.to(day, "20:00")
    g.vote(voter, condemned, "казнить", day, "20:05")
    g.to(day, "23:30")
