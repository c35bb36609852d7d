"""The hosts' remaining console forms over HTTP: the Consigliere seals a restored city's
shuffled list and the Procurator deals it (RESTORE-3/4, RANDOM-3); a resident files a
private case, the Arbiter decides it with a ban and lifts the ban (HOST-ARB-3, AMB-34).

Cast: ``small_cast()`` (two cities of six; the Procurator, the Consigliere, the Arbiter,
two Tribunes). Each form: one success, one coded rejection that changes nothing.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path

import pytest

from .conftest import Api, at, make_api, setup_game_via_api, small_cast
from .test_pages import error_code, submit

CAST = small_cast()
A, B = list(CAST.cities)
GAME = "pages"
NEW_NAME = "Новоград"


@pytest.fixture
def game(tmp_path: Path) -> Iterator[Api]:
    for api in make_api(tmp_path):
        setup_game_via_api(api, GAME, CAST)
        api.advance_to(at(1, "10:05"))
        yield api


def test_a_restored_city_is_sealed_by_the_consigliere_and_dealt_by_the_procurator(game: Api) -> None:
    """RESTORE-3, RESTORE-4, RANDOM-3: after all three signatures the Consigliere's console
    offers 'Shuffle and seal' for the city; a Tribune cannot seal (not_consigliere); sealed
    twice is deal_already_sealed; the Procurator's wrong numbers are numbers_invalid and
    change nothing; 'Draw them for me' deals the city."""
    game.ok(CAST.procurator, GAME, "ProposeRestoration", city=A, new_name=NEW_NAME, reason="Город пал")
    game.ok(CAST.consigliere, GAME, "SignRestoration", city=A)
    game.ok(CAST.tribunes[0], GAME, "SignRestoration", city=A)
    console = f"/games/{GAME}/console/consigliere"
    tribune_console = f"/games/{GAME}/console/tribune"

    html = submit(game, CAST.tribunes[0], "seal_restoration", tribune_console, city=A)
    assert error_code(html) == "not_consigliere"
    assert game.state(GAME).cities[A].restoration.order == ()  # type: ignore[union-attr]

    page = game.get(CAST.consigliere, console).text
    assert 'data-testid="restoration-seal"' in page and "do/seal_restoration" in page
    html = submit(game, CAST.consigliere, "seal_restoration", console, city=A)
    assert error_code(html) is None
    restoration = game.state(GAME).cities[A].restoration
    assert restoration is not None
    assert sorted(restoration.order) == sorted(game.state(GAME).living(A))
    sealed = ", ".join(f"{i}. {u}" for i, u in enumerate(restoration.order, 1))
    assert sealed in html, "the Consigliere sees his sealed list"
    assert error_code(submit(game, CAST.consigliere, "seal_restoration", console, city=A)) == \
        "deal_already_sealed"
    assert game.state(GAME).cities[A].restoration == restoration

    procurator = f"/games/{GAME}/console/procurator"
    assert 'data-testid="restoration-numbers"' in game.get(CAST.procurator, procurator).text
    size = len(restoration.order)
    html = submit(game, CAST.procurator, "restoration_numbers", procurator, city=A, numbers=f"1, {size + 5}")
    assert error_code(html) == "numbers_invalid"
    assert not game.state(GAME).cities[A].restoration.dealt  # type: ignore[union-attr]
    html = submit(game, CAST.procurator, "restoration_numbers", procurator, city=A, draw="1")
    assert error_code(html) is None
    assert game.state(GAME).cities[A].restoration.dealt  # type: ignore[union-attr]
    assert 'data-testid="restoration-numbers"' not in html


def test_a_private_case_is_filed_decided_with_a_ban_and_the_ban_lifted(game: Api) -> None:
    """HOST-ARB-3, AMB-34: a resident of A complains of his neighbour's insult from his role
    page; accusing himself is not_a_participant. The Arbiter's console lists the case with
    its text; the Procurator cannot decide it (not_arbiter); the Arbiter finds him guilty
    and makes him read-only in A's city inbox until tomorrow; deciding again is
    already_decided; he lifts the ban, and lifting again is already_decided."""
    complainant, accused = CAST.cities[A][0], CAST.cities[A][1]
    role = f"/games/{GAME}/role"
    page = game.get(complainant, role).text
    assert 'data-testid="file-case"' in page
    html = submit(game, complainant, "file_case", role, accused=complainant, charge="insult", text="Я сам")
    assert error_code(html) == "not_a_participant"
    assert game.state(GAME).records.cases == ()
    html = submit(game, complainant, "file_case", role, accused=accused, charge="insult",
                  text="Назвал меня троллем в городской")
    assert error_code(html) is None
    (case,) = game.state(GAME).records.cases
    assert (case.complainant, case.accused, case.charge) == (complainant, accused, "insult")

    console = f"/games/{GAME}/console/arbiter"
    page = game.get(CAST.arbiter, console).text
    cases = page[page.index('data-testid="private-cases"'):]
    assert "Назвал меня троллем" in cases and 'data-case="1"' in cases
    city_inbox = game.state(GAME).current[f"city:{A}"]
    assert f'<option value="{city_inbox}">' in cases
    until = (at(2, "10:00")).strftime("%Y-%m-%dT%H:%M")

    html = submit(game, CAST.procurator, "decide_case", f"/games/{GAME}/console/procurator", case="1",
                  guilty="yes", reason="Оскорбление", inboxes=city_inbox, until=until)
    assert error_code(html) == "not_arbiter"
    assert game.state(GAME).records.cases[0].decision is None

    html = submit(game, CAST.arbiter, "decide_case", console, case="1", guilty="yes",
                  reason="Оскорбление в городской", inboxes=city_inbox, until=until)
    assert error_code(html) is None
    s = game.state(GAME)
    assert s.records.cases[0].decision == "guilty"
    (ban,) = s.records.bans
    assert (ban.user, ban.lineage, ban.lifted) == (accused, city_inbox.rsplit(":", 1)[0], False)
    assert "do/lift_ban" in html
    assert error_code(submit(game, CAST.arbiter, "decide_case", console, case="1", guilty="no",
                             reason="Передумал")) == "already_decided"

    html = submit(game, CAST.arbiter, "lift_ban", console, case="1", reason="Извинился")
    assert error_code(html) is None
    assert game.state(GAME).records.bans[0].lifted
    assert error_code(submit(game, CAST.arbiter, "lift_ban", console, case="1", reason="Ещё раз")) == \
        "already_decided"
    game.advance(timedelta(minutes=1))
