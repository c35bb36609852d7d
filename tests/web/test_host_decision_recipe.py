"""docs/architecture.md, "How to add a host decision", walked once through the page.

A made-up decision — the Procurator sets a city's curfew (HOST-PROC-7 stands in for its
rule) — is declared the way the recipe says, in one block: its command, its event, the rule
that decides it and the evolve rule that records it, each field's label, the cities it may
name (the engine's valid values) and its audit line. Nothing else is edited: the Procurator's
console then offers a form derived from the command (a select of the living cities, the
Moscow picker for the moment, a checkbox, a text field), a field left empty is refused by
its label, the engine's refusal changes nothing, and the accepted decision reaches the state
and the audit log. The Consigliere's GODFATHER-2 and MAFIA-KILL-5 procedures, declared the
same way in ``engine/decisions/mafia_rules.py``, are played from his console too.

Cast: ``small_cast()`` (two cities of six, the four offices).
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest

from lepromafia.engine import decision as registry
from lepromafia.engine.audience import PUBLIC
from lepromafia.engine.commands import Command
from lepromafia.engine.decision import AuditLine, Option, host_decision
from lepromafia.engine.errors import N_, ErrorCode, check
from lepromafia.engine.events import Event
from lepromafia.engine.events_host import HostDecision
from lepromafia.engine.progress import Progress
from lepromafia.engine.rules.common import require_city, require_procurator
from lepromafia.engine.rules.host import reason_of
from lepromafia.engine.state import GameState

from .conftest import Api, at, make_api, setup_game_via_api, small_cast
from .test_pages import error_code
from .test_pages import submit as submit_to

CAST = small_cast()
A, B = list(CAST.cities)
GAME = "recipe"
PROCURATOR = f"/games/{GAME}/console/procurator"
TRIBUNE = f"/games/{GAME}/console/tribune"
CONSIGLIERE = f"/games/{GAME}/console/consigliere"


# --- the recipe: one block declares the decision ------------------------------------

_C = {"frozen": True, "slots": True, "kw_only": True}


@dataclass(**_C)
class SetCurfew(Command):
    city: str
    until: datetime
    strict: bool = False
    note: str = ""
    reason: str


@dataclass(**_C)
class CurfewSet(HostDecision):
    city: str
    until: datetime
    strict: bool


def _living_cities(s: GameState, actor: str) -> tuple[Option, ...]:
    return tuple(Option(name) for name, c in s.cities.items() if c.decided is None)


def _recorded(state: GameState, e: CurfewSet) -> GameState:
    return state  # the audit line (added by the registry) is its whole record


def set_curfew(p: Progress, c: SetCurfew) -> None:
    s = p.state
    require_procurator(s, c.actor)
    city = require_city(s, c.city)
    check(c.until > p.now, ErrorCode.DECISION_INVALID, "HOST-PROC-7",
          detail=N_("the period must end after it starts, in the future"))
    p.emit(CurfewSet, PUBLIC, host=c.actor, rule="HOST-PROC-7", reason=reason_of(s, c.reason),
           city=city.name, until=c.until, strict=c.strict)


@pytest.fixture
def curfew() -> Iterator[None]:
    host_decision(
        "curfew", office="procurator", command=SetCurfew, event=CurfewSet, rule="HOST-PROC-7",
        title="Curfew", explain="Residents of the city stay home until the moment you set.",
        evolve=_recorded,
        labels={"city": N_("City"), "until": N_("Until"), "strict": "Strict", "note": "Note",
                "reason": N_("Reason")},
        choices={"city": _living_cities},
        audit=AuditLine("calendar", "Set a curfew in {city} until {until}",
                        lambda e: {"city": e.city, "until": e.until}),
    )(set_curfew)
    yield
    registry.forget("curfew")
    gc.collect()


@pytest.fixture
def game(tmp_path: Path) -> Iterator[Api]:
    for api in make_api(tmp_path):
        setup_game_via_api(api, GAME, CAST)
        api.advance_to(at(1, "10:05"))
        yield api


def submit(api: Api, user: str, action: str, page: str, **fields: Any) -> str:
    return submit_to(api, user, action, page, game=GAME, **fields)


def stored_events(api: Api) -> list[Event]:
    """The game's events as the read side has them: read back from the store (the codec)."""
    current = api.client.portal.call(api.web.queries.current, GAME)  # type: ignore[union-attr]
    events = api.client.portal.call(api.web.queries.events, current)  # type: ignore[union-attr]
    return [e for _seq, e in events]


def audit_actions(api: Api) -> list[str]:
    return [a.action for a in api.state(GAME).records.audit]


def test_a_decision_declared_in_one_block_is_played_from_the_console(curfew: None, game: Api) -> None:
    """The recipe: a derived form on the Procurator's console only; a field left empty is
    field_required (named by its label) and a past moment decision_invalid — neither records
    anything; the accepted curfew is in the state's audit and the audit log's words."""
    page = game.get(CAST.procurator, PROCURATOR, lang="en").text
    form = page[page.index('data-testid="decision-form-curfew"'):]
    form = form[:form.index("</form>")]
    assert f'<option value="{A}">{A}</option>' in form and f'<option value="{B}">' in form
    assert 'data-testid="moment-until"' in form and 'name="until_time"' in form
    assert 'type="checkbox" name="strict"' in form and 'name="note"' in form
    assert ">Until<" in form and ">Reason<" in form and "Curfew" in page
    assert 'decision-form-curfew' not in game.get(CAST.tribunes[0], TRIBUNE, lang="en").text
    russian = game.get(CAST.procurator, PROCURATOR, lang="ru").text
    assert ">До<" in russian[russian.index('decision-form-curfew'):], "labels come from the catalog"

    tomorrow = at(2, "06:00")
    fields = {"city": A, "until_date": tomorrow.date().isoformat(), "reason": "Ночные беспорядки"}
    html = submit(game, CAST.procurator, "curfew", PROCURATOR, **fields, until_time="")
    assert error_code(html) == "field_required"
    assert 'data-field="until_time"' in html
    html = submit(game, CAST.procurator, "curfew", PROCURATOR, **{**fields,
                  "until_date": at(1, "00:00").date().isoformat()}, until_time="09:00")
    assert error_code(html) == "decision_invalid"
    assert "CurfewSet" not in audit_actions(game)

    html = submit(game, CAST.procurator, "curfew", PROCURATOR, **fields, until_time="06:00", strict="1")
    assert error_code(html) is None
    assert audit_actions(game)[-1] == "CurfewSet"
    (event,) = [e for e in stored_events(game) if isinstance(e, CurfewSet)]
    assert (event.city, event.until, event.strict) == (A, tomorrow, True)
    rows = game.get(CAST.procurator, f"/api/games/{GAME}/audit", lang="en").json()["rows"]
    assert any(f"Set a curfew in {A} until" in r["what"] for r in rows), rows


def test_a_tribune_cannot_take_the_procurator_s_decision(curfew: None, game: Api) -> None:
    """HOST-PROC-1: the same form posted by a Tribune is not_procurator and records nothing."""
    html = submit(game, CAST.tribunes[0], "curfew", TRIBUNE, city=A, reason="Хочу",
                  until_date=at(2, "06:00").date().isoformat(), until_time="06:00")
    assert error_code(html) == "not_procurator"
    assert "CurfewSet" not in audit_actions(game)


def test_forgetting_a_decision_takes_it_off_every_registry(game: Api) -> None:
    """What the fixture undoes: no console offers it, no route builds it, no codec decodes it."""
    assert "curfew" not in registry.DECISIONS and "CurfewSet" not in registry.EVENTS
    assert 'decision-form-curfew' not in game.get(CAST.procurator, PROCURATOR, lang="en").text


def test_the_consigliere_sets_his_mafia_s_procedures_from_derived_forms(game: Api) -> None:
    """GODFATHER-2, MAFIA-KILL-5 (D23): the Consigliere's console offers both as selects of
    the offered rules in words; an unknown rule is decision_invalid; the chosen ones hold."""
    page = game.get(CAST.consigliere, CONSIGLIERE, lang="en").text
    form = page[page.index('data-testid="decision-form-godfather_election_rule"'):]
    assert '<option value="unanimity">unanimity</option>' in form[:form.index("</form>")]
    assert 'data-testid="decision-form-silent_godfather_procedure"' in page
    assert 'decision-form-godfather_election_rule' not in game.get(CAST.procurator, PROCURATOR).text

    html = submit(game, CAST.consigliere, "godfather_election_rule", CONSIGLIERE, city=A,
                  rule="acclamation", reason="Так решил")
    assert error_code(html) == "decision_invalid"
    assert game.state(GAME).records.godfather_rule(A) == "plurality"
    html = submit(game, CAST.consigliere, "godfather_election_rule", CONSIGLIERE, city=A,
                  rule="unanimity", reason="Так решил")
    assert error_code(html) is None
    html = submit(game, CAST.consigliere, "silent_godfather_procedure", CONSIGLIERE, city=B,
                  procedure="no_kill", reason="Тишина")
    assert error_code(html) is None
    records = game.state(GAME).records
    assert (records.godfather_rule(A), records.silent_procedure(B)) == ("unanimity", "no_kill")
