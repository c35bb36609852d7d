"""Vote keywords as players really type them (glossary, AMB-43)."""

from __future__ import annotations

import re
import unicodedata
from enum import StrEnum


class Keyword(StrEnum):
    EXECUTE = "казнить"
    WITHDRAW = "не казнить"
    GANDHI = "Он — Ганди!"
    HITLER = "Он — Гитлер!"


_SPACES = re.compile(r"\s+")
_DASH = re.compile(r"\s*-\s*")
_MINUS_LIKE = "\u2212\u2043\u02d7\u2796"
"""Signs typed as dashes that Unicode files as symbols, not dash punctuation."""
_OPENING_QUOTES = "\"'«‹„‚“‘"

_CANONICAL = {
    "казнить": Keyword.EXECUTE,
    "не казнить": Keyword.WITHDRAW,
    "он-ганди": Keyword.GANDHI,
    "он-гитлер": Keyword.HITLER,
}


def _dash_to_hyphen(ch: str) -> str:
    return "-" if unicodedata.category(ch) == "Pd" or ch in _MINUS_LIKE else ch


def _strip_trailing(text: str) -> str:
    """Drop trailing punctuation (any Unicode punctuation class) and spaces."""
    end = len(text)
    while end and (text[end - 1].isspace() or unicodedata.category(text[end - 1]).startswith("P")
                   or text[end - 1] in _MINUS_LIKE):
        end -= 1
    return text[:end]


def normalize(text: str) -> str:
    """Trim, fold whitespace and case, ё=е, any dash, drop trailing punctuation (and an
    opening quote: «казнить» typed in quotes)."""
    folded = _SPACES.sub(" ", text).strip().lower().replace("ё", "е")
    folded = "".join(_dash_to_hyphen(ch) for ch in folded)
    folded = _strip_trailing(folded).lstrip(_OPENING_QUOTES + " ")
    return _DASH.sub("-", folded)


def parse_keyword(text: str) -> Keyword | None:
    """The keyword ``text`` means, or None if it is flood (EXEC-13, JUDGE-ELECT-10)."""
    return _CANONICAL.get(normalize(text))
