"""The one translation path: gettext catalogs in ``locale/<lang>/LC_MESSAGES/messages.po``.

Message ids are English and English is the source language (it needs no catalog); Russian
is the default. The languages are the catalogs found in ``LOCALE_DIR`` — adding a language
is adding one ``messages.po`` (see docs/architecture.md, "How to add a language").
``make install`` compiles each ``.po`` into a ``.mo`` beside it (not committed); a missing or
stale ``.mo`` is compiled in memory from its ``.po``, so a fresh checkout still works.

Pages, errors, the CLI transcript and the browser scripts all translate here:
``translate(lang, msgid, **fields)``, ``ntranslate`` for plurals (Russian has three forms),
``error_message(lang, exc)`` for any ``CodedError``.
"""

from __future__ import annotations

import io
import os
from collections.abc import Iterator
from contextlib import contextmanager
from functools import cache
from pathlib import Path
from typing import Any

from babel import Locale, UnknownLocaleError
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po
from babel.support import NullTranslations, Translations

from ..engine.errors import CodedError

LOCALE_DIR = Path(os.environ.get("LEPROMAFIA_LOCALE_DIR") or Path(__file__).parent / "locale")
"""The catalogs (``LEPROMAFIA_LOCALE_DIR`` may point elsewhere, e.g. to try a new catalog)."""
DOMAIN = "messages"
SOURCE_LANG = "en"
DEFAULT_LANG = "ru"


def discover(locale_dir: Path = LOCALE_DIR) -> tuple[str, ...]:
    """The languages with a catalog in ``locale_dir``, plus English (the msgids): the default
    first, then English, then the others by code."""
    found = {p.name for p in locale_dir.iterdir() if (p / "LC_MESSAGES" / f"{DOMAIN}.po").is_file()}
    found.add(SOURCE_LANG)
    head = [code for code in (DEFAULT_LANG, SOURCE_LANG) if code in found]
    return (*head, *sorted(found - set(head)))


LANGUAGES = discover()


def language_name(code: str) -> str:
    """The language's own name for itself (CLDR, through Babel): «русский», «English»."""
    try:
        name = Locale.parse(code).get_display_name(code) or code
    except (ValueError, UnknownLocaleError):
        return code
    return name[:1].upper() + name[1:]


def normalize(lang: str | None, languages: tuple[str, ...] = LANGUAGES) -> str:
    """A supported language code; the default one for anything else."""
    if lang:
        code = lang.strip().lower().replace("_", "-").split("-")[0]
        if code in languages:
            return code
    return DEFAULT_LANG


def load(po: Path) -> NullTranslations:
    """The catalog of one ``.po``: its compiled ``.mo`` when that is up to date, otherwise
    compiled in memory."""
    mo = po.with_suffix(".mo")
    if mo.is_file() and mo.stat().st_mtime >= po.stat().st_mtime:
        with mo.open("rb") as f:
            return Translations(fp=f, domain=DOMAIN)
    with po.open("rb") as f:
        catalog = read_po(f, locale=po.parent.parent.name, domain=DOMAIN)
    buf = io.BytesIO()
    write_mo(buf, catalog)
    buf.seek(0)
    return Translations(fp=buf, domain=DOMAIN)


@cache
def translations(lang: str) -> NullTranslations:
    """The catalog of ``lang`` (English has none: the msgids are English)."""
    po = LOCALE_DIR / lang / "LC_MESSAGES" / f"{DOMAIN}.po"
    if lang == SOURCE_LANG or not po.is_file():
        return NullTranslations()
    return load(po)


# --- the lookups -------------------------------------------------------------------

_misses: set[tuple[str, str]] | None = None


@contextmanager
def recording_misses() -> Iterator[set[tuple[str, str]]]:
    """Collects ``(lang, msgid)`` looked up without a translation (the all-pages test)."""
    global _misses
    _misses = set()
    try:
        yield _misses
    finally:
        _misses = None


def _lookup(lang: str, msgid: str) -> str:
    catalog = translations(normalize(lang))
    text = catalog.gettext(msgid)
    if _misses is not None and lang != SOURCE_LANG and msgid and text == msgid \
            and msgid not in getattr(catalog, "_catalog", {}):
        _misses.add((lang, msgid))
    return text


def _format(text: str, fields: dict[str, Any]) -> str:
    if not fields:
        return text
    try:
        return text.format(**fields)
    except (KeyError, IndexError, ValueError):
        return text


def translate(lang: str, msgid: str, **fields: Any) -> str:
    """``msgid`` in ``lang``, its ``{fields}`` filled in (``str.format``)."""
    return _format(_lookup(lang, msgid), fields)


def ntranslate(lang: str, singular: str, plural: str, n: object, **fields: Any) -> str:
    """The plural form for ``n`` in ``lang`` (Russian: один / два–четыре / пять), ``{n}`` filled.
    A count that is not a number ("?" for a hidden one) takes the general plural form."""
    catalog = translations(normalize(lang))
    count = n if isinstance(n, int) else int(str(n)) if str(n).isdigit() else 5
    text = catalog.ngettext(singular, plural, count)
    if _misses is not None and lang != SOURCE_LANG \
            and (singular, 0) not in getattr(catalog, "_catalog", {}):
        _misses.add((lang, singular))
    return _format(text, {"n": n, **fields})


FIELD_TERMS = {"setting": "setting", "kind": "kind"}
"""Error fields holding a stored key (a setting's name, an inbox kind): the reader sees its
term (``pages/terms.py``), never the key."""


def error_message(lang: str, exc: CodedError) -> str:
    """A coded error's sentence in ``lang``: its template and its ``detail`` phrase from the
    catalog, each field holding a key shown by its term."""
    from .pages.terms import term  # the terms are msgids declared beside the pages' words

    shown = {name: term(lang, group, exc.fields[name]) for name, group in FIELD_TERMS.items()
             if isinstance(exc.fields.get(name), str)}
    return exc.message(lambda template: _lookup(lang, template), shown)


def N_(message: str) -> str:
    """Marks a msgid for extraction where it is declared and translated later."""
    return message
