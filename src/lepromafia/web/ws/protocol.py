"""The WebSocket protocol: JSON messages as discriminated unions on ``type``.

Client → server: ``subscribe`` {game, since_seq}, ``unsubscribe`` {game}, ``ping``,
``read`` {game, inbox, upto} (the page's read marker: ``web.ws.reads``; no answer unless
refused), ``view`` {game, inboxes, visible} (the threads the page shows: while it is
visible, each of their messages delivered on the socket is read; no answer), and
``command`` {id, game, name, args} (an engine command, as ``POST
/api/games/{game}/commands/{name}`` with body ``args`` and ``command_id`` ``id``:
``web.ws.commands``).
Server → client: ``subscribed`` {game, version}, ``event`` {game, seq, payload, html?},
``resync`` {game, since_seq, reason} (resubscribe from ``since_seq``; reload pages if
``reason`` is ``too_far_behind``), ``pong``, ``ack`` {id, game, first_seq, last_seq,
event_count} (a command's acknowledgement, as the route's ``AckOut``), ``error`` {code,
message, game?, id?, field?} (``id``: the refused command's), and, for a socket opened
with ``?unread=1``, ``unread`` {count} (the signed-in viewer's unread notifications,
whenever they change: issue 13).

Every ``seq``, ``since_seq`` and ``version`` is a position in the viewer's *own* stream
(``service.streams``): his events are numbered 1, 2, 3, … by what he may see, so a gap in
his numbering is a gap in what he received, and an event he may not see reaches him in
no form (no marker, no frame, no jump in the numbers).
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

import orjson
from pydantic import BaseModel, ConfigDict, Field, TypeAdapter

from ..api.models import COMMAND_ID

GAME_ID = Field(min_length=1, max_length=120)


class _Msg(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Subscribe(_Msg):
    type: Literal["subscribe"]
    game: str = GAME_ID
    since_seq: int = Field(default=0, ge=0)
    """The viewer's position: the last ``seq`` he received; 0 for everything."""


class Unsubscribe(_Msg):
    type: Literal["unsubscribe"]
    game: str = GAME_ID


class Ping(_Msg):
    type: Literal["ping"]


class ReadReport(_Msg):
    """The viewer's page has shown his messages of ``inbox`` up to his stream position
    ``upto`` (live.js's read marker, issue 17: the same report as ``POST …/read``)."""

    type: Literal["read"]
    game: str = GAME_ID
    inbox: str = Field(min_length=1, max_length=200)
    upto: int = Field(ge=1, le=2**31 - 1)


class View(_Msg):
    """The inboxes whose threads the socket's page shows, and whether the page is on screen
    (``live.js``, issue 17). While ``visible``, a message of those inboxes delivered on this
    socket moves the viewer's read marker as the page's own report would, with no report:
    what the page shows while it is on screen is read (``Connection.view``)."""

    type: Literal["view"]
    game: str = GAME_ID
    inboxes: list[Annotated[str, Field(min_length=1, max_length=200)]] = Field(
        default_factory=list, max_length=16)
    visible: bool = True


class Command(_Msg):
    """An engine command of the socket's signed-in user (lila's move on the socket)."""

    type: Literal["command"]
    id: str = COMMAND_ID
    game: str = GAME_ID
    name: str = Field(min_length=1, max_length=80)
    args: dict[str, Any] = Field(default_factory=dict)
    """The command's fields, as the route's JSON body without ``command_id``."""


GAME_REF: TypeAdapter[str] = TypeAdapter(Annotated[str, GAME_ID])
COMMAND_REF: TypeAdapter[str] = TypeAdapter(Annotated[str, COMMAND_ID])
"""A ``command`` frame's ``game`` and ``id`` alone, as ``Command`` takes them: a frame
refused as a whole still names them where they are valid (``endpoint._named``)."""

ClientMessage = Subscribe | Unsubscribe | Ping | ReadReport | View | Command
ClientToServer = Annotated[ClientMessage, Field(discriminator="type")]
client_message: TypeAdapter[ClientMessage] = TypeAdapter(ClientToServer)


class Subscribed(_Msg):
    type: Literal["subscribed"] = "subscribed"
    game: str
    version: int


class EventMessage(_Msg):
    type: Literal["event"] = "event"
    game: str
    seq: int
    payload: dict[str, Any]
    """The event as ``service.outbound`` lets this viewer receive it."""
    html: str | None = None
    """What the event shows on a page, rendered once per audience and language (a new or
    edited message's ``<li>``: ``web.ws.content``); ``live.js`` inserts it instead of
    re-fetching the region."""


class Resync(_Msg):
    type: Literal["resync"] = "resync"
    game: str
    since_seq: int
    reason: Literal["slow_client", "too_far_behind", "ahead_of_server"]


class Pong(_Msg):
    type: Literal["pong"] = "pong"


class Unread(_Msg):
    type: Literal["unread"] = "unread"
    count: int


class Ack(_Msg):
    type: Literal["ack"] = "ack"
    id: str
    game: str
    first_seq: int
    last_seq: int
    event_count: int


class ErrorMessage(_Msg):
    type: Literal["error"] = "error"
    code: str
    message: str
    game: str | None = None
    id: str | None = None
    """The refused command's ``id``."""
    field: str | None = None
    """The command's argument that caused it, when known (a form shows the message there)."""


ServerToClient = Annotated[
    Subscribed | EventMessage | Resync | Pong | Ack | ErrorMessage | Unread,
    Field(discriminator="type"),
]
server_message: TypeAdapter[Any] = TypeAdapter(ServerToClient)


def from_payload(payload: dict[str, Any]) -> EventMessage:
    """A stream item of ``service.outbound.stream_item`` (``{"game", "seq", "event"}``),
    already filtered and numbered for the viewer, as a message."""
    return EventMessage(game=payload["game"], seq=payload["seq"], payload=payload["event"],
                        html=payload.get("html"))


def event_text(payload: dict[str, Any]) -> str:
    """``from_payload(payload).model_dump_json()`` byte for byte, without the model: its
    fields in its order, encoded by orjson (issue 17: the socket encodes each event once,
    and the model and its dump were four fifths of that; ``tests/web/test_ws_frames.py``).
    A value orjson refuses (an integer beyond 64 bits) takes the model's way."""
    try:
        return orjson.dumps({"type": "event", "game": payload["game"], "seq": payload["seq"],
                             "payload": payload["event"], "html": payload.get("html")}).decode()
    except orjson.JSONEncodeError:
        return from_payload(payload).model_dump_json()


def ack_text(command_id: str, game: str, first_seq: int, last_seq: int, event_count: int) -> str:
    """``Ack(id=command_id, ...).model_dump_json()`` byte for byte, without the model: a
    command's answer on the socket, written for every command (issue 17: 2.5 → 0.3 µs;
    ``tests/web/test_ws_frames.py``)."""
    return orjson.dumps({"type": "ack", "id": command_id, "game": game, "first_seq": first_seq,
                         "last_seq": last_seq, "event_count": event_count}).decode()
