"""The web demo's bots (issue 15): strategy bots playing a durable game through the
service, each choice made from its own seat's view of the stored events."""

from __future__ import annotations

import random
from datetime import timedelta

from lepromafia.bots.strategy.service import StrategyServiceBots
from lepromafia.engine import events as ev
from lepromafia.service.service import GameService
from lepromafia.store import codec
from lepromafia.store.event_store import EventStore
from lepromafia.store.migrate import upgrade

from .helpers import at, default_cast, manual_clock, run, setup_game, sqlite_config


def test_strategy_service_bots_play_days_by_their_suspicions(tmp_path) -> None:
    """Two cities of eight, Days 1–4 hour by hour: residents post «Подозреваю …» in their city
    inbox, nominate and vote; the mafia kills only the honest (MAFIA-KILL-1); the ledger of
    the bots holds exactly the stored log."""

    async def scenario() -> None:
        config = sqlite_config(tmp_path)
        await upgrade(config)
        clock = manual_clock()
        svc = GameService(EventStore.open(config), clock)
        await svc.start(sweep=False)
        await setup_game(svc, "demo", default_cast(2, 8), settings={"supreme_court_mode": "never"})
        bots = StrategyServiceBots(svc, "demo", random.Random(3))
        clock.set(at(1, "09:00"))
        for _hour in range(4 * 24):
            clock.advance(timedelta(hours=1))
            await svc.sweep()
            await bots.step(await svc.state("demo"))
        async with svc.store.reading() as tx:
            rows = await tx.event_rows("demo")
        events = [codec.decode_event(codec.loads(r["payload"])) for r in rows]
        state = await svc.state("demo")
        await svc.close()
        assert state.day >= 4 or state.result is not None
        assert bots.accepted > 50
        posts = [e for e in events if isinstance(e, ev.MessagePosted) and e.text.startswith("Подозреваю ")]
        assert posts, "the residents voice their suspicions"
        kills = [e for e in events if isinstance(e, ev.ResidentDied) and e.cause == "night_kill"]
        assert kills and all(e.faction == "honest" for e in kills)
        assert any(isinstance(e, ev.VotingClosed) and e.condemned for e in events)
        assert len(bots.ledger.events) <= len(events)

    run(scenario())
