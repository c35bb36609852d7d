"""docs/balance.md is generated from lab runs (issue 15): a tiny pair of runs gives a page
with the table by number of cities, the levers, the institutions and the advice."""

from __future__ import annotations

import importlib.util
from pathlib import Path

from lepromafia.bots.strategy import Skills
from lepromafia.lab.run import run
from lepromafia.lab.sweep import Sweep, parse_vary

ROOT = Path(__file__).resolve().parents[2]


def balance_doc():
    spec = importlib.util.spec_from_file_location("balance_doc", ROOT / "tools" / "balance_doc.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_balance_page_is_written_from_the_two_runs(tmp_path):
    small = dict(games=2, cities=2, population=6, skills=Skills(2, 2))
    run(Sweep(**small, varies=(parse_vary("cities=2,3"),)), tmp_path / "run" / "cities", workers=1)
    run(Sweep(**small, varies=(parse_vary("mafia_share_percent=20,40"),), institutions=True),
        tmp_path / "run" / "settings", workers=1)
    balance_doc().main(tmp_path / "run", tmp_path / "docs")
    page = (tmp_path / "docs" / "balance.md").read_text(encoding="utf-8")
    for words in ("## Honest win rate by number of cities", "| 2 | 2 |", "| 3 | 2 |",
                  "## What moves it most", "`mafia_share_percent=40`", "the Spirit rule",
                  "## Recommendation to hosts", "closest to even with **"):
        assert words in page, words
    assert (tmp_path / "docs" / "balance" / "honest_by_cities.png").stat().st_size > 5000
    assert (tmp_path / "docs" / "balance" / "institutions.png").exists()
