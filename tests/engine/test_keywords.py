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
