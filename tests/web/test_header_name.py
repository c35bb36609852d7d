"""The header greets a person by his display name, Cyrillic too, not by his login (issue 11;
review m6).

Cast: «vasya_p», registered as «Вася Пупкин», a resident of a two-city game; «anna», who gave
no display name (her login is her name); an anonymous visitor.
"""

from __future__ import annotations

import re
from html import unescape

from .conftest import Api, setup_game_via_api, small_cast

CAST = small_cast()
ME = re.compile(r'<span class="me" data-testid="me"([^>]*)>([^<]*)</span>')


def header(api: Api, user: str | None, path: str, lang: str = "ru") -> tuple[str, str] | None:
    r = api.get(user, path, lang=lang)
    assert r.status_code == 200, r.text
    found = ME.search(r.text)
    return (unescape(found.group(2)), unescape(found.group(1))) if found else None


def test_the_header_shows_the_display_name_and_keeps_the_whole_name_and_login_as_its_title(
        api: Api) -> None:
    """On a phone a long name is cut short with «…»: its title (the hover) holds it whole,
    with the login."""
    r = api.client.post("/api/auth/register", headers={"authorization": "Bearer -"},
                        json={"login": "vasya_p", "password": "correct-horse-42",
                              "display_name": "Вася Пупкин"})
    assert r.status_code == 201, r.text
    api.tokens["vasya_p"] = r.json()["token"]
    api.client.cookies.clear()
    api.register("anna")
    setup_game_via_api(api, "g", CAST)
    for path in ("/", "/rules", "/games/g", "/games/g/votes"):
        name, attrs = header(api, "vasya_p", path) or ("", "")
        assert name == "Вася Пупкин", path
        assert 'title="Вася Пупкин · Логин: vasya_p"' in attrs, attrs
    name, attrs = header(api, "vasya_p", "/", lang="en") or ("", "")
    assert name == "Вася Пупкин" and 'title="Вася Пупкин · Login: vasya_p"' in attrs
    name, attrs = header(api, "anna", "/") or ("", "")
    assert name == "anna" and 'title="anna"' in attrs, "the login alone when it is the name"
    assert header(api, None, "/") is None
