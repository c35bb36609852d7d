"""The consoles' forms as their hosts fill them (issue 12): the Form-cities draft names no
Tribune for the host (a missing one is refused beside its field, in words, the input kept);
the Arbiter reads who may stand as a judge, as the engine answers it; the audit log is a
live region that keeps its filter.

Cast: ``default_cast(4, 5)`` — four cities of five (a Supreme Court), the Procurator
«procurator», the Consigliere, the Arbiter «arbiter» and the Tribunes tribune1…4.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from lepromafia.bots.setup import default_cast
from lepromafia.engine import targets

from .conftest import Api, at, make_api, setup_game_via_api
from .test_consoles import error_text, kept, no_internals, section, shown
from .test_pages import error_code, submit

CAST = default_cast(4, 5)
GAME = "forms"
CONSOLE = f"/games/{GAME}/console/procurator"


@pytest.fixture
def recruiting(tmp_path: Path) -> Iterator[Api]:
    for api in make_api(tmp_path):
        setup_game_via_api(api, GAME, CAST, settings={"population_per_city": 5}, start=False)
        yield api


@pytest.fixture
def started(tmp_path: Path) -> Iterator[Api]:
    for api in make_api(tmp_path):
        setup_game_via_api(api, GAME, CAST, settings={"population_per_city": 5})
        api.advance_to(at(1, "10:05"))
        yield api


def rows(page: str) -> dict[str, str]:
    """The Form-cities form's fields: name -> value (textareas included)."""
    fields = dict(re.findall(r'name="((?:name|tribune)_\d+)" type="text"[^>]*value="([^"]*)"', page))
    fields |= dict(re.findall(r'name="(residents_\d+)" rows="2">([^<]*)</textarea>', page))
    return fields


def test_the_form_cities_draft_preselects_no_tribune_and_a_missing_one_is_named(recruiting: Api) -> None:
    """CITY-3, HOST-TRIB-1: the draft spreads the twenty sign-ups over four cities and leaves
    every Tribune empty; a city without one is refused beside «Трибун», in words, the input
    kept and nothing formed; named, the cities are formed with those Tribunes."""
    page = recruiting.get(CAST.procurator, CONSOLE).text
    fields = rows(page)
    assert [fields[f"tribune_{n}"] for n in range(1, 5)] == ["", "", "", ""]
    drafted = [u.strip() for n in range(1, 5) for u in fields[f"residents_{n}"].split(",")]
    assert sorted(drafted) == sorted(u for us in CAST.cities.values() for u in us)
    assert "tribune1" not in section(page, "form-cities")
    no_internals(page)

    form = {**fields, **{f"name_{n}": name for n, name in enumerate(CAST.cities, 1)}}
    form |= {f"residents_{n}": ", ".join(us) for n, us in enumerate(CAST.cities.values(), 1)}
    form |= {"tribune_1": CAST.tribunes[0], "tribune_2": "", "tribune_3": CAST.tribunes[2],
             "tribune_4": CAST.tribunes[3]}
    landed = submit(recruiting, CAST.procurator, "form_cities", CONSOLE, GAME, **form)
    assert error_code(landed) == "field_required"
    assert error_text(landed) == "Заполните поле «Трибун»"
    assert 'data-field="tribune_2"' in landed and kept(landed)["tribune_1"] == CAST.tribunes[0]
    assert recruiting.state(GAME).stage.value == "recruiting"

    landed = submit(recruiting, CAST.procurator, "form_cities", CONSOLE, GAME, **{**form, "tribune_2": CAST.tribunes[1]})
    assert error_code(landed) is None
    s = recruiting.state(GAME)
    assert [c.tribune for c in s.cities.values()] == list(CAST.tribunes)
    assert [c.residents for c in s.cities.values()] == list(CAST.cities.values())


def test_the_arbiter_reads_who_may_stand_as_judge_and_who_was_proposed(started: Api) -> None:
    """JUDGE-ELECT-2 (AMB-9): each city without a judge lists the engine's eligible
    candidates; a proposal shows as the candidate with how many proposed him, never who."""
    city, residents = next(iter(CAST.cities.items()))
    candidate, proposer = residents[0], residents[1]
    started.ok(proposer, GAME, "ProposeJudge", candidate=candidate)
    page = started.get(CAST.arbiter, f"/games/{GAME}/console/arbiter").text
    block = page[page.index(f'data-city="{city}"'):]
    block = block[:block.index('data-testid="schedule-judge"')]
    eligible = shown(block.split('data-testid="judge-eligible"', 1)[1])
    assert all(u in eligible for u in targets.judge_candidates(started.state(GAME), city))
    proposed = shown(block.split('data-testid="judge-proposed"', 1)[1].split("</p>", 1)[0])
    assert candidate in proposed and "1 предложение" in proposed and proposer not in proposed
    no_internals(page)


def test_the_audit_log_is_a_live_region_that_keeps_its_filter(started: Api) -> None:
    """Issue 12: the audit page's rows are a live region (every decision's event refreshes
    it); its part serves the same rows for the same filter, and a new decision shows there."""
    city = next(iter(CAST.cities))
    page = started.get(CAST.procurator, f"/games/{GAME}/audit", city=city).text
    assert f'data-live-src="/games/{GAME}/audit/part/rows?city={city}"' in page
    part = started.get(CAST.procurator, f"/games/{GAME}/audit/part/rows", city=city)
    assert part.status_code == 200 and part.headers["X-Live-Seq"]
    before = shown(part.text)
    started.offer_to(CAST.procurator, GAME, city, CAST.cities[city][2])
    after = shown(started.get(CAST.procurator, f"/games/{GAME}/audit/part/rows", city=city).text)
    assert after != before and CAST.cities[city][2] in after
    assert started.get(CAST.cities[city][0], f"/games/{GAME}/audit/part/rows").status_code == 403
    assert started.get(CAST.procurator, f"/games/{GAME}/audit/part/rows", day="x").status_code == 422


def test_no_second_badge_is_offered_where_the_candidate_accepted(started: Api) -> None:
    """COMM-APPT-1, -3, SEC-1: Лепроград's candidate accepts; until the reveal the Procurator
    reads «waiting for the answer» and has nothing to press; after it, «accepted», «the
    commissar is appointed» and still no button (he never sees the commissar's own notice)."""
    city, residents = next(iter(CAST.cities.items()))
    s = started.state(GAME)
    candidate = next(u for u in residents if not s.is_mafia(u))
    started.offer_to(CAST.procurator, GAME, city, candidate)
    started.ok(candidate, GAME, "AnswerCommissarOffer", accept=True)

    def offer_row() -> str:
        page = str(started.get(CAST.procurator, CONSOLE).text)
        start = page.index('id="f-offer-c1"')
        return page[start:page.index("</li>", start)]

    assert "do/offer" not in offer_row() and "ждём ответа" in shown(offer_row())
    started.advance_to(at(1, "10:40"))
    row = offer_row()
    assert "do/offer" not in row, "no second offer in a city whose candidate accepted"
    assert f"Попытка 1: {candidate} — принята" in shown(row) and "комиссар назначен" in shown(row)
    other = started.get(CAST.procurator, CONSOLE).text
    assert 'id="f-offer-c2"' in other and "do/offer" in other.split('id="f-offer-c2"', 1)[1].split("</li>", 1)[0]
