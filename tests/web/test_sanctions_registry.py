"""OMERTA-2, PLAYER-7 (issue 10, D8): «Мафиозо, нарушивший молчание, лишается права играть в
мафию на определённый период или навсегда» — a sanction of a running game names a mafioso,
so only the Procurator and the player see it until the game ends; however it is recorded,
sign-up enforces it."""

from __future__ import annotations

import dataclasses

from lepromafia.engine.rules.host import sanction_visible
from lepromafia.engine.state import Stage

from .conftest import Api, setup_game_via_api, small_cast
from .test_host_decisions_pages import PROCURATOR, submit_fields

CAST = small_cast()
GAME = "pages"


def test_a_sanction_recorded_on_the_console_reaches_the_registry_sign_up_checks(api: Api) -> None:
    """D8: hc.RecordSanction (the Procurator's console) bans the player from the next sign-up,
    and the public registry does not list it while the game runs."""
    setup_game_via_api(api, GAME, CAST)
    player = next(iter(CAST.cities.values()))[1]
    html = submit_fields(api, CAST.procurator, "sanction", PROCURATOR, {
        "user": player, "rule": "OMERTA-2", "life": "1", "reason": "Назвал Консильери"})
    assert 'data-testid="flash"' in html
    submit_fields(api, CAST.procurator, "sanction", PROCURATOR, {
        "user": player, "rule": "OMERTA-2", "life": "1", "reason": "Назвал Консильери"})
    assert api.get(None, "/api/sanctions").json() == []
    mine = api.get(player, "/api/sanctions").json()
    assert [(b["user"], b["rule"], b["ends_real"]) for b in mine] == [(player, "OMERTA-2", None)]
    api.register("hostx")
    r = api.post("hostx", "/api/games", {"game_id": "g2", "title": "Второй", "command_id": "c"})
    assert r.status_code == 201
    r = api.post(player, "/api/games/g2/signup",
                 {"accepted": ["active"], "contact": "+7 1", "command_id": "s"})
    assert r.status_code == 403 and r.json()["error"]["code"] == "banned"


def test_after_the_game_the_registry_is_public(api: Api) -> None:
    """D8: the rule the registry asks — everyone once the game is finished."""
    state = setup_game_via_api(api, GAME, CAST)
    state = api.state(GAME)
    player = next(iter(CAST.cities.values()))[1]
    assert not sanction_visible(state, player, None)
    assert not sanction_visible(state, player, CAST.tribunes[0])
    assert sanction_visible(state, player, CAST.procurator) and sanction_visible(state, player, player)
    over = dataclasses.replace(state, stage=Stage.FINISHED)
    assert sanction_visible(over, player, None)
