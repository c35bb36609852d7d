"""Issue 11 (usability review §d): axe-core on every page as every kind of seat, in Chromium:
no critical and no serious violation.

Cast and games: ``tests/web/every_page.py`` — a recruiting game, the bots' running game (its
first day, first night, a day with an open vote, a night after a death) and a finished one,
seen by an anonymous visitor, a registered outsider, honest residents alive and dead, a
mafioso, the Godfather, the commissar, an observer and each host office. Chromium loads each
page from the app in process (Playwright routes every request to the test client, the seat's
bearer token on it) and runs ``axe.run()`` (axe-core from the npm registry, copied by the
Makefile to ``var/test-assets``). Each page is scanned once per shape: its route, the stage,
and the group of seats that share its template branches (``LOOKS``); the game page and the
role card also at phone width.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
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


def serve(api: Api, seat: Seat) -> Any:
    """A Playwright route handler answering from the app as ``seat``."""
    def handle(route: Any) -> None:
        url = urlsplit(route.request.url)
        target = url.path + (f"?{url.query}" if url.query else "")
        method = route.request.method
        # a redirect is followed here: Chromium would not route the request it leads to
        r = api.client.request(method, target, headers=api.headers(seat.user), follow_redirects=True)
        headers = {k: v for k, v in r.headers.items() if k.lower() not in ("content-length", "content-encoding")}
        route.fulfill(status=r.status_code, body=r.content, headers=headers)

    return handle


def scan(page: Any, path: str) -> list[dict[str, Any]]:
    """axe's critical and serious violations on one page."""
    page.goto(f"{ORIGIN}{path}", wait_until="load")
    result: dict[str, Any] = page.evaluate("async () => await axe.run(document, {resultTypes: ['violations']})")
    return [v for v in result["violations"] if v["impact"] in BLOCKING]


def seat_page(browser: Any, api: Api, seat: Seat, width: int) -> Any:
    """One browser context per seat and width: the app behind every request, sockets off."""
    context = browser.new_context(viewport={"width": width, "height": 800 if width > 500 else 844},
                                  locale="ru-RU")
    context.add_init_script(script=AXE.read_text(encoding="utf-8"))
    context.route(f"{ORIGIN}/**", serve(api, seat))
    context.route("ws://testserver/**", lambda route: route.abort())
    return context.new_page()


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


@pytest.mark.timeout(1800)
def test_no_page_has_a_critical_or_serious_axe_violation_for_any_seat(api: Api, browser: Any) -> None:
    done: set[tuple[str, ...]] = set()
    found: list[str] = []
    REPORT.parent.mkdir(parents=True, exist_ok=True)
    REPORT.write_text("", encoding="utf-8")
    kinds: set[str] = set()
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
                page = seat_page(browser, api, seat, width)
                try:
                    for path in paths:
                        before = len(found)
                        for v in scan(page, path):
                            nodes = "; ".join(str(n["target"][0]) if n["target"] else "?" for n in v["nodes"][:3])
                            found.append(f"{v['impact']} {v['id']} ({len(v['nodes'])}) at {moment.name} · "
                                         f"{seat.kind} · {path.split('?')[0]} · {width}px: {nodes}")
                        with REPORT.open("a", encoding="utf-8") as report:  # read it while it runs
                            report.write(f"{moment.name} · {seat.kind} · {path} · {width}px\n")
                            report.writelines(f"  {line}\n" for line in found[before:])
                finally:
                    page.context.close()
    assert len(done) > 25 and {"anonymous", "resident", "dead", "mafioso", "commissar", "observer",
                               "procurator", "consigliere", "arbiter", "tribune"} <= kinds, (len(done), kinds)
    assert not found, f"{len(found)} blocking violations:\n" + "\n".join(found)
