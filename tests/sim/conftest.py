"""Shared fixtures: one finished, checked 3-city game to tamper with."""

from __future__ import annotations

import pytest

from lepromafia.bots.simulate import GameReport, play


@pytest.fixture(scope="session")
def finished_game() -> GameReport:
    """Seed 3, three cities of ten: a full game with kills, executions and a commissar."""
    report = play(seed=3, cities=3, population=10)
    assert report.violations == []
    return report
