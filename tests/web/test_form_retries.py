"""A browser retry of a page form has one effect, like an API retry (issue 9, item 6).

Cast: the small game (Procurator «procurator», Лепроград p01_01..p01_06). Every page form
carries its command id (the CSRF token's nonce, ``csrf_field``); re-sending the very same
form (a lost response, a reload that re-posts) is answered by the service with the first
attempt's result. The platform's draws on pages go through ``platform_rng`` keyed by that
id, so a retried draw is the same draw (COMM-APPT-1, RANDOM-4).
"""

from __future__ import annotations

import re
from html import escape, unescape
from typing import Any
from urllib.parse import unquote

from .conftest import Api, at, setup_game_via_api, small_cast

CAST = small_cast()
LEPROGRAD = next(iter(CAST.cities))


def form_after(html: str, action: str) -> dict[str, str]:
    """The hidden fields of the first form posting to ``action``."""
    start = html.index(f'action="{action}"')
    form = html[start:html.index("</form>", start)]
    return dict(re.findall(r'<input type="hidden" name="([^"]+)" value="([^"]*)"', form))


def version(api: Api) -> int:
    found: int = api.client.portal.call(api.web.queries.version, "g")  # type: ignore[union-attr]
    return found


def flash(response: Any) -> str:
    return unquote(response.cookies.get("lp_flash") or "")


def test_the_same_message_form_posted_twice_records_one_message(api: Api) -> None:
    """p01_03 sends «Доброе утро» in the city inbox; the browser re-sends the same form: one
    message. The same token with another text, or another command id, changes nothing."""
    setup_game_via_api(api, "g", CAST)
    api.advance_to(at(1, "10:05"))
    inbox = api.state("g").current_inbox("city", LEPROGRAD)
    assert inbox is not None
    page = api.get("p01_03", f"/games/g/inboxes/{inbox}").text
    action = unescape(re.findall(r'action="([^"]*/post)"', page)[0])
    fields = form_after(page, escape(action))
    assert fields["command_id"] == fields["csrf_token"].split(".")[0]
    headers = api.headers("p01_03")
    first = api.client.post(action, headers=headers, data={**fields, "text": "Доброе утро"},
                            follow_redirects=False)
    assert first.status_code == 303 and "error" not in flash(first)
    after_first = version(api)
    again = api.client.post(action, headers=headers, data={**fields, "text": "Доброе утро"},
                            follow_redirects=False)
    assert again.status_code == 303 and "error" not in flash(again)
    assert version(api) == after_first
    other = api.client.post(action, headers=headers, data={**fields, "text": "Другое"},
                            follow_redirects=False)
    assert "command_id_reused" in flash(other)
    forged = api.client.post(action, headers=headers,
                             data={**fields, "command_id": "new-id", "text": "Другое"})
    assert forged.status_code == 403 and "csrf_invalid" in forged.text
    texts = [m.text for m in api.client.portal.call(  # type: ignore[union-attr]
        api.web.queries.inbox, "g", inbox, "p01_03").messages]
    assert texts == ["Доброе утро"]


def test_a_retried_commissar_offer_draw_is_the_same_draw(api: Api) -> None:
    """COMM-APPT-1: the Procurator's "offer (draw)" form re-sent: one CommissarOffered, and
    no 'command id reused' (the platform drew the same candidate for the same command id)."""
    setup_game_via_api(api, "g", CAST)
    api.advance_to(at(1, "10:05"))
    console = api.get(CAST.procurator, "/games/g/console/procurator").text
    fields = form_after(console, "/games/g/do/offer")
    assert fields["city"] == LEPROGRAD
    headers = api.headers(CAST.procurator)
    first = api.client.post("/games/g/do/offer", headers=headers, data=fields, follow_redirects=False)
    assert "error" not in flash(first), flash(first)
    offered = api.state("g").cities[LEPROGRAD].offer
    assert offered is not None
    after_first = version(api)
    again = api.client.post("/games/g/do/offer", headers=headers, data=fields, follow_redirects=False)
    assert "error" not in flash(again), flash(again)
    assert version(api) == after_first
    assert api.state("g").cities[LEPROGRAD].offer == offered
