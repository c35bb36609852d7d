"""Engine commands as clients send them: the JSON shape ``store.codec`` gives them.

The web builds its command API from ``COMMAND_TYPES`` and decodes each request body with
``decode_command``; the actor always comes from the session, never from the body.
"""

from __future__ import annotations

from typing import Any

from ..engine.commands import Command
from ..store import codec

COMMAND_TYPES: dict[str, type[Command]] = dict(codec.COMMAND_TYPES)


class CommandShapeError(ValueError):
    """A body that does not decode as the named command."""


def decode_command(name: str, actor: str, data: dict[str, Any]) -> Command:
    try:
        return codec.decode_command({codec.TYPE_KEY: name, **data, "actor": actor})
    except codec.CodecError as exc:
        raise CommandShapeError(str(exc)) from exc
