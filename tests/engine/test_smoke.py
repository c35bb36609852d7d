"""A whole seeded 5-city game plays to its end (WIN-1, WIN-5)."""

from lepromafia.bots.simulate import play
from lepromafia.engine import replay


def test_a_seeded_five_city_game_ends_with_a_result():
    report = play(seed=1, cities=5)
    assert report.result in ("mafia", "honest")
    assert replay(report.table.events).state == report.table.state
