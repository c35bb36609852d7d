"""The four host consoles in four Chromium contexts, with bots only as residents and no
host action taken through the API (issue 12): the Procurator creates the game on its page,
appoints the Consigliere and the Supreme Arbiter and forms four cities from his console;
the Consigliere seals the deal while the Procurator's task list gains «name the numbers»
live; the Procurator draws the numbers and starts the game; on Day 1 he offers the
commissar's badge (the offer explained as «attempt 1 of 3, answer by …»), previews and
publishes a contest in the Day Post; the Arbiter schedules a judge election from the
prefilled form; the Tribune's console says Day 1 has no execution, and on Day 2 he moves
the vote, first with a mistyped time (refused beside the field, in words, input kept).
Each console is photographed at 1280×800 and 390×844 in Russian and English
(var/screenshots/, not committed).

Cast: the Procurator «prokuror», the Consigliere «konsil», the Arbiter «arbitr», the
Tribunes tribune1…4, twenty residents r01…r20. Rules: HOST-PROC-1, CITY-3, RANDOM-1..4,
START-4, COMM-APPT-1, HOST-PROC-5, JUDGE-ELECT-4, TIME-5, TIME-7, START-1.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest

from lepromafia.engine.calendar import MOSCOW

from .conftest import PASSWORD, LiveServer

GAME = "consoles"
HOSTS = ("prokuror", "konsil", "arbitr")
TRIBUNES = tuple(f"tribune{i}" for i in range(1, 5))
RESIDENTS = tuple(f"r{i:02d}" for i in range(1, 21))
REQUIREMENTS = ["active", "rules_read", "voice_contact", "no_insults", "omerta"]
SHOTS = Path(__file__).resolve().parents[2] / "var" / "screenshots"
SIZES = {"desk": (1280, 800), "phone": (390, 844)}
AXE = Path(__file__).resolve().parents[2] / "node_modules" / "axe-core" / "axe.min.js"
"""axe-core from the npm registry (package.json, devDependencies)."""


@pytest.fixture(scope="module")
def live(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    """A live server with cheap password hashing: 27 accounts register here."""
    server = LiveServer(tmp_path_factory.mktemp("consoles"), argon2_time_cost=1, argon2_memory_kib=1024)
    server.start()
    yield server
    server.stop()


def at(day: int, hh: int, mm: int = 0) -> datetime:
    """Day ``day`` of the game (Day 1 is 1 December) at hh:mm Moscow time."""
    return datetime(2026, 12, day, hh, mm, tzinfo=MOSCOW)


def host(browser: Any, live: LiveServer, user: str) -> Any:
    # bypass_csp: axe-core is injected into the page for the accessibility check
    context = browser.new_context(viewport={"width": 1280, "height": 800}, locale="ru-RU", bypass_csp=True)
    page = context.new_page()
    page.goto(f"{live.url}/login?lang=ru")
    page.fill("#login", user)
    page.fill("#password", PASSWORD)
    page.click("button[type=submit]")
    page.wait_for_url(f"{live.url}/")
    return page


def console(page: Any, live: LiveServer, office: str) -> None:
    page.goto(f"{live.url}/games/{GAME}/console/{office}")
    page.wait_for_selector("[data-testid=duties]")


def submit(page: Any, form: str) -> None:
    page.click(f"{form} button[type=submit]")
    page.wait_for_selector("[data-testid=flash], [data-testid=error]")
    assert not page.query_selector("[data-testid=error]"), page.inner_text("[data-testid=error]")


def photograph(page: Any, live: LiveServer, office: str, moment: str) -> None:
    """The console at both sizes in both languages; the page's language is put back after."""
    SHOTS.mkdir(parents=True, exist_ok=True)
    for lang in ("ru", "en"):
        for size, (width, height) in SIZES.items():
            page.set_viewport_size({"width": width, "height": height})
            page.goto(f"{live.url}/games/{GAME}/console/{office}?lang={lang}")
            if size == "desk" and lang == "ru":
                bad = serious_axe_violations(page)
                assert not bad, (office, bad)
            page.screenshot(path=str(SHOTS / f"console-{office}-{moment}-{lang}-{size}.png"))
            if size == "desk":
                page.screenshot(path=str(SHOTS / f"console-{office}-{moment}-{lang}-full.png"), full_page=True)
    page.set_viewport_size({"width": 1280, "height": 800})
    page.goto(f"{live.url}/games/{GAME}/console/{office}?lang=ru")


def serious_axe_violations(page: Any) -> list[str]:
    """axe-core's critical and serious findings on the page as it stands (contrast included)."""
    page.add_script_tag(path=str(AXE))
    found = page.evaluate("""async () => { const r = await axe.run(document); return {passes: r.passes.length,
        bad: r.violations.filter(v => ['critical', 'serious'].includes(v.impact))
              .map(v => v.id + ': ' + v.nodes.slice(0, 3).map(n => n.target.join(' ')).join(' | '))}; }""")
    assert found["passes"] > 10, "axe-core ran its checks"
    return list(found["bad"])


def duty_kinds(page: Any) -> list[str]:
    return [d.get_attribute("data-kind") for d in page.query_selector_all("[data-testid=duty]")]


def test_four_hosts_run_the_set_up_and_the_first_days_from_their_consoles(
        live: LiveServer, browser: Any) -> None:
    for user in (*HOSTS, *TRIBUNES, *RESIDENTS):
        live.register(user)
    proc = host(browser, live, "prokuror")

    # The Procurator creates a four-city game on the new-game page (a Court: 4 cities).
    proc.goto(f"{live.url}/games/new")
    proc.fill("#title", "Лепромафия: пульты")
    proc.fill("#game_id", GAME)
    proc.fill("#city_count", "4")
    proc.fill("#population_per_city", "5")
    proc.select_option("#commissar_check_mode", "consigliere")
    proc.click("form[action='/games/new'] button[type=submit]")
    proc.wait_for_load_state()
    assert proc.url.endswith(f"/games/{GAME}/console/procurator"), proc.inner_text("main")
    assert set(duty_kinds(proc)) == {"appoint_consigliere", "appoint_arbiter", "form_cities"}

    # HOST-PROC-1: both appointments from the console; each duty leaves the list.
    for office, user in (("consigliere", "konsil"), ("arbiter", "arbitr")):
        proc.select_option("#ap-office", office)
        proc.fill("#ap-user", user)
        submit(proc, "form[action$='/do/appoint']")
    assert "appoint_consigliere" not in duty_kinds(proc) and "appoint_arbiter" not in duty_kinds(proc)

    for user in RESIDENTS:  # the residents (bots) sign up on their own
        live.api(user, f"/games/{GAME}/signup", {"accepted": REQUIREMENTS, "contact": f"skype:{user}"})

    # CITY-3: the task's button leads to the form, already filled with an even split.
    proc.reload()
    proc.click("[data-kind=form_cities] a")
    plans = proc.locator("[data-testid=city-plan]")
    assert plans.count() == 4
    drafted = [proc.input_value(f"#fc-residents-{n}") for n in range(1, 5)]
    assert sorted(u.strip() for d in drafted for u in d.split(",")) == sorted(RESIDENTS)
    for n, tribune in enumerate(TRIBUNES, 1):  # HOST-TRIB-1: no placeholder Tribune is preselected
        assert proc.input_value(f"#fc-tribune-{n}") == ""
        proc.fill(f"#fc-tribune-{n}", tribune)
    submit(proc, "form[action$='/do/form_cities']")

    # RANDOM-1..3: the Consigliere seals; the Procurator's open console gains its duties live.
    cons = host(browser, live, "konsil")
    console(cons, live, "consigliere")
    assert duty_kinds(cons) == ["seal_deal"]
    assert "name_numbers" not in duty_kinds(proc)
    submit(cons, "form[action$='/do/seal']")
    proc.wait_for_selector("[data-kind=name_numbers]", timeout=10000)
    assert duty_kinds(proc).count("name_numbers") == 4

    # RANDOM-4, START-4: the numbers drawn city by city, then the start with the day picked.
    proc.click("[data-kind=name_numbers] a >> nth=0")  # the task's button: the deal's forms
    assert "#f-numbers-c" in proc.url
    for _ in range(4):
        proc.click("form[action$='/do/numbers'] button[name=draw] >> nth=0")
        proc.wait_for_selector("[data-testid=flash]")
    state = live.state(GAME)
    for user in state.residents:
        if state.is_mafia(user):
            live.command(user, GAME, "AcknowledgeRole")
    console(proc, live, "procurator")
    assert duty_kinds(proc) == ["start_game"]
    proc.select_option("#st-day", "2026-12-01")
    submit(proc, "form[action$='/do/start']")
    assert live.state(GAME).stage.value == "running"
    photograph(cons, live, "consigliere", "dealt")

    # Day 1. COMM-APPT-1: the offer, explained: which attempt of how many, to whom, answer by.
    live.advance_to(at(1, 10, 5), GAME, until=lambda s: s.day == 1)
    console(proc, live, "procurator")
    first = next(iter(live.state(GAME).cities))
    offer = proc.locator("[data-kind=offer_commissar]").first
    assert f"{first}" in offer.inner_text() and "попытка 1 из 3" in offer.inner_text()
    offer.locator("a").click()
    proc.click("#f-offer-c1 button[type=submit]")
    proc.wait_for_selector("[data-testid=flash]")
    row = proc.inner_text("#f-offer-c1")
    candidate = live.state(GAME).cities[first].offer.candidate
    assert "сделано попыток: 1 из 3" in row and candidate in row and "ждём ответа до 01.12 14:05 МСК" in row, row

    # HOST-PROC-5: the contest previewed inside today's Day Post, then published into it.
    proc.fill("#ct-title", "Шарада первого дня")
    proc.fill("#ct-text", "Мой первый слог — нота, второй — река.")
    proc.click("[data-testid=preview]")
    proc.wait_for_selector("[data-testid=contest-preview]")
    assert "Шарада первого дня" in proc.inner_text("[data-testid=daypost-composer]")
    assert live.state(GAME).records.contests == ()
    proc.click("[data-testid=publish]")
    proc.wait_for_selector("[data-testid=flash]")
    assert live.state(GAME).records.contests[0].title == "Шарада первого дня"
    assert "Шарада первого дня" in proc.inner_text("[data-testid=daypost]")
    photograph(proc, live, "procurator", "day1")

    # JUDGE-ELECT-4, TIME-5: the Arbiter's form is filled with the earliest window allowed.
    arb = host(browser, live, "arbitr")
    console(arb, live, "arbiter")
    assert not arb.query_selector("[data-testid=no-court]")
    arb.click("#f-judge-c1 button[type=submit]")
    arb.wait_for_selector("[data-testid=flash], [data-testid=error]")
    assert not arb.query_selector("[data-testid=error]"), arb.inner_text("[data-testid=error]")
    election = live.state(GAME).cities[first].election
    assert election is not None and (election.opens_at - at(1, 10, 5)).total_seconds() >= 6 * 3600
    photograph(arb, live, "arbiter", "day1")

    # START-1: the Tribune's Day 1 says there is no execution and offers no schedule.
    trib = host(browser, live, "tribune1")
    console(trib, live, "tribune")
    assert trib.query_selector("[data-testid=no-execution-today]")
    assert not trib.query_selector("[data-testid=schedule-vote]")
    photograph(trib, live, "tribune", "day1")

    # Day 2, TIME-7: the vote schedule prefilled from the settings; a mistyped time is refused
    # beside its field, in words with its label, the input kept; then moved to 21:00.
    live.advance_to(at(2, 10, 5), GAME, until=lambda s: s.day == 2)
    console(trib, live, "tribune")
    assert "schedule_vote" in duty_kinds(trib)
    form = "#f-vote-c1"
    assert trib.input_value(f"{form} [name=opens_at_time]") == "20:00"
    assert trib.input_value(f"{form} [name=closes_at_time]") == "23:30"
    trib.fill(f"{form} [name=opens_at_time]", "25:99")
    trib.eval_on_selector(form, "f => f.noValidate = true")
    trib.click(f"{form} button[type=submit]")
    note = trib.wait_for_selector("[data-testid=field-error]")
    assert "Открывается" in note.inner_text() and "ЧЧ:ММ" in note.inner_text(), note.inner_text()
    assert "opens_at" not in note.inner_text() and "bad_form" not in note.inner_text()
    assert trib.input_value(f"{form} [name=opens_at_time]") == "25:99"
    trib.fill(f"{form} [name=opens_at_time]", "21:00")
    submit(trib, form)
    assert live.state(GAME).cities[first].vote_opens_at == at(2, 21, 0)
    assert "21:00" in trib.inner_text("[data-testid=vote-schedule]")
    photograph(trib, live, "tribune", "day2")
    photograph(cons, live, "consigliere", "day2")
    photograph(proc, live, "procurator", "day2")
