"""A page left open after one's death stops offering to observe another city (review m9;
ROLE-OBS-1..3): the offer is a live region that re-renders on ``ResidentDied``.

Cast and day as in ``test_vote_record``: p01_01 is condemned with 2 votes and executed at
23:30 on Day 2; he had the game page open since the afternoon.
"""

from __future__ import annotations

import re

from .conftest import Api
from .test_vote_record import cast_the_day, day_two


def test_the_observe_offer_is_live_and_gone_once_its_resident_is_dead(api: Api) -> None:
    day_two(api)
    page = api.get("p01_01", "/games/g").text
    assert 'data-testid="observe-card"' in page and "Лепросицилия" in page
    region = re.search(r'<div id="observe" data-live-src="([^"]+)" data-live-kinds="([^"]+)"', page)
    assert region is not None and "ResidentDied" in region.group(2).split()
    assert 'data-testid="observe-card"' in api.get("p01_01", region.group(1)).text
    api.client.cookies.clear()


def test_after_the_execution_the_region_offers_nothing(api: Api) -> None:
    cast_the_day(api)
    assert not api.state("g").residents["p01_01"].alive
    assert 'data-testid="observe-card"' not in api.get("p01_01", "/games/g/part/observe").text
    assert 'data-testid="observe-card"' in api.get("p01_02", "/games/g/part/observe").text
