"""Keep a game played in memory (``engine.table.Table``: bots, simulations) in the store.

The result is a stored game like any other: its events with their commands, the read
models, and the verifiable log — a salted leaf per event and a signed head at every Day
Post and at the end, exactly where the service would have signed them (signed now, with
the key valid now) — so that
``lepromafia game replay`` and ``lepromafia game export`` work on it.
"""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime

from ..engine.evolve import evolve
from ..engine.state import GameState
from ..engine.table import Table
from ..store import codec
from ..store.event_store import EventStore, GameMeta, GameWrite
from ..store.projection import Changes, GameClock, Projector, Step, merge
from .service import fingerprint
from .transparency import HEAD_EVENTS, GameLog, HeadSigner, head_reason


async def store_table(store: EventStore, game_id: str, table: Table, key: HeadSigner,
                      clock: GameClock) -> int:
    """Write the table's game as ``game_id``; the number of events written."""
    state: GameState | None = None
    meta = GameMeta(game_id, table.game.title, table.game.created_at.isoformat(),
                    table.game.stage.value, len(table.events), clock)
    write = GameWrite(game_id, -1, meta)
    projector = Projector(game_id, clock)
    log = GameLog(game_id)
    changes: Changes = {}
    seq = 0
    for n, (command, count) in enumerate(table.journal, start=1):
        command_id = f"sim:{n}"
        before = state
        numbered = []
        for event in table.events[seq:seq + count]:
            seq += 1
            state = evolve(state, event)
            numbered.append((seq, event))
            payload = codec.dumps(codec.encode_event(event))
            kind = type(event).__name__
            write.events.append({"game_id": game_id, "seq": seq, "type": kind,
                                 "at": event.at.isoformat(), "payload": payload,
                                 "command_id": command_id})
            write.leaves.append(log.append(seq, payload))
            if kind in HEAD_EVENTS:
                head = log.sign(key, datetime.now(UTC), head_reason(kind, getattr(event, "day", None)))
                if head is not None:
                    write.heads.append(head)
        write.commands.append({
            "game_id": game_id, "command_id": command_id, "fingerprint": fingerprint(command),
            "command": codec.dumps(codec.encode_command(command)), "first_seq": seq - count + 1,
            "last_seq": seq, "accepted_real": clock.epoch})
        if state is not None and count:
            merge(changes, projector.project(Step(command_id, command, before, state, tuple(numbered))))
    if seq != len(table.events):
        raise ValueError(f"the table's journal covers {seq} of {len(table.events)} events")
    write.meta = replace(meta, version=seq)
    async with store.transaction() as tx:
        await tx.write([write], changes)
    return seq
