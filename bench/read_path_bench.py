"""The read path of the pages, measured: SQL statements and render time, in one run.

    python bench/read_path_bench.py [--repeat N] [--json FILE] [--baseline REV]

``--baseline REV`` measures the same scenario on commit REV too, in the same run (a
temporary ``git worktree`` of REV imported instead of this tree), and prints both with
their ratios as the Markdown table of docs/performance.md.

A 100-player game (5 cities x 20, default rules, ``supreme_court_mode=never``) is played
through the service to Day 10, 20:05: every day each city's residents chat (1,000
messages in all by Day 10), two residents per city are nominated from Day 2 on, and
the votes and nights pass without a death, so all 100 residents still play on Day 10.
Then, through the real app (``create_app``, TestClient, SQLite):

1. **vote POST**: a resident presses «казнить» in a candidate's voting inbox, as htmx
   does (``HX-Request``, the page's form fields); SQL statements of that one request;
2. **watcher refresh**: another resident of the city has the same voting inbox open and
   receives the ``VoteCast`` event on his WebSocket; he re-fetches what the shipped
   ``live.js`` re-fetches for that event (every ``data-live-src`` region of the page,
   or, where regions declare ``data-live-kinds``, only the matching ones); statements
   of all those requests together;
3. **render time** (median of ``--repeat`` warm GETs) and statements of the game page
   and the voting inbox page, for a resident.

Statements are counted with SQLAlchemy's ``before_cursor_execute`` on the app's
engine (``BEGIN`` included: SQLite's ``BEGIN`` is a statement here). The same script
runs on an older commit (it uses only the HTTP surface and ``GameService``), so the
baseline is measured the same way: see docs/performance.md.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import date, datetime, timedelta
from html import escape, unescape
from pathlib import Path
from typing import Any

from fastapi.testclient import TestClient
from sqlalchemy import event

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from lepromafia.bots.service_bots import setup_service_game
from lepromafia.bots.setup import default_cast
from lepromafia.engine import commands as cmd
from lepromafia.engine.calendar import MOSCOW
from lepromafia.service.clock import ManualClock
from lepromafia.web.app import create_app
from lepromafia.web.settings import WebSettings

ROOT = Path(__file__).resolve().parents[1]
GAME = "bench"
FIRST_DAY = date(2026, 12, 1)
DAYS = 10
CHATTY = 20
"""Residents per city who post one message a day (5 cities x 20 x 10 days = 1,000)."""
PASSWORD = "correct-horse-42"


def at(day: int, hhmm: str) -> datetime:
    h, m = map(int, hhmm.split(":"))
    d = FIRST_DAY + timedelta(days=day - 1)
    return datetime(d.year, d.month, d.day, h, m, tzinfo=MOSCOW)


class Counter:
    def __init__(self, trace: bool = False) -> None:
        self.statements = 0
        self.trace = trace

    def __call__(self, _conn: Any, _cursor: Any, statement: str, *_args: Any) -> None:
        self.statements += 1
        if self.trace:
            print("   SQL", " ".join(statement.split())[:110], file=sys.stderr)

    @contextmanager
    def counting(self, what: str = "") -> Iterator[Callable[[], int]]:
        """The statements run inside the block (the callable answers once it has ended)."""
        if self.trace:
            print(f"-- {what}", file=sys.stderr)
        start, done = self.statements, [0]
        yield lambda: done[0]
        done[0] = self.statements - start


async def play_to_day_ten(web: Any, clock: ManualClock) -> None:
    svc = web.service
    cast = default_cast(5, 20)
    await setup_service_game(svc, GAME, cast, random.Random(7), FIRST_DAY,
                             settings={"population_per_city": 20, "supreme_court_mode": "never"},
                             title="Бенчмарк")
    ids = iter(range(10**9))

    async def do(command: cmd.Command) -> None:
        await svc.execute(GAME, command, f"b{next(ids)}")

    for day in range(1, DAYS + 1):
        clock.set(at(day, "10:05"))
        await svc.sweep()
        s = await svc.state(GAME)
        for name in s.cities:
            living = s.living(name)
            inbox = s.current_inbox("city", name)
            for user in living[:CHATTY]:
                await do(cmd.PostMessage(actor=user, inbox=inbox, text=f"День {day}: {user} думает вслух"))
            if day >= 2:
                await do(cmd.Nominate(actor=living[2], candidate=living[0]))
                await do(cmd.Nominate(actor=living[3], candidate=living[1]))
        if day < DAYS:
            clock.set(at(day + 1, "09:00"))
            await svc.sweep()
    clock.set(at(DAYS, "20:05"))
    await svc.sweep()


def form_fields(html: str, action: str) -> dict[str, str]:
    """The hidden fields of the first form posting to ``action`` (as htmx sends them)."""
    start = html.index(f'hx-post="{escape(action)}"')
    form = html[start:html.index("</form>", start)]
    return {unescape(n): unescape(v)
            for n, v in re.findall(r'<input type="hidden" name="([^"]+)" value="([^"]*)"', form)}


def regions(html: str) -> list[dict[str, str]]:
    """Every live region of a page with its declared dependencies (``data-live-*``)."""
    out = []
    for tag in re.findall(r"<[^>]*data-live-src=[^>]*>", html):
        attrs = {k: unescape(v) for k, v in re.findall(r'(data-live-[a-z]+)="([^"]*)"', tag)}
        out.append(attrs)
    return out


def refreshed(region: dict[str, str], payload: dict[str, Any]) -> bool:
    """What live.js refreshes for an event: a region without ``data-live-kinds`` on any
    event; one with it only for those kinds and, if it names an inbox or a city, only
    for an event about that inbox or city (the rule of live.js's ``matches``)."""
    kinds = region.get("data-live-kinds")
    if kinds is None:
        return True
    if payload.get("type") not in kinds.split():
        return False
    inbox = region.get("data-live-inbox")
    if inbox and payload.get("inbox") not in (None, inbox):
        return False
    city = region.get("data-live-city")
    return not (city and payload.get("city") not in (None, city))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeat", type=int, default=20)
    parser.add_argument("--json", type=Path, default=None)
    parser.add_argument("--baseline", default=None, help="a commit to measure in the same run")
    args = parser.parse_args()
    if args.baseline:
        compare(args.baseline, args.repeat)
        return
    with tempfile.TemporaryDirectory() as tmp:
        result = run(Path(tmp), args.repeat)
    print(json.dumps(result, indent=2, ensure_ascii=False))
    if args.json:
        args.json.write_text(json.dumps(result, indent=2, ensure_ascii=False))


def _measure(src: Path, repeat: int) -> dict[str, Any]:
    """This script in a fresh interpreter importing ``lepromafia`` from ``src``."""
    import subprocess

    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "result.json"
        env = {**os.environ, "PYTHONPATH": f"{src}{os.pathsep}{ROOT}"}
        subprocess.run([sys.executable, __file__, "--repeat", str(repeat), "--json", str(out)],
                       env=env, check=True, stdout=subprocess.DEVNULL)
        result: dict[str, Any] = json.loads(out.read_text())
        return result


def compare(baseline: str, repeat: int) -> None:
    import subprocess

    load_before = os.getloadavg()
    with tempfile.TemporaryDirectory() as tmp:
        tree = Path(tmp) / "baseline"
        subprocess.run(["git", "-C", str(ROOT), "worktree", "add", "--detach", str(tree), baseline],
                       check=True, capture_output=True)
        try:
            rows = []
            for _ in range(2):  # interleaved: baseline, current, baseline, current
                rows.append(("baseline", _measure(tree / "src", repeat)))
                rows.append(("current", _measure(ROOT / "src", repeat)))
        finally:
            subprocess.run(["git", "-C", str(ROOT), "worktree", "remove", "--force", str(tree)],
                           check=False, capture_output=True)
    base = [r for k, r in rows if k == "baseline"]
    cur = [r for k, r in rows if k == "current"]

    def best(results: list[dict[str, Any]], page: str, key: str = "median_ms") -> float:
        return min(r["pages"][page].get(key, r["pages"][page]["median_ms"]) for r in results)

    lines = [f"Baseline `{baseline}` against this tree, one run, 2 interleaved repetitions each; "
             f"render times are the better of the two medians of {repeat} warm GETs.", "",
             "| measure | baseline | now | now / baseline |", "|---|---:|---:|---:|"]
    for label, key in (("SQL statements per vote POST (htmx)", "vote_post_statements"),
                       ("SQL statements per watcher refresh (one VoteCast)", "watcher_refresh_statements")):
        b, c = base[0][key], cur[0][key]
        lines.append(f"| {label} | {b} | {c} | {c / b:.2f} |")
    for label, key in (("regions re-fetched per watcher for the vote", "refreshed_for_vote"),
                       ("regions re-fetched per watcher for a city chat message", "refreshed_for_city_chat")):
        b, c = base[0]["watcher_regions"][key], cur[0]["watcher_regions"][key]
        lines.append(f"| {label} | {b} | {c} | {c / b:.2f} |" if b else f"| {label} | {b} | {c} | – |")
    for page in ("game page", "voting inbox"):
        b, c = best(base, page), best(cur, page)
        sb, sc = base[0]["pages"][page]["statements"], cur[0]["pages"][page]["statements"]
        lines.append(f"| {page}: render ms, median (statements) | {b} ({sb}) | {c} ({sc}) | {c / b:.2f} |")
        b, c = best(base, page, "min_ms"), best(cur, page, "min_ms")
        lines.append(f"| {page}: render ms, fastest of {repeat} | {b} | {c} | {c / b:.2f} |")
    game = cur[0]["game"]
    load_after = os.getloadavg()
    lines += ["", f"Game: {game['players']} players, Day {game['day']}, {game['events']} events.",
              "Load average (1, 5, 15 min): {:.2f} {:.2f} {:.2f} before, {:.2f} {:.2f} {:.2f} after; "
              "{} cores.".format(*load_before, *load_after, os.cpu_count())]
    print("\n".join(lines))


def run(tmp: Path, repeat: int) -> dict[str, Any]:
    clock = ManualClock(at(1, "09:00") - timedelta(days=3))
    # no background notification dispatcher (newer trees): its statements would count as the request's
    quiet = {name: False for name in ("notify_dispatch",) if name in getattr(WebSettings, "model_fields", {})}
    settings = WebSettings(database_url=f"sqlite:///{tmp}/bench.db", sweep_interval=3600.0,
                           argon2_time_cost=1, argon2_memory_kib=1024, **quiet)
    with TestClient(create_app(settings, clock=clock)) as client:
        web = client.app.state.web  # type: ignore[attr-defined]
        counter = Counter(trace=bool(os.environ.get("BENCH_TRACE")))
        event.listen(web.service.store.engine.sync_engine, "before_cursor_execute", counter)
        started = time.perf_counter()
        client.portal.call(play_to_day_ten, web, clock)  # type: ignore[union-attr]
        setup_seconds = time.perf_counter() - started
        state = client.portal.call(web.service.state, GAME)  # type: ignore[union-attr]
        city = next(iter(state.cities))
        living = state.living(city)
        candidate, voter, watcher = living[0], living[5], living[6]
        tokens = {}
        for user in (voter, watcher):
            r = client.post("/api/auth/register", json={"login": user, "password": PASSWORD},
                            headers={"authorization": "Bearer -"})
            tokens[user] = r.json()["token"]
        client.cookies.clear()

        def get(user: str, path: str) -> Any:
            r = client.get(path, headers={"authorization": f"Bearer {tokens[user]}"})
            assert r.status_code == 200, (path, r.status_code, r.text[:300])
            return r

        box = state.current[f"voting:{city}/{candidate}"]
        inbox_page = f"/games/{GAME}/inboxes/{box}"
        game_page = f"/games/{GAME}"
        vote_book = state.cities[city].voting
        assert vote_book is not None and not vote_book.closed, "the Day 10 vote is not open"

        def timed(user: str, path: str) -> dict[str, float]:
            get(user, path)  # warm
            times, counts = [], []
            for _ in range(repeat):
                with counter.counting() as n:
                    t0 = time.perf_counter()
                    get(user, path)
                    times.append((time.perf_counter() - t0) * 1000)
                counts.append(n())
            return {"median_ms": round(statistics.median(times), 2), "min_ms": round(min(times), 2),
                    "statements": statistics.median(counts)}

        pages = {"game page": timed(watcher, game_page), "voting inbox": timed(watcher, inbox_page)}
        watching = get(watcher, inbox_page).text
        page = get(voter, inbox_page).text
        action = unescape(re.findall(r'hx-post="([^"]*/post)"', page)[0])
        fields = form_fields(page, action)
        with counter.counting("vote POST") as vote_statements:
            r = client.post(action, data={**fields, "text": "казнить"},
                            headers={"authorization": f"Bearer {tokens[voter]}", "hx-request": "true"})
        assert r.status_code == 200 and "error" not in r.text[:200].lower(), r.text[:500]
        after = client.portal.call(web.service.state, GAME)  # type: ignore[union-attr]
        assert voter in after.cities[city].voting.active[candidate], "the vote was not taken"
        vote = {"type": "VoteCast", "inbox": box, "city": city}
        live = regions(watching)
        chosen = [reg for reg in live if refreshed(reg, vote)]
        with counter.counting("watcher refresh") as refresh_statements:
            for reg in chosen:
                get(watcher, reg["data-live-src"])
        unrelated = {"type": "MessagePosted", "inbox": state.current_inbox("city", city), "city": city}
        return {
            "game": {"players": len(state.residents), "day": state.day,
                     "events": client.portal.call(web.queries.version, GAME),  # type: ignore[union-attr]
                     "setup_seconds": round(setup_seconds, 1)},
            "vote_post_statements": vote_statements(),
            "watcher_refresh_statements": refresh_statements(),
            "watcher_regions": {"on_page": len(live), "refreshed_for_vote": len(chosen),
                                "refreshed_for_city_chat": sum(refreshed(reg, unrelated) for reg in live)},
            "pages": pages,
        }


if __name__ == "__main__":
    main()
