"""The one translation path: the catalogs hold exactly the msgids the code and templates use,
each translated, with the same ``{fields}``; every error code reads as a sentence in Russian;
a new language is one catalog.

Cast: the Russian catalog (``web/locale/ru``), every code enum, and a made-up Esperanto
catalog in a temporary locale directory.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest
from babel.messages.extract import extract_from_dir
from babel.messages.frontend import parse_mapping_cfg
from babel.messages.pofile import read_po

from lepromafia.engine.errors import CodeEnum, ErrorCode, RuleViolation
from lepromafia.service.accounts import AccountErrorCode
from lepromafia.service.archive import ArchiveErrorCode
from lepromafia.service.audit import AuditErrorCode
from lepromafia.service.errors import ServiceErrorCode
from lepromafia.service.media import MediaErrorCode
from lepromafia.web import i18n
from lepromafia.web.errors import WebErrorCode

ROOT = Path(__file__).resolve().parents[2]
SRC = ROOT / "src"
KEYWORDS = {"_": None, "gettext": None, "ngettext": (1, 2), "N_": None, "translate": (2,),
            "ntranslate": (2, 3)}
"""The Makefile's I18N_KEYWORDS plus Babel's defaults that the code uses."""
FIELD = re.compile(r"\{(\w*)[^{}]*\}")
CODE_ENUMS: tuple[type[CodeEnum], ...] = (ErrorCode, ServiceErrorCode, AccountErrorCode, MediaErrorCode, AuditErrorCode,
                                          ArchiveErrorCode, WebErrorCode)


def extracted() -> set[str]:
    """What ``make i18n`` extracts (pybabel's own extractor and ``babel.cfg``)."""
    with (ROOT / "babel.cfg").open() as f:
        method_map, options_map = parse_mapping_cfg(f)
    found = set()
    for _file, _line, message, _comments, _context in extract_from_dir(
            str(SRC), method_map, options_map, keywords=KEYWORDS):
        found.add(message[0] if isinstance(message, tuple | list) else message)
    return found


def catalog(lang: str) -> dict[str, object]:
    with (i18n.LOCALE_DIR / lang / "LC_MESSAGES" / "messages.po").open("rb") as f:
        po = read_po(f, locale=lang)
    out: dict[str, object] = {}
    for m in po:
        if m.id:
            assert "fuzzy" not in m.flags, f"{lang}: fuzzy entry {m.id!r}"
            out[m.id[0] if isinstance(m.id, tuple) else m.id] = m.string
    return out


@pytest.fixture(scope="module")
def russian() -> dict[str, object]:
    return catalog("ru")


def test_every_msgid_in_the_code_and_templates_is_in_the_russian_catalog_and_no_other(
        russian: dict[str, object]) -> None:
    """A string added with ``_()``/``N_()``/``translate`` but not translated fails here, and so
    does a catalog entry nothing uses any more (run ``make i18n`` and fill in the .po)."""
    code = extracted()
    assert len(code) > 700
    assert sorted(code - russian.keys()) == [], "untranslated: run make i18n and translate"
    assert sorted(russian.keys() - code) == [], "stale catalog entries: run make i18n"


def test_every_translation_is_filled_in_and_keeps_the_fields_of_its_msgid(
        russian: dict[str, object]) -> None:
    for msgid, text in russian.items():
        forms = text if isinstance(text, tuple | list) else (text,)
        for form in forms:
            assert form, f"empty translation of {msgid!r}"
            if "{" in msgid:  # plural forms may drop {n} ("один голос"), never add a field
                assert set(FIELD.findall(form)) <= set(FIELD.findall(msgid)) | {"n"}, (msgid, form)
                if not isinstance(text, tuple | list):
                    assert set(FIELD.findall(form)) == set(FIELD.findall(msgid)), (msgid, form)


@pytest.mark.parametrize("enum", CODE_ENUMS, ids=lambda e: e.__name__)
def test_every_error_code_has_a_status_and_a_russian_sentence(enum: type[CodeEnum],
                                                              russian: dict[str, object]) -> None:
    """§3 "Error codes": the status is declared beside the code, the message is a sentence in
    both languages, never the code itself."""
    for code in enum:
        assert 400 <= code.status < 600, code
        assert code.template and code.template != code.value, code
        ru = russian.get(code.template)
        assert ru and ru != code.template and code.value not in str(ru), (code, ru)


def test_a_rule_violation_reads_in_the_readers_language() -> None:
    """EXEC-8: the same violation, in Russian and English; the code and rule stay apart."""
    error = RuleViolation(ErrorCode.VOTE_ALREADY_ACTIVE, "EXEC-8")
    assert i18n.error_message("en", error) == ErrorCode.VOTE_ALREADY_ACTIVE.template
    russian = i18n.error_message("ru", error)
    assert russian and russian != error.message()
    assert "vote_already_active" not in russian and "EXEC-8" not in russian


def test_russian_has_three_plural_forms() -> None:
    """1 голос, 2 голоса, 5 голосов — ``ntranslate`` picks the form by the catalog's rule."""
    forms = [i18n.ntranslate("ru", "{n} vote", "{n} votes", n) for n in (1, 2, 5, 11, 21, 22)]
    assert forms == ["1 голос", "2 голоса", "5 голосов", "11 голосов", "21 голос", "22 голоса"]
    assert i18n.ntranslate("en", "{n} vote", "{n} votes", 1) == "1 vote"
    assert i18n.ntranslate("en", "{n} vote", "{n} votes", 3) == "3 votes"


# --- a third language is one catalog -------------------------------------------------------

ESPERANTO = textwrap.dedent('''\
    msgid ""
    msgstr ""
    "Language: eo\\n"
    "Content-Type: text/plain; charset=UTF-8\\n"
    "Plural-Forms: nplurals=2; plural=(n != 1);\\n"

    msgid "Games"
    msgstr "Ludoj"

    msgid "{n} vote"
    msgid_plural "{n} votes"
    msgstr[0] "{n} voĉdono"
    msgstr[1] "{n} voĉdonoj"

    msgid "There is no city '{city}'"
    msgstr "Ne estas urbo «{city}»"
    ''')

PROBE = textwrap.dedent('''\
    import sys
    from fastapi.testclient import TestClient
    from lepromafia.engine.errors import ErrorCode, RuleViolation
    from lepromafia.web import i18n
    from lepromafia.web.app import create_app
    from lepromafia.web.settings import WebSettings

    print("languages", ",".join(i18n.LANGUAGES))
    print("plural", i18n.ntranslate("eo", "{n} vote", "{n} votes", 3))
    print("error", i18n.error_message("eo", RuleViolation(ErrorCode.UNKNOWN_CITY, city="X")))
    app = create_app(WebSettings(database_url="sqlite:///" + sys.argv[1] + "/web.db"))
    with TestClient(app) as client:
        home = client.get("/?lang=eo").text
    print("page", 'lang="eo"' in home, "Ludoj" in home, 'href="/lang/eo' in home)
    ''')


@pytest.fixture
def locale_with_esperanto(tmp_path: Path) -> Iterator[Path]:
    """The real catalogs plus one new file: ``eo/LC_MESSAGES/messages.po``."""
    locales = tmp_path / "locale"
    for lang in i18n.LANGUAGES:
        po = i18n.LOCALE_DIR / lang / "LC_MESSAGES" / "messages.po"
        if po.is_file():
            (locales / lang / "LC_MESSAGES").mkdir(parents=True)
            (locales / lang / "LC_MESSAGES" / "messages.po").write_bytes(po.read_bytes())
    (locales / "eo" / "LC_MESSAGES").mkdir(parents=True)
    (locales / "eo" / "LC_MESSAGES" / "messages.po").write_text(ESPERANTO, encoding="utf-8")
    yield locales


def test_a_new_language_is_one_catalog_file(locale_with_esperanto: Path, tmp_path: Path) -> None:
    """docs/architecture.md "How to add a language": drop one messages.po in the locale
    directory; the language list, the switcher, plurals, errors and pages follow."""
    env = {**os.environ, "LEPROMAFIA_LOCALE_DIR": str(locale_with_esperanto)}
    out = subprocess.run([sys.executable, "-c", PROBE, str(tmp_path)], env=env, capture_output=True,
                         text=True, timeout=120, check=True).stdout.splitlines()
    assert out == ["languages ru,en,eo", "plural 3 voĉdonoj", "error Ne estas urbo «X»",
                   "page True True True"]


def test_languages_are_discovered_from_the_locale_directory(locale_with_esperanto: Path) -> None:
    assert i18n.discover(locale_with_esperanto) == ("ru", "en", "eo")
    assert i18n.discover(i18n.LOCALE_DIR) == i18n.LANGUAGES
    assert i18n.normalize("eo", ("ru", "en", "eo")) == "eo"
    assert i18n.normalize("xx") == i18n.DEFAULT_LANG
