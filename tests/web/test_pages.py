"""The pages over HTTP: each role's forms on his own pages only, every form through CSRF and
the engine, rejections as translated HTML with their stable code, the end of the game.

Cast: ``small_cast()`` (two cities of six; the Procurator, the Consigliere, the Arbiter, two
Tribunes). Rules proved: COMM-APPT-2, SEC-1, COMM-4, MAFIA-KILL-1, ROLE-OBS-2, PLAYER-4,
SEC-13, §9.4 (GameEnded reveals every role), and the web's own CSRF and session rules.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from starlette.websockets import WebSocketDisconnect

from lepromafia.bots.setup import default_cast

from .conftest import Api, at, make_api, setup_game_via_api, small_cast

CAST = small_cast()
A, B = list(CAST.cities)
GAME = "pages"
TOKEN = re.compile(r'name="csrf_token" value="([^"]+)"')


def token(api: Api, user: str | None, path: str) -> str:
    r = api.get(user, path)
    assert r.status_code == 200, (path, r.status_code)
    found = TOKEN.search(r.text)
    assert found, path
    return found.group(1)


def submit(api: Api, user: str, action: str, page: str, game: str = GAME, **fields: Any) -> str:
    """Post a page form as the browser would (token from the page), follow the redirect back
    and return the page it lands on."""
    data = {"csrf_token": token(api, user, page), "next": page, **fields}
    r = api.client.post(f"/games/{game}/do/{action}", data=data, headers=api.headers(user),
                        follow_redirects=False)
    if r.status_code == 200 and 'data-testid="confirm"' in r.text:  # an irreversible act: confirm it
        fresh = TOKEN.search(r.text)
        assert fresh
        data |= {"csrf_token": fresh.group(1), "confirmed": "yes"}
        r = api.client.post(f"/games/{game}/do/{action}", data=data, headers=api.headers(user),
                            follow_redirects=False)
    assert r.status_code == 303, r.text
    landed = api.get(user, r.headers["location"])
    api.client.cookies.delete("lp_flash")
    return str(landed.text)


def error_code(html: str) -> str | None:
    found = re.search(r'data-testid="error" data-code="([a-z_]+)"', html)
    return found.group(1) if found else None


@pytest.fixture(scope="module")
def game(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Api]:
    for api in make_api(Path(tmp_path_factory.mktemp("pages"))):
        setup_game_via_api(api, GAME, CAST)
        api.advance_to(at(1, "10:05"))
        yield api


def role_page(api: Api, user: str) -> str:
    r = api.get(user, f"/games/{GAME}/role")
    assert r.status_code == 200
    return str(r.text)


def test_an_offered_mafioso_may_only_refuse_and_an_honest_resident_accepts(game: Api) -> None:
    """COMM-APPT-2, SEC-1: the mafioso's card has no 'accept'; the honest candidate accepts."""
    s = game.state(GAME)
    pool = s.living(A)
    mafioso = next(u for u in pool if s.is_mafia(u))
    game.offer_to(CAST.procurator, GAME, A, mafioso)
    html = role_page(game, mafioso)
    assert 'data-testid="offer-refuse"' in html and 'data-testid="offer-accept"' not in html
    # a forged "accept" from the mafioso is refused by the engine, with its code, on the page
    landed = submit(game, mafioso, "answer_offer", f"/games/{GAME}/role", accept="yes")
    assert error_code(landed) is not None
    landed = submit(game, mafioso, "answer_offer", f"/games/{GAME}/role", accept="no")
    assert 'data-testid="flash"' in landed
    game.advance_to(at(1, "20:00"))  # the answer is revealed to the Procurator later
    s = game.state(GAME)
    rest = [u for u in s.living(A) if u not in s.cities[A].offers_made]
    honest = next(u for u in rest if not s.is_mafia(u))
    game.offer_to(CAST.procurator, GAME, A, honest)
    assert 'data-testid="offer-accept"' in role_page(game, honest)
    bystander = next(u for u in rest if u != honest)
    assert 'data-testid="offer-card"' not in role_page(game, bystander)
    submit(game, honest, "answer_offer", f"/games/{GAME}/role", accept="yes")
    assert game.state(GAME).cities[A].offer.accepted is True  # type: ignore[union-attr]


def test_night_forms_belong_to_the_mafia_and_the_commissar_only(game: Api) -> None:
    """MAFIA-KILL-1, COMM-4: the kill form on mafiosi's cards only, the check form on the
    commissar's; both post through the engine; the check log shows the answer."""
    game.advance_to(at(3, "02:35"))
    s = game.state(GAME)
    assert s.phase.value == "night" and s.checks_open
    commissar = s.cities[A].commissar
    assert commissar is not None
    mafia = s.living_mafia(A)
    honest = [u for u in s.living(A) if u not in mafia and u != commissar]
    for user in s.living(A):
        html = role_page(game, user)
        assert ('data-testid="kill-form"' in html) == (user in mafia), user
        assert ('data-testid="mafia-night"' in html) == (user in mafia), user
        assert ('data-testid="check-form"' in html) == (user == commissar), user
    for host in (CAST.procurator, CAST.consigliere, CAST.tribunes[0]):
        assert 'data-testid="kill-form"' not in role_page(game, host)
    # an honest resident forging the kill form: not_mafioso, translated, nothing changes
    before = game.state(GAME).cities[A].night
    landed = submit(game, honest[0], "kill", f"/games/{GAME}/role", target=honest[1])
    assert error_code(landed) == "not_mafioso"
    assert game.state(GAME).cities[A].night == before
    landed = submit(game, commissar, "check", f"/games/{GAME}/role", target=mafia[0])
    assert 'data-testid="check-log"' in landed and mafia[0] in landed
    godfather = s.cities[A].godfather or mafia[0]
    submit(game, godfather, "kill", f"/games/{GAME}/role", target=honest[0])
    assert game.state(GAME).cities[A].night.order == honest[0] or \
        honest[0] in game.state(GAME).cities[A].night.declarations.values()


def test_pages_authorization_matrix(game: Api) -> None:
    """No god view on pages: each console for its office (403 otherwise), contacts for the
    Procurator and the Tribunes only (PLAYER-4, SEC-13), unreadable inboxes 404."""
    s = game.state(GAME)
    seats = [CAST.procurator, CAST.consigliere, CAST.arbiter, *CAST.tribunes, *s.residents]
    offices = {"procurator": {CAST.procurator}, "consigliere": {CAST.consigliere},
               "arbiter": {CAST.arbiter}, "tribune": set(CAST.tribunes)}
    mafia_a = s.current_inbox("mafia", A)
    for user in seats:
        for office, holders in offices.items():
            r = game.get(user, f"/games/{GAME}/console/{office}")
            assert r.status_code == (200 if user in holders else 403), (user, office)
        r = game.get(user, f"/games/{GAME}/contacts")
        entitled = user == CAST.procurator or user in CAST.tribunes
        assert r.status_code == (200 if entitled else 403), user
        r = game.get(user, f"/games/{GAME}/inboxes/{mafia_a}")
        may = (s.is_mafia(user) and s.residents[user].city == A) or user == CAST.consigliere
        assert r.status_code == (200 if may else 404), user
    tribune_a = CAST.tribunes[0]
    page = game.get(tribune_a, f"/games/{GAME}/contacts").text
    assert all(f"SECRET-{u}" in page for u in CAST.cities[A])
    assert not any(f"SECRET-{u}" in page for u in CAST.cities[B])
    assert game.get(CAST.procurator, "/games/nope/console/procurator").status_code == 404
    assert game.get(CAST.procurator, f"/games/{GAME}/console/god").status_code == 404
    assert game.get(None, f"/games/{GAME}").status_code == 200


def test_observer_request_from_the_game_page(game: Api) -> None:
    """ROLE-OBS-2: a living resident observes another city; its Tribune sees the notice."""
    s = game.state(GAME)
    user = next(u for u in s.living(B))
    html = game.get(user, f"/games/{GAME}").text
    assert 'data-testid="observe-card"' in html
    submit(game, user, "observe", f"/games/{GAME}", city=A)
    assert user in game.state(GAME).cities[A].observers
    console = game.get(CAST.tribunes[0], f"/games/{GAME}/console/tribune").text
    assert 'data-testid="observers"' in console and user in console
    # twice is a coded rejection on the page
    assert error_code(submit(game, user, "observe", f"/games/{GAME}", city=A)) == "observer_invalid"


def test_bad_forms_csrf_replay_and_unknown_actions(game: Api) -> None:
    """Malformed forms (bad_form), unknown actions, a missing or replayed CSRF token: each a
    translated HTML error with its code, and nothing changes."""
    user = next(iter(game.state(GAME).living(A)))
    page = f"/games/{GAME}/role"
    assert error_code(submit(game, user, "kill", page)) == "field_required"
    assert error_code(submit(game, user, "answer_offer", page, accept="maybe")) == "bad_form"
    assert error_code(submit(game, user, "fly", page)) == "unknown_command"
    version = game.state(GAME)
    r = game.client.post(f"/games/{GAME}/do/suicide", data={"next": page}, headers=game.headers(user))
    assert r.status_code == 403 and "csrf_invalid" in r.text and "<html" in r.text
    tok = token(game, user, page)
    r = game.client.post(f"/games/{GAME}/do/renew", data={"csrf_token": tok, "inbox": "x"},
                         headers=game.headers(user), follow_redirects=False)
    assert r.status_code == 303
    r = game.client.post(f"/games/{GAME}/do/suicide", data={"csrf_token": tok},
                         headers=game.headers(user))
    assert r.status_code == 403 and "csrf_invalid" in r.text
    en = game.client.post(f"/games/{GAME}/do/suicide?lang=en", data={"csrf_token": tok},
                          headers=game.headers(user))
    assert "already sent" in en.text
    assert game.state(GAME).cities[A].suicides == version.cities[A].suicides


def test_websocket_origin_check(game: Api) -> None:
    """Cross-site WebSocket hijacking: a foreign Origin is refused at the handshake; the
    site's own origin and clients without Origin (CLI, bots) are served."""
    evil = {"origin": "https://evil.example"}
    with pytest.raises(WebSocketDisconnect), game.client.websocket_connect("/ws", headers=evil) as ws:
        ws.send_json({"type": "ping"})
        ws.receive_json()
    for headers in ({"origin": "http://testserver"}, {}):
        with game.client.websocket_connect("/ws", headers=headers) as ws:
            ws.send_json({"type": "ping"})
            assert ws.receive_json()["type"] == "pong"


def test_expired_session_redirects_to_login(tmp_path: Path) -> None:
    """An expired session on a page: to the login page with the translated reason."""
    for api in make_api(tmp_path, session_ttl_hours=1):
        api.register("ivan")
        api.clock.advance(timedelta(hours=2))
        r = api.client.get("/games/new", headers=api.headers("ivan"), follow_redirects=False)
        assert r.status_code == 303 and r.headers["location"].startswith("/login?next=/games/new")
        login = api.client.get(r.headers["location"])
        assert "session_expired" in login.text


def test_game_end_reveals_every_role_on_the_game_page(tmp_path: Path) -> None:
    """§9.4: the mafioso executed, the city decided, GameEnded opens every role."""
    cast = default_cast(1, 5)
    for api in make_api(tmp_path):
        setup_game_via_api(api, "end", cast, {"population_per_city": 5})
        api.advance_to(at(2, "10:05"))
        s = api.state("end")
        (city,) = s.cities
        mafia = s.living_mafia(city)
        honest = [u for u in s.living(city) if u not in mafia]
        for target in mafia[:1]:
            for voter in honest[:2]:
                api.ok(voter, "end", "Nominate", candidate=target)
        api.advance_to(at(2, "20:05"))
        box = api.state("end").current[f"voting:{city}/{mafia[0]}"]
        for voter in honest:
            api.ok(voter, "end", "PostMessage", inbox=box, text="казнить")
        api.advance_to(at(3, "02:00"))
        if len(mafia) > 1:
            pytest.skip("two mafiosi: one execution does not end the game")
        s = api.state("end")
        assert s.stage.value == "finished", s.stage
        html = api.get(honest[0], "/games/end").text
        assert 'data-testid="game-ended"' in html
        for user in s.residents:
            assert re.search(rf"{user} — (Мафиози|Честный|mafia|honest|[^<]+)", html), user
        assert s.consigliere in html


def test_the_consigliere_answers_a_check_from_his_console(tmp_path: Path) -> None:
    """COMM-4 (AMB-20), commissar_check_mode = consigliere: the question shows the city and the
    target only; the answer is a two-button form; an untrue answer is refused with its code."""
    for api in make_api(tmp_path):
        setup_game_via_api(api, "asked", CAST, settings={"commissar_check_mode": "consigliere"})
        api.advance_to(at(1, "10:05"))
        s = api.state("asked")
        pool = s.living(A)
        honest = next(u for u in pool if not s.is_mafia(u))
        api.offer_to(CAST.procurator, "asked", A, honest)
        api.ok(honest, "asked", "AnswerCommissarOffer", accept=True)
        api.advance_to(at(3, "01:05"))
        target = next(u for u in api.state("asked").living(A) if u != honest)
        api.ok(honest, "asked", "CheckResident", target=target)
        console = "/games/asked/console/consigliere"
        page = api.get(CAST.consigliere, console).text
        assert 'data-testid="answer-check"' in page and target in page and honest not in page.split(
            'data-testid="answer-check"')[1].split("</form>")[0]
        truth = api.state("asked").residents[target].faction.value  # type: ignore[union-attr]
        wrong = "honest" if truth == "mafia" else "mafia"
        landed = submit(api, CAST.consigliere, "answer_check", console, game="asked", city=A, answer=wrong)
        assert error_code(landed) == "check_answer_untrue"
        submit(api, CAST.consigliere, "answer_check", console, game="asked", city=A, answer=truth)
        assert not api.state("asked").cities[A].check_pending
