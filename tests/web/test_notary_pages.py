"""Notary inboxes for anyone on the pages (INBOX-NOTARY-1..3, AMB-39, §9.4; review D20).

Cast: ``small_cast()``; one resident certifies a secret from his inboxes page, grants the
Arbiter access from the inbox page; a neighbour cannot open it; every page shows the digest."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import quote

import pytest

from lepromafia.engine.inboxes import can_read

from .conftest import Api, at, make_api, setup_game_via_api, small_cast

CAST = small_cast()
A, B = list(CAST.cities)
GAME = "notary"
TOKEN = re.compile(r'name="csrf_token" value="([^"]+)"')
SECRET = "Ночью 2 проверил соседа: честный"


@pytest.fixture(scope="module")
def game(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Api]:
    for api in make_api(Path(tmp_path_factory.mktemp("notary"))):
        setup_game_via_api(api, GAME, CAST)
        api.advance_to(at(1, "10:05"))
        yield api


def post_form(api: Api, who: str, page: str, action: str, **fields: str) -> str:
    r = api.get(who, page)
    assert r.status_code == 200
    found = TOKEN.search(r.text)
    assert found
    r = api.client.post(action, headers=api.headers(who), data={"csrf_token": found.group(1), **fields},
                        follow_redirects=False)
    assert r.status_code == 303, r.text
    landed = api.get(who, r.headers["location"])
    api.client.cookies.delete("lp_flash")
    return str(landed.text)


def test_notary1_to_3_certify_grant_and_read_from_the_pages(game: Api) -> None:
    """INBOX-NOTARY-1: a resident seals a secret from his inboxes page and lands on it;
    INBOX-NOTARY-2: the page shows the digest = SHA-256(salt, NUL, text) and the text;
    INBOX-NOTARY-3: he grants the Arbiter, who reads it; a neighbour gets a 404."""
    owner, neighbour = CAST.cities[A][0], CAST.cities[A][1]
    inboxes = game.get(owner, f"/games/{GAME}/inboxes").text
    assert 'data-testid="notary-create"' in inboxes
    html = post_form(game, owner, f"/games/{GAME}/inboxes", f"/games/{GAME}/notary",
                     title="Проверка", content=SECRET)
    assert 'data-testid="notary-card"' in html and SECRET in html and "Нотариально заверено" in html
    s = game.state(GAME)
    notary = next(n for n in s.notaries.values() if n.organizer == owner)
    assert notary.digest == hashlib.sha256(f"{notary.salt}\x00{SECRET}".encode()).hexdigest()
    assert notary.digest in html and owner not in notary.inbox
    page = f"/games/{GAME}/inboxes/{quote(notary.inbox, safe='')}"
    assert game.get(neighbour, page).status_code == 404
    html = post_form(game, owner, page, f"/games/{GAME}/notary/{quote(notary.inbox, safe='')}/grant",
                     user=CAST.arbiter)
    assert 'data-testid="notary-granted"' in html and CAST.arbiter in html
    assert can_read(game.state(GAME), notary.inbox, CAST.arbiter)
    seen = game.get(CAST.arbiter, page).text
    assert SECRET in seen and notary.digest in seen
    assert 'data-testid="notary-grant"' not in seen  # only the organizer grants
    assert owner not in seen.split('data-testid="notary-card"')[1].split("</section>")[0]


def test_a_grant_to_a_stranger_is_refused_in_words(game: Api) -> None:
    """INBOX-NOTARY-3: granting to someone outside the game comes back as a translated
    error with its code; nothing changes."""
    owner = CAST.cities[B][0]
    post_form(game, owner, f"/games/{GAME}/inboxes", f"/games/{GAME}/notary", title="x", content="y")
    notary = next(n for n in game.state(GAME).notaries.values() if n.organizer == owner)
    page = f"/games/{GAME}/inboxes/{quote(notary.inbox, safe='')}"
    html = post_form(game, owner, page, f"/games/{GAME}/notary/{quote(notary.inbox, safe='')}/grant",
                     user="stranger")
    assert "not_a_participant" in html and "не участвует в этой игре" in html
    assert game.state(GAME).notaries[notary.inbox].granted == frozenset()
