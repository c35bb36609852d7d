"""A live server for the browser tests: uvicorn in a thread, a temporary SQLite database, a
manual clock the test moves, and Debian's Chromium driven by Playwright."""

from __future__ import annotations

import asyncio
import os
import shutil
import socket
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

import httpx
import pytest
import uvicorn

from lepromafia.engine.calendar import MOSCOW
from lepromafia.engine.commands import REQUIREMENTS, OfferCommissar
from lepromafia.service.clock import ManualClock
from lepromafia.web.app import create_app
from lepromafia.web.settings import WebSettings

CHROMIUM = "/usr/bin/chromium"
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync",
        # a fake microphone, so MediaRecorder can be tested headless
        "--use-fake-device-for-media-stream", "--use-fake-ui-for-media-stream"]
SHOTS = Path(__file__).resolve().parents[2] / "test-artifacts" / "screenshots"
PASSWORD = "correct-horse-42"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


HTTP_TIMEOUT = 60.0
"""Generous: on a loaded machine a registration's password hash alone can take seconds."""

@dataclass(frozen=True)
class Hosts:
    """Who holds the four offices of a test game."""

    procurator: str = "prokurator"
    consigliere: str = "konsil"
    arbiter: str = "arbitr"
    tribune: str = "tribune1"

    @property
    def all(self) -> tuple[str, ...]:
        return (self.procurator, self.consigliere, self.arbiter, self.tribune)


class LiveServer:
    def __init__(self, tmp: Path, **overrides: Any) -> None:
        self.port = _free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.clock = ManualClock(datetime(2026, 11, 30, 12, 0, tzinfo=MOSCOW))
        # cheap password hashes: a test registers dozens of people (production keeps argon2's defaults)
        options: dict[str, Any] = {"argon2_time_cost": 1, "argon2_memory_kib": 1024, **overrides}
        settings = WebSettings(database_url=f"sqlite+aiosqlite:///{tmp / 'game.db'}", sweep_interval=0.1,
                               login_max_failures=1000, registrations_per_ip_per_hour=1000,
                               session_idle_hours=14 * 24, **options)
        self.app = create_app(settings, clock=self.clock)
        config = uvicorn.Config(self.app, host="127.0.0.1", port=self.port, log_level="warning",
                                ws="websockets-sansio", lifespan="on")
        self.server = uvicorn.Server(config)
        self.thread = threading.Thread(target=self.server.run, daemon=True)
        self.tokens: dict[str, str] = {}

    def start(self) -> None:
        self.thread.start()
        deadline = time.monotonic() + 20
        while not self.server.started:
            if time.monotonic() > deadline:
                raise RuntimeError("the server did not start")
            time.sleep(0.05)

    def stop(self) -> None:
        self.server.should_exit = True
        self.thread.join(timeout=10)

    # --- driving the game through the JSON API (the parts no browser needs to click) --

    def register(self, login: str) -> str:
        r = httpx.post(f"{self.url}/api/auth/register", json={"login": login, "password": PASSWORD},
                       timeout=HTTP_TIMEOUT)
        assert r.status_code == 201, r.text
        self.tokens[login] = r.json()["token"]
        return self.tokens[login]

    def api(self, user: str, path: str, body: dict[str, Any] | None = None, *, ok: bool = True) -> Any:
        body = dict(body or {})
        body.setdefault("command_id", f"t-{time.monotonic_ns()}")
        r = httpx.post(f"{self.url}/api{path}", json=body, timeout=HTTP_TIMEOUT,
                       headers={"Authorization": f"Bearer {self.tokens[user]}"})
        if ok:
            assert r.status_code < 300, f"{path}: {r.status_code} {r.text}"
        return r

    def command(self, user: str, game: str, name: str, **fields: Any) -> Any:
        return self.api(user, f"/games/{game}/commands/{name}", fields)

    def start_one_city_game(self, game: str, title: str, city: str, residents: Sequence[str], *,
                            hosts: Hosts = Hosts(), others: Sequence[str] = (),
                            acknowledge: bool = True) -> Any:
        """A game of one city, set up through the API as its people would: everyone
        registered (``others`` too), the Consigliere and the Arbiter appointed, every
        resident signed up, the city formed, the deal sealed, the mafia numbers named,
        each mafioso's role acknowledged (``acknowledge``) and the game started on
        2026-12-01. Returns the state after the start."""
        for user in (*hosts.all, *others, *residents):
            self.register(user)
        self.api(hosts.procurator, "/games", {"game_id": game, "title": title, "settings": {
            "city_count": 1, "population_per_city": len(residents)}})
        for office, host in (("consigliere", hosts.consigliere), ("arbiter", hosts.arbiter)):
            self.api(hosts.procurator, f"/games/{game}/commands/AppointHost", {"office": office, "user": host})
        for user in residents:
            self.api(user, f"/games/{game}/signup", {"accepted": sorted(REQUIREMENTS), "contact": f"skype:{user}"})
        self.command(hosts.procurator, game, "FormCities",
                     cities=[{"name": city, "tribune": hosts.tribune, "residents": list(residents)}])
        self.api(hosts.consigliere, f"/games/{game}/random/seal-deal")
        self.api(hosts.procurator, f"/games/{game}/random/mafia-numbers", {"city": city})
        state = self.state(game)
        for user in residents:
            if acknowledge and state.is_mafia(user):
                self.command(user, game, "AcknowledgeRole")
        self.command(hosts.procurator, game, "StartGame", first_day="2026-12-01")
        return self.state(game)

    def offer_to(self, procurator: str, game: str, city: str, candidate: str) -> None:
        """A commissar offer landing on ``candidate``, issued to the service in-process: no
        HTTP caller can choose the draw (COMM-APPT-1)."""
        s = self.state(game)
        pool = [u for u in s.living(city) if u not in s.cities[city].offers_made]
        command = OfferCommissar(actor=procurator, city=city, draw=pool.index(candidate))
        web = self.app.state.web
        asyncio.run_coroutine_threadsafe(
            web.service.execute(game, command, f"offer-{city}-{len(s.cities[city].offers_made)}"),
            self._loop()).result(HTTP_TIMEOUT)

    def state(self, game: str) -> Any:
        web = self.app.state.web
        loop = self._loop()
        return asyncio.run_coroutine_threadsafe(web.service.state(game), loop).result(HTTP_TIMEOUT)

    def version(self, game: str) -> int:
        web = self.app.state.web
        return int(asyncio.run_coroutine_threadsafe(web.queries.version(game), self._loop()).result(HTTP_TIMEOUT))

    def position(self, game: str, viewer: str | None) -> int:
        """The viewer's own stream position (what ``lepromafiaLive.lastSeq()`` reaches)."""
        web = self.app.state.web
        return int(asyncio.run_coroutine_threadsafe(web.queries.position(game, viewer),
                                                    self._loop()).result(HTTP_TIMEOUT))

    def _loop(self) -> asyncio.AbstractEventLoop:
        web = self.app.state.web
        return web.service._lanes[0].task.get_loop()  # the server's loop

    def advance_to(self, moment: datetime, game: str, until: Any = None,
                   timeout: float = HTTP_TIMEOUT) -> Any:
        """Move the clock (game time runs at scale 1 from the epoch = real time here) and
        wait for the sweeper to fire what became due (polled: returns as soon as it has; a
        loaded machine can take well over 10 s to roll a day of a three-city game)."""
        self.clock.set(moment)
        end = time.monotonic() + timeout
        while True:
            state = self.state(game)
            due = [d for d in state.deadlines.values() if d <= moment]
            if not due and (until is None or until(state)):
                return state
            if time.monotonic() > end:
                raise AssertionError(f"deadlines still due at {moment}: {due}")
            time.sleep(0.1)


@pytest.fixture(scope="module")
def live(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    server = LiveServer(tmp_path_factory.mktemp("live"))
    server.start()
    yield server
    server.stop()


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    if not Path(CHROMIUM).exists():
        pytest.fail(f"{CHROMIUM} is missing: `make test` installs Debian's chromium")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        yield b
        b.close()


@pytest.fixture(scope="module")
def shots() -> Path:
    SHOTS.mkdir(parents=True, exist_ok=True)
    return SHOTS


def login(browser: Any, live: LiveServer, user: str, *, width: int = 1200) -> Any:
    """A browser context logged in as ``user`` through the real login form."""
    context = browser.new_context(viewport={"width": width, "height": 900}, locale="ru-RU")
    page = context.new_page()
    page.goto(f"{live.url}/login")
    page.fill("#login", user)
    page.fill("#password", PASSWORD)
    page.click("button[type=submit]")
    page.wait_for_url(f"{live.url}/")
    return page


LIVE_TRACE = """() => ({
  seq: window.lepromafiaLive ? window.lepromafiaLive.lastSeq() : null,
  status: document.getElementById("live-status")?.getAttribute("data-state"),
  heard: window.lepromafiaLive ? window.lepromafiaLive.heard() : null,
  regions: Array.from(document.querySelectorAll("[data-live-src]")).map(el => [
    el.getAttribute("data-live-src"), el.getAttribute("data-live-rendered"),
    el.textContent.replace(/\\s+/g, " ").trim().slice(0, 160)]),
})"""


def wait_live(page: Any, condition: str, what: str, *, timeout: float = 10000,
              server: Callable[[], Any] | None = None) -> None:
    """Wait for a live page to show ``condition`` (a JavaScript predicate); on a timeout,
    fail with what the page's socket heard, what each live region last rendered and
    ``server()`` (the server's side of it)."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    try:
        page.wait_for_function(condition, timeout=timeout)
    except PlaywrightTimeout:
        raise AssertionError(f"{what}: not shown within {timeout:.0f} ms; the page's live state: "
                             f"{page.evaluate(LIVE_TRACE)}; the server's: {server() if server else '-'}") from None


__all__ = ["ARGS", "CHROMIUM", "LiveServer", "login", "os", "shutil", "wait_live"]
