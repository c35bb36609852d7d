"""The verifier's replay catches a dishonest server: exports re-signed with the server's own
key, so the log checks pass, but with an outcome or a deal step that the revealed events do
not support (issue 14: tallies, executions, night deaths, decided cities, winner, the deal)."""

from __future__ import annotations

from typing import Any

import pytest

from lepromafia import verifier

from .games import exported_games, forge

Events = list[dict[str, Any]]


@pytest.fixture(scope="module")
def exports(tmp_path_factory: pytest.TempPathFactory) -> list[bytes]:
    """Game 0 dealt by hand, game 1 by commit-reveal (two cities of six)."""
    return exported_games(tmp_path_factory.mktemp("outcomes") / "g.db", range(2), 2, 6)


def _first(events: Events, kind: str, **match: Any) -> dict[str, Any]:
    return next(e for e in events if e["type"] == kind and all(e.get(k) == v for k, v in match.items()))


def _failure(raw: bytes) -> str:
    report = verifier.verify(raw, "en")
    assert not report.verified, "the forgery passed"
    return report.failures[0].code


def test_the_honest_exports_verify(exports: list[bytes]) -> None:
    for raw in exports:
        report = verifier.verify(raw, "en")
        assert report.verified, report.text()
    assert "the deal's draw" in verifier.verify(exports[1], "en").text()
    assert "deal 'by hand'" in verifier.verify(exports[0], "en").text()


def test_a_forgery_that_only_re_signs_is_still_consistent(exports: list[bytes]) -> None:
    assert verifier.verify(forge(exports[0], lambda events: None)).verified


def test_a_tally_that_does_not_match_the_votes_is_caught(exports: list[bytes]) -> None:
    """EXEC-9: one vote is dropped from the log, the published tally stays."""
    def drop_a_vote(events: Events) -> None:
        vote = _first(events, "VoteCast", keyword="казнить")
        events.remove(vote)
        vote.clear()
        vote.update(type="MessagePosted", at=events[0]["at"], audience={"public": True, "users": []},
                    inbox="bar", author="nobody", text="a vote was here")
        events.append(vote)
    assert _failure(forge(exports[0], drop_a_vote)) == "tally_wrong"


def test_a_changed_ranking_is_caught(exports: list[bytes]) -> None:
    """EXEC-10: the lot is re-drawn from the logged seed."""
    def reorder(events: Events) -> None:
        closed = next(e for e in events if e["type"] == "VotingClosed" and len(e["ranking"]) > 1)
        closed["ranking"] = list(reversed(closed["ranking"]))
        closed["condemned"] = closed["ranking"][0]
    assert _failure(forge(exports[0], reorder)) in ("ranking_wrong", "tally_wrong")


def test_a_night_death_the_mafia_did_not_choose_is_caught(exports: list[bytes]) -> None:
    def retarget(events: Events) -> None:
        for e in events:
            if e["type"] == "NightDecisionFixed" and e["target"]:
                e["target"] = None
    assert _failure(forge(exports[0], retarget)) == "night_wrong"


def test_a_false_winner_is_caught(exports: list[bytes]) -> None:
    def flip(events: Events) -> None:
        fixed = _first(events, "GameResultFixed")
        fixed["result"] = "draw" if fixed["result"] != "draw" else "honest"
    assert _failure(forge(exports[0], flip)) == "result_wrong"


def test_a_falsely_decided_city_is_caught(exports: list[bytes]) -> None:
    def flip(events: Events) -> None:
        decided = _first(events, "CityDecided")
        decided["outcome"] = "mafia" if decided["outcome"] != "mafia" else "honest"
    assert _failure(forge(exports[0], flip)) in ("city_wrong", "post_wrong")


def test_a_broken_seal_is_caught(exports: list[bytes]) -> None:
    """RANDOM-5: the lists opened at the end are not the ones sealed."""
    def swap(events: Events) -> None:
        ended = _first(events, "GameEnded")
        city, order = ended["deal_lists"][0]
        ended["deal_lists"][0] = [city, list(reversed(order))]
    assert _failure(forge(exports[0], swap)) == "seal_broken"


def test_a_reveal_that_does_not_match_its_commitment_is_caught(exports: list[bytes]) -> None:
    def change(events: Events) -> None:
        _first(events, "DealEntropyRevealed", party="office:procurator")["value"] = "chosen later"
    assert _failure(forge(exports[1], change)) == "entropy_wrong"


def test_positions_the_draw_does_not_give_are_caught(exports: list[bytes]) -> None:
    """The server claims other numbers (and mafiosi to match): the re-derivation disagrees."""
    def renumber(events: Events) -> None:
        named = _first(events, "MafiaNumbersNamed")
        ended = _first(events, "GameEnded")
        order = dict((c, users) for c, users in ended["deal_lists"])[named["city"]]
        population = len(order)
        named["numbers"] = sorted(n % population + 1 for n in named["numbers"])
        dealt = _first(events, "MafiaDealt", city=named["city"])
        dealt["mafiosi"] = [order[n - 1] for n in named["numbers"]]
    assert _failure(forge(exports[1], renumber)) in ("deal_wrong", "death_wrong")
