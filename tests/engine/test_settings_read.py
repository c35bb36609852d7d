"""No setting is accepted and then ignored (design review §1.6, issue 9): every option a
host may choose is read by a rule; options not implemented are refused with
INVALID_SETTINGS. And ``publish_nominators`` does what EXEC-3 says."""

from __future__ import annotations

import pathlib
import re
from dataclasses import fields

import pytest

from lepromafia.engine import events as ev
from lepromafia.engine.commands import Nominate
from lepromafia.engine.errors import ErrorCode, RuleViolation
from lepromafia.engine.settings import CHOICES, LABELS, OPTION_LABELS, GameSettings

from .cast import TRIBUNES, Game

ENGINE = pathlib.Path(__file__).resolve().parents[2] / "src" / "lepromafia" / "engine"
READ_IN_SETTINGS = {"supreme_court_mode": "GameSettings.has_court",
                    "population_per_city": "the seats of the Recruitment Post (CITY-1), validate()"}
"""Settings read by settings.py itself, with where."""


def _fixed(name: str) -> bool:
    return len(CHOICES.get(name, ("", ""))) == 1


def test_every_setting_a_host_may_change_is_read_by_a_rule() -> None:
    """§8: a host who picks an option gets that option's behaviour, or a refusal."""
    sources = "\n".join(p.read_text(encoding="utf-8") for p in ENGINE.rglob("*.py")
                        if p.name != "settings.py")
    unread = [f.name for f in fields(GameSettings)
              if not re.search(rf"\.{f.name}\b", sources) and f.name not in READ_IN_SETTINGS
              and not _fixed(f.name)]
    assert unread == [], f"accepted but read by no rule: {unread}"


def test_every_setting_has_its_words_beside_it() -> None:
    """§8: a page names a setting and its options by their words, never by their keys
    (``LABELS``, ``OPTION_LABELS``: msgids)."""
    assert set(LABELS) == {f.name for f in fields(GameSettings)}
    assert all(LABELS.values())
    options = {option for offered in CHOICES.values() for option in offered}
    assert options <= set(OPTION_LABELS), sorted(options - set(OPTION_LABELS))


@pytest.mark.parametrize("key, option", [("no_candidate_policy", "lot_all_eligible"),
                                         ("final_tie_fallback", "host"),
                                         ("death_status_reveal", "faction_and_office")])
def test_options_not_implemented_are_refused_not_ignored(key: str, option: str) -> None:
    """EXEC-2, EXEC-10, HOST-PROC-3: only the catalog's default is implemented; the option
    is an INVALID_SETTINGS error that names the key, never a silent default."""
    with pytest.raises(RuleViolation) as caught:
        GameSettings.from_mapping({key: option})
    assert caught.value.code is ErrorCode.INVALID_SETTINGS and key in caught.value.message()


def test_nominators_are_published_only_when_the_game_says_so() -> None:
    """EXEC-3 (AMB-24): by default carol's nomination of dave reaches carol and the Tribune
    only; with publish_nominators = true everyone sees who nominated whom."""
    town = {"Лепроград": "alice bob carol dave erin frank"}
    private = Game(town, mafia={"Лепроград": "alice bob"}).start()
    private.to(2, "10:00")
    private.do(Nominate(actor="carol", candidate="dave"), 2, "11:00")
    (made,) = private.events_of(ev.NominationMade)
    assert not made.audience.public and made.audience.users == {"carol", TRIBUNES[0]}
    public = Game(town, mafia={"Лепроград": "alice bob"}, settings={"publish_nominators": True}).start()
    public.to(2, "10:00")
    public.do(Nominate(actor="carol", candidate="dave"), 2, "11:00")
    (made,) = public.events_of(ev.NominationMade, seen_by="erin")
    assert made.audience.public and (made.nominator, made.candidate) == ("carol", "dave")
