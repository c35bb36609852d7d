"""Translations: gettext catalogs (``locale/<lang>/LC_MESSAGES/messages.po``), Russian first.

Message ids are English. Catalogs are compiled in memory from the ``.po`` files at first
use (no binary ``.mo`` in the repository). Rule and service errors are not here: they
carry their own Russian and English messages (``RuleViolation.message(lang)``).
"""

from __future__ import annotations

import io
from functools import cache
from pathlib import Path

from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po
from babel.support import Translations

LOCALE_DIR = Path(__file__).parent / "locale"
LANGUAGES = ("ru", "en")
DEFAULT_LANG = "ru"
DOMAIN = "messages"


def normalize(lang: str | None) -> str:
    """A supported language code (``ru`` unless ``en`` is asked for)."""
    if lang:
        code = lang.strip().lower()[:2]
        if code in LANGUAGES:
            return code
    return DEFAULT_LANG


@cache
def translations(lang: str) -> Translations:
    """The catalog of ``lang`` (usable by Jinja2's ``install_gettext_translations``)."""
    po = LOCALE_DIR / normalize(lang) / "LC_MESSAGES" / f"{DOMAIN}.po"
    if not po.exists():
        return Translations()
    with po.open("rb") as f:
        catalog = read_po(f, locale=normalize(lang), domain=DOMAIN)
    buf = io.BytesIO()
    write_mo(buf, catalog)
    buf.seek(0)
    return Translations(fp=buf, domain=DOMAIN)


def gettext(lang: str, msgid: str, **fields: object) -> str:
    text = translations(normalize(lang)).gettext(msgid)
    return text.format(**fields) if fields else text


def ngettext(lang: str, singular: str, plural: str, n: int, **fields: object) -> str:
    text = translations(normalize(lang)).ngettext(singular, plural, n)
    return text.format(n=n, **fields)
