"""The page and the API show the engine's answer, never a second opinion (issue 9).

Cast: ``small_cast()`` — two cities of six, the Procurator, the Consigliere, the Arbiter,
two Tribunes; a manual clock. Each test is a regression test for a divergence the design
review probed (§2.3): an immune candidate's tally, an expired ban.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from lepromafia.engine.inboxes import Kind, live_inbox

from .conftest import Api, at, make_api, setup_game_via_api, small_cast

CAST = small_cast()
A, B = list(CAST.cities)
GAME = "answers"


@pytest.fixture
def game(tmp_path: Path) -> Iterator[Api]:
    for api in make_api(tmp_path):
        setup_game_via_api(api, GAME, CAST)
        api.advance_to(at(1, "10:05"))
        yield api


def tally_counts(html: str) -> dict[str, str]:
    """Candidate -> the count the tally widget shows."""
    rows = re.findall(r'<li[^>]*data-candidate="([^"]+)".*?data-testid="tally-count">(.*?)</span>', html, re.S)
    return {candidate: re.sub(r"<[^>]+>", "", count).strip() for candidate, count in rows}


def test_an_immune_candidates_tally_is_zero_on_the_page_and_in_the_api(game: Api) -> None:
    """MAFIA-DISCLOSE-4, EXEC-9: Day 2 in A. Three residents nominate and vote «казнить»
    for the mafioso M; the tally reads 3. At 21:00 the Procurator confirms M's disclosure:
    M is immune today, so the page and /tallies both read 0 for M, as the engine counts."""
    s = game.state(GAME)
    mafioso = next(u for u in CAST.cities[A] if s.is_mafia(u))
    voters = [u for u in CAST.cities[A] if u != mafioso][:3]
    game.advance_to(at(2, "12:00"))
    game.ok(voters[0], GAME, "Nominate", candidate=mafioso)
    game.advance_to(at(2, "20:05"))
    box = live_inbox(game.state(GAME), Kind.VOTING, A, mafioso)
    assert box is not None
    for voter in voters:
        game.ok(voter, GAME, "PostMessage", inbox=box, text="казнить")
    page = game.get(voters[0], f"/games/{GAME}/inboxes/{box}").text
    assert tally_counts(page)[mafioso] == "3"

    game.advance_to(at(2, "21:00"))
    game.ok(CAST.procurator, GAME, "ConfirmMafiosoDisclosure", user=mafioso, reason="раскрылся")
    page = game.get(voters[0], f"/games/{GAME}/inboxes/{box}").text
    assert tally_counts(page)[mafioso] == "0"
    api = game.get(voters[0], f"/api/games/{GAME}/tallies").json()
    (row,) = [t for t in api if t["candidate"] == mafioso]
    assert (row["votes"], row["voters"]) == (0, [])
    inbox = game.get(voters[0], f"/api/games/{GAME}/inboxes/{box}").json()
    assert inbox["tally"]["votes"] == 0


def test_after_a_ban_expires_the_composer_is_back_and_the_api_says_write(game: Api) -> None:
    """HOST-ARB-3, INBOX-GEN-1: Day 1. A resident of A insults his neighbour; the Arbiter
    makes him read-only in A's city inbox until 18:00. At 17:00 the page shows the
    read-only notice and the API says 'read'; at 19:00, with no event in between, the
    composer is back and the API says 'write' — the ban ran out by the clock."""
    complainant, accused = CAST.cities[A][0], CAST.cities[A][1]
    city_inbox = live_inbox(game.state(GAME), Kind.CITY, A)
    assert city_inbox is not None
    game.ok(complainant, GAME, "FilePrivateCase", accused=accused, charge="insult", text="Назвал меня троллем")
    game.ok(CAST.arbiter, GAME, "DecidePrivateCase", case=1, guilty=True, reason="Оскорбление",
            inboxes=[city_inbox], until=at(1, "18:00").isoformat())
    page_path, api_path = f"/games/{GAME}/inboxes/{city_inbox}", f"/api/games/{GAME}/inboxes/{city_inbox}"

    game.advance_to(at(1, "17:00"))
    page = game.get(accused, page_path).text
    assert 'data-testid="readonly"' in page and 'data-testid="composer"' not in page
    assert game.get(accused, api_path).json()["access"] == "read"
    assert [i["access"] for i in game.get(accused, f"/api/games/{GAME}/inboxes").json()
            if i["inbox"] == city_inbox] == ["read"]

    game.advance_to(at(1, "19:00"))
    page = game.get(accused, page_path).text
    assert 'data-testid="composer"' in page and 'data-testid="readonly"' not in page
    assert game.get(accused, api_path).json()["access"] == "write"
    assert [i["access"] for i in game.get(accused, f"/api/games/{GAME}/inboxes").json()
            if i["inbox"] == city_inbox] == ["write"]
    game.ok(accused, GAME, "PostMessage", inbox=city_inbox, text="Прошу прощения")


def test_the_nomination_form_offers_only_the_residents_the_engine_would_accept(game: Api) -> None:
    """EXEC-3, MAFIA-DISCLOSE-1: Day 2, 10:00 in A. The Procurator confirms the mafioso M's
    disclosure, so M is immune today: a resident's nomination form lists the other living
    residents of A (himself included, self-nomination being allowed) but not M."""
    s = game.state(GAME)
    mafioso = next(u for u in CAST.cities[A] if s.is_mafia(u))
    resident = next(u for u in CAST.cities[A] if u != mafioso)
    game.advance_to(at(2, "10:00"))
    game.ok(CAST.procurator, GAME, "ConfirmMafiosoDisclosure", user=mafioso, reason="раскрылся")
    page = game.get(resident, f"/games/{GAME}/role").text
    form = page[page.index('data-testid="nominate-form"'):]
    offered = re.findall(r'<option value="([^"]+)"', form[:form.index("</select>")])
    assert mafioso not in offered and resident in offered
    assert set(offered) == set(CAST.cities[A]) - {mafioso}
