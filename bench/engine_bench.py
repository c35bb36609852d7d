"""Engine benchmark: replay speed and whole simulated games per second, on one core.

    python bench/engine_bench.py [--games N] [--profile]

Figures are printed next to baselines measured in the same run, so they read as
ratios that survive a slower or faster machine:

* replay: ``replay(events)`` over the log of one full simulated 5-city game, against
  (a) a loop constructing one small frozen dataclass per event and (b) a loop doing
  one ``dataclasses.replace`` of the game state per event — the least an
  immutable-state evolve can cost with the standard library.
* simulation: whole 5-city games of 20 (bots, set-up included), without and with the
  invariant checks (``check_game``).

Targets (docs/performance.md): >= 200,000 events/s replay, >= 10 games/s.
"""

from __future__ import annotations

import argparse
import cProfile
import dataclasses
import io
import platform
import pstats
import sys
import time
from collections.abc import Callable

from lepromafia.bots.simulate import play
from lepromafia.engine.evolve import replay

CITIES, POPULATION, SEED = 5, 20, 1


@dataclasses.dataclass(frozen=True, slots=True)
class _Small:
    at: int
    key: str


def best_of(runs: int, fn: Callable[[], object]) -> float:
    """The fastest of ``runs`` timings (seconds): the least disturbed by the machine."""
    best = float("inf")
    for _ in range(runs):
        started = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - started)
    return best


def bench_replay() -> dict[str, float]:
    report = play(SEED, CITIES, POPULATION, check=False)
    events = report.table.events
    n = len(events)
    assert replay(events).state == report.table.state
    state = report.table.state

    def small() -> None:
        for i in range(n):
            _Small(at=i, key="k")

    def state_copy() -> None:
        s = state
        for i in range(n):
            s = dataclasses.replace(s, day=i)

    t_replay = best_of(5, lambda: replay(events))
    t_small = best_of(5, small)
    t_copy = best_of(5, state_copy)
    return {
        "events": n,
        "replay_events_per_s": n / t_replay,
        "baseline_small_dataclass_per_s": n / t_small,
        "baseline_state_replace_per_s": n / t_copy,
        "replay_vs_state_replace": t_copy / t_replay,
    }


def bench_games(games: int) -> dict[str, float]:
    def run(check: bool) -> tuple[float, int]:
        started = time.perf_counter()
        events = 0
        for seed in range(games):
            report = play(seed, CITIES, POPULATION, check=check)
            assert not report.violations, (seed, report.violations[:3])
            events += report.events
        return time.perf_counter() - started, events

    t_plain, events = run(check=False)
    t_checked, _ = run(check=True)
    return {
        "games": games,
        "mean_events_per_game": events / games,
        "games_per_s": games / t_plain,
        "events_per_s_while_playing": events / t_plain,
        "games_per_s_with_invariants": games / t_checked,
    }


def profile(games: int) -> str:
    profiler = cProfile.Profile()
    profiler.enable()
    for seed in range(games):
        play(seed, CITIES, POPULATION, check=False)
    profiler.disable()
    out = io.StringIO()
    pstats.Stats(profiler, stream=out).sort_stats("tottime").print_stats(15)
    return out.getvalue()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=20)
    parser.add_argument("--profile", action="store_true")
    args = parser.parse_args()
    print(f"python {platform.python_version()} on {platform.machine()}, one core")
    rows = {**bench_replay(), **bench_games(args.games)}
    for key, value in rows.items():
        print(f"{key:>32}: {value:,.2f}" if isinstance(value, float) else f"{key:>32}: {value}")
    for label, met in (("replay target 200,000 ev/s", rows["replay_events_per_s"] >= 200_000),
                       ("simulation target 10 games/s", rows["games_per_s"] >= 10)):
        print(f"{label:>32}: {'met' if met else 'NOT met'}")
    if args.profile:
        print(profile(min(args.games, 5)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
