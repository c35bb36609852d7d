from __future__ import annotations

from .conftest import Api, at, setup_game_via_api, small_cast


def test_a_whole_game_is_set_up_through_the_api_and_day_one_starts(api: Api) -> None:
    """PLAYER-1, RANDOM-1..4, START: sign-up, cities, the platform's shuffle and draw, Day 1."""
    state = setup_game_via_api(api, "g1", small_cast())
    assert state.stage.value == "running"
    api.advance_to(at(1, "10:01"))
    assert api.state("g1").day == 1
