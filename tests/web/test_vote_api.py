"""The vote record's JSON API (issue 11, B1), read from every seat: a resident of the voting
city, a resident of another city, an anonymous visitor and the hosts (EXEC-9, EXEC-14,
EXEC-18, INBOX-VOTE-1, §9.2).

Cast and day as in ``test_vote_record``: Лепроград p01_01..p01_06 (Tribune tribune1),
Лепросицилия p02_01..p02_06, Procurator «proc». Day 2: p01_03 «казнить» p01_01 at 20:05,
p01_04 at 20:10, p01_03 «не казнить» at 20:20 and «казнить» again at 20:40, p01_06 «казнить»
p01_05 at 21:00; at 23:30 p01_01 is condemned with 2 votes and executed.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import quote

from .conftest import Api, at, small_cast
from .test_vote_record import CITY, cast_the_day, day_two

CAST = small_cast()
ONE_DAY = f"/api/games/g/votes/{quote(CITY)}/2"


def record(api: Api, viewer: str | None, path: str = "/api/games/g/votes", **query: Any) -> Any:
    r = api.get(viewer, path, **query)
    assert r.status_code == 200, r.text
    return r.json()


def test_an_open_vote_reaches_only_the_voting_city_s_readers(api: Api) -> None:
    """EXEC-18, INBOX-VOTE-1, §9.2: during the vote p01_05 (a resident of Лепроград) reads
    every keyword with its running tally; Лепросицилия's p02_01 and an anonymous visitor get
    no count at all — the list has only the other city's day without a vote, and the day's
    address answers 404, as for a day
    without a vote, so nothing tells them who voted."""
    box, _other = day_two(api)
    api.ok("p01_03", "g", "PostMessage", inbox=box, text="казнить")
    api.advance_to(at(2, "20:10"))
    api.ok("p01_04", "g", "PostMessage", inbox=box, text="казнить")
    mine = record(api, "p01_05", ONE_DAY)
    assert mine["status"] == "open" and mine["closed_at"] is None
    assert [(x["voter"], x["keyword"], x["tally"]) for x in mine["lines"]] == [
        ("p01_03", "казнить", 1), ("p01_04", "казнить", 2)]
    assert {c["candidate"]: c["voters"] for c in mine["candidates"]}["p01_01"] == ["p01_03", "p01_04"]
    for outsider in ("p02_01", None):
        seen = record(api, outsider)["counts"]
        assert [c for c in seen if c["city"] == CITY] == [], "Лепроград's open vote is not listed"
        assert all(c["status"] == "no_vote" for c in seen), "only Лепросицилия's day without a vote"
        r = api.get(outsider, ONE_DAY)
        assert r.status_code == 404 and "p01_03" not in r.text
        assert r.json()["error"]["code"] == "not_found"


def test_a_closed_vote_is_public_with_voters_in_order_and_the_execution(api: Api) -> None:
    """EXEC-9, EXEC-14, EXEC-16: after the close every seat — the city's resident, another
    city's, an anonymous visitor, the Procurator and the Tribune — reads the same count:
    p01_01 first with p01_04 then p01_03 (the order of their counted vote), p01_03 as having
    changed his mind, the whole keyword log, the condemned and his execution, and where the
    count was posted."""
    cast_the_day(api)
    seen = []
    for viewer in ("p01_05", "p02_01", None, CAST.procurator, CAST.tribunes[0]):
        found = record(api, viewer, ONE_DAY)
        seen.append(found)
        assert found["status"] == "closed" and found["condemned"] == "p01_01"
        first = found["candidates"][0]
        assert (first["candidate"], first["votes"], first["voters"], first["changed_minds"], first["place"]) == (
            "p01_01", 2, ["p01_04", "p01_03"], ["p01_03"], 1)
        assert [(x["voter"], x["keyword"]) for x in found["lines"]] == [
            ("p01_03", "казнить"), ("p01_04", "казнить"), ("p01_03", "не казнить"),
            ("p01_03", "казнить"), ("p01_06", "казнить")]
        assert found["lot"] == [] and found["executed"] == "p01_01"
        assert [s["kind"] for s in found["outcome"]] == ["executed"]
        assert found["outcome"][0]["faction"] in ("mafia", "honest")
        assert found["posted_in"] and found["page"] == f"/games/g/votes/{CITY}/2"
    assert all(s == seen[0] for s in seen), "one public record, whoever reads it"
    listed = record(api, "p02_01", city=CITY, day=2)["counts"]
    assert len(listed) == 1 and listed[0] == seen[0]
    first = record(api, None, day=1)["counts"]
    assert all(c["day"] == 1 and c["status"] == "no_vote" and not c["lines"] for c in first)


def test_bad_addresses_are_refused_in_words_and_every_status_is_documented(api: Api) -> None:
    """A day below 1 is 422, an unknown game or city is 404, each with a code and a message;
    the OpenAPI document lists 200, 404 and 422 for both routes."""
    cast_the_day(api)
    for path, query, status in ((f"/api/games/g/votes/{quote(CITY)}/0", {}, 422),
                                ("/api/games/g/votes", {"day": 0}, 422),
                                (f"/api/games/nope/votes/{quote(CITY)}/2", {}, 404),
                                ("/api/games/nope/votes", {}, 404),
                                ("/api/games/g/votes/Атлантида/2", {}, 404)):
        r = api.get("p01_05", path, **query)
        assert r.status_code == status, (path, r.text)
        error = r.json()["error"]
        assert error["code"] and error["message"] and error["code"] not in error["message"]
    paths = api.get(None, "/openapi.json").json()["paths"]
    for path in ("/api/games/{game_id}/votes", "/api/games/{game_id}/votes/{city}/{day}"):
        answers = paths[path]["get"]["responses"]
        assert {"200", "404", "422"} <= set(answers), (path, answers)
        assert all(answers[code].get("description") for code in answers)
