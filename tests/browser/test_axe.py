"""Issue 11 (usability review §d): axe-core on every page as every kind of seat, in Chromium:
no critical and no serious violation.

Cast and games: ``tests/web/every_page.py`` — a recruiting game, the bots' running game (its
first day, first night, a day with an open vote, a night after a death) and a finished one,
seen by an anonymous visitor, a registered outsider, honest residents alive and dead, a
mafioso, the Godfather, the commissar, an observer and each host office. Chromium loads each
page from the app in process (a proxy in the test hands every request to the test client, the
seat's bearer token on it; a static file once, then from memory; one page per locale serves
every seat in turn, as fresh as a new context) and runs ``axe.run()`` (axe-core from the npm
registry, copied by the Makefile to ``var/test-assets``). Each page is scanned once per shape: its route, the stage,
and the group of seats that share its template branches (``LOOKS``); the game page and the
role card also at phone width. On the day with an open vote, the role card of an honest
resident, a mafioso and the commissar is scanned again with «Ещё» (the rare acts) opened, and
each irreversible act's confirmation page, in Russian and in English (review M4, m12).
"""

from __future__ import annotations

import re
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

import pytest

from tests.web.conftest import Api, make_api
from tests.web.every_page import Moment, Seat, every_moment, pages

from .conftest import ARGS, CHROMIUM

ROOT = Path(__file__).resolve().parents[2]
AXE = ROOT / "var" / "test-assets" / "axe.min.js"
ORIGIN = "http://testserver"
RUNNING = ("vote",)
"""The running game's moment scanned besides recruiting and finished (a day with an open
vote has every page the others have; the dead are seen in the finished game)."""
BLOCKING = ("critical", "serious")
REPORT = ROOT / "test-artifacts" / "axe-scans.txt"


@pytest.fixture(scope="module")
def api(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Api]:
    yield from make_api(Path(tmp_path_factory.mktemp("axe")))


HOSTS = ("procurator", "consigliere", "arbiter", "tribune")
STAGED = ("/games/G", "/games/G/role", "/games/G/inboxes")
"""Pages whose structure changes with the stage (sign-up, the day's forms, the ending); the
others are scanned once whatever the stage."""
LOOKS = {"anonymous": "outsider", "registered": "outsider", "signed-up": "resident",
         "resident": "resident", "dead": "resident", "observer": "resident",
         "mafioso": "mafia", "godfather": "mafia"}
"""Seats whose pages share their template branches (a host office and the commissar each
have their own)."""


def shape(moment: Moment, seat: Seat, path: str, status: int) -> tuple[str, ...]:
    """What makes two scans the same page: a refusal is one page whoever sees it; an inbox
    is its kind as a host, a resident or an outsider sees it; any other page is its route as
    this kind of seat in this stage of the game."""
    stage = moment.state.stage.value
    if status >= 400:
        return ("refusal", str(status), stage)
    route = re.sub(r"/games/[^/?]+", "/games/G", unquote(path))
    if "inbox" in route:
        kind = re.sub(r".*inbox[=/]([a-z]+).*", r"\1", route)
        who = "host" if seat.kind in HOSTS else "resident" if seat.kind not in ("anonymous", "registered") \
            else "outsider"
        return (route.split("/inbox")[0], kind, who, stage)
    if route in ("/", "/rules", "/login", "/register", "/games/G/archive"):
        return (route, "signed in" if seat.user else "anonymous")
    if route not in STAGED:
        stage = "any"
    return (route, LOOKS.get(seat.kind, seat.kind), stage)


class Front(ThreadingHTTPServer):
    """What Chromium takes for ``http://testserver``: an HTTP proxy on 127.0.0.1 (one per
    browser context) answering every request from the app in process as the seat its page is
    now (in ``lang``, if given: every request carries ``?lang=``, a form's POST too; its body
    is passed on, and a redirect is followed here, as Playwright's routing had to). A GET of a
    static file (``/static/…``, the same bytes whoever asks) is answered from ``static`` once
    the app has served it. A socket to ``ws://testserver`` is refused (``CONNECT``), as it
    failed when Playwright routed the requests; routing cost 20 ms a request (1,500 of them)."""

    daemon_threads = True

    def __init__(self, api: Api, static: dict[str, tuple[int, list[tuple[str, str]], bytes]]) -> None:
        super().__init__(("127.0.0.1", 0), Forward)
        self.api, self.static = api, static
        self.seat: Seat = Seat("anonymous", None)
        self.lang: str | None = None
        threading.Thread(target=self.serve_forever, daemon=True).start()

    @property
    def address(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}"

    def answer(self, method: str, url: str, content_type: str | None,
               body: bytes) -> tuple[int, list[tuple[str, str]], bytes]:
        parts = urlsplit(url)
        lang = self.lang
        query = "&".join(q for q in (parts.query, f"lang={lang}" if lang else "") if q)
        target = parts.path + (f"?{query}" if query else "")
        cacheable = method == "GET" and parts.path.startswith("/static/")
        if cacheable and target in self.static:
            return self.static[target]
        headers = dict(self.api.headers(self.seat.user))
        if content_type:
            headers["content-type"] = content_type
        r = self.api.client.request(method, target, headers=headers, content=body or None,
                                    follow_redirects=True)
        answer = (r.status_code, [(k, v) for k, v in r.headers.multi_items()
                                  if k.lower() not in ("content-length", "content-encoding", "transfer-encoding",
                                                       "connection")], r.content)
        if cacheable and r.status_code == 200:
            self.static[target] = answer
        return answer


class Forward(BaseHTTPRequestHandler):
    """One proxied request (Chromium sends the whole URL: ``GET http://testserver/… HTTP/1.1``)."""

    server: Front
    protocol_version = "HTTP/1.1"

    def do_GET(self) -> None:
        length = int(self.headers.get("content-length") or 0)
        body = self.rfile.read(length) if length else b""
        status, headers, content = self.server.answer(self.command, self.path,
                                                      self.headers.get("content-type"), body)
        self.send_response(status)
        for key, value in headers:
            self.send_header(key, value)
        self.send_header("content-length", str(len(content)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(content)

    do_POST = do_HEAD = do_GET

    def do_CONNECT(self) -> None:
        self.send_error(403)
        self.close_connection = True

    def log_message(self, format: str, *args: Any) -> None:
        pass


def blocking(page: Any) -> list[dict[str, Any]]:
    """axe's critical and serious violations on the page as it is now."""
    result: dict[str, Any] = page.evaluate("async () => await axe.run(document, {resultTypes: ['violations']})")
    return [v for v in result["violations"] if v["impact"] in BLOCKING]


def scan(page: Any, path: str) -> list[dict[str, Any]]:
    """axe's critical and serious violations on one page."""
    response = page.goto(f"{ORIGIN}{path}", wait_until="load")
    assert response is not None and response.headers.get("x-frame-options") == "DENY", \
        f"{path}: not the app's page"  # the app's own header: no error page is scanned
    return blocking(page)


class Tabs:
    """Chromium's pages for the crawl: one browser context per locale behind its own
    ``Front``, each with one page kept for the whole test, as every seat at every width in
    turn (a new page costs a renderer process, 0.2-0.7 s, and the crawl opens a seat's page
    55 times). Each ``open`` gives a page as a new context would: the seat's requests, its
    width, no cookies and empty local and session storage (the composer keeps drafts there)."""

    def __init__(self, browser: Any, api: Api) -> None:
        self.browser, self.api = browser, api
        self.pages: dict[str, Any] = {}
        self.fronts: dict[str, Front] = {}
        self.static: dict[str, Any] = {}

    def open(self, seat: Seat, width: int, lang: str | None = None) -> Any:
        locale = "en-GB" if lang == "en" else "ru-RU"
        page = self.pages.get(locale)
        if page is None:
            front = self.fronts[locale] = Front(self.api, self.static)
            context = self.browser.new_context(viewport={"width": 1280, "height": 800}, locale=locale,
                                               proxy={"server": front.address})
            context.add_init_script(script=AXE.read_text(encoding="utf-8"))
            page = self.pages[locale] = context.new_page()
        elif page.url.startswith(ORIGIN):
            page.evaluate("() => { localStorage.clear(); sessionStorage.clear(); }")
        page.context.clear_cookies()
        page.set_viewport_size({"width": width, "height": 800 if width > 500 else 844})
        self.fronts[locale].seat, self.fronts[locale].lang = seat, lang
        return page

    def close(self) -> None:
        for page in self.pages.values():
            page.context.close()
        for front in self.fronts.values():
            front.shutdown()
            front.server_close()


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    if not Path(CHROMIUM).exists():
        pytest.fail(f"{CHROMIUM} is missing: `make test` installs Debian's chromium")
    if not AXE.exists():
        pytest.fail(f"{AXE} is missing: `make test` copies it from node_modules (npm ci)")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        yield b
        b.close()


@pytest.fixture
def tabs(browser: Any, api: Api) -> Iterator[Tabs]:
    tabs = Tabs(browser, api)
    yield tabs
    tabs.close()


OPEN_DETAILS = "() => document.querySelectorAll('details').forEach(d => { d.open = true; })"
RARE = ("suicide", "sign_impeachment", "no_confidence", "file_case")
"""The rare acts behind «Ещё» whose first POST answers with a confirmation page."""


def rare_acts(tabs: Tabs, moment: Moment, seat: Seat) -> tuple[list[str], list[str]]:
    """Review M4, m12: the role card with «Ещё» opened, and the confirmation page of every
    irreversible act in it, at 1280 px in both languages (and the opened card on a phone).
    Returns the blocking violations and the pages scanned."""
    found: list[str] = []
    scanned: list[str] = []
    role = f"/games/{moment.game}/role"

    def note(where: str, violations: list[dict[str, Any]]) -> None:
        scanned.append(where)
        for v in violations:
            nodes = "; ".join(str(n["target"][0]) if n["target"] else "?" for n in v["nodes"][:3])
            found.append(f"{v['impact']} {v['id']} ({len(v['nodes'])}) at {moment.name} · {seat.kind} · {where}: {nodes}")

    for lang in ("ru", "en"):
        for width in (1280, 390):
            page = tabs.open(seat, width, lang)
            page.goto(f"{ORIGIN}{role}", wait_until="load")
            if page.locator("[data-testid=more-actions]").count() == 0:
                return [f"no «Ещё» on the role card of {seat.kind} at {moment.name}"], scanned
            page.evaluate(OPEN_DETAILS)
            note(f"{role} «Ещё» open · {lang} · {width}px", blocking(page))
            if width != 1280:
                continue
            actions = page.eval_on_selector_all(
                "[data-testid=more-actions] form", "fs => fs.map(f => f.getAttribute('action'))")
            for action in [a for a in actions if a.rsplit("/", 1)[-1] in RARE]:
                page.goto(f"{ORIGIN}{role}", wait_until="load")
                page.evaluate(OPEN_DETAILS)
                form = page.locator(f"[data-testid=more-actions] form[action='{action}']")
                for area in form.locator("textarea").all():
                    area.fill("Проверка доступности")
                form.locator("button[type=submit]").first.click()
                page.wait_for_selector("[data-testid=confirm]")
                note(f"{action} confirmation · {lang} · {width}px", blocking(page))
    return found, scanned


@pytest.mark.timeout(1800)
def test_no_page_has_a_critical_or_serious_axe_violation_for_any_seat(api: Api, tabs: Tabs) -> None:
    done: set[tuple[str, ...]] = set()
    found: list[str] = []
    REPORT.parent.mkdir(parents=True, exist_ok=True)
    REPORT.write_text("", encoding="utf-8")
    kinds: set[str] = set()
    confirmations: list[str] = []
    for moment in every_moment(api, RUNNING):
        for seat in moment.seats:
            kinds.add(seat.kind)
            todo = []
            for path in pages(moment, seat):
                r = api.client.get(path, headers=api.headers(seat.user))
                key = shape(moment, seat, path, r.status_code)
                if key not in done and "<html" in r.text[:200]:  # a live region's part is no page
                    done.add(key)
                    todo.append(path)
            for width in (1280, 390):
                phone = seat.kind in ("anonymous", "resident", "mafioso", "procurator")
                paths = todo if width == 1280 else [p for p in todo if phone and p in (
                    f"/games/{moment.game}", f"/games/{moment.game}/role")]
                if not paths:
                    continue
                page = tabs.open(seat, width)
                for path in paths:
                    before = len(found)
                    for v in scan(page, path):
                        nodes = "; ".join(str(n["target"][0]) if n["target"] else "?" for n in v["nodes"][:3])
                        found.append(f"{v['impact']} {v['id']} ({len(v['nodes'])}) at {moment.name} · "
                                     f"{seat.kind} · {path.split('?')[0]} · {width}px: {nodes}")
                    with REPORT.open("a", encoding="utf-8") as report:  # read it while it runs
                        report.write(f"{moment.name} · {seat.kind} · {path} · {width}px\n")
                        report.writelines(f"  {line}\n" for line in found[before:])
            if moment.name == "vote" and seat.kind in ("resident", "mafioso", "commissar"):
                rare, scanned = rare_acts(tabs, moment, seat)
                kinds.add(f"rare:{seat.kind}")
                confirmations += [where for where in scanned if "confirmation" in where]
                with REPORT.open("a", encoding="utf-8") as report:
                    report.writelines(f"{moment.name} · {seat.kind} · {where}\n" for where in scanned)
                    report.writelines(f"  {line}\n" for line in rare)
                found += rare
    assert {"rare:resident", "rare:mafioso", "rare:commissar"} <= kinds, kinds
    for lang in ("ru", "en"):  # every seat may declare suicide: at least that one is confirmed
        assert any(f"/do/suicide confirmation · {lang}" in where for where in confirmations), confirmations
    assert len(done) > 25 and {"anonymous", "resident", "dead", "mafioso", "commissar", "observer",
                               "procurator", "consigliere", "arbiter", "tribune"} <= kinds, (len(done), kinds)
    assert not found, f"{len(found)} blocking violations:\n" + "\n".join(found)
