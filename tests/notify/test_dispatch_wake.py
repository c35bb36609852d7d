"""The dispatcher runs when this process commits, not twice a second (issue 17).

Cast: ``small_cast()``; a resident of the first city writes in its city inbox on Day 1
(INBOX-CITY-1). The dispatcher's fallback poll is set to 30 s, so a pass that follows
the message within a second was woken by the commit.
"""

from __future__ import annotations

import asyncio
from typing import Any

from lepromafia.engine import commands as cmd
from lepromafia.engine.inboxes import live_inbox
from lepromafia.service.notify.dispatcher import Dispatcher
from lepromafia.service.service import GameService
from lepromafia.store.event_store import EventStore
from lepromafia.store.migrate import upgrade
from lepromafia.store.notify import NotifyStore

from ..service.helpers import at, manual_clock, run, setup_game, small_cast, sqlite_config
from .helpers import Recorder, dispatcher


class Counting(Dispatcher):
    passes = 0

    async def step(self) -> int:
        self.passes += 1
        return await super().step()


async def until(check: Any, seconds: float) -> bool:
    for _ in range(int(seconds / 0.02)):
        if check():
            return True
        await asyncio.sleep(0.02)
    return bool(check())


def test_a_commit_wakes_the_dispatcher_and_an_idle_one_sleeps(tmp_path: Any) -> None:
    """Started, it makes its passes and then sleeps (30 s fallback): no pass in half a second.
    A city message is committed: a pass follows within a second (the message's outbox row,
    FOLLOWED_INBOX, is expanded then, not at the next poll). Stopped, it leaves the store's
    commit listeners as it found them."""
    config = sqlite_config(tmp_path)

    async def main() -> None:
        await upgrade(config)
        clock = manual_clock()
        svc = GameService(EventStore.open(config), clock=clock)
        await svc.start(sweep=False)
        try:
            await setup_game(svc, "g", small_cast(), settings={"supreme_court_mode": "never"})
            clock.set(at(1, "10:05"))
            made = dispatcher(svc, NotifyStore(svc.store), [Recorder("email")], idle=30.0, interval=0.0)
            d = Counting(made.games, made.store, made.senders.values(), made.translate, made.config,
                         clock=clock)
            listeners = list(svc.store.listeners)
            d.start()
            assert await until(lambda: d.passes >= 1, 2.0)
            await asyncio.sleep(0.5)  # the set-up's own rows are handled: busy passes
            idle = d.passes
            await asyncio.sleep(0.5)
            assert d.passes == idle, "no poll while nothing is committed"
            state = await svc.state("g")
            city = next(iter(state.cities))
            inbox = live_inbox(state, "city", city)
            assert inbox
            author = state.living(city)[0]
            await svc.execute("g", cmd.PostMessage(actor=author, inbox=inbox, text="Доброе утро"), "wake-1")
            assert await until(lambda: d.passes > idle, 1.0), "the commit woke it"
            await d.stop()
            assert svc.store.listeners == listeners
        finally:
            await svc.close()

    run(main())
