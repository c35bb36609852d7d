"""The balance lab (issue 15): a tiny sweep on processes and on a Dask LocalCluster, the
report it writes, the Wilson intervals, and the errors a host sees for a bad sweep."""

from __future__ import annotations

import csv
import json

import pytest
from typer.testing import CliRunner

from lepromafia.bots.strategy import Skills
from lepromafia.cli.main import app
from lepromafia.lab.report import summarize
from lepromafia.lab.run import run
from lepromafia.lab.runner import run_dask, run_local
from lepromafia.lab.stats import wilson
from lepromafia.lab.sweep import Sweep, SweepError, parse_vary

TINY = dict(games=2, cities=2, population=8, skills=Skills(2, 2), seed=40)


def test_wilson_interval_matches_the_textbook_values():
    """8 wins of 10: 49.0%–94.3% (Wilson 1927); 0 of 10 still leaves room above zero."""
    lo, hi = wilson(8, 10)
    assert round(lo, 3) == 0.490 and round(hi, 3) == 0.943
    lo, hi = wilson(0, 10)
    assert lo == 0.0 and 0.27 < hi < 0.28
    assert wilson(0, 0) == (0.0, 1.0)


def test_a_sweep_names_its_arms_and_every_arm_plays_the_same_seeds():
    sweep = Sweep(**TINY, varies=(parse_vary("mafia_share_percent=15,30"),), institutions=True)
    labels = [v.label for v in sweep.variants()]
    assert labels[:3] == ["baseline", "mafia_share_percent=15", "mafia_share_percent=30"]
    assert {"court=on", "court=off", "tours=off", "ambush=off", "spirits=off"} <= set(labels)
    # With two cities there is no Court (COURT-1): court=off replays the baseline, not played twice.
    assert {v.label for v in sweep.copies()} >= {"court=off", "tours=on", "ambush=on", "spirits=on"}
    seeds = {j.variant.label: [] for j in sweep.jobs()}
    for j in sweep.jobs():
        seeds[j.variant.label].append(j.seed)
    assert all(s == [40, 41] for s in seeds.values())


def test_big_sweeps_check_every_tenth_game_fully_and_the_rest_step_by_step():
    jobs = Sweep(games=300, cities=5).jobs()
    full = [j.index for j in jobs if j.full_check]
    assert full == list(range(0, 300, 10))
    assert all(j.full_check for j in Sweep(games=5, cities=5).jobs())  # a small sweep: all of them


@pytest.mark.parametrize("text, words", [
    ("mafia_share_percent", "write a setting and its values"),
    ("colour=red", "is not a game setting"),
    ("mafia_share_percent=80", "mafia_share_percent"),
    ("court=maybe", "switched on or off"),
    ("cities=12", "from 1 to 10"),
    ("pardon_window_minutes=soon", "whole number"),
])
def test_a_bad_vary_is_refused_in_words(text, words):
    with pytest.raises(SweepError, match=words):
        parse_vary(text)


def test_processes_and_a_dask_local_cluster_play_the_same_games():
    """concurrent.futures on two processes and dask.distributed's LocalCluster give records
    identical to playing in this process (deterministic by seed, order restored)."""
    jobs = Sweep(**TINY).jobs()
    here = run_local(jobs, workers=1)
    pool = run_local(jobs, workers=2)
    cluster = run_dask(jobs, workers=2)
    strip = [{k: v for k, v in r.items() if k != "seconds"} for r in here]
    assert [{k: v for k, v in r.items() if k != "seconds"} for r in pool] == strip
    assert [{k: v for k, v in r.items() if k != "seconds"} for r in cluster] == strip
    assert all(r["violations"] == 0 for r in here)


def test_a_dask_scheduler_address_plays_the_sweep_on_that_cluster():
    """A real cluster is reached by its scheduler address (here a LocalCluster's)."""
    from dask.distributed import LocalCluster

    jobs = Sweep(**TINY).jobs()
    with LocalCluster(n_workers=1, threads_per_worker=1, processes=True, dashboard_address=None) as cluster:
        remote = run_dask(jobs, address=cluster.scheduler_address)
    assert [r["seed"] for r in remote] == [40, 41]
    assert [r["result"] for r in remote] == [r["result"] for r in run_local(jobs, workers=1)]


def test_the_report_holds_rates_cities_roles_commissars_and_the_even_point(tmp_path):
    sweep = Sweep(**TINY, varies=(parse_vary("mafia_share_percent=10,40"),))
    summary, page = run(sweep, tmp_path, workers=2)
    assert page == tmp_path / "index.html"
    text = page.read_text(encoding="utf-8")
    for words in ("Honest win rate per variant", "95% Wilson interval", "Closest to an even game",
                  "mafia_share_percent", "Survival by role", "commissar's lifetime", "sweep_mafia_share_percent.png"):
        assert words in text
    for chart in ("sweep_mafia_share_percent.png", "cities.png", "length.png", "roles.png"):
        assert (tmp_path / chart).stat().st_size > 5000
    data = json.loads((tmp_path / "summary.json").read_text(encoding="utf-8"))
    assert data["games"] == 6 and [v["label"] for v in data["variants"]] == [
        "baseline", "mafia_share_percent=10", "mafia_share_percent=40"]
    base = data["variants"][0]
    assert base["honest_wins"] + base["mafia_wins"] + base["draws"] == 2
    lo, hi = base["honest_ci"]
    assert lo <= base["honest_rate"] <= hi
    assert base["roles"]["mafia"]["held"] > 0 and base["roles"]["commissar"]["held"] > 0
    best = data["sweeps"][0]
    assert best["setting"] == "mafia_share_percent" and best["closest_to_even"] in ("10", "40")
    rates = {v["value"]: v["honest_rate"] for v in data["variants"] if v["setting"] == "mafia_share_percent"}
    assert abs(rates[best["closest_to_even"]] - 0.5) == min(abs(r - 0.5) for r in rates.values())
    with (tmp_path / "cities.csv").open(encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh))
    assert len(rows) == 6 * 2 and {r["outcome"] for r in rows} <= {"honest", "mafia", "draw", "playing"}
    assert summary["violations"] == []


def test_summary_finds_the_value_nearest_an_even_game():
    """Three arms at 80%, 55% and 30% honest wins: 55% is the nearest to 50%."""
    def record(value, result, i):
        return {"label": f"x={value}", "setting": "x", "value": value, "cities": 2, "index": i, "seed": i,
                "result": result, "days": 5, "events": 1, "full_check": True, "violations": 0,
                "first_violation": "", "seconds": 0.1, "city_outcomes": [],
                "roles": {r: [1, 1] for r in ("honest", "mafia", "commissar", "judge", "godfather")},
                "commissar_days": [[2, 1]]}
    records = []
    for value, honest in (("a", 16), ("b", 11), ("c", 6)):
        records += [record(value, "honest" if i < honest else "mafia", i) for i in range(20)]
    summary = summarize(Sweep(games=20, cities=2), records, 1.0, "test")
    assert summary["sweeps"] == [{"setting": "x", "points": ["x=a", "x=b", "x=c"],
                                  "closest_to_even": "b", "closest_rate": 0.55}]


def test_lab_run_on_the_command_line_writes_the_report(tmp_path):
    result = CliRunner().invoke(app, ["lab", "run", "--games", "2", "--cities", "2", "--population", "8",
                                      "--vary", "spirit_rule_enabled=on,off", "--workers", "2",
                                      "--out", str(tmp_path)])
    assert result.exit_code == 0, result.output
    assert "spirit_rule_enabled: closest to 50% at" in result.output
    assert (tmp_path / "index.html").exists() and (tmp_path / "games.csv").exists()


def test_lab_run_refuses_a_bad_skill_or_setting_with_a_sentence(tmp_path):
    bad = CliRunner().invoke(app, ["lab", "run", "--skill", "honest=9", "--out", str(tmp_path)])
    assert bad.exit_code == 2 and "skill levels are 0 (random) to 3" in bad.output
    bad = CliRunner().invoke(app, ["lab", "run", "--vary", "colour=red", "--out", str(tmp_path)])
    assert bad.exit_code == 2 and "is not a game setting" in bad.output
    assert not (tmp_path / "index.html").exists()
