"""The two small requests of a live inbox page whose messages arrive pushed (issue 17).

- ``POST /games/{g}/inboxes/{i}/read`` {upto}: the read marker, batched by ``live.js``
  (at most once every few seconds while the inbox is on screen), ``upto`` being the
  viewer's stream position of the last message the page showed. Repeating it changes
  nothing, so it carries the page's CSRF token without consuming it.
- ``GET /games/{g}/inboxes/{i}/messages/{n}/edit``: the edit form of one's own message,
  fetched when its "Edit" is opened on a message that arrived pushed (a pushed item
  carries no viewer's form). The page without JavaScript renders the form in the thread.
"""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import Response
from pydantic import BaseModel, Field

from ...engine.rules.posts import edit_refusal
from ..deps import Lang, RequireUser, ReusableCsrfChecked, WebDep
from ..errors import WebError, WebErrorCode
from .common import game_or_404, load_game
from .render import render

router = APIRouter()


class ReadUpto(BaseModel):
    upto: int = Field(ge=1)
    """The viewer's stream position of the last message of this inbox his page shows."""


@router.post("/games/{game_id}/inboxes/{inbox_id:path}/read", include_in_schema=False,
             status_code=204, dependencies=[ReusableCsrfChecked])
async def read_upto(game_id: str, inbox_id: str, body: ReadUpto, web: WebDep, user: RequireUser) -> Response:
    with game_or_404(game_id):  # the game's one version read is mark_read_upto's
        moved = await web.queries.mark_read_upto(game_id, inbox_id, user.user_id, body.upto)
    if not moved:
        raise WebError(WebErrorCode.NOT_FOUND, what=inbox_id)
    return Response(status_code=204)


@router.get("/games/{game_id}/inboxes/{inbox_id:path}/messages/{number}/edit", include_in_schema=False)
async def edit_form(request: Request, game_id: str, inbox_id: str, number: int, web: WebDep,
                    user: RequireUser, lang: Lang) -> Response:
    game = await load_game(web, game_id)
    shown = await web.queries.message(game_id, inbox_id, user.user_id, number, game=game.current)
    if shown is None:
        raise WebError(WebErrorCode.NOT_FOUND, what=f"#{number}")
    refusal = edit_refusal(game.state, inbox_id, number, user.user_id, game.now)
    if refusal is not None:
        raise refusal
    ctx = {"game": game, "inbox": {"id": inbox_id}, "m": {"seq": number, "text": shown.text},
           "max_length": game.state.settings.message_max_length, "open_edit": True, "user": user.user_id}
    return render(request, "partials/edit_form.html", ctx, lang=lang)

