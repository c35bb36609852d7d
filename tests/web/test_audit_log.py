"""The hosts' audit log (issue 12, §9.1 p.4): each host reads his own decisions, the
Procurator every host's; the audience filter keeps what §9 hides (the Consigliere's
mafia-side rules never reach the Procurator; no host reads another's lines), as a page, as
JSON and as a CSV for Excel.

Cast: ``small_cast()``: the Procurator «procurator», the Consigliere «consigliere», the
Supreme Arbiter «arbiter», the Tribunes «tribune1» (Лепроград) and «tribune2»
(Лепросицилия), six residents per city (p01_01…, p02_01…).

The transcript: recruitment and the deal through the API (appointments, cities, the mafia's
numbers, the start); Day 1 — the Procurator offers Лепроград's badge to p01_03 and reads
p01_01's contact, the Consigliere sets Лепроград's Godfather election rule to unanimity
(seen by that mafia only, GODFATHER-2), tribune1 reads p01_02's contact and delegates
Лепроград's votes to tribune2 (HOST-TRIB-2); Day 2 — tribune2 schedules Лепроград's vote
as the stand-in, tribune2 schedules his own city's vote, the Procurator records a sanction
against p02_06 (OMERTA-2) with a reason that starts with «=».
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest

from lepromafia.engine import events_host as hev
from lepromafia.engine.events import Event
from lepromafia.engine.visibility import visible_to
from lepromafia.service.audit import KINDS, entries

from .conftest import Api, at, contact_of, make_api, setup_game_via_api, small_cast

CAST = small_cast()
A, B = list(CAST.cities)
GAME = "audit"
HOSTS = (CAST.procurator, CAST.consigliere, CAST.arbiter, *CAST.tribunes)
T1, T2 = CAST.tribunes
FORMULA = "=HYPERLINK(\"http://evil\")"


@pytest.fixture(scope="module")
def game(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Api]:
    for api in make_api(Path(tmp_path_factory.mktemp("audit"))):
        setup_game_via_api(api, GAME, CAST)
        api.advance_to(at(1, "10:05"))
        api.offer_to(CAST.procurator, GAME, A, CAST.cities[A][2])
        assert api.get(CAST.procurator, f"/api/games/{GAME}/contacts/{CAST.cities[A][0]}").status_code == 200
        api.ok(CAST.consigliere, GAME, "SetGodfatherElectionRule", city=A, rule="unanimity",
               reason="единогласно")
        assert api.get(T1, f"/api/games/{GAME}/contacts/{CAST.cities[A][1]}").status_code == 200
        api.ok(T1, GAME, "DelegateTribune", city=A, delegate=T2, starts_at=at(1, "11:00").isoformat(),
               until=at(3, "00:00").isoformat(), reason="в отпуске")
        api.advance_to(at(2, "10:05"))
        api.ok(T2, GAME, "ScheduleExecutionVote", city=A, opens_at=at(2, "20:00").isoformat(),
               closes_at=at(2, "23:00").isoformat())
        api.ok(T2, GAME, "ScheduleExecutionVote", city=B, opens_at=at(2, "19:00").isoformat(),
               closes_at=at(2, "23:30").isoformat())
        api.ok(CAST.procurator, GAME, "RecordSanction", user=CAST.cities[B][5], rule="OMERTA-2",
               until=None, reason=FORMULA)
        yield api


def audit(api: Api, user: str | None, **params: Any) -> Any:
    return api.get(user, f"/api/games/{GAME}/audit", lang="en", **params)


def rows_of(api: Api, user: str, **params: Any) -> list[dict[str, Any]]:
    r = audit(api, user, **params)
    assert r.status_code == 200, r.text
    rows: list[dict[str, Any]] = r.json()["rows"]
    return rows


def csv_rows(api: Api, user: str, path: str = "/api/games/{g}/audit.csv", **params: Any) -> list[list[str]]:
    r = api.get(user, path.format(g=GAME), **params)
    assert r.status_code == 200, r.text
    assert r.headers["content-type"].startswith("text/csv")
    assert r.content.startswith("\ufeff".encode()), "Excel needs the byte-order mark for Cyrillic"
    return list(csv.reader(io.StringIO(r.content.decode("utf-8-sig")), delimiter=";"))


def test_every_host_decision_event_has_words_a_kind_and_an_office() -> None:
    """§9.1 p.4: no HostDecision class is left out of the log's table; each kind has words."""
    def subclasses(cls: type) -> set[type]:
        found = set(cls.__subclasses__())
        return found | {s for c in found for s in subclasses(c)}
    table = entries()
    ours = {c for c in subclasses(hev.HostDecision) if c.__module__.startswith("lepromafia.")}
    missing = {c.__name__ for c in ours} - {c.__name__ for c in table}
    assert not missing
    assert {e.kind for e in table.values()} <= set(KINDS)


def test_the_procurator_reads_every_host_but_not_the_mafia_side(game: Api) -> None:
    """HOST-PROC-1, TIME-7, HOST-TRIB-2, PLAYER-7, SEC-13, GODFATHER-2 (§9.2): the
    Procurator's log names his appointments, the stand-in's and tribune2's vote schedules,
    the delegation, the sanction, both contact reads; the Consigliere's Godfather rule for
    Лепроград's mafia is not in it in any form."""
    rows = rows_of(game, CAST.procurator)
    whats = [r["what"] for r in rows]
    assert "Appointed consigliere: Consigliere" in whats
    assert "Appointed arbiter: Supreme Arbiter" in whats
    assert f"Read the contact of {CAST.cities[A][0]}" in whats
    assert f"Read the contact of {CAST.cities[A][1]}" in whats
    assert f"Recorded a game ban of {CAST.cities[B][5]} for life" in whats
    default = [r for r in rows if r["kind"] == "vote" and r["city"] == A and r["person"] is None]
    assert len(default) == 1 and default[0]["who"] == "the platform, automatically"
    assert default[0]["at"] == at(2, "10:00").isoformat(), "the default window, set at day start"
    stand_in = [r for r in rows if r["kind"] == "vote" and r["city"] == A and r["person"]]
    assert len(stand_in) == 1 and stand_in[0]["stand_in"] and stand_in[0]["person"] == T2
    assert stand_in[0]["who"] == f"{T2}, standing in" and stand_in[0]["day_words"] == "Day 2"
    assert stand_in[0]["what"].startswith("Scheduled the execution vote of Day 2: 02.12 20:00 – 02.12 23:00")
    assert stand_in[0]["rule"] == "TIME-7" and stand_in[0]["rule_href"] == "/rules#TIME-7"
    offers = [r for r in rows if r["kind"] == "commissar"]
    assert offers and offers[0]["what"] == f"Offered the commissar's badge in {A} to {CAST.cities[A][2]} (attempt 1)"
    assert not [r for r in rows if r["kind"] == "mafia"], "GODFATHER-2 stays with the mafia"
    assert all("unanimity" not in str(r) for r in rows)
    assert [r["number"] for r in rows] == list(range(1, len(rows) + 1))
    assert rows == sorted(rows, key=lambda r: r["at"])


def test_each_host_reads_his_own_lines_only(game: Api) -> None:
    """§9.1 p.1, p.4: the Consigliere reads his rule (and nothing the Procurator or a Tribune
    did); tribune1 reads his delegation, his contact read and the stand-in's schedule for his
    city (and the platform's default for it), not tribune2's own city; tribune2 reads both
    schedules he made and the platform's default for his city; the Arbiter, who
    decided nothing, reads an empty log."""
    consigliere = rows_of(game, CAST.consigliere)
    assert [r["kind"] for r in consigliere] == ["setup", "mafia"]
    assert consigliere[-1]["what"] == f"Set how {A}'s mafia elects its Godfather: unanimity"
    assert consigliere[-1]["note"] == "единогласно" and consigliere[-1]["who"] == CAST.consigliere
    t1 = rows_of(game, T1)
    assert {(r["kind"], r["city"]) for r in t1} == {("delegation", A), ("contact", A), ("vote", A)}
    t2 = rows_of(game, T2)
    assert {(r["kind"], r["city"], r["person"]) for r in t2} == {("vote", A, T2), ("vote", B, T2),
                                                                 ("vote", B, None)}
    assert rows_of(game, CAST.arbiter) == []


def test_no_row_or_csv_cell_says_what_the_event_log_hides_from_that_host(game: Api) -> None:
    """§9, the one audience filter, from every host seat: each row's words are the words of
    an event ``visible_to`` him (so a row never says more than he may see); the
    Consigliere's rule, which the log holds and hides from everyone but Лепроград's mafia
    and him, is in no other host's rows or CSV cells; no host but the Procurator and the
    Consigliere himself sees the Consigliere named (HOST-CONS-5)."""
    events: list[tuple[int, Event]] = game.client.portal.call(  # type: ignore[union-attr]
        game.web.queries.events, game.client.portal.call(game.web.queries.current, GAME))  # type: ignore[union-attr]
    secret = [e for _s, e in events if isinstance(e, hev.GodfatherElectionRuleSet)]
    assert secret and not visible_to(secret[0], CAST.procurator), "the log holds a secret to keep"
    for host in HOSTS:
        sayable = set()
        for _s, e in events:
            entry = entries().get(type(e))
            if entry is not None and visible_to(e, host):
                text = entry.describe(e)
                sayable.add(text.msgid.format(**dict(text.fields)))
        rows = rows_of(game, host)
        for r in rows:
            if r["kind"] != "contact":
                assert r["what"] in sayable, (host, r["what"])
        cells = [c for line in csv_rows(game, host, lang="en") for c in line]
        blob = " ".join(map(str, rows)) + " " + " ".join(cells)
        assert "SECRET-" not in blob and contact_of(CAST.cities[A][0]) not in blob, "SEC-13: never a contact"
        if host != CAST.consigliere:
            assert "unanimity" not in blob and "единогласно" not in blob, host
        if host not in (CAST.procurator, CAST.consigliere):
            assert CAST.consigliere not in blob, host


def test_filters_by_day_city_and_kind(game: Api) -> None:
    """Issue 12: the filters narrow the same rows; the CSV follows them."""
    everything = rows_of(game, CAST.procurator)
    day2 = rows_of(game, CAST.procurator, day=2)
    assert day2 and all(r["day"] == 2 for r in day2) and len(day2) < len(everything)
    in_b = rows_of(game, CAST.procurator, city=B)
    assert in_b and all(r["city"] == B for r in in_b)
    votes = rows_of(game, CAST.procurator, kind="vote")
    assert {r["city"] for r in votes} == {A, B}
    both = rows_of(game, CAST.procurator, day=2, city=B, kind="vote")
    assert [r["person"] for r in both] == [None, T2], "the platform's default, then tribune2's own"
    lines = csv_rows(game, CAST.procurator, kind="vote")
    assert len(lines) == 1 + len(votes)


def test_the_csv_is_excel_ready_and_defused(game: Api) -> None:
    """UTF-8 with BOM, «;», a header in the reader's language; the host's reason that starts
    with «=» is prefixed so that Excel shows it as text (CSV injection)."""
    lines = csv_rows(game, CAST.procurator, lang="ru")
    assert lines[0] == ["№", "Когда (МСК)", "Должность", "Кто", "Город", "День", "Вид", "Что", "Правило",
                        "Причина"]
    sanction = next(line for line in lines if line[8] == "OMERTA-2")
    assert sanction[2] == "Прокуратор" and sanction[3] == CAST.procurator
    assert sanction[9] == "'" + FORMULA
    assert sanction[5] == "День 2"
    page_csv = csv_rows(game, CAST.procurator, path="/games/{g}/audit.csv", lang="ru")
    assert page_csv == lines


def test_refusals_are_coded_and_change_nothing(game: Api) -> None:
    """A resident is not a host (403 audit_not_a_host); an anonymous visitor must log in
    (401); a day, city or kind the game does not have is 422 audit_bad_filter; the page
    says the same in words."""
    version = game.client.portal.call(game.web.queries.version, GAME)  # type: ignore[union-attr]
    resident = CAST.cities[A][0]
    r = audit(game, resident)
    assert (r.status_code, r.json()["error"]["code"]) == (403, "audit_not_a_host")
    r = game.get(resident, f"/api/games/{GAME}/audit.csv")
    assert (r.status_code, r.json()["error"]["code"]) == (403, "audit_not_a_host")
    assert audit(game, None).status_code == 401
    for bad in ({"day": "99"}, {"day": "два"}, {"city": "Атлантида"}, {"kind": "secrets"}):
        r = audit(game, CAST.procurator, **bad)
        assert (r.status_code, r.json()["error"]["code"]) == (422, "audit_bad_filter"), bad
    page = game.get(resident, f"/games/{GAME}/audit")
    assert page.status_code == 403 and 'data-code="audit_not_a_host"' in page.text
    assert "audit_not_a_host" not in page.text.split('data-code="audit_not_a_host"')[1].split("<")[0]
    assert game.client.portal.call(game.web.queries.version, GAME) == version  # type: ignore[union-attr]


def test_the_page_shows_the_rows_in_words_with_filters_and_a_link_from_each_console(game: Api) -> None:
    """The page (ru): the stand-in's row in words, the rule as a link, the filter form; each
    host's console links to it; the OpenAPI lists both API routes."""
    html = game.get(CAST.procurator, f"/games/{GAME}/audit", lang="ru", city=A, kind="vote").text
    assert 'data-testid="audit"' in html
    assert f"{T2}, замещает" in html and "Назначено голосование о казни Дня 2" in html
    assert 'href="/rules#TIME-7"' in html and 'selected>Расписание голосований' in html
    assert f'/games/{GAME}/audit.csv?city={A}&amp;kind=vote' in html
    for host, office in ((CAST.procurator, "procurator"), (T1, "tribune"), (CAST.arbiter, "arbiter"),
                         (CAST.consigliere, "consigliere")):
        console = game.get(host, f"/games/{GAME}/console/{office}").text
        assert f'href="/games/{GAME}/audit"' in console, office
    paths = game.client.get("/openapi.json").json()["paths"]
    assert "/api/games/{game_id}/audit" in paths and "/api/games/{game_id}/audit.csv" in paths


def test_a_later_day_adds_the_platform_s_day_post(game: Api) -> None:
    """HOST-PROC-3: the Day Post is the platform's step for the Procurator; it is his line,
    shown as the platform's, and no Tribune's."""
    game.advance(timedelta(days=1))
    rows = rows_of(game, CAST.procurator, kind="day_post")
    assert rows and all(r["person"] is None and r["who"] == "the platform, automatically" for r in rows)
    assert not rows_of(game, T1, kind="day_post")
