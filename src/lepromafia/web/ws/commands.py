"""Engine commands on the socket (issue 17): ``command`` {id, game, name, args} → ``ack``.

A client that holds a socket sends its commands on it, as lila's clients send their moves
(``ClientOut.RoundMove`` → ``ClientIn.Ack``), instead of one HTTP request each: no request
line and headers to parse, no middleware chain, no CSRF token (the handshake's ``Origin``
check guards the socket: ``endpoint.origin_allowed``). Everything else is the route's:

- the same body model validates ``args`` (``api.commands.BODIES``) and the same function
  runs it (``api.commands.run_command``), so the engine decides and the answer is the
  route's ``AckOut``, as an ``ack`` frame carrying the command's ``id``;
- the session is resolved for every command, as for every request (the session cache, its
  expiry and a logout apply): a socket opened with a one-time ``?ticket=`` or without a
  session may read but not act;
- ``id`` is the command id, scoped to the user, so a client that resends a command after a
  reconnect gets the first answer and one effect;
- a refusal is an ``error`` frame with the command's ``id`` (and ``field`` when an argument
  caused it), in the socket's language.

A connection runs its commands one at a time, in the order sent: their acks come in that
order, and a client that sends faster than its commands commit waits on its own socket.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from pydantic import ValidationError

from ...service.accounts import SessionExpired
from ..api.commands import BODIES, run_command
from ..errors import WebError, WebErrorCode, describe, validation_detail
from .protocol import Command, ErrorMessage, ack_text

if TYPE_CHECKING:
    from .endpoint import Connection

log = logging.getLogger(__name__)


async def run(conn: Connection, msg: Command) -> None:
    """Run one ``command`` frame and answer it: ``ack`` or ``error``, both with its ``id``."""
    try:
        ack = await _run(conn, msg)
    except ValidationError as exc:
        errors = exc.errors()
        field = ".".join(str(x) for x in errors[0]["loc"]) if errors else ""
        error = WebError(WebErrorCode.BAD_JSON, detail=validation_detail(exc)[:200])
        await _refuse(conn, msg, error, field)
    except Exception as exc:  # every failure is answered; a bug is also logged
        if describe(exc) is None:
            log.exception("command %s on the socket failed", msg.name)
            exc = WebError(WebErrorCode.INTERNAL)
        await _refuse(conn, msg, exc)
    else:
        await conn.send_text(ack)


async def _run(conn: Connection, msg: Command) -> str:
    """The command run, and its ``ack`` frame's text."""
    user_id = await _user(conn)
    model = BODIES.get(msg.name)
    if model is None:
        raise WebError(WebErrorCode.UNKNOWN_COMMAND, command=msg.name)
    body = model.model_validate({**msg.args, "command_id": msg.id})
    out = await run_command(conn.web, user_id, msg.game, msg.name, body)
    return ack_text(msg.id, out.game_id, out.first_seq, out.last_seq, out.event_count)


async def _user(conn: Connection) -> str:
    """The socket's user, checked now as a request's would be (``deps.require_user``)."""
    try:
        user = await conn.web.accounts.resolve(conn.token)
    except SessionExpired:
        raise WebError(WebErrorCode.SESSION_EXPIRED) from None
    if user is None or user.user_id != conn.viewer:
        raise WebError(WebErrorCode.UNAUTHENTICATED)
    return user.user_id


async def _refuse(conn: Connection, msg: Command, exc: BaseException, field: str = "") -> None:
    info = describe(exc, conn.lang, field=field)
    assert info is not None
    await conn.refuse(ErrorMessage(code=info.code, message=info.message, game=msg.game, id=msg.id,
                                   field=info.field or None))
