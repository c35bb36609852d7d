"""The drawn deal from the pages (issue 14, RANDOM-4 by lot): a player who wants to add
entropy, both hosts and the Procurator's opening, all done by a person on /games/…/draw.

Cast: ``small_cast()``. Signed-up player ``p`` commits during recruitment; the Procurator and
the Consigliere commit; the Consigliere seals; the Procurator opens the reveals; everyone
reveals; the positions are drawn. The page refuses, beside the field and in words, a value
that does not match and a hash that is not one."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from lepromafia.engine.duties import DutyKind, duties
from lepromafia.engine.state import Stage

from .conftest import Api, at, make_api, setup_game_via_api, small_cast
from .test_notary_pages import TOKEN

CAST = small_cast()
GAME = "drawn"
VALUES = {CAST.procurator: "прокурорское зерно", CAST.consigliere: "consigliere-seed-42",
          CAST.cities[next(iter(CAST.cities))][0]: "игрок тоже бросает кость"}
PLAYER = next(u for u in VALUES if u not in (CAST.procurator, CAST.consigliere))


def sha(value: str) -> str:
    return hashlib.sha256(value.encode("utf-8")).hexdigest()


@pytest.fixture(scope="module")
def game(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Api]:
    for api in make_api(Path(tmp_path_factory.mktemp("draw"))):
        setup_game_via_api(api, GAME, CAST, settings={"deal_method": "commit_reveal"}, start=False)
        yield api


def submit(api: Api, who: str, action: str, game_id: str = GAME, **fields: str) -> str:
    """Open the draw page as ``who``, post one of its forms, land where it redirects."""
    page = api.get(who, f"/games/{game_id}/draw")
    assert page.status_code == 200, page.text
    token = TOKEN.search(page.text)
    assert token
    r = api.client.post(f"/games/{game_id}/draw/{action}", headers=api.headers(who),
                        data={"csrf_token": token.group(1), **fields}, follow_redirects=False)
    assert r.status_code == 303, r.text
    landed = api.get(who, r.headers["location"]).text
    api.client.cookies.delete("lp_flash")
    return landed


def test_a_player_and_both_hosts_draw_the_deal_from_the_page(game: Api) -> None:
    """RANDOM-4 by lot: commit (a bad hash refused beside its field), open, reveal (a wrong
    value refused beside its field, kept), drawn; the duties say who must act."""
    html = submit(game, PLAYER, "commit", digest="not-a-hash")
    assert 'data-field="digest"' in html and 'data-code="entropy_digest_invalid"' in html
    assert 'data-testid="commit-form"' in html  # nothing was committed: he may try again
    html = submit(game, PLAYER, "commit", digest=sha(VALUES[PLAYER]))
    assert 'data-testid="flash"' in html and 'data-testid="draw-mine-done"' in html
    assert sha(VALUES[PLAYER]) in html
    s = game.state(GAME)
    before = at(0, "10:00")  # recruitment: the hosts must commit, the player has
    assert DutyKind.COMMIT_ENTROPY in {d.kind for d in duties(s, CAST.consigliere, before)}
    assert DutyKind.COMMIT_ENTROPY not in {d.kind for d in duties(s, PLAYER, before)}
    for host in (CAST.procurator, CAST.consigliere):
        submit(game, host, "commit", digest=sha(VALUES[host]))
    plans = [{"name": name, "tribune": CAST.tribunes[i], "residents": list(us)}
             for i, (name, us) in enumerate(CAST.cities.items())]
    game.ok(CAST.procurator, GAME, "FormCities", cities=plans)
    r = game.post(CAST.consigliere, f"/api/games/{GAME}/random/seal-deal", {"command_id": game.command_id()})
    assert r.status_code == 200, r.text
    assert 'data-testid="open-form"' not in game.get(PLAYER, f"/games/{GAME}/draw").text
    html = submit(game, CAST.procurator, "open")
    assert 'data-testid="draw-closes"' in html and "МСК" in html
    html = submit(game, PLAYER, "reveal", value="не то зерно")
    assert 'data-field="value"' in html and 'data-code="entropy_mismatch"' in html
    assert json.dumps("не то зерно")[1:-1] in html  # the input is kept, to refill the field
    s = game.state(GAME)
    assert DutyKind.REVEAL_ENTROPY in {d.kind for d in duties(s, PLAYER, before)}
    for who, value in VALUES.items():
        submit(game, who, "reveal", value=value)
    s = game.state(GAME)
    assert set(s.deal.values) == set(s.deal.digests) and s.deal.numbers
    assert s.stage is Stage.DEALT  # the factions are dealt from the drawn positions
    html = game.get(None, f"/games/{GAME}/draw").text
    assert 'data-testid="draw-done"' in html and VALUES[PLAYER] in html


def test_the_draw_page_shows_the_hosts_by_office_in_words(game: Api) -> None:
    """HOST-CONS-5: the hosts take part by office; no party code reaches a person. Its own
    game, in which both hosts have committed (it does not rely on the test before it)."""
    own = "drawn-offices"
    setup_game_via_api(game, own, CAST, settings={"deal_method": "commit_reveal"}, start=False)
    for host in (CAST.procurator, CAST.consigliere):
        submit(game, host, "commit", digest=sha(VALUES[host]), game_id=own)
    for lang, word in (("ru", "Консильери"), ("en", "The Consigliere")):
        html = game.get(None, f"/games/{own}/draw", lang=lang).text
        assert word in html and "office:" not in html
