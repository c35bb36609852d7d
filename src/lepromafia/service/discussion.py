"""Public discussion under the posts (POST-1, POST-2): comments by post, as pages and the
API show them, and the one way in (the community registry ban first, then the engine).

A hidden comment keeps its place with the Procurator's reason and without its text. The
event log keeps the original (§9.1 p.4: the log is immutable); this read side is where
hiding takes effect, for every page, the API and the live regions.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import and_, select

from ..engine import events as ev
from ..engine import events_host as hev
from ..engine.commands import HideComment, PostComment
from ..engine.events import Event
from ..engine.visibility import visible_to
from ..store import codec, schema
from .accounts import AccountService
from .service import Ack, GameService

TYPES = ("CommentPosted", "CommentHidden")


@dataclass
class _Log:
    last_seq: int = 0
    events: list[tuple[int, Event]] = field(default_factory=list)


class Discussion:
    """Comments per game, read incrementally from the event log and kept in memory
    (keyed by the service, so several apps in one process stay apart)."""

    def __init__(self) -> None:
        self._logs: dict[tuple[int, str], _Log] = {}

    async def _events(self, service: GameService, game_id: str) -> list[tuple[int, Event]]:
        log = self._logs.setdefault((id(service), game_id), _Log())
        e = schema.events
        async with service.store.reading() as tx:
            rows = (await tx.conn.execute(
                select(e.c.seq, e.c.payload).where(and_(
                    e.c.game_id == game_id, e.c.seq > log.last_seq, e.c.type.in_(TYPES)))
                .order_by(e.c.seq))).all()
        for row in rows:
            if row.seq > log.last_seq:
                log.events.append((row.seq, codec.decode_event(codec.loads(row.payload))))
                log.last_seq = row.seq
        return log.events

    async def comments(self, service: GameService, game_id: str,
                       viewer: str | None) -> dict[str, list[dict[str, Any]]]:
        """post id -> its comments, oldest first, as ``viewer`` may see them."""
        events = [e for _seq, e in await self._events(service, game_id) if visible_to(e, viewer)]
        hidden = {e.comment: e for e in events if isinstance(e, hev.CommentHidden)}
        out: dict[str, list[dict[str, Any]]] = {}
        for e in events:
            if not isinstance(e, ev.CommentPosted):
                continue
            hide = hidden.get(e.comment)
            out.setdefault(e.post, []).append({
                "comment": e.comment, "post": e.post, "author": e.author, "at": e.at,
                "text": None if hide else e.text,
                "hidden": None if hide is None else {"by": hide.host, "reason": hide.reason,
                                                     "at": hide.at},
            })
        return out



DISCUSSION = Discussion()


async def post_comment(service: GameService, accounts: AccountService, game_id: str, user: str,
                       post: str, text: str, command_id: str) -> Ack:
    """PLAYER-7: a user banned in the community registry comments nowhere; the engine then
    checks this game's own sanctions and everything else (POST-1, POST-2)."""
    await accounts.check_not_banned(user)
    return await service.execute(game_id, PostComment(actor=user, post=post, text=text), command_id)


async def hide_comment(service: GameService, game_id: str, user: str, comment: int, reason: str,
                       command_id: str) -> Ack:
    return await service.execute(game_id, HideComment(actor=user, comment=comment, reason=reason),
                                 command_id)
