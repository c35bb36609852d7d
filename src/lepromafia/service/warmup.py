"""After a start, load the games in progress before their players ask (issue 17).

A restarted worker knows no game: without this, each game's first page or subscribe pays
its load (~100 ms of CPU: the snapshot decoded, the tail replayed, the event index read),
and with 50 games the first visitors wait for all of them at once. ``warm_up`` runs in the
background once the worker is ready: the games in progress, most recently advanced first
(their version, a proxy for activity), a few at a time, each load one read whose connection
is back in the pool before the CPU-bound part (``GameService.current``). A page that asks
for a game while it warms shares the same load (the service's in-flight loads). Then a
sole writer's lanes take the games (``GameService.take``: the handle from that load and
the verifiable log), a few to a batch, so the first commands after a start do not all
wait for one batch that reads every game's log.
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass

from ..engine.state import Stage
from .errors import ServiceError
from .event_index import EventIndex
from .service import GameService

log = logging.getLogger(__name__)

IN_PROGRESS = frozenset({Stage.FORMED, Stage.SEALED, Stage.DEALT, Stage.RUNNING})


@dataclass(frozen=True)
class WarmedUp:
    games: int
    failed: int


async def warm_up(service: GameService, events: EventIndex, *, limit: int,
                  concurrency: int = 2) -> WarmedUp:
    """Load at most ``limit`` games in progress (the caches' size: more would evict the
    first ones again) into the state cache and the event index."""
    metas = [m for m in await service.store.list_games() if m.stage in IN_PROGRESS]
    metas.sort(key=lambda m: m.version, reverse=True)
    gate = asyncio.Semaphore(concurrency)
    failed = 0

    async def one(game_id: str) -> None:
        nonlocal failed
        async with gate:
            try:
                current = await service.current(game_id)
                await events.events(game_id, current.version)
                await events.messages(game_id, current.version)  # the unread counts' ledger
            except ServiceError as exc:  # a corrupt or vanished game waits for its first reader
                failed += 1
                log.warning("warm-up of %s failed: %s", game_id, exc.code)

    chosen = metas[:limit]
    await asyncio.gather(*(one(m.game_id) for m in chosen))
    await service.take([m.game_id for m in chosen])  # the writer lanes' handles and logs
    return WarmedUp(len(chosen) - failed, failed)
