"""Bot simulation over hundreds of seeded games: every invariant holds in every game.

Also the `lepromafia simulate` command: its JSON report, and its failure (non-zero
exit naming the seed) when an invariant breaks.
"""

from __future__ import annotations

import json

from typer.testing import CliRunner

from lepromafia.bots import simulate as sim
from lepromafia.bots.simulate import simulate
from lepromafia.cli.main import app


def test_three_hundred_small_games_keep_every_invariant():
    """300 games of 2–3 cities: bots play, try illegal moves; no invariant breaks."""
    for cities, population, seed in ((2, 8, 0), (3, 10, 1000), (3, 12, 2000)):
        report = simulate(100, cities, population, seed=seed)
        assert report["failures"] == [], report["failures"][:3]
        assert report["mafia_wins"] + report["citizen_wins"] + report["draws"] == 100


def test_full_size_five_city_games_keep_every_invariant():
    """The real format: 5 cities of 20 (CITY-1, CITY-2)."""
    report = simulate(12, 5, 20, seed=500)
    assert report["failures"] == []
    assert report["mean_days"] >= 2


def test_the_bots_try_illegal_moves_and_every_one_is_rejected():
    report = sim.play(seed=11, cities=3, population=10)
    assert report.illegal_tried > 10
    assert report.violations == []


def test_simulate_reports_json():
    result = CliRunner().invoke(app, ["simulate", "--games", "3", "--cities", "2", "--population", "6",
                                      "--seed", "4", "--json"])
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    for key in ("games", "mafia_wins", "citizen_wins", "draws", "mean_days", "mean_events",
                "events_per_second"):
        assert key in report
    assert report["games"] == 3 and report["failures"] == []


def test_simulate_fails_naming_the_seed_when_an_invariant_breaks(monkeypatch):
    def broken(table):
        return ["event 7 KillDeclared: a secret event is public (§9.2)"]

    monkeypatch.setattr(sim, "check_game", broken)
    result = CliRunner().invoke(app, ["simulate", "--games", "2", "--cities", "1", "--population", "5",
                                      "--seed", "40"])
    assert result.exit_code == 1
    assert "seed=40" in result.stderr and "seed=41" in result.stderr
    assert "a secret event is public" in result.stderr
