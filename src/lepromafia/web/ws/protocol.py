"""The WebSocket protocol: JSON messages as discriminated unions on ``type``.

Client → server: ``subscribe`` {game, since_seq}, ``unsubscribe`` {game}, ``ping``.
Server → client: ``subscribed`` {game, version}, ``event`` {game, seq, payload},
``marker`` {game, seq} (an event this viewer may not see: the stream stays gapless),
``resync`` {game, since_seq, reason} (resubscribe from ``since_seq``; reload pages if
``reason`` is ``too_far_behind``), ``pong``, ``error`` {code, message}.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter


class _Msg(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Subscribe(_Msg):
    type: Literal["subscribe"]
    game: str = Field(min_length=1, max_length=120)
    since_seq: int = Field(default=0, ge=0)
    """The last seq the client has; 0 for everything."""


class Unsubscribe(_Msg):
    type: Literal["unsubscribe"]
    game: str = Field(min_length=1, max_length=120)


class Ping(_Msg):
    type: Literal["ping"]


ClientToServer = Annotated[Subscribe | Unsubscribe | Ping, Field(discriminator="type")]
client_message: TypeAdapter[Subscribe | Unsubscribe | Ping] = TypeAdapter(ClientToServer)


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


class MarkerMessage(_Msg):
    type: Literal["marker"] = "marker"
    game: str
    seq: int


class Resync(_Msg):
    type: Literal["resync"] = "resync"
    game: str
    since_seq: int
    reason: Literal["slow_client", "too_far_behind", "ahead_of_server"]


class Pong(_Msg):
    type: Literal["pong"] = "pong"


class ErrorMessage(_Msg):
    type: Literal["error"] = "error"
    code: str
    message: str
    game: str | None = None


ServerToClient = Annotated[
    Subscribed | EventMessage | MarkerMessage | Resync | Pong | ErrorMessage,
    Field(discriminator="type"),
]
server_message: TypeAdapter[Any] = TypeAdapter(ServerToClient)


def from_payload(payload: dict[str, Any]) -> EventMessage | MarkerMessage:
    """A payload of ``service.outbound.payload_for`` (``{"game", "seq", "event"?}``),
    already filtered for the viewer, as a message."""
    event = payload.get("event")
    if event is None:
        return MarkerMessage(game=payload["game"], seq=payload["seq"])
    return EventMessage(game=payload["game"], seq=payload["seq"], payload=event)
