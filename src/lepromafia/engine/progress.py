"""Context and Progress: how ``decide`` handlers accumulate events (lila's Progress)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any, TypeVar

from .audience import Audience
from .events import Event
from .evolve import evolve
from .state import GameState

E = TypeVar("E", bound=Event)


@dataclass(frozen=True, slots=True)
class Context:
    """What the world tells the engine about a command: only the time."""

    now: datetime

    def __post_init__(self) -> None:
        if self.now.tzinfo is None:
            raise ValueError("ctx.now must be timezone-aware")


class Progress:
    """Events emitted so far and the state they lead to.

    Handlers read ``state`` (always the state after the events emitted so far), so
    follow-up rules see the consequences of earlier ones.
    """

    __slots__ = ("ctx", "events", "state")

    def __init__(self, state: GameState, ctx: Context) -> None:
        self.state = state
        self.ctx = ctx
        self.events: list[Event] = []

    @property
    def now(self) -> datetime:
        return self.ctx.now

    def emit(self, event_type: type[E], audience: Audience, **fields: Any) -> E:
        event = event_type(at=self.ctx.now, audience=audience, **fields)
        self.state = evolve(self.state, event)
        self.events.append(event)
        return event
