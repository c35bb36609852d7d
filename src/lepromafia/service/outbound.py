"""The one audience filter: what a viewer may receive about a game, in any channel.

Pages, the JSON API, the WebSocket, the archive export (and, later, notifications)
all pass every event through here; nothing else in ``service`` or ``web`` reads an
event's audience. A viewer is a user id, or None for an anonymous visitor.

``stream_item`` is the stream form: an event the viewer may see, numbered by his own
position (``service.streams``), never by the game's global sequence. An event he may
not see reaches him in no form at all: no marker, no gap in his numbering, no frame on
his socket (§9.1.3, security review F3-1…F3-5).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any, TypeVar

from ..engine.archive import readable
from ..engine.audience import Audience
from ..engine.events import Event
from ..engine.state import GameState
from ..engine.visibility import readers, visible_to
from ..store import codec
from .event_index import Events

Payload = dict[str, Any]
E = TypeVar("E", bound=Event)


may_see: Callable[[Event, str | None], bool] = visible_to
"""The engine's answer (``engine.visibility.visible_to``), that very function: the fan-out
asks it for every subscriber of every published event, and a call of ours around it cost
as much as the question (issue 17)."""


who_may_see: Callable[[Event], frozenset[str] | None] = readers
"""The users ``may_see`` admits to an event, None for everyone (``engine.visibility.readers``):
the broker looks at their subscribers alone, and still asks ``may_see`` of each."""


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
    found: Iterable[tuple[int, Event]] = events.of(kinds) if isinstance(events, Events) else events
    return [(seq, e) for seq, e in found if isinstance(e, kinds) and readable(state, e, viewer)]


def visible(events: Iterable[tuple[int, Event]], viewer: str | None,
            kinds: type[E] | tuple[type[E], ...]) -> list[tuple[int, E]]:
    """The events of ``kinds`` the viewer may see, in order. From the event index, only
    the events of those classes are looked at (``Events.of``), not the game's history."""
    if isinstance(events, Events):
        events = events.of(kinds)
    return [(seq, e) for seq, e in events if isinstance(e, kinds) and may_see(e, viewer)]


def visible_json(events: Iterable[tuple[int, Event]], viewer: str | None,
                 kinds: type[Event] | tuple[type[Event], ...]) -> list[dict[str, Any]]:
    """``visible`` as client JSON, each with its ``seq``."""
    return [event_json(e) | {"seq": seq} for seq, e in visible(events, viewer, kinds)]


def stream_item(game_id: str, position: int, event: Event, viewer: str | None = None,
                content: str | None = None) -> Payload:
    """One event of a viewer's stream: ``{game, seq, event}``, where ``seq`` is the
    viewer's own position. ``content`` is what the event shows on a page, rendered once
    for its audience (a message's ``<li>``, issue 17): it rides in the frame only for a
    viewer who may see the event, like every other byte of it."""
    return audience_item(game_id, event, content if may_see(event, viewer) else None) | {"seq": position}


def audience_item(game_id: str, event: Event, content: str | None = None) -> Payload:
    """``stream_item`` as every viewer who may see ``event`` gets it, but for his ``seq``
    (0 here; his position replaces it): nothing else in the item depends on the viewer, so
    the socket encodes it once per event and content (issue 17: ``web.ws.content.Frames``).
    Only for a viewer ``may_see`` admits: this function does not ask."""
    item: Payload = {"game": game_id, "seq": 0, "event": event_json(event)}
    if content is not None:
        item["html"] = content
    return item
