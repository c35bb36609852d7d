"""Public discussion under the posts (POST-1, POST-2): comments by post, as pages and the
API show them, and the one way in (the community registry ban first, then the engine).

A hidden comment keeps its place with the Procurator's reason and without its text. The
event log keeps the original (§9.1 p.4: the log is immutable); this read side is where
hiding takes effect, for every page, the API and the live regions.
"""

from __future__ import annotations

from typing import Any

from ..engine import events as ev
from ..engine import events_host as hev
from ..engine.commands import HideComment, PostComment
from .accounts import AccountService
from .event_index import Indexed
from .outbound import visible
from .service import Ack, GameService


def comments_of(events: Indexed, viewer: str | None) -> dict[str, list[dict[str, Any]]]:
    """post id -> its comments, oldest first, as ``viewer`` may see them (the game's events
    come from the one ``EventIndex``: ``GameQueries.comments``)."""
    seen = visible(events, viewer, (ev.CommentPosted, hev.CommentHidden))
    hidden = {e.comment: e for _s, e in seen if isinstance(e, hev.CommentHidden)}
    out: dict[str, list[dict[str, Any]]] = {}
    for _s, e in seen:
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
