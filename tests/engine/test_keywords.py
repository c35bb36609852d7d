"""Vote keywords as players really type them (glossary, AMB-43, JUDGE-ELECT-5)."""

import pytest

from lepromafia.engine.keywords import Keyword, parse_keyword


@pytest.mark.parametrize(
    ("text", "keyword"),
    [
        ("казнить", Keyword.EXECUTE),
        ("  Казнить!!! ", Keyword.EXECUTE),
        ("КАЗНИТЬ.", Keyword.EXECUTE),
        ("не   казнить", Keyword.WITHDRAW),
        ("Не\u00a0казнить…", Keyword.WITHDRAW),
        ("Он — Ганди!", Keyword.GANDHI),
        ("он-ганди", Keyword.GANDHI),
        ("ОН – ГАНДИ", Keyword.GANDHI),
        ("Он -Ганди!!", Keyword.GANDHI),
        ("Он — Гитлер!", Keyword.HITLER),
        ("он‑гитлер?", Keyword.HITLER),
    ],
)
def test_keywords_are_recognised_with_the_glossary_tolerance(text, keyword):
    """EXEC-5, EXEC-7, JUDGE-ELECT-5: case, spaces, ё, any dash, trailing punctuation."""
    assert parse_keyword(text) is keyword


@pytest.mark.parametrize(
    "text", ["казнить его", "не казнить!!! а помиловать", "Он Ганди", "ганди", "", "казн ить"]
)
def test_anything_else_is_flood(text):
    """EXEC-13, JUDGE-ELECT-10: anything else is rejected as flood."""
    assert parse_keyword(text) is None


def test_yo_is_e():
    """AMB-43: ё = е."""
    assert parse_keyword("нё казнить") is Keyword.WITHDRAW


DASHES = ["-", "\u2010", "\u2011", "\u2012", "\u2013", "\u2014", "\u2015", "\u2212", "\u2e3a",
          "\u2e3b", "\ufe58", "\ufe63", "\uff0d", "\u2e17", "\u301c", "\u30a0", "\u058a"]


@pytest.mark.parametrize(
    ("text", "keyword"),
    [
        ("казнить)", Keyword.EXECUTE),
        ("казнить»", Keyword.EXECUTE),
        ("«казнить»", Keyword.EXECUTE),
        ("казнить-", Keyword.EXECUTE),
        ("казнить —", Keyword.EXECUTE),
        ('казнить"', Keyword.EXECUTE),
        ("казнить'", Keyword.EXECUTE),
        ("не казнить!)", Keyword.WITHDRAW),
        ("Он — Ганди!»", Keyword.GANDHI),
        ("Он — Гитлер!)", Keyword.HITLER),
    ],
)
def test_any_trailing_punctuation_is_ignored(text, keyword):
    """AMB-43 (issue 10): «ignore trailing punctuation» — brackets, quotes, dashes too."""
    assert parse_keyword(text) is keyword


@pytest.mark.parametrize("dash", DASHES)
def test_every_unicode_dash_is_the_dash_of_the_judge_keywords(dash):
    """AMB-43 (issue 10): «accept any dash» in «Он — Ганди!» — every Unicode dash."""
    assert parse_keyword(f"Он {dash} Ганди!") is Keyword.GANDHI
    assert parse_keyword(f"Он{dash}Гитлер!") is Keyword.HITLER
