"""The dispatcher runs when this process commits, not twice a second (issue 17).

Cast: ``small_cast()``; a resident of the first city writes in its city inbox on Day 1
(INBOX-CITY-1). The dispatcher's fallback poll is set to 30 s, so a pass that follows
the message within a second was woken by the commit.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from datetime import timedelta
from typing import Any

from lepromafia.engine import commands as cmd
from lepromafia.engine.inboxes import live_inbox
from lepromafia.service.clock import ManualClock
from lepromafia.service.notify.dispatcher import Dispatcher
from lepromafia.service.service import GameService
from lepromafia.store.event_store import EventStore
from lepromafia.store.migrate import upgrade
from lepromafia.store.notify import NotifyStore

from ..service.helpers import at, manual_clock, run, setup_game, small_cast, sqlite_config
from .helpers import Recorder, dispatcher, profile


class Counting(Dispatcher):
    passes = 0

    async def step(self) -> int:
        self.passes += 1
        return await super().step()


@asynccontextmanager
async def day_one(tmp_path: Any) -> AsyncIterator[tuple[GameService, ManualClock, str, list[str]]]:
    """A running service with the game "g" at Day 1, 10:05: the first city's inbox and its
    living residents."""
    config = sqlite_config(tmp_path)
    await upgrade(config)
    clock = manual_clock()
    svc = GameService(EventStore.open(config), clock=clock)
    await svc.start(sweep=False)
    try:
        await setup_game(svc, "g", small_cast(), settings={"supreme_court_mode": "never"})
        clock.set(at(1, "10:05"))
        state = await svc.state("g")
        city = next(iter(state.cities))
        inbox = live_inbox(state, "city", city)
        assert inbox
        yield svc, clock, inbox, state.living(city)
    finally:
        await svc.close()


async def until(check: Any, seconds: float) -> bool:
    for _ in range(int(seconds / 0.02)):
        if check():
            return True
        await asyncio.sleep(0.02)
    return bool(check())


async def followed_pending(store: NotifyStore) -> int:
    """Game "g"'s outbox rows of a followed inbox's messages not yet expanded."""
    return sum(r["status"] == "pending" for r in await store.outbox_rows("g")
               if r["kind"] == "followed_inbox")


def test_a_commit_wakes_the_dispatcher_and_an_idle_one_sleeps(tmp_path: Any) -> None:
    """Started, it makes its passes and then sleeps (30 s fallback): no pass in half a second.
    A city message is committed: a pass follows within a second (the message's outbox row,
    FOLLOWED_INBOX, is expanded then, not at the next poll). Stopped, it leaves the store's
    commit listeners as it found them."""
    async def main() -> None:
        async with day_one(tmp_path) as (svc, clock, inbox, living):
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
            await svc.execute("g", cmd.PostMessage(actor=living[0], inbox=inbox, text="Доброе утро"), "wake-1")
            assert await until(lambda: d.passes > idle, 1.0), "the commit woke it"
            await d.stop()
            assert svc.store.listeners == listeners

    run(main())


def test_a_stream_of_messages_is_expanded_in_passes_an_interval_apart(tmp_path: Any) -> None:
    """A fourth resident follows the city inbox; three write 40 messages each in it as fast
    as they can, with the dispatcher running (passes at least 0.25 s apart while commits keep coming). Every
    message's row is expanded, in a handful of passes: a pass that found no backlog waits
    for the interval (issue 17: under a stream of posts the dispatcher had run back to back,
    a row or two a pass, INBOX-CITY-1)."""
    async def main() -> None:
        async with day_one(tmp_path) as (svc, clock, inbox, living):
            made = dispatcher(svc, NotifyStore(svc.store), [Recorder("email")], idle=30.0, interval=0.25)
            await made.store.follow(living[3], "g", inbox, True, clock.now())
            d = Counting(made.games, made.store, made.senders.values(), made.translate, made.config,
                         clock=clock)
            d.start()
            assert await until(lambda: d.passes >= 1, 2.0)
            await asyncio.sleep(0.6)  # the set-up's own rows
            before = d.passes
            async def writer(n: int) -> None:
                for i in range(40):
                    await svc.execute("g", cmd.PostMessage(actor=living[n], inbox=inbox, text=f"№{i}"),
                                      f"stream-{n}-{i}")

            await asyncio.gather(*(writer(n) for n in range(3)))

            for _ in range(50):
                if not await followed_pending(made.store):
                    break
                await asyncio.sleep(0.05)
            passes = d.passes - before
            await d.stop()
            assert not await followed_pending(made.store), "every message's row was expanded"
            assert 1 <= passes <= 8, f"{passes} passes for 120 messages"

    run(main())


class Timed(Dispatcher):
    """Each pass's start and end on the loop's clock, and whether it left a backlog."""

    spans: list[tuple[float, float, bool]]

    async def step(self) -> int:
        loop = asyncio.get_running_loop()
        started = loop.time()
        busy = await super().step()
        self.spans.append((started, loop.time(), bool(busy and self._backlog)))
        return busy


def test_a_backlog_is_worked_through_leaving_the_loop_half_its_time(tmp_path: Any) -> None:
    """A fourth resident follows the city inbox; 30 messages are written there while no
    dispatcher runs (an outage: 30 rows wait). Started with 5 rows a claim, it expands them
    all, and after each pass that came back full it pauses at least as long as that pass
    took, so pages and sockets (a restart's reconnecting players) keep at least half of
    the loop while a backlog is worked through (issue 17, INBOX-CITY-1)."""
    async def main() -> None:
        async with day_one(tmp_path) as (svc, clock, inbox, living):
            made = dispatcher(svc, NotifyStore(svc.store), [Recorder("email")], idle=30.0, interval=0.0,
                              batch=5)
            await made.store.follow(living[3], "g", inbox, True, clock.now())
            for i in range(30):
                await svc.execute("g", cmd.PostMessage(actor=living[i % 3], inbox=inbox, text=f"№{i}"),
                                  f"outage-{i}")

            assert await followed_pending(made.store) == 30
            d = Timed(made.games, made.store, made.senders.values(), made.translate, made.config,
                      clock=clock)
            d.spans = []
            d.start()
            for _ in range(100):
                if not await followed_pending(made.store):
                    break
                await asyncio.sleep(0.05)
            await d.stop()
            assert not await followed_pending(made.store), "every row of the backlog was expanded"
            full = [span for span in d.spans[:-1] if span[2]]
            assert len(full) >= 5, d.spans  # 30 rows, 5 a claim (and the set-up's own)
            for (start, end, backlog), (nxt, _, _) in zip(d.spans, d.spans[1:], strict=False):
                if backlog:
                    assert nxt - end >= 0.9 * (end - start), (start, end, nxt)

    run(main())


class CountingClaims(NotifyStore):
    delivery_claims = 0

    async def claim_deliveries(self, claim: Any) -> list[dict[str, Any]]:
        self.delivery_claims += 1
        return await super().claim_deliveries(claim)


def test_a_message_nobody_is_told_of_costs_no_delivery_claim_and_one_that_is_sent_in_its_pass(
        tmp_path: Any) -> None:
    """A resident writes in his city inbox, which nobody follows: it leaves no outbox row,
    and the next pass expands nothing, writes no delivery and claims none (issue 17: a chat
    line nobody follows costs the dispatcher nothing). Then Cleo, who has a verified address, follows the inbox, and the next message's
    pass writes her e-mail and sends it at once. With nothing of its own waiting, the
    dispatcher still claims deliveries once its fallback poll (``idle``) has passed: another
    worker's or a retry's (INBOX-CITY-1)."""
    async def main() -> None:
        async with day_one(tmp_path) as (svc, clock, inbox, living):
            store = CountingClaims(svc.store)
            mail = Recorder("email")
            d = dispatcher(svc, store, [mail], idle=30.0, interval=0.0)
            await svc.sweep()  # Day 1's opening: its day post and duties
            while await d.step():  # the set-up's own rows
                pass
            author, cleo = living[:2]
            claims = store.delivery_claims
            await svc.execute("g", cmd.PostMessage(actor=author, inbox=inbox, text="Доброе утро"), "m-1")
            assert await d.step() == 0  # no outbox row: nobody follows the inbox
            assert store.delivery_claims == claims, "no delivery written, none claimed"

            await profile(store, cleo, email="cleo@example.org")
            await store.follow(cleo, "g", inbox, True, clock.now())
            await svc.execute("g", cmd.PostMessage(actor=author, inbox=inbox, text="Кто за Даню?"), "m-2")
            await d.step()
            assert len(mail.sent) == 1, "her e-mail goes out in the pass that wrote it"
            assert [r["status"] for r in await store.deliveries_of(game_id="g")] == ["sent"]

            claims = store.delivery_claims
            await d.step()
            assert store.delivery_claims == claims
            clock.advance(timedelta(seconds=31))
            await d.step()
            assert store.delivery_claims == claims + 1, "the fallback poll claims"

    run(main())


def test_a_commit_at_the_moment_of_stopping_does_not_keep_the_dispatcher_running(tmp_path: Any) -> None:
    """The dispatcher sleeps until a commit wakes it; a commit lands in the very loop step
    in which the app stops it (a test client's shutdown, a worker's). It stops: the wake
    does not swallow the cancellation (Python 3.11's ``asyncio.wait_for`` returned the
    finished wait and dropped the cancel, and the app's shutdown waited for ever — the hang
    the suite met in ``test_ws_direct_fanout.py``'s fixture)."""
    async def main() -> None:
        async with day_one(tmp_path) as (svc, clock, _inbox, _living):
            made = dispatcher(svc, NotifyStore(svc.store), [Recorder("email")], idle=30.0, interval=0.0)
            d = Counting(made.games, made.store, made.senders.values(), made.translate, made.config,
                         clock=clock)
            d.start()
            assert await until(lambda: d.passes >= 1, 2.0)
            await asyncio.sleep(0.5)  # the set-up's own rows: now it sleeps on the wake
            idle = d.passes
            await asyncio.sleep(0.2)
            assert d.passes == idle
            passes = d._task
            assert passes is not None
            d._committed("g", 0, [(1, None)])  # type: ignore[list-item]  # a commit's wake …
            stopping = asyncio.create_task(d.stop())  # … and the stop, in one step
            await asyncio.wait({passes, stopping}, timeout=5.0)
            assert passes.done(), "the dispatcher's passes went on after it was stopped"
            await stopping

    run(main())
