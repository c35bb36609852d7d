"""A finished game for the archive tests: the bots play it to its end on a Table, after a
personal message and a secret inbox of three on Day 1; its log is then written to a
store as one imported step (events, read models), so a GameService reads it like any
game it ran itself."""

from __future__ import annotations

import random
from dataclasses import dataclass

from lepromafia.bots.agents import RandomBots
from lepromafia.bots.setup import default_cast, setup_game
from lepromafia.engine import commands as cmd
from lepromafia.engine.inboxes import Kind
from lepromafia.engine.state import Stage
from lepromafia.engine.table import Table, next_deadline
from lepromafia.service.service import fingerprint
from lepromafia.store import codec
from lepromafia.store.event_store import EventStore, GameMeta, GameWrite
from lepromafia.store.projection import GameClock, Projector, Step

PERSONAL_TEXT = "Tribune, I suspect p01_03"
SECRET_TEXT = "Our secret plan"


@dataclass
class FinishedGame:
    table: Table
    writer: str
    """A resident who wrote in his personal inbox."""
    personal: str
    secret: str
    secret_members: tuple[str, str, str]


def play_finished_game(seed: int = 11) -> FinishedGame:
    rng = random.Random(seed)
    table = setup_game(rng, default_cast(2, 6))
    first = next_deadline(table.game)
    assert first is not None
    table.advance(first[1])
    now = table.events[-1].at
    s = table.game
    writer = s.cities["Лепроград"].residents[0]
    personal = next(i.id for i in s.inboxes.values() if i.kind == Kind.PERSONAL and i.subject == writer)
    table.do(cmd.PostMessage(actor=writer, inbox=personal, text=PERSONAL_TEXT), now)
    members = (s.cities["Лепроград"].residents[1], s.cities["Лепроград"].residents[2],
               s.cities["Лепросицилия"].residents[0])
    table.do(cmd.CreateSecretInbox(actor=members[0], title="Заговор", members=members[1:], key="0000000000000001"), now)
    secret = next(i.id for i in table.game.inboxes.values() if i.kind == Kind.SECRET)
    table.do(cmd.PostMessage(actor=members[1], inbox=secret, text=SECRET_TEXT), now)
    bots = RandomBots(rng, mischief=0.0)
    for _ in range(5000):
        nxt = next_deadline(table.game)
        if nxt is None or table.game.stage is Stage.FINISHED:
            break
        before = len(table.events)
        table.advance(nxt[1], seed=lambda: rng.randrange(1 << 31))
        bots.react(table, table.events[before:])
    assert table.game.stage is Stage.FINISHED
    assert set(table.game.inboxes[secret].members) | {table.game.inboxes[secret].subject} >= set(members)
    return FinishedGame(table, writer, personal, secret, members)


async def import_game(store: EventStore, game_id: str, table: Table) -> None:
    """Write a played game's log and read models as the service would have."""
    state = table.game
    clock = GameClock(table.events[0].at.timestamp(), 1.0)
    numbered = tuple(enumerate(table.events, start=1))
    marker = cmd.FireDeadline(actor="system", key="import", seed=0)
    changes = Projector(game_id, clock).project(Step("import", marker, None, state, numbered))
    meta = GameMeta(game_id, state.title, state.created_at.isoformat(), state.stage.value,
                    len(numbered), clock)
    write = GameWrite(game_id, -1, meta)
    write.events = [{"game_id": game_id, "seq": seq, "type": type(e).__name__, "at": e.at.isoformat(),
                     "payload": codec.dumps(codec.encode_event(e)), "command_id": "import"}
                    for seq, e in numbered]
    write.commands = [{"game_id": game_id, "command_id": "import", "fingerprint": fingerprint(marker),
                       "command": codec.dumps(codec.encode_command(marker)), "first_seq": 1,
                       "last_seq": len(numbered), "accepted_real": clock.epoch}]
    async with store.transaction() as tx:
        await tx.write([write], changes)
