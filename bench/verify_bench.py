"""The verifiable log's cost and the verifier's speed, in one run (issue 14).

    python bench/verify_bench.py [--commands N] [--rounds R]

1. Commands per second through the service on SQLite with the verifiable log on and off,
   alternating runs in the same process (best of R each): the log may cost at most 10%.
2. The verifier (verify/verify.py, standard library only) on the export of a whole 5-city
   game: events per second, and the same for the tamper checks' typical rejection.
Prints a Markdown section for docs/performance.md.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.service.helpers import at, manual_clock, setup_game, small_cast

from lepromafia import verifier
from lepromafia.bots.simulate import play
from lepromafia.engine import commands as cmd
from lepromafia.service.service import GameService
from lepromafia.service.stored_games import store_table
from lepromafia.service.transparency import LogKey
from lepromafia.service.transparency_export import dumps, export_game
from lepromafia.store.database import DatabaseConfig
from lepromafia.store.event_store import EventStore
from lepromafia.store.migrate import upgrade
from lepromafia.store.projection import GameClock

KEY = LogKey.generate()


async def commands_per_second(path: Path, n: int, log: bool, clients: int = 8) -> float:
    config = DatabaseConfig(f"sqlite+aiosqlite:///{path}")
    await upgrade(config)
    clock = manual_clock()
    async with GameService.running(config, clock=clock, verifiable_log=log, log_key=KEY) as svc:
        await setup_game(svc, "bench", small_cast())
        clock.set(at(1, "12:00"))
        state = await svc.state("bench")
        inbox = state.current_inbox("city", "Лепроград")
        users = state.living("Лепроград")
        await svc.execute("bench", cmd.PostMessage(actor=users[0], inbox=inbox, text="старт"), "warm")
        counter = iter(range(n))

        async def client() -> None:
            for i in counter:
                await svc.execute("bench", cmd.PostMessage(actor=users[i % len(users)], inbox=inbox,
                                                           text=f"сообщение {i}"), f"m{i}")

        started = time.perf_counter()
        await asyncio.gather(*(client() for _ in range(clients)))
        return n / (time.perf_counter() - started)


async def five_city_export(path: Path, seed: int) -> tuple[bytes, int]:
    config = DatabaseConfig(f"sqlite+aiosqlite:///{path}")
    await upgrade(config)
    store = EventStore.open(config)
    try:
        report = play(seed, 5, 20)
        await store_table(store, "five", report.table, KEY, GameClock(0.0, 1.0))
        return dumps(await export_game(store, "five", KEY)).encode(), len(report.table.events)
    finally:
        await store.close()


def best_rate(fn: object, events: int, rounds: int = 3) -> float:
    best = float("inf")
    for _ in range(rounds):
        t0 = time.perf_counter()
        fn()  # type: ignore[operator]
        best = min(best, time.perf_counter() - t0)
    return events / best


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--commands", type=int, default=3000)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        rates: dict[bool, list[float]] = {False: [], True: []}
        for r in range(args.rounds):
            for log in (False, True) if r % 2 == 0 else (True, False):
                db = Path(tmp) / f"cmd-{r}-{log}.db"
                rates[log].append(asyncio.run(commands_per_second(db, args.commands, log)))
        off, on = max(rates[False]), max(rates[True])
        raw, events = asyncio.run(five_city_export(Path(tmp) / "five.db", 2))
    whole = best_rate(lambda: verifier.verify(raw), events)
    rng = random.Random(1)
    i = rng.randrange(len(raw))
    forged = raw[:i] + bytes([raw[i] ^ 1]) + raw[i + 1:]
    rejected = best_rate(lambda: verifier.verify(forged), events)
    print("## Verifiable log and verifier (bench/verify_bench.py)\n")
    print(f"SQLite, {args.commands} `PostMessage` commands from 8 clients into one game, best of "
          f"{args.rounds} alternating runs each:\n")
    print("| log | commands/s | ratio to log off |\n|---|---:|---:|")
    print(f"| off | {off:,.0f} | 1.00 |")
    print(f"| on (salted leaf per event, heads at Day Posts) | {on:,.0f} | {on / off:.2f} |")
    print(f"\nThe log costs {100 * (1 - on / off):.1f}% (budget: 10%).\n")
    print(f"Verifier on a whole 5-city game (seed 2: {events:,} events, export {len(raw) / 1e6:.1f} MB):\n")
    print("| run | events/s |\n|---|---:|")
    print(f"| full verification (log, heads, inclusion, deal, outcomes) | {whole:,.0f} |")
    print(f"| a one-byte change, rejected | {rejected:,.0f} |")


if __name__ == "__main__":
    main()
