"""Vote keywords as players really type them (glossary, AMB-43)."""

from __future__ import annotations

import re
from enum import StrEnum


class Keyword(StrEnum):
    EXECUTE = "казнить"
    WITHDRAW = "не казнить"
    GANDHI = "Он — Ганди!"
    HITLER = "Он — Гитлер!"


_SPACES = re.compile(r"\s+")
_DASH = re.compile(r"\s*[\-\u2010\u2011\u2012\u2013\u2014\u2015\u2212]\s*")
_TRAILING = re.compile(r"[\s.!?,;:…]+$")

_CANONICAL = {
    "казнить": Keyword.EXECUTE,
    "не казнить": Keyword.WITHDRAW,
    "он-ганди": Keyword.GANDHI,
    "он-гитлер": Keyword.HITLER,
}


def normalize(text: str) -> str:
    """Trim, fold whitespace and case, ё=е, any dash, drop trailing punctuation."""
    folded = _SPACES.sub(" ", text).strip().lower().replace("ё", "е")
    folded = _DASH.sub("-", folded)
    return _TRAILING.sub("", folded)


def parse_keyword(text: str) -> Keyword | None:
    """The keyword ``text`` means, or None if it is flood (EXEC-13, JUDGE-ELECT-10)."""
    return _CANONICAL.get(normalize(text))
