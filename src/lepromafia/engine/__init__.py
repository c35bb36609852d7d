"""The Lepromafia rules engine: pure, standard library only.

    decide(state, command, ctx) -> list[Event]   (or raises RuleViolation)
    evolve(state, event) -> state
    replay(events) -> Replay(state, applied, error)
    visible_to(event, viewer) -> bool
"""

from .audience import PUBLIC, Audience
from .decide import decide
from .errors import ErrorCode, RuleViolation
from .events import Event
from .evolve import Replay, evolve, replay
from .progress import Context
from .state import GameState
from .visibility import visible_to

__all__ = [
    "PUBLIC",
    "Audience",
    "Context",
    "ErrorCode",
    "Event",
    "GameState",
    "Replay",
    "RuleViolation",
    "decide",
    "evolve",
    "replay",
    "visible_to",
]
