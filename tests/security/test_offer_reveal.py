"""F3-3 (SEC-1, COMM-APPT-2): what the Procurator sees of a commissar offer reaches him
only at the reveal the minimum window sets, whatever the candidate answered and when.

Cast (the engine tests' ten of Лепроград, mafia alice and bob): the Procurator «pavel»
offers the badge at 10:05; the reveal is due at 10:35. In four games the candidate is
alice (a mafioso, must refuse) or carol (honest, accepts or refuses), and answers at once
(10:06) or late (10:34). The Procurator's own view of every game is the same to the
second, apart from the answer itself in the reveal.
"""

from __future__ import annotations

from typing import Any

import pytest

from lepromafia.engine import events as ev
from lepromafia.engine.commands import AnswerCommissarOffer, PostMessage
from lepromafia.engine.visibility import visible_to

from ..engine.cast import PROCURATOR
from ..engine.test_commissar import TOWN, day_one, offer

DRAW = {"alice": 0, "carol": 2}


def procurator_view(candidate: str, accept: bool, answer_at: str) -> tuple[list[Any], list[Any]]:
    """(what he saw at the answer, what he saw from then to 10:40) as (time, type, key)."""
    g = day_one()
    offer(g, draw=DRAW[candidate])
    g.do(PostMessage(actor="dave", inbox=g.state.current_inbox("city", TOWN), text="утро"), 1, "10:05")
    at_answer = g.do(AnswerCommissarOffer(actor=candidate, accept=accept), 1, answer_at)
    later = g.to(1, "10:40")
    def seen(events: list[Any]) -> list[Any]:
        return [(e.at, type(e).__name__, getattr(e, "key", None)) for e in events
                if visible_to(e, PROCURATOR)]
    return seen(at_answer), seen(later)


@pytest.mark.parametrize("answer_at", ["10:06", "10:34"])
@pytest.mark.parametrize(("candidate", "accept"), [("alice", False), ("carol", False), ("carol", True)])
def test_the_procurator_sees_nothing_when_the_candidate_answers(candidate: str, accept: bool,
                                                              answer_at: str) -> None:
    """F3-3: no deadline fires or appears for him at the answer (today: offer_timeout fired)."""
    at_answer, _ = procurator_view(candidate, accept, answer_at)
    assert at_answer == []


def test_every_answer_reaches_the_procurator_in_the_same_shape_at_the_reveal() -> None:
    """SEC-1: a mafioso's quick refusal, an honest late refusal and an acceptance: the same
    events, at 10:35, in the same order."""
    views = {(c, a, t): procurator_view(c, a, t)[1]
             for c, a in (("alice", False), ("carol", False), ("carol", True))
             for t in ("10:06", "10:34")}
    shapes = {tuple(v) for v in views.values()}
    assert len(shapes) == 1, views
    (shape,) = shapes
    assert {at.strftime("%H:%M") for at, _, _ in shape} == {"10:35"}
    assert [t for _, t, _ in shape].count("CommissarOfferResolved") == 1


def test_an_answer_after_the_window_is_shown_when_it_is_given() -> None:
    """Glossary, commissar_offer_min_window: "… or when it is given if later"."""
    g = day_one()
    offer(g, draw=2)
    g.to(1, "11:00")
    events = g.do(AnswerCommissarOffer(actor="carol", accept=True), 1, "11:00")
    (resolved,) = [e for e in events if isinstance(e, ev.CommissarOfferResolved)]
    assert resolved.accepted and visible_to(resolved, PROCURATOR)
    assert g.state.cities[TOWN].commissar == "carol"
