"""Public discussion under the posts (POST-1, POST-2): read a game's comments; comment.

``PostComment`` has its own endpoint, not the generic one, because the community registry
ban (PLAYER-7) is checked before the engine decides, as at sign-up.
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter
from pydantic import Field

from ...engine.seeds import MAX_COMMENT
from ...service.discussion import post_comment
from ..deps import CurrentUser, RequireUser, WebDep, access_game_for_action
from .games import ack_out, scoped
from .models import COMMAND_ID, ERRORS, AckOut, Body

router = APIRouter(tags=["discussion"], responses=ERRORS)


class CommentBody(Body):
    text: str = Field(max_length=MAX_COMMENT + 100)
    command_id: str = COMMAND_ID


@router.get("/games/{game_id}/comments")
async def comments(game_id: str, user: CurrentUser, web: WebDep) -> dict[str, list[dict[str, Any]]]:
    """Every post's comments, oldest first; a hidden one has ``text: null`` and the
    Procurator's reason under ``hidden``."""
    found = await web.queries.comments(game_id, user.user_id if user else None)  # unknown: 404
    return {post: [_json(c) for c in items] for post, items in found.items()}


@router.post("/games/{game_id}/posts/{post}/comments")
async def comment(game_id: str, post: str, body: CommentBody, user: RequireUser, web: WebDep) -> AckOut:
    """POST-1, POST-2: anyone in the community comments (``post`` = ``recruitment`` or ``day:<n>``)."""
    await access_game_for_action(web, user, game_id)
    ack = await post_comment(web.service, web.accounts, game_id, user.user_id, post, body.text,
                             scoped(user.user_id, body.command_id))
    return ack_out(ack)


def _json(c: dict[str, Any]) -> dict[str, Any]:
    hidden = c["hidden"]
    return c | {"at": c["at"].isoformat(),
                "hidden": None if hidden is None else hidden | {"at": hidden["at"].isoformat()}}
