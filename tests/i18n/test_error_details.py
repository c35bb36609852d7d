"""Issue 9 §4–5: a refusal reads in the reader's language to its last word. Every ``detail``
phrase a rule gives (``RuleViolation(…, detail=…)``) is a msgid marked ``N_`` with Russian
beside it; a setting or an inbox kind in it is shown by its name, never its key.

Cast: the engine's sources (every ``detail=`` keyword), the settings a host may get wrong.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from lepromafia.engine.errors import ErrorCode, RuleViolation
from lepromafia.engine.settings import GameSettings
from lepromafia.web import i18n

from .test_catalogs import catalog

ENGINE = Path(__file__).resolve().parents[2] / "src" / "lepromafia" / "engine"


def details() -> list[tuple[str, int, ast.expr]]:
    found = []
    for path in sorted(ENGINE.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call):
                found += [(path.name, node.lineno, kw.value) for kw in node.keywords if kw.arg == "detail"]
    return found


def test_every_detail_phrase_of_a_rule_is_a_marked_msgid_with_russian() -> None:
    russian = catalog("ru")
    found = details()
    assert len(found) > 40
    for name, line, value in found:
        literal = (isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and value.func.id == "N_"
                   and len(value.args) == 1 and isinstance(value.args[0], ast.Constant))
        if name == "settings.py" and isinstance(value, ast.Name) and value.id == "detail":
            continue  # _bad(detail, setting): its callers pass N_ literals, checked below
        assert literal, f"{name}:{line}: detail= must be N_('an English phrase'), fields beside it"
        msgid = value.args[0].value  # type: ignore[attr-defined]
        assert russian.get(msgid), f"{name}:{line}: no Russian for {msgid!r}"
    text = (ENGINE / "settings.py").read_text(encoding="utf-8")
    for msgid in re.findall(r'_bad\(N_\("([^"]+)"\)', text):
        assert russian.get(msgid), msgid


@pytest.mark.parametrize("bad", [{"city_count": 0}, {"pardon_majority": "by_acclamation"},
                                 {"mafia_share_percent": 70}, {"day_start_time": "ten"},
                                 {"min_votes_to_execute": 3}, {"judge_min_net_votes": -1}])
def test_a_bad_setting_is_refused_by_its_name_in_both_languages(bad: dict[str, object]) -> None:
    """CITY-1 and §8: «Число городов»: не меньше 1 — never ``city_count`` to a reader."""
    with pytest.raises(RuleViolation) as caught:
        GameSettings.from_mapping(bad)
    error = caught.value
    assert error.code is ErrorCode.INVALID_SETTINGS
    key = next(iter(bad))
    russian, english = i18n.error_message("ru", error), i18n.error_message("en", error)
    assert key not in russian and key not in english, (russian, english)
    assert not re.search(r"[A-Za-z]{3,}", russian.replace("ЧЧ:ММ", "")), russian
    assert key in error.message(), "the untranslated message (logs) keeps the key"


def test_a_schedule_refusal_reads_in_russian_to_its_last_word() -> None:
    """TIME-2: «Недопустимое расписание: у времени должен быть часовой пояс»."""
    error = RuleViolation(ErrorCode.SCHEDULE_INVALID, "TIME-2", detail="times need a timezone")
    russian = i18n.error_message("ru", error)
    assert "timezone" not in russian and "пояс" in russian, russian
    kind = RuleViolation(ErrorCode.BAN_NOT_ALLOWED, "HOST-ARB-3", detail="not in this kind of inbox ({kind})",
                         kind="voting")
    assert "voting" not in i18n.error_message("ru", kind) and "voting" not in i18n.error_message("en", kind)
