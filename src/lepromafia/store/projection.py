"""Read models as a pure function of the event log.

One accepted command is a ``Step``: the state before, its events with their seqs, the
state after. ``Projector.project(step)`` gives the row changes for every read-model
table; the service writes them in the command's transaction, and ``rebuild`` replays
a whole log into the same rows in memory, so the two can be compared exactly.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from ..engine import events as ev
from ..engine.calendar import MOSCOW
from ..engine.commands import Command, CreateGame
from ..engine.inboxes import Access, access, readers_of
from ..engine.state import GameState
from . import codec

Row = dict[str, Any]
PK = tuple[Any, ...]
Changes = dict[str, dict[PK, Row | None]]
"""table -> primary key -> the full new row, or None for a deleted row."""

PRIMARY_KEYS: dict[str, tuple[str, ...]] = {
    "messages": ("game_id", "seq"),
    "inboxes": ("game_id", "inbox"),
    "inbox_members": ("game_id", "inbox", "user_id"),
    "deadlines": ("game_id", "key"),
    "audit_log": ("game_id", "seq"),
}

MEMBERSHIP_NEUTRAL = (ev.MessagePosted, ev.VoteCast)
"""Hot-path events that never change who may read or post where."""


@dataclass(frozen=True)
class GameClock:
    """Game time runs ``scale`` times faster than real time from ``epoch`` (Unix s)."""

    epoch: float
    scale: float = 1.0

    def to_real(self, game_time: datetime) -> float:
        return self.epoch + (game_time.timestamp() - self.epoch) / self.scale

    def to_game(self, real: float) -> datetime:
        """Game time, in Moscow time like everything in the engine."""
        return datetime.fromtimestamp(self.epoch + (real - self.epoch) * self.scale, MOSCOW)


@dataclass(frozen=True)
class Step:
    command_id: str
    command: Command
    before: GameState | None
    after: GameState
    events: tuple[tuple[int, ev.Event], ...]


Members = Mapping[tuple[str, str], str]
"""(inbox, user) -> 'write' | 'read'."""


def members_of(state: GameState, now: datetime) -> dict[tuple[str, str], str]:
    """Who may post ('write') or only read ('read') in every inbox at ``now``, as
    ``engine.inboxes.access`` answers it: a member under a ban reads only (INBOX-GEN-1,
    HOST-ARB-3)."""
    found: dict[tuple[str, str], str] = {}
    for inbox in state.inboxes.values():
        for user in readers_of(state, inbox):
            level = access(state, inbox.id, user, now=now)
            if level is not Access.NONE:
                found[(inbox.id, user)] = "write" if level is Access.WRITE else "read"
    return found


@dataclass
class Projector:
    """Projects one game's steps; keeps the current membership to emit only its diff."""

    game_id: str
    clock: GameClock
    members: Members = field(default_factory=dict)

    @classmethod
    def resume(cls, game_id: str, clock: GameClock, state: GameState | None) -> Projector:
        """After a load. Membership is recounted as at the game's creation, when every
        unlifted ban is still in force: the strictest answer, so the next membership
        change rewrites any row a ban's expiry has made stale, and never misses one."""
        return cls(game_id, clock, members_of(state, state.created_at) if state is not None else {})

    def project(self, step: Step) -> Changes:
        changes: Changes = {name: {} for name in PRIMARY_KEYS}
        g = self.game_id
        before, after = step.before, step.after
        for seq, event in step.events:
            if isinstance(event, ev.MessagePosted):
                changes["messages"][(g, seq)] = {
                    "game_id": g, "seq": seq, "inbox": event.inbox, "author": event.author,
                    "text": event.text, "at": event.at.isoformat(),
                }
        self._inboxes(changes, before, after)
        if any(not isinstance(e, MEMBERSHIP_NEUTRAL) for _, e in step.events):
            self._membership(changes, after, step.events[-1][1].at)
        self._deadlines(changes, step)
        self._audit(changes, step)
        return changes

    def _inboxes(self, changes: Changes, before: GameState | None, after: GameState) -> None:
        if before is not None and after.inboxes is before.inboxes:
            return  # no inbox changed (a chat line): no walk over the game's every inbox
        old = before.inboxes if before else {}
        for inbox_id, inbox in after.inboxes.items():
            if old.get(inbox_id) is inbox:
                continue
            changes["inboxes"][(self.game_id, inbox_id)] = {
                "game_id": self.game_id, "inbox": inbox_id, "kind": inbox.kind, "city": inbox.city,
                "subject": inbox.subject, "title": inbox.title, "archived": inbox.archived,
            }

    def _membership(self, changes: Changes, after: GameState, now: datetime) -> None:
        new = members_of(after, now)
        g = self.game_id
        for key, level in new.items():
            if self.members.get(key) != level:
                changes["inbox_members"][(g, *key)] = {
                    "game_id": g, "inbox": key[0], "user_id": key[1], "access": level,
                }
        for key in self.members.keys() - new.keys():
            changes["inbox_members"][(g, *key)] = None
        self.members = new

    def _deadlines(self, changes: Changes, step: Step) -> None:
        old = step.before.deadlines if step.before else {}
        new = step.after.deadlines
        fired = {e.key: (seq, e) for seq, e in step.events if isinstance(e, ev.DeadlineFired)}
        g = self.game_id
        for key in old.keys() | new.keys():
            due = new.get(key)
            if due is not None:
                if old.get(key) == due and key not in fired:
                    continue
                row = self._deadline_row(key, due, "pending")
            else:
                hit = fired.get(key)
                row = self._deadline_row(key, old[key], "fired" if hit else "dropped")
                if hit:
                    row["fired_at"] = hit[1].at.isoformat()
                    row["fired_seq"] = hit[0]
            changes["deadlines"][(g, key)] = row

    def _deadline_row(self, key: str, due: datetime, status: str) -> Row:
        return {
            "game_id": self.game_id, "key": key, "due_at": due.isoformat(),
            "due_real": self.clock.to_real(due), "status": status, "fired_at": None,
            "fired_seq": None,
        }

    def _audit(self, changes: Changes, step: Step) -> None:
        """The host audit log: every accepted command of a host (HOST-*), with its effect."""
        if not step.events:
            return
        actor = step.command.actor
        hosts = step.before.hosts() if step.before else set()
        if not (isinstance(step.command, CreateGame) or actor in hosts):
            return
        seq, first = step.events[0]
        changes["audit_log"][(self.game_id, seq)] = {
            "game_id": self.game_id, "seq": seq, "actor": actor,
            "command_type": type(step.command).__name__,
            "command": codec.dumps(codec.encode_command(step.command)), "at": first.at.isoformat(),
        }



def merge(into: Changes, new: Changes) -> None:
    """Later changes win: the net effect of several steps."""
    for table, rows in new.items():
        into.setdefault(table, {}).update(rows)


def apply(model: dict[str, dict[PK, Row]], changes: Changes) -> None:
    for table, rows in changes.items():
        target = model.setdefault(table, {})
        for pk, row in rows.items():
            if row is None:
                target.pop(pk, None)
            else:
                target[pk] = row


def empty_model() -> dict[str, dict[PK, Row]]:
    return {name: {} for name in PRIMARY_KEYS}


def rebuild(game_id: str, clock: GameClock, steps: Iterable[Step]) -> dict[str, dict[PK, Row]]:
    """The read models of a game, from its steps alone."""
    projector = Projector(game_id, clock)
    model = empty_model()
    for step in steps:
        apply(model, projector.project(step))
    return model
