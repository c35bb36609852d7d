"""Balance-lab benchmark: strategy-bot games per second per core, beside random-bot games
measured in the same run, and what that means for a 10,000-game sweep.

    python bench/lab_bench.py [--games N] [--sweep]

Each kind of game is played on one core over the same seeds (5 cities of 20, set-up
included), interleaved so a busy machine slows both alike; CPU time (``process_time``)
is reported beside wall time because the machine is shared. Kinds:

* random: ``bots.simulate.play`` without the whole-log check (the engine baseline);
* strategy, cheap checks: ``bots.strategy.match.play(check="cheap")``;
* strategy, full checks: with ``check_game`` as well;
* lab mix: what a big sweep plays — every 10th game fully checked, the rest cheaply.

``--sweep`` also times a real ``lab run`` of 10,000 five-city games on every core.
"""

from __future__ import annotations

import argparse
import os
import platform
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable

from lepromafia.bots.simulate import play as play_random
from lepromafia.bots.strategy.match import play as play_strategy

CITIES, POPULATION = 5, 20


def timed(fn: Callable[[int], object], seeds: range) -> tuple[float, float]:
    wall, cpu = time.perf_counter(), time.process_time()
    for seed in seeds:
        fn(seed)
    return time.perf_counter() - wall, time.process_time() - cpu


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--games", type=int, default=20)
    parser.add_argument("--sweep", action="store_true")
    args = parser.parse_args()
    kinds: dict[str, Callable[[int], object]] = {
        "random bots": lambda s: play_random(s, CITIES, POPULATION, check=False),
        "strategy bots, cheap checks": lambda s: play_strategy(s, CITIES, POPULATION, check="cheap"),
        "strategy bots, full checks": lambda s: play_strategy(s, CITIES, POPULATION, check="full"),
    }
    totals = {k: [0.0, 0.0] for k in kinds}
    for block in range(0, args.games, 5):  # interleaved blocks of 5 games
        seeds = range(block, min(block + 5, args.games))
        for name, fn in kinds.items():
            wall, cpu = timed(fn, seeds)
            totals[name][0] += wall
            totals[name][1] += cpu
    print(f"Python {platform.python_version()}, {platform.machine()}, {os.cpu_count()} cores; "
          f"{args.games} games of {CITIES} cities × {POPULATION} per kind, one core")
    base_cpu = totals["random bots"][1]
    for name, (wall, cpu) in totals.items():
        print(f"{name:>30}: {args.games / cpu:6.2f} games/s per core (CPU), {args.games / wall:6.2f} wall"
              f"  — {cpu / base_cpu:4.2f}× the random bots' time per game")
    cheap, full = totals["strategy bots, cheap checks"][1], totals["strategy bots, full checks"][1]
    mix = (9 * cheap + full) / 10 / args.games
    print(f"{'lab mix (1 in 10 full)':>30}: {1 / mix:6.2f} games/s per core (CPU)")
    print(f"10,000-game sweep on 2 cores, estimated from CPU time: {10_000 * mix / 2 / 60:.1f} min")
    if args.sweep:
        with tempfile.TemporaryDirectory() as out:
            started = time.perf_counter()
            subprocess.run([sys.executable, "-m", "lepromafia.cli.main", "lab", "run", "--games", "10000",
                            "--cities", "5", "--out", out], check=True)
            print(f"10,000-game lab run, wall: {(time.perf_counter() - started) / 60:.1f} min")


if __name__ == "__main__":
    main()
