"""The hosts' two weeks in Chromium (issue 12): a whole four-city game run from the four
consoles, in four browser contexts, with bots only as residents. Every host decision is a
click or typing in a console; the residents act through the JSON API; the test moves the
game's clock (no sleeping).

Cast: the Procurator «prokuror», the Consigliere «konsil», the Supreme Arbiter «arbitr»,
the Tribunes tribune1…4 (the Tribune's console is tribune2's), twenty residents r01…r20 in
four cities of five, one mafioso each. The story:

- recruitment: the Procurator creates the game on its page, appoints the Consigliere and the
  Arbiter, forms the cities typing each Tribune (none is preselected; a missing one is
  refused beside its field, in words); the Consigliere seals, the Procurator draws the
  numbers and starts the game (CITY-3, HOST-TRIB-1, RANDOM-1..4, START-4);
- Day 1: the Procurator offers the commissar's badge in every city (a mafioso drawn must
  refuse, and the next attempt follows), previews and publishes a charade in the Day Post;
  the Arbiter moves a judge election and chooses the Court's majority; the citizens propose
  and elect four judges (COMM-APPT-1..3, HOST-PROC-5, JUDGE-ELECT-2..8, COURT-5);
- Night 1: three mafiosi elect themselves Godfather; the fourth city's election fails and
  the Consigliere appoints its Godfather (GODFATHER-2, -3);
- Day 2: the Tribune moves his city's vote; A and D execute their mafiosi; B condemns an
  honest resident whom the Court pardons (TIME-7, EXEC-5, COURT-3);
- Night 2: a commissar's check reaches the Consigliere, who answers it; C's Godfather
  kills (COMM-4, MAFIA-KILL-2);
- Day 3: the Day Post tells the night; the Procurator records the charade's results; C
  executes its mafioso (POST-2, HOST-PROC-5);
- Day 4: B executes its mafioso: every city is decided, the honest win, the game ends
  (WIN-1, WIN-4).

Each console is photographed on Day 1, Day 3 and after the end (Russian 1280×800 whole
page, English 390×844) under test-artifacts/screenshots/hosts/, and axe-core finds nothing
critical or serious on any of them.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest

from lepromafia.engine.calendar import MOSCOW
from lepromafia.engine.inboxes import Kind, live_inbox

from .conftest import PASSWORD, LiveServer

GAME = "hosts"
TRIBUNES = tuple(f"tribune{i}" for i in range(1, 5))
RESIDENTS = tuple(f"r{i:02d}" for i in range(1, 21))
REQUIREMENTS = ["active", "rules_read", "voice_contact", "no_insults", "omerta"]
ROOT = Path(__file__).resolve().parents[2]
SHOTS = ROOT / "test-artifacts" / "screenshots" / "hosts"
AXE = ROOT / "var" / "test-assets" / "axe.min.js"  # make test copies it there, as for test_axe.py
OFFICES = ("procurator", "tribune", "arbiter", "consigliere")


@pytest.fixture(scope="module")
def live(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    """Cheap password hashing: 27 accounts register here."""
    server = LiveServer(tmp_path_factory.mktemp("hosts"), argon2_time_cost=1, argon2_memory_kib=1024)
    server.start()
    yield server
    server.stop()


def at(day: int, hh: int, mm: int = 0) -> datetime:
    """Day ``day`` of the game (Day 1 is 1 December) at hh:mm Moscow time."""
    return datetime(2026, 12, day, hh, mm, tzinfo=MOSCOW)


class Console:
    """One host in his own browser context, on his console."""

    def __init__(self, browser: Any, live: LiveServer, user: str, office: str) -> None:
        self.live, self.office = live, office
        # bypass_csp: axe-core is injected into the page for the accessibility check
        context = browser.new_context(viewport={"width": 1280, "height": 800}, locale="ru-RU",
                                      bypass_csp=True)
        self.page = context.new_page()
        self.page.set_default_timeout(20000)
        self.page.goto(f"{live.url}/login?lang=ru")
        self.page.fill("#login", user)
        self.page.fill("#password", PASSWORD)
        with self.page.expect_navigation():
            self.page.click("button[type=submit]")

    def open(self) -> Any:
        self.page.goto(f"{self.live.url}/games/{GAME}/console/{self.office}?lang=ru")
        self.page.wait_for_selector("[data-testid=duties]")
        return self.page

    def duties(self) -> list[str]:
        return [d.get_attribute("data-kind") or "" for d in self.page.query_selector_all("[data-testid=duty]")]

    def duty(self, kind: str, nth: int = 0) -> str:
        """Follow a duty's «open the form» button; the duty's sentence."""
        row = self.page.locator(f"[data-testid=duty][data-kind={kind}]").nth(nth)
        words = row.inner_text()
        row.locator("a").click()
        return str(words)

    def submit(self, selector: str, *, ok: bool = True) -> None:
        """Press a form's button and land back on the console with its message."""
        with self.page.expect_navigation():
            self.page.click(selector)
        self.page.wait_for_selector("[data-testid=flash], [data-testid=error]")
        error = self.page.query_selector("[data-testid=error]")
        if ok:
            assert error is None, error.inner_text() if error else ""

    def photograph(self, moment: str) -> None:
        """Russian at 1280×800 (the whole page, axe-checked) and English at 390×844."""
        SHOTS.mkdir(parents=True, exist_ok=True)
        page = self.page
        self.open()
        bad = serious_axe_violations(page)
        assert not bad, (self.office, moment, bad)
        page.screenshot(path=str(SHOTS / f"{self.office}-{moment}-ru-desk.png"), full_page=True)
        page.set_viewport_size({"width": 390, "height": 844})
        page.goto(f"{self.live.url}/games/{GAME}/console/{self.office}?lang=en")
        page.screenshot(path=str(SHOTS / f"{self.office}-{moment}-en-phone.png"))
        page.set_viewport_size({"width": 1280, "height": 800})
        self.open()


def serious_axe_violations(page: Any) -> list[str]:
    """axe-core's critical and serious findings on the page as it stands (contrast included)."""
    page.add_script_tag(path=str(AXE))
    found = page.evaluate("""async () => { const r = await axe.run(document); return {passes: r.passes.length,
        bad: r.violations.filter(v => ['critical', 'serious'].includes(v.impact))
              .map(v => v.id + ': ' + v.nodes.slice(0, 3).map(n => n.target.join(' ')).join(' | '))}; }""")
    assert found["passes"] > 10, "axe-core ran its checks"
    return list(found["bad"])


class Town:
    """The residents as bots: they act through the JSON API only."""

    def __init__(self, live: LiveServer) -> None:
        self.live = live

    def state(self) -> Any:
        return self.live.state(GAME)

    def do(self, user: str, name: str, **fields: Any) -> None:
        self.live.command(user, GAME, name, **fields)

    def vote(self, voters: tuple[str, ...] | list[str], city: str, candidate: str) -> None:
        box = self.state().current[f"voting:{city}/{candidate}"]
        for voter in voters:
            self.do(voter, "PostMessage", inbox=box, text="казнить")

    def advance(self, moment: datetime, until: Any = None) -> Any:
        return self.live.advance_to(moment, GAME, until=until, timeout=30)


def recruit(live: LiveServer, browser: Any) -> tuple[Console, list[str]]:
    """CITY-3, HOST-PROC-1, HOST-TRIB-1: the game created, staffed and formed from the console."""
    for user in ("prokuror", "konsil", "arbitr", *TRIBUNES, *RESIDENTS):
        live.register(user)
    proc = Console(browser, live, "prokuror", "procurator")
    page = proc.page
    page.goto(f"{live.url}/games/new?lang=ru")
    page.fill("#title", "Лепромафия: две недели хостов")
    page.fill("#game_id", GAME)
    page.fill("#city_count", "4")
    page.fill("#population_per_city", "5")
    page.select_option("#commissar_check_mode", "consigliere")
    with page.expect_navigation():
        page.click("form[action='/games/new'] button[type=submit]")
    assert page.url.endswith(f"/games/{GAME}/console/procurator"), page.inner_text("main")
    assert set(proc.duties()) == {"appoint_consigliere", "appoint_arbiter", "form_cities"}
    for office, user in (("consigliere", "konsil"), ("arbiter", "arbitr")):
        page.select_option("#ap-office", office)
        page.fill("#ap-user", user)
        proc.submit("form[action$='/do/appoint'] button[type=submit]")
    assert set(proc.duties()) == {"form_cities"}

    for user in RESIDENTS:
        live.api(user, f"/games/{GAME}/signup", {"accepted": REQUIREMENTS, "contact": f"skype:{user}"})
    proc.open()
    assert "20" in proc.duty("form_cities")
    names = [page.input_value(f"#fc-name-{n}") for n in range(1, 5)]
    drafted = [page.input_value(f"#fc-residents-{n}") for n in range(1, 5)]
    assert sorted(u.strip() for d in drafted for u in d.split(",")) == sorted(RESIDENTS)
    assert all(page.input_value(f"#fc-tribune-{n}") == "" for n in range(1, 5)), "no Tribune preselected"
    for n in (1, 3, 4):
        page.fill(f"#fc-tribune-{n}", TRIBUNES[n - 1])
    page.eval_on_selector("form[action$='/do/form_cities']", "f => f.noValidate = true")
    proc.submit("form[action$='/do/form_cities'] button[type=submit]", ok=False)
    note = page.wait_for_selector("[data-testid=field-error]")
    assert note.inner_text() == "Заполните поле «Трибун»", note.inner_text()
    assert page.get_attribute("#fc-tribune-2", "aria-invalid") == "true"
    assert page.input_value("#fc-tribune-1") == TRIBUNES[0], "the input is kept"
    assert live.state(GAME).stage.value == "recruiting"
    page.fill("#fc-tribune-2", TRIBUNES[1])
    proc.submit("form[action$='/do/form_cities'] button[type=submit]")
    assert [c.tribune for c in live.state(GAME).cities.values()] == list(TRIBUNES)
    return proc, names


def deal(live: LiveServer, proc: Console, cons: Console, town: Town) -> None:
    """RANDOM-1..4, DIST-3, START-4: sealed, numbers drawn, roles acknowledged, started."""
    cons.open()
    assert cons.duties() == ["seal_deal"]
    cons.submit("form[action$='/do/seal'] button[type=submit]")
    proc.page.wait_for_selector("[data-kind=name_numbers]")  # the open console gains it live
    proc.open()
    assert proc.duties().count("name_numbers") == 4
    proc.duty("name_numbers")
    for _ in range(4):
        proc.submit("form[action$='/do/numbers'] button[name=draw] >> nth=0")
    s = town.state()
    for user in s.residents:
        if s.is_mafia(user):
            town.do(user, "AcknowledgeRole")
    proc.open()
    assert proc.duties() == ["start_game"]
    proc.page.select_option("#st-day", "2026-12-01")
    proc.submit("form[action$='/do/start'] button[type=submit]")
    assert town.state().stage.value == "running"


def offer_badges(proc: Console, town: Town) -> dict[str, str]:
    """COMM-APPT-1..3: an offer per city from the task list; a mafioso drawn must refuse,
    the answer shows at the reveal, and the next attempt follows. Returns the commissars."""
    page = proc.page
    commissars: dict[str, str] = {}
    for attempt in (1, 2, 3):
        proc.open()
        cities = [c for c in town.state().cities if c not in commissars]
        if not cities:
            break
        for slot, city in enumerate(town.state().cities, 1):
            if city not in cities:
                continue
            words = proc.duty("offer_commissar")
            assert city in words and f"попытка {attempt} из 3" in words, words
            proc.submit(f"#f-offer-c{slot} button[type=submit]")
            candidate = town.state().cities[city].offer.candidate
            row = page.inner_text(f"#f-offer-c{slot}")
            assert f"сделано попыток: {attempt} из 3" in row and candidate in row and "ждём ответа до" in row
            honest = not town.state().is_mafia(candidate)
            town.do(candidate, "AnswerCommissarOffer", accept=honest)
            if honest:
                commissars[city] = candidate
        town.advance(at(1, 10 + attempt, 45))  # past the reveal of every answer
    return commissars


def publish_charade(proc: Console, town: Town) -> None:
    """HOST-PROC-5: previewed inside today's Day Post, then published into it."""
    page = proc.open()
    assert "День 1" in page.inner_text("[data-testid=daypost-composer]")
    page.fill("#ct-title", "Шарада первого дня")
    page.fill("#ct-text", "Мой первый слог — нота, второй — река.")
    with page.expect_navigation():
        page.click("[data-testid=preview]")
    page.wait_for_selector("[data-testid=contest-preview]")
    assert town.state().records.contests == ()
    proc.submit("[data-testid=publish]")
    assert town.state().records.contests[0].title == "Шарада первого дня"
    assert "Шарада первого дня" in page.inner_text("[data-testid=daypost]")


def schedule_judges(arb: Console, town: Town, judges: dict[str, str]) -> None:
    """JUDGE-ELECT-2..4, COURT-5: the Arbiter reads who may stand, moves the first city's
    election (the form filled with the earliest window the notice allows) and sets the
    Court's majority; the citizens propose their judges."""
    page = arb.open()
    assert not page.query_selector("[data-testid=no-court]")
    first = next(iter(town.state().cities))
    eligible = page.inner_text(f"[data-testid=judge-city][data-city='{first}'] [data-testid=judge-eligible]")
    assert all(u in eligible for u in town.state().cities[first].residents), eligible
    arb.submit("#f-judge-c1 button[type=submit]")
    election = town.state().cities[first].election
    assert election is not None and (election.opens_at - at(1, 10, 5)).total_seconds() >= 6 * 3600
    arb.submit("#f-preset button[type=submit]")
    assert "choose_pardon_preset" not in arb.duties()
    s = town.state()
    for city, judge in judges.items():
        for proposer in [u for u in s.cities[city].residents if u != judge][:2]:
            town.do(proposer, "ProposeJudge", candidate=judge)
    arb.open()
    proposed = page.inner_text(f"[data-testid=judge-city][data-city='{first}'] [data-testid=judge-proposed]")
    assert judges[first] in proposed and "2" in proposed, proposed


def vote_judges(town: Town, judges: dict[str, str]) -> None:
    """JUDGE-ELECT-5..8: the polls open; three citizens a city vote «Он — Ганди!»."""
    opens = max(c.election.opens_at for c in town.state().cities.values() if c.election)
    town.advance(opens.replace(second=0) + (at(1, 0, 5) - at(1, 0)))
    s = town.state()
    for city, judge in judges.items():
        box = live_inbox(s, Kind.POLLING, city, judge)
        assert box, (city, judge)
        for voter in [u for u in s.cities[city].residents if u != judge][:3]:
            town.do(voter, "PostMessage", inbox=box, text="Он — Ганди!")
    closes = max(c.election.closes_at for c in town.state().cities.values() if c.election)
    s = town.advance(closes + (at(1, 0, 5) - at(1, 0)))
    assert {c: s.cities[c].judge for c in judges} == judges


def test_four_hosts_run_a_whole_game_from_their_consoles(live: LiveServer, browser: Any) -> None:
    town = Town(live)
    proc, _names = recruit(live, browser)
    cons = Console(browser, live, "konsil", "consigliere")
    deal(live, proc, cons, town)
    s = town.state()
    a, b, c, d = s.cities
    mafioso = {n: s.living_mafia(n)[0] for n in s.cities}
    honest = {n: [u for u in s.cities[n].residents if not s.is_mafia(u)] for n in s.cities}
    judges = {n: honest[n][0] for n in s.cities}
    pardoned, victim = honest[b][1], honest[c][1]

    # Day 1: offers, the Day Post's charade, judge elections; the Tribune has no vote today.
    town.advance(at(1, 10, 5), until=lambda s: s.day == 1)
    arb = Console(browser, live, "arbitr", "arbiter")
    proc.page.goto(f"{live.url}/games/{GAME}/audit?lang=ru")  # every host's decisions, live
    rows = "[data-testid=audit] tbody tr"
    before = proc.page.locator(rows).count()
    schedule_judges(arb, town, judges)
    proc.page.wait_for_function(
        "([sel, n]) => document.querySelectorAll(sel).length > n", arg=[rows, before])
    assert "Лепроград" in proc.page.locator(rows).last.inner_text()
    commissars = offer_badges(proc, town)
    assert set(commissars) == set(s.cities), "one mafioso a city: the next attempt draws an honest man"
    publish_charade(proc, town)
    trib = Console(browser, live, TRIBUNES[1], "tribune")
    trib.open()
    assert trib.page.query_selector("[data-testid=no-execution-today]")
    assert not trib.page.query_selector("[data-testid=schedule-vote]")
    arb.photograph("day1")  # the proposals made, the polls not yet open
    vote_judges(town, judges)
    for host in (proc, trib, cons):
        host.photograph("day1")

    # Night 1, GODFATHER-2/-3: three mafiosi elect themselves; D's election fails and the
    # Consigliere appoints its Godfather from his console.
    town.advance(at(2, 0, 5), until=lambda s: s.phase.value == "night")
    for city in (a, b, c):
        town.do(mafioso[city], "VoteGodfather", candidate=mafioso[city])
    town.advance(at(2, 8, 5))
    cons.open()
    assert "appoint_godfather" in cons.duties(), cons.duties()
    cons.duty("appoint_godfather")
    slot = f"c{list(town.state().cities).index(d) + 1}"
    cons.page.select_option(f"#gf-{slot}", mafioso[d])
    cons.submit(f"#f-godfather-{slot} button[type=submit]")
    assert town.state().cities[d].godfather == mafioso[d]

    # Day 2, TIME-7: the Tribune moves B's vote to 21:00; A and D execute their mafiosi; B
    # condemns an honest resident, whom the Court pardons (COURT-3).
    town.advance(at(2, 10, 5), until=lambda s: s.day == 2)
    trib.open()
    assert "schedule_vote" in trib.duties()
    trib.duty("schedule_vote")
    form = "#f-vote-c2"
    assert trib.page.input_value(f"{form} [name=opens_at_time]") == "20:00"
    trib.page.fill(f"{form} [name=opens_at_time]", "21:00")
    trib.submit(f"{form} button[type=submit]")
    assert town.state().cities[b].vote_opens_at == at(2, 21)
    town.do(honest[a][1], "Nominate", candidate=mafioso[a])
    town.do(honest[b][2], "Nominate", candidate=pardoned)
    town.do(honest[d][1], "Nominate", candidate=mafioso[d])
    town.advance(at(2, 20, 5))
    town.vote(honest[a][1:4], a, mafioso[a])
    town.vote(honest[d][1:4], d, mafioso[d])
    town.advance(at(2, 21, 5))
    trib.open()
    town.vote([mafioso[b], honest[b][2], honest[b][3]], b, pardoned)
    trib.page.wait_for_function(  # the city's block is a live region: the tally as votes come
        """n => [...document.querySelectorAll('[data-testid=tribune-tally] li')].some(
               li => li.innerText.includes(n) && li.querySelector('.count').innerText.trim() === '3')""",
        arg=pardoned)
    town.advance(at(2, 23, 35))
    arb.open()
    assert arb.page.query_selector_all("[data-testid=pardon-window]"), "the pardon windows count down"
    for judge in judges.values():  # a majority of the sitting judges decides at once
        if town.state().cities[b].verdict is not None:
            town.do(judge, "VotePardon", city=b, pardon=True)
    assert town.state().cities[b].verdict is None
    s = town.advance(at(3, 0, 10), until=lambda s: s.phase.value == "night")
    assert [s.cities[n].decided is not None for n in (a, b, c, d)] == [True, False, False, True]
    assert s.residents[pardoned].alive

    # Night 2, COMM-4: a commissar's check reaches the Consigliere, who answers from his
    # console; C's Godfather orders a kill (MAFIA-KILL-2).
    opens = s.deadlines[f"checks_open:{s.day}"]
    s = town.advance(opens + (at(1, 0, 5) - at(1, 0)))
    assert s.residents[commissars[b]].alive
    town.do(commissars[b], "CheckResident", target=mafioso[b])
    cons.open()
    cons.duty("answer_check")
    cons.submit("#f-check-c2 button[value=mafia]")
    assert town.state().cities[b].check_pending is False
    town.do(mafioso[c], "DeclareKill", target=victim)

    # Day 3: the night told in the Day Post; the charade's results recorded; C executes.
    s = town.advance(at(3, 10, 5), until=lambda s: s.day == 3)
    assert not s.residents[victim].alive
    page = proc.open()
    assert victim in page.inner_text("[data-testid=daypost]")
    results = page.locator("[data-testid=contest-results]").first
    results.locator("summary").click()
    results.locator("select[name=participants]").select_option([honest[b][2], honest[c][3]])
    results.locator("textarea[name=results]").fill("Отгадал r-первый: «до-Нева».")
    proc.submit("[data-testid=contest-results] button[type=submit]")
    assert town.state().records.contests[0].results_recorded
    for host in (proc, trib, arb, cons):
        host.photograph("day3")
    town.do(honest[c][2], "Nominate", candidate=mafioso[c])
    town.advance(at(3, 20, 5))
    town.vote([honest[c][0], honest[c][2], honest[c][3]], c, mafioso[c])
    s = town.advance(at(4, 0, 10), until=lambda s: s.phase.value == "night")
    assert s.cities[c].decided is not None

    # Day 4: B executes its mafioso, the last city to be decided: the end (WIN-4).
    town.advance(at(4, 10, 5), until=lambda s: s.day == 4)
    town.do(honest[b][2], "Nominate", candidate=mafioso[b])
    town.advance(at(4, 20, 5))
    town.vote([pardoned, honest[b][2], honest[b][3]], b, mafioso[b])
    s = town.advance(at(5, 10, 5), until=lambda s: s.stage.value == "finished")
    assert s.result is not None and s.result.value == "honest"
    for host in (proc, trib, arb, cons):
        host.photograph("end")
        assert host.duties() == [], (host.office, host.duties())
    page = proc.page
    page.goto(f"{live.url}/games/{GAME}?lang=ru")
    assert page.query_selector("[data-testid=game-ended]")
    for day in (1, 2, 3, 4):
        assert page.query_selector(f"#daypost-{day}"), day
