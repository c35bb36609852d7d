"""Rebuild a game from its events and compare with what the store holds.

``check_game`` is what ``lepromafia game replay ID`` prints: the longest valid prefix
of the log (the first bad seq if any), the read models rebuilt from the events versus
the stored ones, and the idempotency keys versus the events they produced.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..engine.events import Event
from ..engine.evolve import evolve
from ..engine.state import GameState
from ..store import codec
from ..store.event_store import EventStore
from ..store.projection import PK, Row, Step, rebuild


@dataclass
class ReplayReport:
    game_id: str
    events: int
    applied: int
    first_bad_seq: int | None = None
    error: str | None = None
    differences: list[str] = field(default_factory=list)
    state: GameState | None = None

    @property
    def ok(self) -> bool:
        return self.first_bad_seq is None and not self.differences


async def check_game(store: EventStore, game_id: str) -> ReplayReport:
    async with store.reading() as tx:
        meta = await tx.meta(game_id)
        if meta is None:
            return ReplayReport(game_id, 0, 0, error="unknown game", first_bad_seq=0)
        rows = await tx.event_rows(game_id)
        stored = await tx.read_model(game_id)
    commands = await store.command_rows(game_id)
    report = ReplayReport(game_id, len(rows), 0)
    decoded: list[tuple[int, Event]] = []
    state: GameState | None = None
    for expected, row in enumerate(rows, start=1):
        try:
            if row["seq"] != expected:
                raise ValueError(f"seq {row['seq']} found instead")
            event = codec.decode_event(codec.loads(row["payload"]))
            state = evolve(state, event)
        except Exception as exc:  # the longest valid prefix ends here
            report.first_bad_seq, report.error = expected, str(exc)
            report.applied, report.state = len(decoded), state
            return report
        decoded.append((row["seq"], event))
    report.applied, report.state = len(decoded), state
    if meta.version != len(rows):
        report.differences.append(f"games.version is {meta.version}, the log has {len(rows)} events")
    steps = _steps(decoded, rows, commands, report)
    rebuilt = rebuild(game_id, meta.clock, steps)
    for table in rebuilt:
        _compare(table, rebuilt[table], stored.get(table, {}), report)
    return report


def _steps(decoded: list[tuple[int, Event]], rows: list[Row], commands: list[Row],
           report: ReplayReport) -> list[Step]:
    by_seq = {seq: event for seq, event in decoded}
    owner = {row["seq"]: row["command_id"] for row in rows}
    steps: list[Step] = []
    covered = 0
    state: GameState | None = None
    for command in commands:
        first, last = command["first_seq"], command["last_seq"]
        if last < first:
            continue  # accepted without events (a stale deadline)
        if first != covered + 1:
            report.differences.append(f"command {command['command_id']} starts at {first}, "
                                      f"expected {covered + 1}")
        if any(owner.get(s) != command["command_id"] for s in range(first, last + 1)):
            report.differences.append(f"events {first}..{last} do not belong to {command['command_id']}")
        events = tuple((s, by_seq[s]) for s in range(first, last + 1) if s in by_seq)
        before = state
        for _, event in events:
            state = evolve(state, event)
        assert state is not None
        steps.append(Step(command["command_id"], codec.decode_command(codec.loads(command["command"])),
                          before, state, events))
        covered = last
    if covered != len(decoded):
        report.differences.append(f"commands cover {covered} of {len(decoded)} events")
    return steps


def _compare(table: str, rebuilt: dict[PK, Row], stored: dict[PK, Row], report: ReplayReport) -> None:
    for pk in sorted(rebuilt.keys() | stored.keys(), key=repr):
        want, have = rebuilt.get(pk), stored.get(pk)
        if want is None:
            report.differences.append(f"{table} {pk}: stored but not in the log")
        elif have is None:
            report.differences.append(f"{table} {pk}: missing")
        elif _normal(want) != _normal(have):
            report.differences.append(f"{table} {pk}: {_diff(want, have)}")


def _normal(row: Row) -> Row:
    return {k: bool(v) if isinstance(v, bool) else v for k, v in row.items()}


def _diff(want: Row, have: Row) -> str:
    keys = sorted(k for k in want if want.get(k) != have.get(k))
    return ", ".join(f"{k}: log says {want.get(k)!r}, stored {have.get(k)!r}" for k in keys)
