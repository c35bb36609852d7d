"""What the service tells whoever watches it run (metrics, logs); it decides nothing.

``GameService.observer`` is a ``NullObserver`` until the composition root sets one
(``web/observability.py``). Every hook receives only what an operator may see: the game,
the acting seat's user id, the outcome's code and timings; never a command's text, its
target or the actor's role.
"""

from __future__ import annotations


class ServiceObserver:
    """The hooks, each a no-op here."""

    def command(self, game_id: str, actor: str, code: str, seconds: float) -> None:
        """A command was answered: ``code`` is ``ok`` or the refusal's stable code."""

    def queue_wait(self, seconds: float) -> None:
        """A job waited this long in its writer lane before its batch began."""

    def deadline_fired(self, lag_seconds: float) -> None:
        """A deadline fired this many real seconds after it was due."""

    def followed(self, events: int) -> None:
        """A writer lane applied ``events`` another worker had committed to its game
        before writing it (the game's writes moved between workers)."""


NullObserver = ServiceObserver
