"""Crash safety: a separate process applies a stream of votes and messages and is
killed with SIGKILL at random points, on SQLite and on PostgreSQL.

After every kill: each command the process acknowledged is stored exactly once with
all its events, nothing unacknowledged is half-applied (every stored command has all
of its events and no event lacks its command), and replaying the log reproduces the
read models exactly. The client then re-sends everything not acknowledged, with the
same command ids, as a real client would. Finally the server is down across the
vote's closing time: on restart the deadline fires exactly once, counting only the
votes cast before it.
"""

from __future__ import annotations

import asyncio
import os
import random
import select
import signal
import time
from dataclasses import dataclass, field

import pytest

from lepromafia.engine import commands as cmd
from lepromafia.engine.inboxes import Kind
from lepromafia.service.clock import ManualClock
from lepromafia.service.replay import check_game
from lepromafia.service.service import LEASE_SECONDS, GameService
from lepromafia.store.database import DatabaseConfig
from lepromafia.store.event_store import EventStore, decode_rows

from .helpers import Ids, at, manual_clock, open_day2_vote, run, setup_game, small_cast, voting_inbox

CAST = small_cast()
CITY = next(iter(CAST.cities))
KILLS = {"sqlite": 60, "postgresql": 45}
"""Kill points per backend (>= 100 over the suite), plus 10 more across the deadline."""
STREAM = 360


@dataclass
class Client:
    """What the killed process's client saw."""

    acked: set[str] = field(default_factory=set)
    rejected: set[str] = field(default_factory=set)


def build_stream(state: object, seed: int) -> list[tuple[str, cmd.Command]]:
    """Votes that alternate «казнить»/«не казнить» per voter, city-inbox chatter, and
    some flood in the voting inboxes (rejected by EXEC-13)."""
    rng = random.Random(seed)
    living = state.living(CITY)  # type: ignore[attr-defined]
    candidates = list(state.cities[CITY].voting.candidates)  # type: ignore[attr-defined]
    city_inbox = state.current_inbox(Kind.CITY.value, CITY)  # type: ignore[attr-defined]
    active: set[tuple[str, str]] = set()
    stream: list[tuple[str, cmd.Command]] = []
    for i in range(STREAM):
        user = rng.choice(living)
        roll = rng.random()
        if roll < 0.45:
            cand = rng.choice(candidates)
            keyword = "не казнить" if (user, cand) in active else "казнить"
            active ^= {(user, cand)}
            inbox = voting_inbox(state, CITY, cand)
            command: cmd.Command = cmd.PostMessage(actor=user, inbox=inbox, text=keyword)
        elif roll < 0.5:
            inbox = voting_inbox(state, CITY, rng.choice(candidates))
            command = cmd.PostMessage(actor=user, inbox=inbox, text=f"флуд {i}")
        else:
            command = cmd.PostMessage(actor=user, inbox=city_inbox, text=f"сообщение {i}")
        stream.append((f"s{i}", command))
    return stream


def child(config: DatabaseConfig, moment: float, stream: list[tuple[str, cmd.Command]],
          start: int, fd: int) -> None:
    """The doomed server process: applies the stream from ``start``, four at a time,
    and reports every answer only after it was acknowledged."""

    async def main() -> None:
        async with GameService.running(config, clock=ManualClock(moment)) as svc:
            i = start
            while i < len(stream):
                group = stream[i:i + 4]
                results = await asyncio.gather(*(svc.execute("g", c, cid) for cid, c in group),
                                               return_exceptions=True)
                for (cid, _), result in zip(group, results, strict=True):
                    os.write(fd, f"{'R' if isinstance(result, Exception) else 'A'} {cid}\n".encode())
                i += 4
            os.write(fd, b"DONE\n")

    asyncio.run(main())


def crash_round(config: DatabaseConfig, moment: float, stream: list[tuple[str, cmd.Command]],
                start: int, client: Client, rng: random.Random, max_acks: int) -> bool:
    """Run the child until it has answered a random number of commands (or a random
    short time passed), SIGKILL it mid-flight, and collect what it had answered."""
    read_fd, write_fd = os.pipe()
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child
        os.close(read_fd)
        code = 0
        try:
            child(config, moment, stream, start, write_fd)
        except BaseException:
            code = 1
        os._exit(code)
    os.close(write_fd)
    target = rng.randint(0, max_acks)
    buffer = b""
    answered = 0
    done = False
    deadline = time.monotonic() + 20
    while answered < target and not done and time.monotonic() < deadline:
        ready, _, _ = select.select([read_fd], [], [], 0.05)
        if ready:
            chunk = os.read(read_fd, 65536)
            if not chunk:
                break
            buffer += chunk
            answered = buffer.count(b"\n")
            done = b"DONE" in buffer
    time.sleep(rng.uniform(0, 0.004))
    os.kill(pid, signal.SIGKILL)
    os.waitpid(pid, 0)
    while True:
        chunk = os.read(read_fd, 65536)
        if not chunk:
            break
        buffer += chunk
    os.close(read_fd)
    for line in buffer.decode().splitlines():
        kind, _, cid = line.partition(" ")
        if kind == "A":
            client.acked.add(cid)
        elif kind == "R":
            client.rejected.add(cid)
    return b"DONE" in buffer


async def verify(config: DatabaseConfig, client: Client) -> set[str]:
    """The invariants after a crash; returns the command ids stored."""
    store = EventStore.open(config)
    try:
        commands = await store.command_rows("g")
        rows = await store.event_rows("g")
        report = await check_game(store, "g")
    finally:
        await store.close()
    stored = [c["command_id"] for c in commands]
    assert len(stored) == len(set(stored))
    assert client.acked <= set(stored), f"acknowledged but lost: {client.acked - set(stored)}"
    assert not (client.rejected & set(stored)), "a rejected command left a trace"
    per_command: dict[str, int] = {}
    for row in rows:
        per_command[row["command_id"]] = per_command.get(row["command_id"], 0) + 1
    for c in commands:
        assert per_command.get(c["command_id"], 0) == max(0, c["last_seq"] - c["first_seq"] + 1)
    assert set(per_command) <= set(stored), "events without their command"
    assert report.ok, (report.first_bad_seq, report.error, report.differences[:5])
    return set(stored)


async def prepare(config: DatabaseConfig) -> tuple[list[tuple[str, cmd.Command]], float]:
    clock = manual_clock()
    async with GameService.running(config, clock=clock) as svc:
        await setup_game(svc, "g", CAST)
        await open_day2_vote(svc, "g", clock, CITY, Ids("prep-"))
        state = await svc.state("g")
    return build_stream(state, seed=11), at(2, "21:00").timestamp()


@pytest.mark.parametrize("kind", ["sqlite", "postgresql"])
def test_sigkill_at_random_points_loses_no_acknowledged_command(kind: str, request: pytest.FixtureRequest,
                                                                tmp_path: object) -> None:
    from .conftest import _drop_schema
    from .helpers import pg_config, sqlite_config

    config = sqlite_config(tmp_path) if kind == "sqlite" else pg_config()
    from lepromafia.store.migrate import upgrade

    run(upgrade(config))
    try:
        _crash_suite(config, random.Random(kind))
    finally:
        if config.schema:
            run(_drop_schema(config))


def _crash_suite(config: DatabaseConfig, rng: random.Random) -> None:
    stream, moment = run(prepare(config))
    client = Client()
    kills = KILLS["sqlite" if config.is_sqlite else "postgresql"]
    stored: set[str] = set()
    ids = [cid for cid, _ in stream]
    for _ in range(kills):
        start = next((i for i, cid in enumerate(ids) if cid not in client.acked | client.rejected), len(ids))
        start -= start % 4
        crash_round(config, moment, stream, start, client, rng, max_acks=16)
        stored = run(verify(config, client))
    # restart without a kill: the client finishes its stream
    start = next((i for i, cid in enumerate(ids) if cid not in client.acked | client.rejected), len(ids))
    assert crash_round(config, moment, stream, start - start % 4, client, rng, max_acks=10_000)
    stored = run(verify(config, client))
    assert len(client.acked) + len(client.rejected) == len(stream)
    assert {c for c in ids if c in stored} == client.acked
    # the vote closes at 23:30; the server is down until 01:00 and dies again during start-up,
    # perhaps after its sweep claimed the deadline and before it fired it: the start that
    # lives comes after that claim's lease (the clocks here stand still)
    expected = run(_tallies(config))
    late = at(3, "01:00").timestamp()
    for _ in range(10):
        crash_round(config, late, [], 0, client, rng, max_acks=0)
        run(verify(config, client))
    assert crash_round(config, late + LEASE_SECONDS + 1, [], 0, client, rng, max_acks=10_000)
    run(_closed_once(config, expected))


async def _tallies(config: DatabaseConfig) -> dict[str, int]:
    store = EventStore.open(config)
    try:
        async with store.reading() as tx:
            loaded = await tx.load("g")
    finally:
        await store.close()
    assert loaded is not None
    book = loaded.state.cities[CITY].voting
    assert book is not None and not book.closed
    return {cand: len(book.active[cand]) for cand in book.candidates}


async def _closed_once(config: DatabaseConfig, expected: dict[str, int]) -> None:
    store = EventStore.open(config)
    try:
        events = [e for _, e in decode_rows(await store.event_rows("g"))]
        commands = await store.command_rows("g")
    finally:
        await store.close()
    fired = [e for e in events if type(e).__name__ == "DeadlineFired" and e.key == f"vote_close:{CITY}:2"]
    # The game plays the deadline at its own time; the real, late firing is on the command row.
    assert len(fired) == 1 and fired[0].due_at == fired[0].at == at(2, "23:30")
    (row,) = [r for r in commands if r["command_id"].startswith(f"deadline:vote_close:{CITY}:2@")]
    assert row["accepted_real"] >= at(3, "01:00").timestamp()
    closed = [e for e in events if type(e).__name__ == "VotingClosed" and e.city == CITY]
    assert len(closed) == 1
    counted = {t.candidate: t.votes for t in closed[0].tallies}
    assert counted == {c: n for c, n in expected.items() if n or c in counted}
