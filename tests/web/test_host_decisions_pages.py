"""The remaining [HOST] decisions as page forms: the Procurator's contests, sanctions,
combinations, impeachments and no-confidence complaints; a Tribune's delegation; the
Consigliere's ambush order and mafia relay review; the residents' side on the role card.

Cast: ``small_cast()`` (two cities of six; the Procurator, the Consigliere, the Arbiter,
two Tribunes). Each form: one success, one coded rejection that changes nothing.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from .conftest import Api, at, make_api, setup_game_via_api, small_cast
from .test_pages import error_code, submit, token

CAST = small_cast()
A, B = list(CAST.cities)
GAME = "pages"
PROCURATOR = f"/games/{GAME}/console/procurator"
TRIBUNE = f"/games/{GAME}/console/tribune"
CONSIGLIERE = f"/games/{GAME}/console/consigliere"
ROLE = f"/games/{GAME}/role"


@pytest.fixture
def game(tmp_path: Path) -> Iterator[Api]:
    for api in make_api(tmp_path):
        setup_game_via_api(api, GAME, CAST)
        api.advance_to(at(1, "10:05"))
        yield api


def submit_fields(api: Api, who: str, action: str, page: str, fields: dict[str, Any],
                  game: str = GAME) -> str:
    """``submit`` for forms that have a field called ``user``."""
    data = {"csrf_token": token(api, who, page), "next": page, **fields}
    r = api.client.post(f"/games/{game}/do/{action}", data=data, headers=api.headers(who),
                        follow_redirects=False)
    assert r.status_code == 303, r.text
    landed = api.get(who, r.headers["location"])
    api.client.cookies.delete("lp_flash")
    return str(landed.text)


def local(day: int, hhmm: str) -> str:
    return at(day, hhmm).strftime("%Y-%m-%dT%H:%M")


def mafioso_of(api: Api, city: str) -> str:
    s = api.state(GAME)
    return next(u for u in s.cities[city].residents if s.is_mafia(u))


def honest_of(api: Api, city: str) -> list[str]:
    s = api.state(GAME)
    return [u for u in s.cities[city].residents if not s.is_mafia(u)]


def test_a_contest_is_published_in_the_day_post_and_its_results_recorded(game: Api) -> None:
    """HOST-PROC-5, POST-2, AMB-42: a Tribune cannot publish (not_procurator); the Procurator's
    charade shows under the next Day Post; its results are recorded once (already_decided)."""
    html = submit(game, CAST.tribunes[0], "publish_contest", TRIBUNE, title="Шарада", text="Мой первый…")
    assert error_code(html) == "not_procurator"
    assert game.state(GAME).records.contests == ()

    assert 'data-testid="publish-contest"' in game.get(CAST.procurator, PROCURATOR).text
    html = submit(game, CAST.procurator, "publish_contest", PROCURATOR, title="Шарада дня",
                  text="Мой первый слог — нота")
    assert error_code(html) is None
    (contest,) = game.state(GAME).records.contests
    assert (contest.title, contest.day) == ("Шарада дня", 1)
    assert 'data-contest="1"' in html
    page = game.get(CAST.cities[A][0], f"/games/{GAME}").text
    posted = page[page.index('data-testid="daypost-contest"'):]
    assert "Шарада дня" in posted and "Мой первый слог — нота" in posted

    player = CAST.cities[A][0]
    html = submit(game, CAST.procurator, "contest_results", PROCURATOR, contest="1",
                  participants=[player], results="Угадал один", consequences="")
    assert error_code(html) is None
    assert game.state(GAME).records.contests[0].results_recorded
    assert error_code(submit(game, CAST.procurator, "contest_results", PROCURATOR, contest="1",
                             participants=[player], results="Ещё раз")) == "already_decided"


def test_a_sanction_is_recorded_for_life_but_not_for_a_past_date(game: Api) -> None:
    """OMERTA-2, PLAYER-7: a ban ending in the past is sanction_invalid and records nothing;
    one for life is recorded and listed on the console."""
    user = CAST.cities[B][2]
    html = submit_fields(game, CAST.procurator, "sanction", PROCURATOR, {
        "user": user, "rule": "OMERTA-2", "until": at(1, "00:00").date().isoformat(),
        "reason": "Назвал Консильери"})
    assert error_code(html) == "sanction_invalid"
    assert game.state(GAME).records.sanctions == ()
    html = submit_fields(game, CAST.procurator, "sanction", PROCURATOR, {
        "user": user, "rule": "OMERTA-2", "life": "1", "reason": "Назвал Консильери"})
    assert error_code(html) is None
    (sanction,) = game.state(GAME).records.sanctions
    assert (sanction.user, sanction.rule, sanction.until) == (user, "OMERTA-2", None)
    assert "пожизненно" in html


def test_a_combination_of_offices_is_acknowledged_from_the_console(game: Api) -> None:
    """HOST-2: in a game where the Procurator is also the Arbiter the console shows the
    combination; a user without one is no_combination; the acknowledgement is recorded."""
    other = "combo"
    r = game.post(CAST.procurator, "/api/games", {"game_id": other, "title": "Комбо",
                                                  "settings": {"city_count": 2, "population_per_city": 6},
                                                  "command_id": game.command_id()})
    assert r.status_code == 201, r.text
    game.ok(CAST.procurator, other, "AppointHost", office="arbiter", user=CAST.procurator)
    console = f"/games/{other}/console/procurator"
    page = game.get(CAST.procurator, console).text
    assert 'data-testid="combination"' in page
    html = submit_fields(game, CAST.procurator, "acknowledge_combination", console,
                         {"user": CAST.consigliere, "reason": "Нет"}, game=other)
    assert error_code(html) == "no_combination"
    assert game.state(other).records.acknowledged == frozenset()
    html = submit_fields(game, CAST.procurator, "acknowledge_combination", console,
                         {"user": CAST.procurator, "reason": "Маленькая игра"}, game=other)
    assert error_code(html) is None
    assert CAST.procurator in game.state(other).records.acknowledged
    assert 'data-testid="combination"' not in html


def test_a_tribune_delegates_his_votes_to_another_tribune_and_revokes(game: Api) -> None:
    """HOST-TRIB-2: delegating to himself is delegation_invalid; to B's Tribune until
    tomorrow is recorded and listed; revoked once, a second revocation is already_decided."""
    mine, other = CAST.tribunes
    html = submit(game, mine, "delegate", TRIBUNE, city=A, delegate=mine, starts_at=local(1, "12:00"),
                  until=local(2, "12:00"), reason="Уезжаю")
    assert error_code(html) == "delegation_invalid"
    assert game.state(GAME).records.delegations == ()
    assert 'data-testid="delegate"' in game.get(mine, TRIBUNE).text
    html = submit(game, mine, "delegate", TRIBUNE, city=A, delegate=other, starts_at=local(1, "12:00"),
                  until=local(2, "12:00"), reason="Уезжаю")
    assert error_code(html) is None
    (d,) = game.state(GAME).records.delegations
    assert (d.city, d.delegate) == (A, other)
    assert 'data-delegation="1"' in html
    assert 'data-delegation="1"' in game.get(other, TRIBUNE).text, "the stand-in sees it too"
    html = submit(game, mine, "revoke_delegation", TRIBUNE, delegation="1", reason="Вернулся")
    assert error_code(html) is None
    assert game.state(GAME).records.delegations[0].revoked
    assert error_code(submit(game, mine, "revoke_delegation", TRIBUNE, delegation="1",
                             reason="Ещё раз")) == "already_decided"


def test_the_consigliere_sets_an_ambush_order_of_living_mafiosi_only(game: Api) -> None:
    """AMBUSH-6: an order naming an honest resident is ambush_order_invalid; the city's
    mafiosi in an order are recorded for the mafia's audience."""
    s = game.state(GAME)
    mafia = s.living_mafia(A)
    html = submit(game, CAST.consigliere, "ambush_order", CONSIGLIERE, city=A,
                  order=f"{mafia[0]}, {honest_of(game, A)[0]}", reason="Так")
    assert error_code(html) == "ambush_order_invalid"
    assert game.state(GAME).records.ambush_orders == ()
    order = ", ".join(reversed(mafia))
    html = submit(game, CAST.consigliere, "ambush_order", CONSIGLIERE, city=A, order=order,
                  reason="Первым просил")
    assert error_code(html) is None
    assert dict(game.state(GAME).records.ambush_orders)[A] == tuple(reversed(mafia))


def test_a_mafia_relay_is_sent_from_the_role_card_and_rejected_by_the_consigliere(game: Api) -> None:
    """MAFIA-COMM-1..3, SEC-5: the mafioso's role card offers the relay (an honest card does
    not); to his own city, or a fish with no tour to answer, is relay_invalid. The
    Consigliere's console lists it; rejecting without a reason is reason_required; with a
    reason the relay is rejected."""
    sender = mafioso_of(game, A)
    assert 'data-testid="send-relay"' in game.get(sender, ROLE).text
    assert 'data-testid="send-relay"' not in game.get(honest_of(game, A)[0], ROLE).text
    html = submit(game, sender, "send_relay", ROLE, to_city=A, kind="message", text="Привет")
    assert error_code(html) == "relay_invalid"
    assert game.state(GAME).records.relays == ()
    html = submit(game, sender, "send_relay", ROLE, to_city=B, kind="fish", text="")
    assert error_code(html) == "relay_invalid"  # MAFIA-COMM-3: no tour of B's mafia in A yet
    html = submit(game, sender, "send_relay", ROLE, to_city=B, kind="message", text="Привет")
    assert error_code(html) is None
    (relay,) = game.state(GAME).records.relays
    assert (relay.from_city, relay.to_city, relay.kind) == (A, B, "message")

    page = game.get(CAST.consigliere, CONSIGLIERE).text
    assert 'data-relay="1"' in page and "сообщение" in page
    html = submit(game, CAST.consigliere, "review_relay", CONSIGLIERE, relay="1", approve="no", reason="")
    assert error_code(html) == "reason_required"
    assert game.state(GAME).records.relays[0].state == "pending"
    html = submit(game, CAST.consigliere, "review_relay", CONSIGLIERE, relay="1", approve="no",
                  reason="Не время")
    assert error_code(html) is None
    assert game.state(GAME).records.relays[0].state != "pending"
    assert 'data-relay="1"' not in html


def test_residents_impeach_their_tribune_and_the_procurator_decides(game: Api) -> None:
    """IMPEACH-1, IMPEACH-2: signing twice is already_signed; at the threshold (2 of 6) the
    demand is filed and shows on the Procurator's console; a 'bonus' outcome without a bonus
    is decision_invalid; 'unfounded' decides it."""
    first, second = CAST.cities[A][0], CAST.cities[A][1]
    assert 'data-testid="sign-impeachment"' in game.get(first, ROLE).text
    assert error_code(submit(game, first, "sign_impeachment", ROLE, grievance="Спит")) is None
    html = submit(game, first, "sign_impeachment", ROLE, grievance="Ещё раз")
    assert "Вы подписали требование." in html
    assert error_code(html) == "already_signed"
    assert error_code(submit(game, second, "sign_impeachment", ROLE, grievance="")) is None
    (imp,) = game.state(GAME).records.impeachments
    assert imp.initiators == (first, second)

    page = game.get(CAST.procurator, PROCURATOR).text
    assert 'data-impeachment="1"' in page
    html = submit(game, CAST.procurator, "decide_impeachment", PROCURATOR, impeachment="1",
                  outcome="bonus", reason="Разберёмся", consulted="1")
    assert error_code(html) == "decision_invalid"
    assert game.state(GAME).records.impeachments[0].outcome is None
    html = submit(game, CAST.procurator, "decide_impeachment", PROCURATOR, impeachment="1",
                  outcome="unfounded", reason="Трибун на месте", consulted="1")
    assert error_code(html) is None
    assert game.state(GAME).records.impeachments[0].outcome == "unfounded"
    assert 'data-impeachment="1"' not in html


def test_no_confidence_is_expressed_on_the_role_card_and_decided_by_the_procurator(game: Api) -> None:
    """NOCONF-1, NOCONF-2: an honest resident is not offered (and may not file) a complaint
    against the Consigliere (not_mafioso); his complaint against the Arbiter reaches the
    Procurator, who cannot give a bonus to an unjustified one (decision_invalid)."""
    honest = honest_of(game, A)[0]
    card = game.get(honest, ROLE).text
    form = card[card.index('data-testid="no-confidence"'):]
    assert 'value="arbiter"' in form and 'value="consigliere"' not in form
    html = submit(game, honest, "no_confidence", ROLE, target="consigliere", text="Не отвечает")
    assert error_code(html) == "not_mafioso"
    assert game.state(GAME).records.complaints == ()
    html = submit(game, honest, "no_confidence", ROLE, target="arbiter", text="Затягивает дело")
    assert error_code(html) is None

    page = game.get(CAST.procurator, PROCURATOR).text
    assert 'data-complaint="1"' in page and "Затягивает дело" in page
    html = submit(game, CAST.procurator, "decide_no_confidence", PROCURATOR, complaint="1",
                  justified="no", reason="Всё в срок", bonus="Иммунитет")
    assert error_code(html) == "decision_invalid"
    assert not game.state(GAME).records.complaints[0].decided
    html = submit(game, CAST.procurator, "decide_no_confidence", PROCURATOR, complaint="1",
                  justified="no", reason="Всё в срок")
    assert error_code(html) is None
    assert game.state(GAME).records.complaints[0].decided
