"""The load harness in several processes (``bench/load.py``, ``bench/load_clients.py``;
issue 17, docs/performance.md "Session 8").

The clients of a run are spread over generator processes, each owning whole games; the
parent merges their windows. These tests prove what the figures rest on: the merged row is
the one a single process would have made, every process reads one clock, every game's
clients live in exactly one process, and a process that would run out of open files is
refused before anything is set up.
"""

from __future__ import annotations

import asyncio
import gc
import json
import os
import random
import subprocess
import sys
import time
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

BENCH = Path(__file__).resolve().parents[2] / "bench"
sys.path.insert(0, str(BENCH))

import load  # noqa: E402
from load_clients import Route, nginx_consistent_hash, pct  # noqa: E402


def fake_window(rng: random.Random, posts: int, lost: int) -> dict[str, object]:
    """One generator's raw window: ``posts`` messages of 20 deliveries, ``lost`` missing."""
    latencies = [rng.lognormvariate(-4, 1) for _ in range(posts * 20 - lost)]
    return {"posts": posts, "expected": posts * 20, "delivered": posts * 20 - lost,
            "latencies": latencies, "acks": [rng.random() / 10 for _ in range(posts)],
            "refreshes": [rng.random() for _ in range(posts // 3)],
            "reads": [rng.random() / 100 for _ in range(posts * 4)],
            "pages": [rng.random() / 20 for _ in range(posts // 2)],
            "refused": 1, "refresh_errors": 2, "reconnects": 0, "offered": 10.3 + rng.random(),
            "cpu": 2.5, "wall": 11.0, "gc_max": rng.random() / 100, "gc_total": 0.05}


def concatenated(parts: list[dict[str, object]]) -> dict[str, object]:
    """The window one process holding every client would have measured."""
    one = dict(parts[0])
    for key in ("latencies", "acks", "refreshes", "reads", "pages"):
        one[key] = [x for p in parts for x in p[key]]  # type: ignore[attr-defined]
    for key in ("posts", "expected", "delivered", "refused", "refresh_errors", "reconnects", "cpu"):
        one[key] = sum(p[key] for p in parts)  # type: ignore[misc]
    one["offered"] = max(p["offered"] for p in parts)  # type: ignore[type-var]
    one["gc_max"] = max(p["gc_max"] for p in parts)  # type: ignore[type-var]
    return one


def test_two_generators_merge_to_the_row_of_one() -> None:
    """Latencies, acks, re-fetches and read marks from two generators give the same p50,
    p99, delivered share and rates as the same measurements in one list."""
    rng = random.Random(17)
    parts = [fake_window(rng, 200, 13), fake_window(rng, 350, 0)]
    merged = load.merge_windows(parts, wall=12.0)
    single = load.merge_windows([concatenated(parts)], wall=12.0)
    for key in ("posts", "offered_s", "p50_ms", "p99_ms", "ack_p99_ms", "delivered", "refused",
                "refreshes_per_s", "refresh_p99_ms", "reads_per_s", "read_p99_ms", "refresh_errors",
                "pages_per_s", "page_p50_ms", "page_p99_ms",
                "loadgen_cpu_s", "loadgen_gc_max_ms"):
        assert merged[key] == single[key], key
    everything = parts[0]["latencies"] + parts[1]["latencies"]  # type: ignore[operator]
    assert merged["p99_ms"] == round(pct(everything, 0.99) * 1000, 1)
    assert merged["delivered"] == round((550 * 20 - 13) / (550 * 20), 4)
    # not the mean of the generators' own p99s: the tail of the merged list
    own = [round(pct(p["latencies"], 0.99) * 1000, 1) for p in parts]  # type: ignore[arg-type]
    assert min(own) <= merged["p99_ms"] <= max(own)
    # the busiest generator's share of a core, and their sum: the generator as the limit
    assert merged["loadgen_cores_max"] == round(2.5 / 12.0, 3)
    assert single["loadgen_cpu_s"] == 5.0


def test_a_window_with_nothing_delivered_reads_nan_not_zero() -> None:
    empty = {**fake_window(random.Random(1), 0, 0), "latencies": [], "acks": [], "reads": [],
             "refreshes": [], "pages": []}
    merged = load.merge_windows([empty, empty], wall=10.0)
    assert merged["p99_ms"] != merged["p99_ms"]  # NaN: the summary prints "–"
    assert merged["delivered"] == 0.0


def test_another_process_reads_the_same_clock() -> None:
    """time.perf_counter is CLOCK_MONOTONIC, one clock for every process of the machine: a
    child's reading falls between the parent's readings before and after it."""
    assert time.get_clock_info("perf_counter").implementation == "clock_gettime(CLOCK_MONOTONIC)"
    before = time.perf_counter()
    out = subprocess.run([sys.executable, "-c", "import time; print(repr(time.perf_counter()))"],
                         capture_output=True, text=True, check=True, timeout=60)
    after = time.perf_counter()
    assert before <= float(out.stdout) <= after


def test_generator_processes_start_answer_and_quit(tmp_path: Path) -> None:
    """Two ``load_clients.py`` processes: each passes the parent's clock check (hello),
    has raised its open-files limit to the hard one, and quits when asked."""
    manifest = {"now": 0, "tokens": {}, "games": {
        g: {"cities": {"Лепроград": {"inbox": "x", "residents": []}}} for g in ("load00", "load01")}}
    path = tmp_path / "manifest.json"
    path.write_text(json.dumps(manifest), encoding="utf-8")
    import resource

    hard = resource.getrlimit(resource.RLIMIT_NOFILE)[1]

    async def scenario() -> None:
        procs = await load.ClientProcs.start([["load00"], ["load01"]], path, {"in_flight": 1}, tmp_path)
        try:
            replies = await procs.ask_all({"op": "hello"}, timeout=30)
            assert [r["nofile"] for r in replies] == [hard, hard]
            with pytest.raises(load.HarnessError, match="unknown op"):
                await procs.ask(0, {"op": "dance"}, timeout=30)
        finally:
            await procs.close()
        assert all(p.returncode == 0 for p in procs.procs)

    asyncio.run(scenario())


def test_every_game_lives_in_exactly_one_generator() -> None:
    games = load.game_names(200)
    for procs in (1, 3, 4, 7):
        parts = load.split_games(games, procs)
        assert sorted(g for part in parts for g in part) == sorted(games)
        assert max(map(len, parts)) - min(map(len, parts)) <= 1
    assert load.game_names(200)[-1] == "load199"


def test_200_games_fit_two_routed_workers_not_one() -> None:
    """A process may hold 20,000 open files here: one worker cannot hold 200 games' 20,000
    sockets; two workers routed by game can; the raw baseline takes two processes; the
    default generators each hold their games' sockets on every target."""
    games, limit = load.game_names(200), 20_000
    one = load.Target("project", "project", load.free_port())
    assert "a process may open 20000" in str(one.fits(games, limit))
    assert one.fits(games[:150], limit) is None
    routed = load.Target("project-2w-routed", "project", load.free_port(), routed=True,
                         others=[load.Target("project-2w-routed:b", "project", load.free_port())])
    assert routed.fits(games, limit) is None
    assert sum(routed.sockets_per_worker(games)) == 20_000
    raw = load.raw_target(games, limit)
    assert len(raw.workers) == 2 and raw.routed
    targets = [routed, raw]
    procs = load.client_procs(games, targets, limit, None)
    assert procs >= 4
    assert max(load.generator_files(p, targets) for p in load.split_games(games, procs)) <= limit
    with pytest.raises(load.HarnessError, match="--client-procs 1: a client process would hold"):
        load.client_procs(games, targets, limit, 1)
    assert load.client_procs(load.game_names(10), targets, limit, None) == 1


def test_routed_sockets_go_where_nginx_sends_the_game() -> None:
    ports = [4101, 4102]
    r = Route("project-2w-routed", "project", ports, routed=True)
    for n in range(50):
        game = f"load{n:02d}"
        want = ports[nginx_consistent_hash(game, ["127.0.0.1:8001", "127.0.0.1:8002"])]
        assert r.port_for(n, game) == r.port_for(0, game) == want
    spread = Route("project-2w", "project", ports)
    assert [spread.port_for(n, "load00") for n in range(4)] == [4101, 4102, 4101, 4102]


def test_every_routed_target_splits_the_games_alike() -> None:
    """Two targets of one A/B listen on different ephemeral ports; nginx's ring is hashed
    over the same upstream names for both, so each worker holds the same games on both
    (200 games: 93 and 107), run after run."""
    games = load.game_names(200)

    def split(ports: list[int]) -> list[int]:
        r = Route("t", "project", ports, routed=True)
        return [sum(r.port_for(0, g) == p for g in games) for p in ports]

    assert split([4101, 4102]) == split([39001, 51234]) == [93, 107]


def test_the_curve_plan_at_200_games(capsys: pytest.CaptureFixture[str]) -> None:
    """``--plan`` for the curve's largest configuration, nothing started: one worker is left
    out with the reason, two routed workers and two raw processes hold 20,000 sockets each
    target, four generators each within the limit, and the time is estimated."""
    import argparse

    args = argparse.Namespace(games="200", backends="postgresql", reps=3, window=30.0,
                              two_workers_routed=True, two_workers=False, compare_session_cache="",
                              client_procs=None, open_files=20_000, max_minutes=120.0, before=None)
    load.print_plan(args)
    out = capsys.readouterr().out
    assert "project: a worker would hold 20456 open files (200 games), a process may open 20000: skipped" in out
    assert "postgresql, 200 games: 4 client processes (each at most 10370 open files)" in out
    assert "project-2w-routed: sockets per process [" in out and "raw: sockets per process [" in out
    assert "min in all (--max-minutes 120)" in out


@pytest.mark.parametrize("backend", ["sqlite", "postgresql"])
def test_an_earlier_tree_runs_beside_this_one_on_its_own_copy(backend: str, tmp_path: Path) -> None:
    """``--before COMMIT``: a third server, first in each repetition, importing that
    commit's ``src`` (extracted into the run's directory), on its own copy of the same games
    (never the database this tree's server writes), beside this tree's and the raw one; with
    ``--before-env``, in an environment of its own."""
    import argparse

    args = argparse.Namespace(games="10", backends=backend, reps=3, window=30.0,
                              two_workers_routed=False, two_workers=False, compare_session_cache="",
                              client_procs=None, open_files=20_000, max_minutes=120.0,
                              before="0e818df", current_backend=backend,
                              before_env=["LEPROMAFIA_BENCH_GC_THRESHOLD=5000,20,20"])
    db, targets, _ = load.plan(args, backend, 10, tmp_path)
    assert [t.name for t in targets] == ["before", "project", "raw"]
    before, project = targets[0], targets[1]
    assert before.src == str(tmp_path / "before-tree") and project.src is None
    # --before-env: that server's own environment (an A/B of a setting), not this tree's
    assert before.env == {"LEPROMAFIA_BENCH_GC_THRESHOLD": "5000,20,20"} and project.env == {}
    assert before.db is not None and project.db is db
    assert (before.db.url, before.db.schema) != (db.url, db.schema)


def test_the_earlier_tree_is_that_commit_s_src_with_the_built_catalogs(tmp_path: Path) -> None:
    """The extracted tree holds the commit's package, byte for byte, and the Russian catalog
    this tree has built, if any (built files are not committed)."""
    load.extract_tree("HEAD", tmp_path / "tree")
    committed = subprocess.run(["git", "-C", str(BENCH.parent), "show", "HEAD:src/lepromafia/web/ws/transport.py"],
                               check=True, capture_output=True, text=True).stdout
    transport = (tmp_path / "tree/src/lepromafia/web/ws/transport.py").read_text(encoding="utf-8")
    assert transport == committed and "class LeanWebSocketProtocol" in transport
    built = BENCH.parent / "src/lepromafia/web/locale/ru/LC_MESSAGES/messages.mo"
    copied = tmp_path / "tree/src/lepromafia/web/locale/ru/LC_MESSAGES/messages.mo"
    assert copied.exists() == built.exists()


def test_a_minted_form_token_posts_as_the_browser_s_composer_does(tmp_path: Path) -> None:
    """``--post-via form`` (the composer without its socket; the default in sessions
    10-14): a generator's chat post is the composer's htmx post with a token it mints under the servers' key (``form_token``).
    The server accepts it as one message, answers with the composer's card, and refuses a
    token minted under another key or bound to another cookie (CSRF, SEC-2)."""
    from urllib.parse import quote

    from load_clients import BENCH_SECRET, CSRF_COOKIE, form_token

    from ..web.conftest import at, make_api, setup_game_via_api, small_cast

    cast = small_cast()
    city = next(iter(cast.cities))
    for api in make_api(tmp_path, secret_key=BENCH_SECRET):
        setup_game_via_api(api, "bench", cast)
        api.advance_to(at(1, "10:05"))
        inbox = api.state("bench").current_inbox("city", city)
        assert inbox
        author = api.state("bench").living(city)[0]
        path = f"/games/bench/inboxes/{quote(inbox, safe='')}"
        posts = [(key, seed, cookie, text) for key, seed, cookie, text in (
            (BENCH_SECRET, "seed-1", "seed-1", "lg:abc сообщение в городской чат"),
            ("another-key", "seed-1", "seed-1", "чужой ключ"),
            (BENCH_SECRET, "seed-1", "seed-2", "чужая кука"))]
        answers = []
        for key, seed, cookie, text in posts:
            nonce = uuid.uuid4().hex
            if CSRF_COOKIE in api.client.cookies:  # the pages' own, set by an earlier answer
                api.client.cookies.delete(CSRF_COOKIE)
            api.client.cookies.set(CSRF_COOKIE, cookie)
            answers.append(api.client.post(
                f"{path}/post", data={"csrf_token": form_token(key, seed, nonce, int(time.time()) + 3600),
                                      "command_id": nonce, "text": text},
                headers={**api.headers(author), "hx-request": "true", "hx-target": "composer-card"}))
        answer, *refused = answers
        assert answer.status_code == 200
        assert 'data-testid="error"' not in answer.text and 'class="thread"' not in answer.text
        assert 'data-testid="composer"' in answer.text
        for r in refused:
            assert r.status_code == 403 and 'data-code="csrf_invalid"' in r.text
        shown = api.get(author, path).text
        assert "lg:abc" in shown and "чужой ключ" not in shown and "чужая кука" not in shown


def _hold_the_loop_once(dog: Any, pause: Callable[[float], None]) -> float:
    """Watch a loop that one callback, ``hold_the_loop``, holds for 60 ms; then stop.
    Returns when the loop had ended (``time.perf_counter``)."""

    def hold_the_loop() -> None:
        pause(0.06)

    async def scenario() -> None:
        dog.start(asyncio.get_running_loop())
        await asyncio.sleep(0.05)
        asyncio.get_running_loop().call_soon(hold_the_loop)
        await asyncio.sleep(0.1)

    asyncio.run(scenario())
    ended = time.perf_counter()
    dog.stop()
    return ended


def test_the_stall_watchdog_names_what_held_the_loop(tmp_path: Path) -> None:
    """``bench/stalls.py``: a callback that holds the loop for 60 ms is one stall of about
    that length, sampled in that callback, and the report counts every stall found (on a
    loaded machine the scheduler may pause the process past the threshold too, anywhere:
    such pauses are counted, but none of them is named after the callback)."""
    import stalls

    dog = stalls.Watchdog(str(tmp_path / "stalls.jsonl"), threshold_ms=15)
    _hold_the_loop_once(dog, time.sleep)
    found = [json.loads(line) for line in (tmp_path / "stalls.jsonl").read_text().splitlines()]
    held = [stall for stall in found if any("hold_the_loop" in sample for sample in stall["samples"])]
    assert len(held) == 1, found
    assert 50 <= held[0]["ms"] <= 200
    assert f"{len(found)} stalls" in stalls.report(str(tmp_path / "stalls.jsonl"))


def test_a_stall_is_written_when_the_watchdog_wakes_only_after_the_loop_has_ended(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A loaded machine keeps the watchdog's thread off the processor from its first sample
    of the stall until the loop is gone (``make test``'s three workers and browsers did): the
    stall is still written, whole, before ``stop`` returns, and the silence after the loop's
    end is no stall: the stall ends at the loop's last beat (starved, the watchdog knows no
    earlier one), however long the loaded machine made the loop's remaining 40 ms."""
    import threading

    import stalls

    sampled = threading.Event()
    real_stack, real_sleep = stalls._stack, time.sleep

    def stack(frame: object) -> str:
        taken = real_stack(frame)  # type: ignore[arg-type]
        if "hold_the_loop" in taken:  # starved from its first sample of the hold on (a
            sampled.set()             # scheduler's pause before it is a stall of its own)
        return taken

    def sleep(seconds: float) -> None:
        starved = sampled.is_set() and threading.current_thread().name == "stall-watchdog"
        real_sleep(0.3 if starved else seconds)

    monkeypatch.setattr(stalls, "_stack", stack)
    monkeypatch.setattr(stalls.time, "sleep", sleep)
    dog = stalls.Watchdog(str(tmp_path / "stalls.jsonl"), threshold_ms=15)
    ended = _hold_the_loop_once(dog, real_sleep)
    assert dog._gc not in gc.callbacks  # stopped: no census at the process's later collections
    found = [json.loads(line) for line in (tmp_path / "stalls.jsonl").read_text().splitlines()]
    [stall] = [stall for stall in found if any("hold_the_loop" in sample for sample in stall["samples"])]
    assert stall["ms"] >= 50
    assert stall["at"] + stall["ms"] / 1000 <= ended + 0.001, "the silence after the loop's end counted"


def test_the_next_window_waits_for_a_server_still_busy_with_its_backlog(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A server that ends its window behind keeps a core busy: the harness waits until it is
    idle before the next target's window (session 16's 150 games), at most ``--settle``
    seconds; an idle one is passed after one second's look."""
    import argparse
    from types import SimpleNamespace

    monkeypatch.setattr(load, "SETTLED", 0.05)  # a spinning process shares a loaded machine
    busy = subprocess.Popen([sys.executable, "-c",
                             "import time\nend = time.time() + 2.5\nwhile time.time() < end: pass\n"
                             "time.sleep(60)"])
    try:
        harness = SimpleNamespace(args=argparse.Namespace(settle=20.0))
        target = SimpleNamespace(workers=[SimpleNamespace(proc=busy)])
        waited = asyncio.run(load.Harness.settle(harness, target))  # type: ignore[arg-type]
        assert 2.0 <= waited < 6.0, waited
        idle = asyncio.run(load.Harness.settle(harness, target))  # type: ignore[arg-type]
        assert 1.0 <= idle < 2.0, idle  # one second's look (a step more on a loaded machine)
        harness.args.settle = 1.5  # the limit holds whatever the server does
        spinning = subprocess.Popen([sys.executable, "-c", "while True: pass"])
        try:
            target.workers = [SimpleNamespace(proc=spinning)]
            assert asyncio.run(load.Harness.settle(harness, target)) < 3.0  # type: ignore[arg-type]
        finally:
            spinning.kill()
            spinning.wait()
    finally:
        busy.kill()
        busy.wait()


def test_a_page_says_what_it_shows_only_to_a_tree_that_takes_it(tmp_path: Path) -> None:
    """This tree's clients send a ``view`` and no read report while on screen; an earlier
    tree (no ``View`` in its protocol) gets the reports it knows, and the raw relay's
    clients, which have no page, send neither."""
    older = tmp_path / "older"
    (older / "src/lepromafia/web/ws").mkdir(parents=True)
    (older / "src/lepromafia/web/ws/protocol.py").write_text("class ReadReport(_Msg): ...\n")
    assert load.Target("project", "project", load.free_port()).route()["views"] is True
    assert load.Target("before", "project", load.free_port(), src=str(older)).route()["views"] is False
    assert load.Target("raw", "raw", load.free_port()).route()["views"] is False


def test_an_a_b_alternates_the_trees_and_pairs_each_repetition() -> None:
    """``bench/fanout.py --before``: the trees run in turn ABBA (a machine drifting through a
    run favours neither) and each is read against ``before`` in its own repetition: a tree
    twice as fast reads 2.0 however much the machine slowed between repetitions."""
    import fanout

    before, project, raw = (fanout.Target(n, k, 0) for n, k in
                            (("before", "project"), ("project", "project"), ("raw", "raw")))
    assert [t.name for t in fanout.in_turn([before, project, raw], 0)] == ["before", "project", "raw"]
    assert [t.name for t in fanout.in_turn([before, project, raw], 1)] == ["project", "before", "raw"]
    rows = [{"test": "saturate", "target": name, "rep": rep, "deliveries_per_s": speed * base,
             "per_cpu_s": speed * base, "p99_ms": 40 / speed}
            for rep, base in enumerate((20_000, 13_000, 17_000))
            for name, speed in (("before", 1.0), ("project", 2.0), ("raw", 3.0))]
    table = fanout.paired(rows)
    assert table[-1] == "| saturate | project (3 pairs) | **2.000 / 2.000 / 2.000** | **2.000 / 2.000 / 2.000** " \
                        "| 0.500 / 0.500 / 0.500 |"


def test_the_machine_s_cores_count_at_least_this_process_s_own_work() -> None:
    """``machine_cores``: every CPU's busy time over a window (the database's, the
    generators', everyone's) reads at least what this process alone spent in it."""
    since, own0, wall0 = load.machine_jiffies(), time.process_time(), time.perf_counter()
    while time.process_time() - own0 < 0.5:
        sum(range(10_000))
    wall = time.perf_counter() - wall0
    read = load.machine_cores(since, wall)
    own = (time.process_time() - own0) / wall
    cores = os.cpu_count() or 1
    assert own - 0.1 <= read["machine_cores"] <= cores + 0.1, (read, own)  # ticks of 10 ms
    assert 0 <= read["steal_cores"] <= cores
