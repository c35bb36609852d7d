"""A refused form comes back with its message in words, the field that caused it named in
``data-field`` (the page shows the message beside it) and the person's input kept (UX review M9).

Cast: ``small_cast()``; a newcomer ``vasya`` who registers with a Cyrillic login, and
``p01_01`` signing up again for a game he already joined, with his ticks and contact kept.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from urllib.parse import unquote

from .conftest import make_api, setup_game_via_api, small_cast

CAST = small_cast()
TOKEN = re.compile(r'name="csrf_token" value="([^"]+)"')


def test_a_bad_login_is_named_beside_its_field_in_words_and_the_input_is_kept(tmp_path: Path) -> None:
    for api in make_api(tmp_path):
        page = api.client.get("/register?lang=ru").text
        token = TOKEN.search(page).group(1)  # type: ignore[union-attr]
        r = api.client.post("/register", data={"csrf_token": token, "login": "Вася Пупкин",
                                               "password": "password1"})
        assert r.status_code == 422
        assert 'data-code="login_invalid"' in r.text and 'data-field="login"' in r.text
        assert 'value="Вася Пупкин"' in r.text
        shown = r.text.split('data-testid="error"')[1].split("</div>")[0]
        assert "Логин" in shown and ">login_invalid<" not in shown


def test_a_refused_sign_up_keeps_the_ticks_and_the_contact(tmp_path: Path) -> None:
    """PLAYER-2: a second sign-up is refused; the flash names the form that was posted and
    carries the ticked requirements and the contact back to it (never the password)."""
    for api in make_api(tmp_path):
        setup_game_via_api(api, "forms", CAST, start=False)
        user = CAST.cities[next(iter(CAST.cities))][0]
        page = api.get(user, "/games/forms").text
        token = TOKEN.search(page).group(1)  # type: ignore[union-attr]
        r = api.client.post("/games/forms/do/signup", headers=api.headers(user), follow_redirects=False,
                            data={"csrf_token": token, "next": "/games/forms", "contact": "+7 900",
                                  "accepted": ["active", "omerta"], "password": "x"})
        assert r.status_code == 303
        raw = r.headers["set-cookie"].split("lp_flash=", 1)[1].split(";", 1)[0].strip('"')
        flash = json.loads(unquote(raw))["error"]
        assert flash["code"] == "already_signed_up" and flash["action"] == "/games/forms/do/signup"
        assert flash["form"] == {"contact": "+7 900", "accepted": ["active", "omerta"]}
        landed = api.get(user, "/games/forms").text
        assert 'data-action="/games/forms/do/signup"' in landed and "data-kept='" in landed
