"""The one audience filter: what a viewer may receive about a game, in any channel.

Pages, the JSON API, the WebSocket, the archive export (and, later, notifications)
all pass every event through here; nothing else in ``service`` or ``web`` reads an
event's audience. A viewer is a user id, or None for an anonymous visitor.

``payload_for`` is the stream form: the event, or only its position (a bare
``{game, seq}`` marker) so each viewer's stream stays gapless. Issue 16 replaces the
markers with per-viewer sequences: that is a change to ``payload_for`` alone.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, TypeVar

from ..engine.archive import readable
from ..engine.audience import Audience
from ..engine.events import Event
from ..engine.state import GameState
from ..engine.visibility import visible_to
from ..store import codec

Payload = dict[str, Any]
E = TypeVar("E", bound=Event)


def may_see(event: Event, viewer: str | None) -> bool:
    """The engine's answer (``engine.visibility.visible_to``)."""
    return visible_to(event, viewer)


def admits(audience: Audience, viewer: str | None) -> bool:
    """The same rule for an audience not carried by an event (a library's, SOUND-2)."""
    return audience.public or (viewer is not None and viewer in audience.users)


def event_json(event: Event) -> dict[str, Any]:
    """An event as a client receives it: its fields, never its audience (which would
    name the event's other readers, §9)."""
    data = codec.encode_event(event)
    data.pop("audience", None)
    return data


def visible_now(state: GameState, events: Iterable[tuple[int, E]], viewer: str | None,
                kinds: type[E] | tuple[type[E], ...]) -> list[tuple[int, E]]:
    """As ``visible``, plus what §9.4 opens to everyone once the game is over — the mafia's
    decisions and the check logs (``engine.archive.readable``)."""
    return [(seq, e) for seq, e in events if isinstance(e, kinds) and readable(state, e, viewer)]


def visible(events: Iterable[tuple[int, Event]], viewer: str | None,
            kinds: type[E] | tuple[type[E], ...]) -> list[tuple[int, E]]:
    """The events of ``kinds`` the viewer may see, in order."""
    return [(seq, e) for seq, e in events if isinstance(e, kinds) and may_see(e, viewer)]


def visible_json(events: Iterable[tuple[int, Event]], viewer: str | None,
                 kinds: type[Event] | tuple[type[Event], ...]) -> list[dict[str, Any]]:
    """``visible`` as client JSON, each with its ``seq``."""
    return [event_json(e) | {"seq": seq} for seq, e in visible(events, viewer, kinds)]


def payload_for(game_id: str, seq: int, event: Event, viewer: str | None) -> Payload:
    """One stream position for one viewer: ``{game, seq, event}`` or the marker ``{game, seq}``."""
    if may_see(event, viewer):
        return {"game": game_id, "seq": seq, "event": event_json(event)}
    return {"game": game_id, "seq": seq}
