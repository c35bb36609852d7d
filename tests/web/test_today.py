"""The "today" panel, the nomination, the confirm step and the grouped inbox list (issue 11;
review M2, M4, M5, M6, M11, m12), as a player lives through Days 1–3.

Cast: ``small_cast()`` — Лепроград (p01_01 … p01_06) and Лепросицилия, the Procurator
«procurator», the Tribunes tribune1/tribune2. The honest resident «ivan» is the first honest
resident of Лепроград, «olga» another; «kommissar» is offered and accepts the badge on Day 1.
Rules proved: START-1 and EXEC-3 (no nominations on Day 1; one nominee, replaceable until the
vote opens), EXEC-5 (the day's voting inboxes), COMM-4 (the first check on Night 2), SUICIDE-1
(confirmed first), §9 (the panel shows only the viewer's own duties).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from lepromafia.engine.state import GameState

from .conftest import Api, at, make_api, setup_game_via_api, small_cast

CAST = small_cast()
A, B = list(CAST.cities)
GAME = "today"
TOKEN = re.compile(r'name="csrf_token" value="([^"]+)"')


def honest(s: GameState, city: str) -> list[str]:
    return [u for u in CAST.cities[city] if not s.is_mafia(u)]


def today_panel(html: str) -> str:
    start = html.index('data-testid="today"')
    return html[start:html.index("</section>", start)]


def page(api: Api, user: str | None, path: str) -> str:
    r = api.get(user, path)
    assert r.status_code == 200, (path, r.status_code, r.text[:300])
    return str(r.text)


def post_form(api: Api, user: str, path: str, referer: str, **fields: Any) -> Any:
    token = TOKEN.search(page(api, user, referer))
    assert token
    return api.client.post(path, data={"csrf_token": token.group(1), "next": referer, **fields},
                           headers=api.headers(user), follow_redirects=False)


@pytest.fixture(scope="module")
def game(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Api]:
    for api in make_api(Path(tmp_path_factory.mktemp("today"))):
        setup_game_via_api(api, GAME, CAST)
        api.advance_to(at(1, "10:05"))
        yield api


def test_day_1_says_when_nominations_come_and_each_seat_reads_its_status(game: Api) -> None:
    """START-1, EXEC-3: on Day 1 no nomination form anywhere; the panel and the role card say
    «Номинации — со Дня 2». A guest, a host and a resident each read their own status."""
    s = game.state(GAME)
    ivan = honest(s, A)[0]
    html = page(game, ivan, f"/games/{GAME}")
    panel = today_panel(html)
    assert "День 1" in panel and "Номинации — со Дня 2." in panel
    assert f"Вы живёте в городе {A}, вы живы." in panel
    assert 'data-kind="nominate"' not in panel
    role = page(game, ivan, f"/games/{GAME}/role")
    assert 'data-testid="nominate-form"' not in role and "Номинации — со Дня 2." in role
    assert "Вы смотрите как гость." in today_panel(page(game, None, f"/games/{GAME}"))
    host = today_panel(page(game, CAST.procurator, f"/games/{GAME}"))
    assert "Вы ведущий этой игры: Прокуратор." in host
    assert "Номинации" not in host  # a host has no nomination to wait for


def test_the_commissar_s_first_night_names_night_2_instead_of_a_form(game: Api) -> None:
    """COMM-4 (review M11): the commissar appointed on Day 1 finds no check form on Night 1,
    only «Первая проверка — в Ночь 2»; the same sentence is in his today panel."""
    s = game.state(GAME)
    kommissar = honest(s, A)[1]
    game.offer_to(CAST.procurator, GAME, A, kommissar)
    game.ok(kommissar, GAME, "AnswerCommissarOffer", accept=True)
    game.advance_to(at(2, "00:30"))
    s = game.state(GAME)
    assert s.phase.value == "night" and s.cities[A].commissar == kommissar
    role = page(game, kommissar, f"/games/{GAME}/role")
    assert 'data-testid="check-form"' not in role and "Первая проверка — в Ночь 2." in role
    assert "Первая проверка — в Ночь 2." in today_panel(page(game, kommissar, f"/games/{GAME}"))
    other = honest(s, A)[0]
    assert "проверка" not in today_panel(page(game, other, f"/games/{GAME}")).lower()  # §9


def test_day_2_nomination_has_no_preselected_candidate_and_echoes_with_its_deadline(game: Api) -> None:
    """EXEC-3 (review M5): Day 2, 10:00. The panel lists «Nominate» with its deadline and a
    link to the form; the form starts at «— выберите —»; a nomination is echoed in words with
    the moment it may still be replaced; an empty choice is refused and changes nothing."""
    game.advance_to(at(2, "10:00"))
    s = game.state(GAME)
    ivan, olga = honest(s, A)[0], honest(s, A)[2]
    panel = today_panel(page(game, ivan, f"/games/{GAME}"))
    assert 'data-kind="nominate"' in panel and f'href="/games/{GAME}/role#nominate"' in panel
    assert "до 20:00 МСК" in panel
    role = page(game, ivan, f"/games/{GAME}/role")
    form = role[role.index('data-testid="nominate-form"'):]
    form = form[:form.index("</form>")]
    assert '<option value="" selected disabled>— выберите —</option>' in form
    assert form.count("selected") == 1
    refused = post_form(game, ivan, f"/games/{GAME}/do/nominate", f"/games/{GAME}/role", candidate="")
    assert refused.status_code == 303 and game.state(GAME).cities[A].nominations.get(ivan) is None
    game.client.cookies.delete("lp_flash")
    r = post_form(game, ivan, f"/games/{GAME}/do/nominate", f"/games/{GAME}/role", candidate=olga)
    landed = page(game, ivan, r.headers["location"])
    game.client.cookies.delete("lp_flash")
    assert f"Ваша номинация: {olga} (можно заменить до 20:00 МСК)" in landed
    assert game.state(GAME).cities[A].nominations[ivan] == olga
    personal = next(i.id for i in game.state(GAME).inboxes.values()
                    if i.kind == "personal" and i.subject == ivan and not i.archived)
    inbox = page(game, ivan, f"/games/{GAME}/inboxes/{personal}")
    assert 'data-testid="nominate-form"' in inbox and f"Ваша номинация: {olga}" in inbox


def test_the_vote_puts_today_s_voting_inboxes_in_the_panel_and_marks_one_s_vote(game: Api) -> None:
    """EXEC-5 (review M2, M4): at 20:01 the panel links each candidate's voting inbox with the
    close «до 23:30 МСК» as countdown and clock time; after «казнить» the chosen candidate is
    marked as the viewer's vote. Another city's resident is not sent to Лепроград's vote."""
    s = game.state(GAME)
    ivan, olga = honest(s, A)[0], honest(s, A)[2]
    game.advance_to(at(2, "20:01"))
    s = game.state(GAME)
    assert s.cities[A].voting is not None
    panel = today_panel(page(game, ivan, f"/games/{GAME}"))
    assert 'data-kind="vote"' in panel and "до 23:30 МСК" in panel
    assert 'class="countdown"' in panel and 'data-testid="today-deadline"' in panel
    box = next(i.id for i in s.inboxes.values() if i.kind == "voting" and i.subject == olga and not i.archived)
    game.ok(ivan, GAME, "PostMessage", inbox=box, text="казнить")
    panel = today_panel(page(game, ivan, f"/games/{GAME}"))
    assert re.search(rf'class="chip mine"[^>]*aria-current="true">{olga} ✓', panel)
    foreign = CAST.cities[B][0]
    assert box not in today_panel(page(game, foreign, f"/games/{GAME}"))


def test_since_the_last_visit_lists_what_happened_in_between(game: Api) -> None:
    """What changed since the viewer last opened the game page: the vote's close, the night.
    Live refreshes of the panel do not move the marker; a second look shows «Ничего нового»."""
    s = game.state(GAME)
    olga = honest(s, A)[2]
    page(game, olga, f"/games/{GAME}")  # her visit at 20:01+
    game.advance_to(at(3, "00:30"))
    part = page(game, olga, f"/games/{GAME}/part/today")  # a live refresh: the marker stays
    assert "Наступила Ночь 2." in part
    panel = today_panel(page(game, olga, f"/games/{GAME}"))
    assert "Наступила Ночь 2." in panel and f"Голосование в городе {A} закрыто" in panel
    assert "Ничего нового." in today_panel(page(game, olga, f"/games/{GAME}"))


def test_suicide_asks_for_confirmation_without_javascript(game: Api) -> None:
    """SUICIDE-1 (review m12): vera, a living honest resident. The first POST answers with a confirmation page and changes
    nothing; «Да, подтверждаю» re-posts with ``confirmed`` and the suicide is declared. The
    form sits behind «Ещё» with the other rare acts."""
    game.advance_to(at(3, "10:00"))
    s = game.state(GAME)
    vera = [u for u in honest(s, A) if s.residents[u].alive][-1]
    role = page(game, vera, f"/games/{GAME}/role")
    more = role[role.index('data-testid="more-actions"'):]
    assert more.index('data-testid="suicide"') < more.index("</details>")
    assert "<summary>Ещё" in more
    first = post_form(game, vera, f"/games/{GAME}/do/suicide", f"/games/{GAME}/role")
    assert first.status_code == 200 and 'data-testid="confirm"' in first.text
    assert vera not in game.state(GAME).cities[A].suicides
    token = TOKEN.search(first.text)
    assert token and 'name="confirmed" value="yes"' in first.text
    r = game.client.post(f"/games/{GAME}/do/suicide", headers=game.headers(vera), follow_redirects=False,
                         data={"csrf_token": token.group(1), "next": f"/games/{GAME}/role", "confirmed": "yes"})
    assert r.status_code == 303 and vera in game.state(GAME).cities[A].suicides
    game.client.cookies.delete("lp_flash")


def test_the_inbox_list_groups_by_day_with_one_counter_per_row(game: Api) -> None:
    """Review M6, Day 3: «Сегодня · День 3» first, Day 2's voting inboxes under «День 2»
    (collapsed), renewed inboxes under «Архив»; each row names its day; a row shows either its
    unread badge or its message count, never both."""
    s = game.state(GAME)
    ivan = honest(s, A)[0]
    html = page(game, ivan, f"/games/{GAME}/inboxes")
    assert html.index('data-testid="inbox-group-today"') < html.index('data-testid="inbox-group-day-2"')
    assert "Сегодня · День 3" in html
    day2 = html[html.index('data-testid="inbox-group-day-2"'):]
    day2 = day2[:day2.index("</details>")]
    assert 'data-kind="voting"' in day2 and "· День 2" in day2
    assert not re.search(r"<details[^>]*inbox-group-day-2[^>]*open", html) or 'data-testid="unread"' in day2
    if 'data-testid="inbox-group-archive"' in html:
        assert html.index('data-testid="inbox-group-day-2"') < html.index('data-testid="inbox-group-archive"')
    for row in re.findall(r"<li class=\"[^\"]*\" data-kind=.*?</li>", html, re.S):
        assert not ('data-testid="unread"' in row and 'class="count' in row)


def test_the_unread_badge_is_a_live_region_and_leads_the_tab_title(game: Api) -> None:
    """Review M1: petr's three messages in the city inbox raise ivan's count; the badge's
    region (re-fetched by live.js) and the page title both carry it: «(3) …»."""
    s = game.state(GAME)
    ivan = honest(s, A)[0]
    petr = next(u for u in s.living(A) if u != ivan)
    city = s.current_inbox("city", A)
    page(game, ivan, f"/games/{GAME}/inboxes/{city}")  # read up to now
    before = int(re.search(r'data-unread-total="(\d+)"', page(game, ivan, f"/games/{GAME}/part/unread")).group(1))  # type: ignore[union-attr]
    for text in ("раз", "два", "три"):
        game.ok(petr, GAME, "PostMessage", inbox=city, text=text)
    badge = page(game, ivan, f"/games/{GAME}/part/unread")
    assert f'data-unread-total="{before + 3}"' in badge
    html = page(game, ivan, f"/games/{GAME}")
    assert re.search(rf"<title>\({before + 3}\) ", html)
    assert 'id="unread-region" data-live-src' in html and "MessagePosted" in html


def test_registration_takes_a_cyrillic_display_name_and_an_ascii_login(game: Api) -> None:
    """Review m6: «Вася Пупкин» is a display name; the login stays ASCII. A Cyrillic login
    is refused beside its field, with both inputs kept."""
    form = page(game, None, "/register")
    token = TOKEN.search(form)
    assert token and 'name="display_name"' in form
    bad = game.client.post("/register", data={"csrf_token": token.group(1), "login": "вася",
                                              "display_name": "Вася Пупкин", "password": "correct-horse-42"},
                           headers={"authorization": "Bearer -"})
    assert bad.status_code == 422 and "login_invalid" in bad.text and 'value="Вася Пупкин"' in bad.text
    token = TOKEN.search(page(game, None, "/register"))
    assert token
    ok = game.client.post("/register", data={"csrf_token": token.group(1), "login": "vasya_p",
                                             "display_name": "Вася Пупкин", "password": "correct-horse-42"},
                          headers={"authorization": "Bearer -"}, follow_redirects=False)
    assert ok.status_code == 303
    user = game.client.portal.call(game.web.accounts.user, "vasya_p")  # type: ignore[union-attr]
    assert user is not None and user.display_name == "Вася Пупкин"
    game.client.cookies.clear()


def test_api_docs_are_served_locally(game: Api) -> None:
    """Review M8: /docs loads Swagger UI from /static/vendor (the npm package, copied at build
    time), so it works offline; its CSP names no CDN."""
    r = game.client.get("/docs")
    assert r.status_code == 200
    assert "/static/vendor/swagger-ui/swagger-ui-bundle.js" in r.text and "jsdelivr" not in r.text
    assert "jsdelivr" not in r.headers["content-security-policy"]
    assert game.client.get("/static/vendor/swagger-ui/swagger-ui-bundle.js").status_code == 200
