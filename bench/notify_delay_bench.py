"""From a reminder's moment to the SMTP server's receipt (issue 13), at a vote close.

A game of 100 players in 5 cities (20 each) on Day 2: every city has two candidates and
its vote closes at 23:30; every resident has a verified e-mail address. The clock runs in
real time from 23:14:58; the dispatcher runs as ``serve`` runs it (its own task, polling
every ``interval``), sending through ``EmailSender`` to a local aiosmtpd server. For each
message of the "closes in 15 minutes" reminder (one per living resident) the delay is
its receipt minus the real moment the clock passed 23:15. p50/p99 and the last one.

Baseline in the same run: the same number of messages, built the same way, sent by
``aiosmtplib`` in a loop over one SMTP session to the same server from the moment 0 (no
store, no outbox, no poll, no rate limit).

Usage: python bench/notify_delay_bench.py [--pg URL] [--rate R] [--repeat 3]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import tempfile
import time
import uuid
from datetime import datetime, timedelta
from typing import Any

import aiosmtplib
from aiosmtpd.controller import Controller

sys.path.insert(0, ".")

from tests.notify.helpers import free_port, profile, tr
from tests.service.helpers import Ids, at, default_cast, setup_game

from lepromafia.engine import commands as cmd
from lepromafia.service.notify.channels import EmailSender, Outgoing
from lepromafia.service.notify.dispatcher import DispatchConfig, Dispatcher
from lepromafia.service.service import GameService
from lepromafia.store.database import DatabaseConfig
from lepromafia.store.event_store import EventStore
from lepromafia.store.migrate import upgrade
from lepromafia.store.notify import NotifyStore


class RunningClock:
    """Real time, shifted: ``set`` moves it to a moment, from which it runs on."""

    def __init__(self, start: datetime) -> None:
        self.offset = start.timestamp() - time.time()

    def now(self) -> float:
        return time.time() + self.offset

    def set(self, moment: datetime) -> None:
        self.offset = moment.timestamp() - time.time()


class Receipts:
    def __init__(self) -> None:
        self.at: list[float] = []

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
        self.at.append(time.time())
        return "250 OK"


def quantiles(delays: list[float]) -> tuple[float, float, float]:
    qs = statistics.quantiles(delays, n=100, method="inclusive")
    return statistics.median(delays), qs[98], max(delays)


async def project(config: DatabaseConfig, smtp: str, receipts: Receipts, rate: float | None) -> list[float]:
    await upgrade(config)
    clock = RunningClock(at(1, "09:00") - timedelta(days=3))
    svc = GameService(EventStore.open(config), clock)  # type: ignore[arg-type]
    await svc.start(sweep=False)
    await setup_game(svc, "g", default_cast(5, 20), settings={"supreme_court_mode": "never"})
    store = NotifyStore(svc.store)
    ids = Ids("b")
    clock.set(at(2, "12:00"))
    await svc.sweep()
    state = await svc.state("g")
    for city in state.cities:
        living = state.living(city)
        for i, candidate in enumerate(living[:2]):
            await svc.execute("g", cmd.Nominate(actor=living[2 + i], candidate=candidate), ids())
    for user in state.residents:
        await profile(store, user, lang="ru", email=f"{user}@example.org")
    clock.set(at(2, "20:01"))
    await svc.sweep()
    rates = dict(DispatchConfig().rates)
    if rate is not None:
        rates["email"] = (rate, rate)
    d = Dispatcher(svc, store, [EmailSender(smtp, "bench@lepromafia.test")], tr,
                   DispatchConfig(rates=rates, watch_every=3600), clock=clock)  # type: ignore[arg-type]
    clock.set(at(2, "23:14"))
    while await d.step():  # everything due before the reminder goes out first
        pass
    receipts.at.clear()
    moment = at(2, "23:15").timestamp()
    clock.set(at(2, "23:14") + timedelta(seconds=58))
    d.start()
    while clock.now() < moment:
        await asyncio.sleep(0.001)
    zero = time.time() - (clock.now() - moment)
    expected = sum(1 for r in state.residents.values() if r.alive)
    deadline = time.time() + 120
    while len(receipts.at) < expected and time.time() < deadline:
        await asyncio.sleep(0.05)
    await d.stop()
    await svc.close()
    return [r - zero for r in receipts.at[:expected]]


async def raw(smtp_port: int, receipts: Receipts, n: int) -> list[float]:
    sender = EmailSender(f"smtp://127.0.0.1:{smtp_port}", "bench@lepromafia.test")
    messages = [sender.build(Outgoing(key=f"raw:{i}", address=f"u{i}@example.org", subject="Лепромафия",
                                      text="Голосование закрывается через 15 минут.",
                                      link="http://127.0.0.1/", html="<p>x</p>")) for i in range(n)]
    receipts.at.clear()
    zero = time.time()
    async with aiosmtplib.SMTP(hostname="127.0.0.1", port=smtp_port, start_tls=False) as client:
        for m in messages:  # one session, as EmailSender keeps one
            await client.send_message(m)
    return [r - zero for r in receipts.at]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--pg", default=None, help="PostgreSQL URL (default: SQLite only)")
    parser.add_argument("--rate", type=float, default=None, help="e-mails/s limit (default: the project's)")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    receipts = Receipts()
    port = free_port()
    controller = Controller(receipts, hostname="127.0.0.1", port=port)
    controller.start()
    print(f"load average before: {os.getloadavg()}")
    try:
        with tempfile.TemporaryDirectory() as tmp:
            backends = [("sqlite", lambda i: DatabaseConfig(f"sqlite:///{tmp}/delay{i}.db"))]
            if args.pg:
                backends.append(("postgresql",
                                 lambda i: DatabaseConfig(args.pg, f"bench_{uuid.uuid4().hex[:8]}")))
            for name, make in backends:
                for i in range(args.repeat):
                    ours = asyncio.run(project(make(i), f"smtp://127.0.0.1:{port}", receipts, args.rate))
                    base = asyncio.run(raw(port, receipts, len(ours)))
                    p50, p99, top = quantiles(ours)
                    b50, b99, btop = quantiles(base)
                    print(f"{name} run {i + 1}: {len(ours)} e-mails; project p50 {p50:.3f} s p99 {p99:.3f} s "
                          f"max {top:.3f} s | raw p50 {b50:.3f} s p99 {b99:.3f} s max {btop:.3f} s | "
                          f"ratio p50 {p50 / b50:.1f}x p99 {p99 / b99:.1f}x | load {os.getloadavg()[0]:.2f}")
    finally:
        controller.stop()


if __name__ == "__main__":
    main()
