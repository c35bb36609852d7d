"""Issue 11 (usability review §d): axe-core on every page as every kind of seat, in Chromium:
no critical and no serious violation.

Cast and games: ``tests/web/every_page.py`` — a recruiting game, the bots' running game (its
first day, first night, a day with an open vote, a night after a death) and a finished one,
seen by an anonymous visitor, a registered outsider, honest residents alive and dead, a
mafioso, the Godfather, the commissar, an observer and each host office. Chromium loads each
page from the app in process (Playwright routes every request to the test client, the seat's
bearer token on it) and runs ``axe.run()`` (axe-core from the npm registry, copied by the
Makefile to ``var/test-assets``). Each page is scanned once per kind of seat and page shape;
the game page also at phone width.
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
SCANNED = ("recruiting", "vote", "later night", "finished")
"""The moments scanned (the others repeat their pages)."""
BLOCKING = ("critical", "serious")


@pytest.fixture(scope="module")
def api(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Api]:
    yield from make_api(Path(tmp_path_factory.mktemp("axe")))


def shape(moment: Moment, seat: Seat, path: str) -> tuple[str, ...]:
    """What makes two scans the same page: the route with its ids by kind, and the seat."""
    route = re.sub(r"/games/[^/?]+", "/games/G", unquote(path))
    route = re.sub(r"(inbox[=/])([a-z]+)[^&]*", r"\1\2", route)
    if route in ("/", "/rules", "/login", "/register", "/games/no-such-game", "/games/G/archive",
                 "/games/G/posts/recruitment/comments"):
        return (route, "signed in" if seat.user else "anonymous", moment.state.stage.value)
    return (route, seat.kind, moment.state.stage.value)


def serve(api: Api, seat: Seat) -> Any:
    """A Playwright route handler answering from the app as ``seat``."""
    axe = AXE.read_bytes()

    def handle(route: Any) -> None:
        url = urlsplit(route.request.url)
        if url.path == "/__axe.js":
            route.fulfill(status=200, body=axe, headers={"content-type": "text/javascript"})
            return
        target = url.path + (f"?{url.query}" if url.query else "")
        method = route.request.method
        # a redirect is followed here: Chromium would not route the request it leads to
        r = api.client.request(method, target, headers=api.headers(seat.user), follow_redirects=True)
        headers = {k: v for k, v in r.headers.items() if k.lower() not in ("content-length", "content-encoding")}
        route.fulfill(status=r.status_code, body=r.content, headers=headers)

    return handle


def scan(browser: Any, api: Api, seat: Seat, path: str, width: int) -> list[dict[str, Any]]:
    context = browser.new_context(viewport={"width": width, "height": 800 if width > 500 else 844},
                                  locale="ru-RU")
    try:
        context.route(f"{ORIGIN}/**", serve(api, seat))
        context.route("ws://testserver/**", lambda route: route.abort())
        page = context.new_page()
        page.goto(f"{ORIGIN}{path}", wait_until="load")
        page.add_script_tag(url=f"{ORIGIN}/__axe.js")
        result: dict[str, Any] = page.evaluate("async () => await axe.run(document)")
    finally:
        context.close()
    return [v for v in result["violations"] if v["impact"] in BLOCKING]


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


def test_no_page_has_a_critical_or_serious_axe_violation_for_any_seat(api: Api, browser: Any) -> None:
    done: set[tuple[str, ...]] = set()
    found: list[str] = []
    kinds: set[str] = set()
    for moment in every_moment(api):
        if moment.name not in SCANNED:
            continue
        for seat in moment.seats:
            kinds.add(seat.kind)
            for path in pages(moment, seat):
                key = shape(moment, seat, path)
                widths = (1280, 390) if key[0] == "/games/G" else (1280,)
                if key in done:
                    continue
                done.add(key)
                for width in widths:
                    for v in scan(browser, api, seat, path, width):
                        nodes = "; ".join(n["target"][0] if n["target"] else "?" for n in v["nodes"][:3])
                        found.append(f"{v['impact']} {v['id']} ({len(v['nodes'])}) at {moment.name} · "
                                     f"{seat.kind} · {path.split('?')[0]} · {width}px: {nodes}")
    assert len(done) > 60 and {"anonymous", "resident", "dead", "mafioso", "commissar", "observer",
                               "procurator", "consigliere", "arbiter", "tribune"} <= kinds, (len(done), kinds)
    assert not found, f"{len(found)} blocking violations:\n" + "\n".join(found)
