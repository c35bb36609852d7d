"""Issue 9 §5, issue 11 (m5, M7): every page, as every kind of seat, in Russian and English,
across a played game, reads as words — never a setting's name, an enum value, an event or
command class, a bare rule id in running text, a Python repr, an error code as the message,
an untranslated msgid, or English on a Russian page (Cyrillic on an English one).

Cast: ``small_cast()`` (Лепроград and Лепросицилия, six residents each; procurator,
consigliere, arbiter, tribune1/2) plus ``visitor``, registered but outside the game. The
games: one recruiting, one the bots play from Day 1 (its first day, first night, a day with
an open vote, a night after a death), one the bots played to its end (``every_page.py``).
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterator
from html.parser import HTMLParser
from pathlib import Path

import pytest

from lepromafia.bots.setup import CITY_NAMES
from lepromafia.engine import commands, commands_host, events, events_host
from lepromafia.engine.errors import ErrorCode
from lepromafia.engine.settings import CHOICES, GameSettings
from lepromafia.web import i18n

from .conftest import Api, make_api
from .every_page import CAST, Moment, Seat, every_moment, pages

LANGS = ("ru", "en")
ARTIFACT = Path(__file__).resolve().parents[2] / "test-artifacts" / "every-page-findings.txt"
SETTINGS = {f.name for f in dataclasses.fields(GameSettings)}
CLASSES = {name for module in (commands, commands_host, events, events_host) for name in dir(module)
           if name[:1].isupper() and isinstance(getattr(module, name), type)} - {"Any", "Enum"}
ENUM_VALUES = {value for choices in CHOICES.values() for value in choices if "_" in value}
CODES = {code.value for code in ErrorCode if "_" in code.value}
RULE_ID = re.compile(r"(?<![\w-])[A-Z][A-Z0-9]*(?:-[A-Z0-9]+)*-\d+[a-z]?(?![\w-])")
SNAKE = re.compile(r"(?<![\w/.#-])[a-z]+(?:_[a-z]+)+(?![\w/-])")
REPR = re.compile(r"\{'|'\}|\['|\bNone\b|\bTrue\b|\bFalse\b|datetime\.|<lepromafia|\(\)")
LATIN_PHRASE = re.compile(r"[A-Za-z][a-z]+(?:[ ,'’-]+[a-z]+){2,}")
CYRILLIC_WORD = re.compile(r"[А-Яа-яЁё]+")
ALLOWED_LATIN = re.compile(r"Lepromafia|JSON|Skype|SHA-256|Ed25519|Merkle|RFC \d+|verify\.py(?: --[a-z-]+)*")
"""Names Russian pages keep in Latin letters."""


VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}


class Visible(HTMLParser):
    """The text a person reads (text nodes and the attributes shown to him), each chunk with
    whether it sits inside a link to the rules page that carries words."""

    SHOWN = ("placeholder", "title", "aria-label", "alt")
    CODE = ("pre", "code", "kbd", "samp", "script", "style", "template")
    """Code to copy (a signed tree head, a command line) and scripts are not prose."""

    def __init__(self, lang: str) -> None:
        super().__init__(convert_charrefs=True)
        self.lang = lang
        self.chunks: list[tuple[str, bool]] = []
        self.skip = 0
        self.skipping: list[str] = []
        self.links: list[bool] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        found = dict(attrs)
        foreign = found.get("lang") not in (None, self.lang)  # a language's own name, in it
        if (tag in self.CODE or foreign) and tag not in VOID:
            self.skip += 1
            self.skipping.append(tag)
        rules_link = tag == "a" and str(found.get("href") or "").startswith(("/rules", "#"))
        if tag == "a":
            self.links.append(rules_link)
        if self.skip:
            return
        for name in self.SHOWN:
            if found.get(name):
                self.chunks.append((str(found[name]), rules_link))
        if tag == "input" and found.get("type") in ("submit", "button") and found.get("value"):
            self.chunks.append((str(found["value"]), False))

    def handle_endtag(self, tag: str) -> None:
        if self.skipping and self.skipping[-1] == tag:
            self.skipping.pop()
            self.skip -= 1
        if tag == "a" and self.links:
            self.links.pop()

    def handle_data(self, data: str) -> None:
        if not self.skip and data.strip():
            self.chunks.append((data.strip(), bool(self.links and self.links[-1])))


def problems(html: str, lang: str, data: set[str], *, rules_page: bool) -> list[str]:
    """What a person should never read on this page."""
    parser = Visible(lang)
    parser.feed(html)
    found = []
    for text, in_rule_link in parser.chunks:
        bare = text
        for word in sorted(data, key=len, reverse=True):  # names, cities, titles, messages
            bare = bare.replace(word, " ")
        for token in SNAKE.findall(bare):
            if token in SETTINGS:
                found.append(f"setting name {token!r} in {text!r}")
            elif token in CODES:
                found.append(f"error code {token!r} in {text!r}")
            else:
                found.append(f"raw key {token!r} in {text!r}")
        for word in re.findall(r"\b[A-Z][a-z]+(?:[A-Z][a-z]+)+\b", bare):
            if word in CLASSES:
                found.append(f"class name {word!r} in {text!r}")
        for rule in RULE_ID.findall(bare):
            worded = in_rule_link and len(re.sub(RULE_ID, "", text).strip(" ()·,:")) > 0
            if not (rules_page or worded):
                found.append(f"bare rule id {rule!r} in {text!r}")
        if REPR.search(bare):
            found.append(f"Python repr in {text!r}")
        if lang == "ru":
            latin = ALLOWED_LATIN.sub(" ", RULE_ID.sub(" ", bare))
            for phrase in LATIN_PHRASE.findall(latin):
                found.append(f"English on a Russian page: {phrase!r} in {text!r}")
        elif CYRILLIC_WORD.search(RULE_ID.sub(" ", bare)) and not re.fullmatch(r"[\W\d_]*«[^»]*»[\W\d_]*", bare):
            found.append(f"Russian on an English page: {text!r}")
    return found


def data_words(moment: Moment) -> set[str]:
    """What players and hosts typed or the deal named: shown as given in every language."""
    s = moment.state
    words = {s.title, *s.cities, *CITY_NAMES, "no-such-game", *s.residents, *s.signups, CAST.procurator, CAST.consigliere,
             CAST.arbiter, *CAST.tribunes, "visitor", moment.game,
             "казнить", "не казнить", "Он — Ганди!", "Он — Гитлер!", "Набор", "Тест",
             "Заговор", "Tribune, I suspect p01_03", "Our secret plan"}
    words |= {i.title for i in s.inboxes.values() if i.title}
    return {w for w in words if w}


@pytest.fixture(scope="module")
def api(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Api]:
    yield from make_api(Path(tmp_path_factory.mktemp("every-page")))


def read(api: Api, seat: Seat, path: str, lang: str) -> tuple[int, str]:
    joined = f"{path}{'&' if '?' in path else '?'}lang={lang}"
    r = api.client.get(joined, headers=api.headers(seat.user))
    return r.status_code, r.text


def test_every_page_reads_as_words_for_every_seat_in_both_languages(api: Api) -> None:
    """m5, M7, issue 9 §5: no raw key, class name, bare rule id, repr, code or foreign
    language on any page any seat reaches, in any phase; every msgid looked up is in the
    Russian catalog."""
    findings: dict[str, set[str]] = {}
    seen = 0
    kinds: set[str] = set()
    with i18n.recording_misses() as misses:
        for moment in every_moment(api):
            data = data_words(moment)
            messages = api.client.portal.call(_message_texts, api, moment.game)  # type: ignore[union-attr]
            data |= messages
            for seat in moment.seats:
                kinds.add(seat.kind)
                for path in pages(moment, seat):
                    for lang in LANGS:
                        status, html = read(api, seat, path, lang)
                        assert status < 500, (moment.name, seat, path, status, html[:300])
                        if "<html" not in html[:200]:
                            continue
                        seen += 1
                        for problem in problems(html, lang, data, rules_page=path == "/rules"):
                            where = f"{moment.name} · {seat.kind} · {lang} · {path.split('?')[0]}"
                            findings.setdefault(problem, set()).add(where)
    assert seen > 500 and kinds >= {"anonymous", "registered", "resident", "dead", "mafioso",
                                    "commissar", "procurator", "consigliere", "arbiter", "tribune",
                                    "observer"}, (seen, kinds)
    report = [f"{p}\n    at {sorted(w)[0]} (+{len(w) - 1} more)" for p, w in sorted(findings.items())]
    ARTIFACT.parent.mkdir(parents=True, exist_ok=True)
    ARTIFACT.write_text("\n".join(report) + "\n", encoding="utf-8")
    assert not report, f"{len(report)} findings:\n" + "\n".join(report[:80])
    assert sorted(misses) == [], "msgids without a Russian translation"


async def _message_texts(api: Api, game: str) -> set[str]:
    """The messages posted in the game (bots' chatter is data, shown as typed)."""
    out: set[str] = set()
    async with api.web.service.store.reading() as tx:
        for inbox in (await api.web.service.state(game)).inboxes:
            rows, _ = await tx.messages(game, inbox)
            out |= {r.text for r in rows}
    return out


def test_the_checker_sees_what_a_person_should_never_read() -> None:
    """The checker itself: each kind of leak on a tiny page is found; words are not."""
    page = ('<html lang="ru"><body><p>city_count: 3</p><p>VotingClosed</p><p>см. EXEC-4</p>'
            '<a href="/rules#EXEC">правило EXEC-4</a><p>{\'a\': 1}</p><p>Not possible now</p>'
            '<p>Голос учтён</p></body></html>')
    found = problems(page, "ru", set(), rules_page=False)
    assert not problems('<html lang="ru"><a lang="en" title="English">EN</a></html>', "ru", set(),
                        rules_page=False)
    assert any("setting name 'city_count'" in f for f in found)
    assert any("class name 'VotingClosed'" in f for f in found)
    assert sum("bare rule id" in f for f in found) == 1
    assert any("Python repr" in f for f in found)
    assert any("English on a Russian page" in f for f in found)
    assert not problems("<html><body><p>Голос учтён</p></body></html>", "ru", set(), rules_page=False)
    assert problems("<html><body><p>Голос учтён</p></body></html>", "en", set(), rules_page=False)
