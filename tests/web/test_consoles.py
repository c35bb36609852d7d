"""The four consoles as their hosts read them (issue 12): a task list first, tools in
words, Moscow times, errors beside the field in words. Assertions are on the rendered
text a person reads — never a code, a field name or a bare rule id.

Cast: ``small_cast()`` — two cities of six (no Supreme Court: fewer than 4 cities), the
Procurator, the Consigliere, the Arbiter and two Tribunes; the game starts on Day 1
(1 December) at 10:00 Moscow time. Checks are answered by the Consigliere here.
"""

from __future__ import annotations

import html as html_lib
import json
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from .conftest import Api, at, make_api, setup_game_via_api, small_cast
from .test_pages import error_code, submit, token

CAST = small_cast()
A, B = list(CAST.cities)
GAME = "pages"
RULE_ID = re.compile(r"\b[A-Z]{2,}(?:-[A-Z]+)*-[A-Z]?\d+\b")


def shown(page: str) -> str:
    """What a person reads: the text of the page's body, without markup, scripts or attributes."""
    body = page.split("<body", 1)[-1]
    body = re.sub(r"<(script|style)\b.*?</\1>", " ", body, flags=re.S)
    body = re.sub(r"<!--.*?-->|\{#.*?#\}", " ", body, flags=re.S)
    return re.sub(r"\s+", " ", html_lib.unescape(re.sub(r"<[^>]+>", " ", body)))


def section(page: str, testid: str) -> str:
    start = page.index(f'data-testid="{testid}"')
    return shown(page[start:start + 8000])


def duties(api: Api, user: str, office: str) -> str:
    """The console's task list as its live region serves it."""
    r = api.get(user, f"/games/{GAME}/console/{office}/part/duties")
    assert r.status_code == 200, r.text
    return shown(r.text)


def error_text(page: str) -> str:
    """The refusal's sentence, as the page shows it."""
    found = re.search(r'data-testid="error".*?<span class="message">(.*?)</span>', page, flags=re.S)
    assert found, "no refusal shown"
    return html_lib.unescape(found.group(1))


def kept(page: str) -> dict[str, str]:
    """The input the refused form gets back."""
    return dict(json.loads(html_lib.unescape(page.split("data-kept='", 1)[1].split("'", 1)[0])))


def post_form(api: Api, actor: str, action: str, page: str, fields: dict[str, str]) -> str:
    """``submit`` for a form with a field named ``user``: the page it lands on."""
    data = {"csrf_token": token(api, actor, page), "next": page, **fields}
    r = api.client.post(f"/games/{GAME}/do/{action}", data=data, headers=api.headers(actor),
                        follow_redirects=False)
    assert r.status_code == 303, r.text
    landed = api.get(actor, r.headers["location"])
    api.client.cookies.delete("lp_flash")
    return str(landed.text)


def no_internals(page: str) -> None:
    text = shown(page)
    assert not RULE_ID.search(text), RULE_ID.search(text)
    for word in ("bad_form", "field_required", "opens_at", "closes_at", "_date", "_time", "None"):
        assert word not in text, word
    assert 'type="datetime-local"' not in page and 'type="date"' not in page and 'type="time"' not in page


@pytest.fixture
def game(tmp_path: Path) -> Iterator[Api]:
    for api in make_api(tmp_path):
        setup_game_via_api(api, GAME, CAST, settings={"commissar_check_mode": "consigliere"})
        api.advance_to(at(1, "10:05"))
        yield api


def test_the_arbiter_of_a_game_without_a_court_reads_one_sentence(game: Api) -> None:
    """JUDGE-1 (a Court from 4 cities): in a two-city game the Arbiter's console says there is
    no Supreme Court, lists no judge, pardon or election, and a forged election form is
    refused in words and changes nothing."""
    page = game.get(CAST.arbiter, f"/games/{GAME}/console/arbiter").text
    text = shown(page)
    assert "В этой игре нет Верховного суда (меньше 4 городов)" in text
    for absent in ("Судьи пока нет", "Выборы судей", "Назначить выборы судьи", "помилования закроется"):
        assert absent not in text, absent
    assert "Частные обвинения" in text or "Частное обвинение" in text
    no_internals(page)
    landed = submit(game, CAST.arbiter, "schedule_judge", f"/games/{GAME}/console/arbiter", city=A,
                    opens_at_date="2026-12-01", opens_at_time="18:00",
                    closes_at_date="2026-12-01", closes_at_time="21:00")
    assert error_code(landed) == "no_election_needed"
    assert game.state(GAME).cities[A].election is None


def test_the_procurators_day_one_offers_and_a_ban_in_words(game: Api) -> None:
    """COMM-APPT-1, PLAYER-7, OMERTA-2: on Day 1 the Procurator's task list asks for one offer
    per city, «attempt 1 of 3», with what happens if nobody acts; after the offer the tool
    explains it (to whom, answer by 14:05 MSK). The ban form names violations in words and
    preselects nobody; a ban without a player is refused beside «Пользователь», the reason
    kept; with one it is recorded."""
    console = f"/games/{GAME}/console/procurator"
    tasks = duties(game, CAST.procurator, "procurator")
    assert f"Предложить значок комиссара · {A} (попытка 1 из 3)" in tasks
    assert "Если никто не действует, у города сегодня не будет комиссара." in tasks
    candidate = CAST.cities[A][2]
    game.offer_to(CAST.procurator, GAME, A, candidate)
    page = game.get(CAST.procurator, console).text
    offers = section(page, "offers")
    assert re.search(rf"{A} ?: сделано попыток: 1 из 3", offers)
    assert f"Попытка 1: {candidate} — ждём ответа до 01.12 14:05 МСК" in offers
    assert f"{A} (попытка" not in duties(game, CAST.procurator, "procurator"), "the done duty is gone"
    assert offers.count("Предложить значок") == 1, "no second offer while one is pending"

    ban = section(page, "sanction")
    assert "Нарушение омерты" in ban and "Подделка доказательств" in ban
    assert re.search(r'<select id="sn-u" name="user" required><option value="" selected>', page)
    no_internals(page)
    landed = post_form(game, CAST.procurator, "sanction", console, {
        "user": "", "rule": "OMERTA-2", "until": "2027-01-01", "reason": "Слил роли в телеграме"})
    assert error_code(landed) == "field_required"
    assert error_text(landed) == "Заполните поле «Пользователь»"
    assert kept(landed)["reason"] == "Слил роли в телеграме"
    assert game.state(GAME).records.sanctions == ()
    offender = CAST.cities[B][0]
    landed = post_form(game, CAST.procurator, "sanction", console, {
        "user": offender, "rule": "OMERTA-2", "until": "2027-01-01", "reason": "Слил роли в телеграме"})
    assert error_code(landed) is None
    assert f"{offender} · Нарушение омерты · до 01.01.2027" in section(landed, "sanction-tool")


def test_the_procurator_previews_his_contest_inside_todays_day_post(game: Api) -> None:
    """HOST-PROC-5, POST-2: the preview shows the addition inside today's published Day Post
    and records nothing; publishing adds it there; an empty title is refused in words."""
    console = f"/games/{GAME}/console/procurator"
    page = game.get(CAST.procurator, console).text
    r = game.client.post(f"/games/{GAME}/console/procurator/preview", headers=game.headers(CAST.procurator),
                         data={"csrf_token": token(game, CAST.procurator, console), "title": "Шарада",
                               "text": "Мой первый слог — нота"})
    assert r.status_code == 200
    composer = section(r.text, "daypost-composer")
    assert "Предпросмотр, не опубликовано" in composer and "Мой первый слог — нота" in composer
    assert "День 1" in composer
    assert game.state(GAME).records.contests == ()
    landed = submit(game, CAST.procurator, "publish_contest", console, title="", text="Текст")
    assert "Заполните поле «Название»" in shown(landed)
    assert game.state(GAME).records.contests == ()
    landed = submit(game, CAST.procurator, "publish_contest", console, title="Шарада", text="Мой первый слог")
    assert error_code(landed) is None
    assert "Шарада или конкурс №1: Шарада" in section(landed, "daypost-composer")
    no_internals(page)


def test_the_tribunes_day_one_and_day_two_on_one_screen(game: Api) -> None:
    """START-1, EXEC-3, TIME-7, EXEC-4: on Day 1 the Tribune reads that there is no execution
    and no schedule form; on Day 2 nominations are grouped by candidate with their
    nominators, the schedule is prefilled with the settings' 20:00–23:30 (Moscow), a time
    typed «25:99» is refused in words naming «Открывается», and the task leaves the list
    once the vote opens."""
    tribune = CAST.tribunes[0]
    console = f"/games/{GAME}/console/tribune"
    page = game.get(tribune, console).text
    assert "День 1: голосования о казни сегодня нет." in shown(page)
    assert 'data-testid="schedule-vote"' not in page
    no_internals(page)

    game.advance_to(at(2, "10:05"))
    residents = CAST.cities[A]
    candidate = residents[0]
    for nominator in residents[1:3]:
        game.ok(nominator, GAME, "Nominate", candidate=candidate)
    page = game.get(tribune, console).text
    nominations = section(page, "nominations").split("Доверенности")[0]
    assert f"{candidate} 2 номинации: {residents[1]}, {residents[2]}" in nominations
    assert nominations.count(candidate) == 1
    assert 'name="opens_at_time" type="text"' in page and 'value="20:00"' in page and 'value="23:30"' in page
    assert "Голосование · " + A + " назначено; его можно перенести" in duties(game, tribune, "tribune")
    no_internals(page)

    landed = submit(game, tribune, "schedule_vote", console, city=A, opens_at_date="2026-12-02",
                    opens_at_time="25:99", closes_at_date="2026-12-02", closes_at_time="23:30")
    assert error_code(landed) == "field_time"
    assert error_text(landed) == "«Открывается»: укажите московское время как ЧЧ:ММ, например 14:00"
    assert 'data-field="opens_at_time"' in landed and kept(landed)["opens_at_time"] == "25:99"
    assert game.state(GAME).cities[A].vote_opens_at == at(2, "20:00")
    landed = submit(game, tribune, "schedule_vote", console, city=A, opens_at_date="2026-12-02",
                    opens_at_time="21:00", closes_at_date="2026-12-02", closes_at_time="23:30")
    assert error_code(landed) is None
    assert game.state(GAME).cities[A].vote_opens_at == at(2, "21:00")
    game.advance_to(at(2, "21:01"))
    assert A + " назначено" not in duties(game, tribune, "tribune")

    # EXEC-5, EXEC-14: the city's block is a live region: the tally as votes come, then the result.
    box = game.state(GAME).current[f"voting:{A}/{candidate}"]
    for voter in residents[1:3]:
        game.ok(voter, GAME, "PostMessage", inbox=box, text="казнить")
    block = game.get(tribune, f"/games/{GAME}/console/tribune/part/city/1")
    assert block.status_code == 200 and block.headers["X-Live-Seq"]
    tally = section(block.text, "tribune-tally")
    assert "Подсчёт, в реальном времени" in shown(block.text) and f"{candidate} 2" in tally
    assert 'data-live-city="' + A + '"' in game.get(tribune, console).text
    game.advance_to(at(2, "23:31"))
    result = section(game.get(tribune, f"/games/{GAME}/console/tribune/part/city/1").text, "vote-result")
    assert f"Итог: осуждён {candidate}" in result, result
    assert game.get(tribune, f"/games/{GAME}/console/tribune/part/city/9").status_code == 404


def test_the_consigliere_answers_a_pending_check_before_its_deadline(game: Api) -> None:
    """COMM-4 (AMB-20), SEC-3: a commissar's check reaches the Consigliere's task list and
    check channel with the city and the target, never the commissar, and its deadline in
    Moscow time; the answer removes it from the list."""
    commissar = next(u for u in CAST.cities[A] if not game.state(GAME).is_mafia(u))
    game.offer_to(CAST.procurator, GAME, A, commissar)
    game.ok(commissar, GAME, "AnswerCommissarOffer", accept=True)
    game.advance_to(at(3, "02:35"))
    s = game.state(GAME)
    assert s.checks_open, "checks are open on night 2"
    target = next(u for u in s.living(A) if u != commissar)
    game.ok(commissar, GAME, "CheckResident", target=target)
    tasks = duties(game, CAST.consigliere, "consigliere")
    assert f"Ответить на проверку · {A}" in tasks and "до 03.12" in tasks and "МСК" in tasks
    assert "платформа ответит правдиво" in tasks
    page = game.get(CAST.consigliere, f"/games/{GAME}/console/consigliere").text
    channel = section(page, "check-log")
    assert f"Комиссар города {A} спрашивает о {target}" in channel and "Ответить до 03.12" in channel
    assert commissar not in channel
    no_internals(page)
    landed = submit(game, CAST.consigliere, "answer_check", f"/games/{GAME}/console/consigliere", city=A,
                    answer="mafia" if s.is_mafia(target) else "honest")
    assert error_code(landed) is None
    assert "Ответить на проверку" not in duties(game, CAST.consigliere, "consigliere")


def test_no_one_but_the_office_opens_a_console_or_its_task_list(game: Api) -> None:
    """§9: a resident gets 403 for a console and its live task list; the contacts page shows
    its Tribune the log of reads of his residents' contacts (SEC-13)."""
    resident = CAST.cities[A][0]
    for office in ("procurator", "tribune", "arbiter", "consigliere"):
        assert game.get(resident, f"/games/{GAME}/console/{office}").status_code == 403
        assert game.get(resident, f"/games/{GAME}/console/{office}/part/duties").status_code == 403
    tribune = CAST.tribunes[0]
    game.get(tribune, f"/games/{GAME}/contacts")
    page = game.get(tribune, f"/games/{GAME}/contacts").text
    reads = section(page, "contact-reads")
    assert f"{tribune} {CAST.cities[A][0]} да" in reads
    assert CAST.cities[B][0] not in reads
