"""The Tribune's console shows the previous day's vote count (EXEC-14, EXEC-16, review m2):
he posts the result in his city and publishes it with the Court's verdict in the Day Post,
so the morning after a vote his console gives him the engine's count — each candidate with
his tally and voters in order, the condemned, what followed — not a recount of the page's.

Cast: ``small_cast()`` — two cities of six (no Supreme Court, fewer than 4 cities); Day 1
is 1 December, the vote of Day 2 runs 20:00–23:30 Moscow time. Tribune 1 holds the first
city, tribune 2 the second.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from lepromafia.web.api.votes import published_counts

from .conftest import Api, at, make_api, setup_game_via_api, small_cast
from .test_consoles import no_internals, section, shown

CAST = small_cast()
A, B = list(CAST.cities)
GAME = "pages"


@pytest.fixture
def game(tmp_path: Path) -> Iterator[Api]:
    for api in make_api(tmp_path):
        setup_game_via_api(api, GAME, CAST)
        api.advance_to(at(1, "10:05"))
        yield api


def test_the_morning_after_the_vote_the_tribune_reads_yesterday_s_count_EXEC_14_EXEC_16(game: Api) -> None:
    """Day 2: two citizens nominate and condemn the same candidate; the vote closes with
    «Итог: осуждён …» under the tally (m2). On Day 3 the Tribune's console shows «Голосование
    Дня 2» with the candidate's two votes and their voters in order, the condemned and the
    execution, linked to the votes page — the very count ``vote_counts`` gives his seat. The
    other city's Tribune sees his own city's, not this one's."""
    tribune, other = CAST.tribunes[0], CAST.tribunes[1]
    console = f"/games/{GAME}/console/tribune"
    residents = CAST.cities[A]
    candidate, voters = residents[0], residents[1:3]
    assert 'data-testid="previous-vote"' not in game.get(tribune, console).text

    game.advance_to(at(2, "10:05"))
    for nominator in voters:
        game.ok(nominator, GAME, "Nominate", candidate=candidate)
    game.advance_to(at(2, "20:01"))
    box = game.state(GAME).current[f"voting:{A}/{candidate}"]
    for voter in voters:
        game.ok(voter, GAME, "PostMessage", inbox=box, text="казнить")
    game.advance_to(at(2, "23:31"))
    page = game.get(tribune, console).text
    assert f"Итог: осуждён {candidate}" in section(page, "vote-result")

    game.advance_to(at(3, "10:05"))
    page = game.get(tribune, console).text
    previous = section(page, "previous-vote")
    assert "Предыдущее голосование: День 2" in previous[:120], previous[:120]
    assert re.search(rf"{candidate} — 2 голоса ?: {voters[0]}, {voters[1]}", previous), previous[:600]
    assert f"Приговорён: {candidate}" in previous and f"{candidate} казнён" in previous
    assert f'href="/games/{GAME}/votes/{A}/2"' in page
    no_internals(page)

    # The engine's answer for this seat, rendered: the same count, nothing recomputed.
    portal = game.client.portal  # type: ignore[union-attr]
    events = portal.call(game.web.queries.events, portal.call(game.web.queries.current, GAME))
    (count,) = [vc for vc in published_counts(events, tribune) if vc.city == A and vc.day == 2]
    assert next((c.candidate, c.votes, c.voters) for c in count.candidates) == (candidate, 2, tuple(voters))
    assert count.condemned == candidate and count.executed == candidate

    theirs = game.get(other, console).text
    assert f'data-city="{A}"' not in theirs.split('data-testid="previous-vote"', 1)[-1][:4000]
    assert candidate not in shown(theirs).split("Предыдущее голосование")[-1][:2000]
