"""Table: a game held in memory, driven by commands and a caller-supplied clock.

Still pure: time is always an argument, lot seeds come from the caller. Tests,
scenarios, bots and the terminal demo drive games through it; the durable service
does the same with a store behind it.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime

from .commands import Command, FireDeadline
from .deadlines import kind_of
from .decide import decide_and_evolve
from .events import Event
from .evolve import evolve
from .progress import Context
from .state import GameState


def deadline_order(key: str, due_at: datetime) -> tuple[float, int, str]:
    """The order in which due deadlines fire: by time, then by phase logic
    (``deadlines.DEADLINE_KINDS``), then by key."""
    return (due_at.timestamp(), kind_of(key).priority, key)


def next_deadline(state: GameState) -> tuple[str, datetime] | None:
    if not state.deadlines:
        return None
    key = min(state.deadlines, key=lambda k: deadline_order(k, state.deadlines[k]))
    return key, state.deadlines[key]


class Table:
    """One game: its state and its full event log."""

    def __init__(self) -> None:
        self.state: GameState | None = None
        self.events: list[Event] = []
        self.journal: list[tuple[Command, int]] = []
        """Each accepted command with how many events it produced (to store a game played here)."""

    @property
    def game(self) -> GameState:
        assert self.state is not None, "no game yet"
        return self.state

    def do(self, command: Command, now: datetime) -> list[Event]:
        """Decide and apply; a RuleViolation leaves the table unchanged."""
        new, state = decide_and_evolve(self.state, command, Context(now))
        self.state = state  # already folded while deciding: no second evolve
        self.events.extend(new)
        self.journal.append((command, len(new)))
        return new

    def apply(self, new: list[Event]) -> None:
        state = self.state
        for event in new:
            state = evolve(state, event)
        self.state = state
        self.events.extend(new)

    def advance(self, until: datetime, seed: Callable[[], int] = lambda: 0) -> list[Event]:
        """Fire every deadline due by ``until``, in order, each at its due time."""
        fired: list[Event] = []
        while self.state is not None:
            nxt = next_deadline(self.state)
            if nxt is None or nxt[1] > until:
                break
            key, due = nxt
            fired.extend(self.do(FireDeadline(actor="system", key=key, seed=seed()), due))
        return fired
