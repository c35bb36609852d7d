"""The host's handbook in the app (issue 12): /help/hosting in Russian and English, every rule
it cites a link to an anchor the rules page really has, reachable from the rules page and
the audit log; docs/hosting.md is the English page itself."""

from __future__ import annotations

import re
from pathlib import Path

from lepromafia.web.pages.help import HELP_DIR, handbook_path
from lepromafia.web.pages.rules import SECTIONS

from .conftest import Api

ROOT = Path(__file__).resolve().parents[2]
ANCHORS = {s.anchor for s in SECTIONS} | {r for s in SECTIONS for r in s.rules}


def test_the_handbook_reads_in_russian_and_english(api: Api) -> None:
    """Russian by default, English with ?lang=en; a language without its own file reads the
    English one; the page is the whole handbook, day by day and office by office."""
    ru = api.get(None, "/help/hosting")
    assert ru.status_code == 200
    assert "Справочник ведущего" in ru.text and "День 1 и Ночь 1" in ru.text
    assert "Каждый день начиная со Дня 2" in ru.text and "<table>" in ru.text
    en = api.get(None, "/help/hosting", lang="en").text
    assert "The host's handbook" in en and "Every day from Day 2" in en
    assert handbook_path("hosting", "eo") == HELP_DIR / "hosting.en.md"


def test_every_rule_the_handbook_cites_is_a_working_link() -> None:
    """Each [RULE](/rules#X) names an anchor of the rules page (a section or a rule chip)."""
    for lang in ("en", "ru"):
        text = (HELP_DIR / f"hosting.{lang}.md").read_text(encoding="utf-8")
        links = re.findall(r"\]\(/rules#?([^)]*)\)", text)
        assert len(links) > 60, lang
        assert not [a for a in links if a not in ANCHORS], lang
        ids = re.findall(r"\[([A-Z]+(?:-[A-Z]+)*-\d+)\]", text)
        assert {"TIME-7", "COMM-APPT-1", "HOST-PROC-3", "RANDOM-4", "START-0"} <= set(ids), lang


def test_the_handbook_is_reachable_and_is_docs_hosting(api: Api) -> None:
    assert 'href="/help/hosting"' in api.get(None, "/rules").text
    assert (ROOT / "docs" / "hosting.md").read_text(encoding="utf-8") == \
        (HELP_DIR / "hosting.en.md").read_text(encoding="utf-8")
